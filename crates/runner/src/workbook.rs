//! Where the workbook is: its root (where cargo and git run), its stages file,
//! and the learner's state directory (`.workbook/`, ignored by git).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::stages::{self, Stage};

#[derive(Debug, Clone)]
pub struct Workbook {
    pub root: PathBuf,
    pub stages_file: PathBuf,
    pub state_dir: PathBuf,
    pub stages: Vec<Stage>,
}

/// What the command line and the environment said.
#[derive(Debug, Clone, Default)]
pub struct Locations {
    pub root: Option<PathBuf>,
    pub stages: Option<PathBuf>,
    pub state: Option<PathBuf>,
}

impl Workbook {
    pub fn open(given: &Locations) -> Result<Self, Error> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let root = match &given.root {
            Some(root) => absolute(&cwd, root),
            None => find_root(&cwd).ok_or_else(|| Error::NoRoot(cwd.clone()))?,
        };
        let stages_file = match &given.stages {
            Some(file) => absolute(&cwd, file),
            None => root.join("stages.toml"),
        };
        let state_dir = match &given.state {
            Some(dir) => absolute(&cwd, dir),
            None => root.join(".workbook"),
        };
        let stages = stages::load(&stages_file)?;
        Ok(Self {
            root,
            stages_file,
            state_dir,
            stages,
        })
    }

    pub fn stage(&self, number: u32) -> Result<&Stage, Error> {
        self.stages
            .iter()
            .find(|s| s.number == number)
            .ok_or_else(|| Error::NoStage {
                number,
                available: self.available(),
            })
    }

    /// The stage after `number`, if any.
    pub fn next_stage(&self, number: u32) -> Option<&Stage> {
        self.stages.iter().find(|s| s.number > number)
    }

    fn available(&self) -> String {
        match (self.stages.first(), self.stages.last()) {
            (Some(first), Some(last)) if first.number == last.number => {
                format!(
                    "{} has only stage {}",
                    self.stages_file.display(),
                    first.number
                )
            }
            (Some(first), Some(last)) => format!(
                "{} has stages {} to {}",
                self.stages_file.display(),
                first.number,
                last.number
            ),
            _ => format!("{} has no stages", self.stages_file.display()),
        }
    }

    /// A path inside the workbook, as the learner sees it from the root.
    pub fn shown(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path)
    }
}

/// The nearest folder, from `start` up, with both `stages.toml` and `Cargo.toml`;
/// failing that, the workbook this runner was built from.
fn find_root(start: &Path) -> Option<PathBuf> {
    let is_root =
        |dir: &Path| dir.join("stages.toml").is_file() && dir.join("Cargo.toml").is_file();
    if let Some(dir) = start.ancestors().find(|d| is_root(d)) {
        return Some(dir.to_owned());
    }
    let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    is_root(&built_from).then(|| built_from.canonicalize().unwrap_or(built_from))
}
