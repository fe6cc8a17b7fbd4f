//! Where the workbook is: its root (where cargo and git run), its stages file,
//! and the learner's state directory (`.workbook/`, ignored by git).

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::stages::{self, Stage};
use crate::twins;
use l10n::t;
use l10n::{Lang, Localiser};

#[derive(Debug, Clone)]
pub struct Workbook {
    pub root: PathBuf,
    pub stages_file: PathBuf,
    pub state_dir: PathBuf,
    /// The stages, their texts in the learner's language (the twin's, where it
    /// has them).
    pub stages: Vec<Stage>,
    /// The learner's language.
    pub l10n: Localiser,
}

/// What the command line and the environment said.
#[derive(Debug, Clone, Default)]
pub struct Locations {
    pub root: Option<PathBuf>,
    pub stages: Option<PathBuf>,
    pub state: Option<PathBuf>,
}

impl Workbook {
    pub fn open(given: &Locations, l10n: Localiser) -> Result<Self, Error> {
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
        let mut stages = stages::load(&stages_file)?;
        if l10n.lang() != Lang::English
            && let Some(twin) = twins::load(&stages_file, l10n.lang())?
        {
            twins::apply(&mut stages, &twin);
        }
        if l10n.lang() == Lang::Pseudo {
            twins::pseudo(&mut stages);
        }
        Ok(Self {
            root,
            stages_file,
            state_dir,
            stages,
            l10n,
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
        let l = &self.l10n;
        let file = self.stages_file.display().to_string();
        match (self.stages.first(), self.stages.last()) {
            (Some(first), Some(last)) if first.number == last.number => {
                t!(l, "stages-only-one", file = file, number = first.number)
            }
            (Some(first), Some(last)) => t!(
                l,
                "stages-from-to",
                file = file,
                first = first.number,
                last = last.number
            ),
            _ => t!(l, "stages-none", file = file),
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
