//! The learner's state, as JSON under `.workbook/`:
//!
//! - `progress.json`: stages done, and how each prediction turned out;
//! - `stage-N/answers.json`: the predictions given before stage N ran;
//! - `stage-N/hints.json`: how many of stage N's hints were shown;
//! - `stage-N/observations.jsonl`: what the last run of stage N recorded;
//! - `runs/`: the observation files of runs in progress;
//! - `executables.json`: the test executable each stage's last build produced;
//! - `review.json`: the reviews of `just review`, and their points.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Error;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Progress {
    #[serde(default)]
    pub stages: BTreeMap<u32, StageProgress>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StageProgress {
    #[serde(default)]
    pub done: bool,
    #[serde(default)]
    pub done_at: Option<u64>,
    #[serde(default)]
    pub runs: u32,
    #[serde(default)]
    pub predictions: BTreeMap<String, PredictionResult>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PredictionResult {
    pub answer: String,
    pub observed: String,
    pub right: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Answers {
    #[serde(default)]
    pub answers: Vec<Answer>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Answer {
    pub id: String,
    pub question: String,
    pub answer: String,
    #[serde(default)]
    pub why: Option<String>,
    pub answered_at: u64,
}

impl Answers {
    pub fn get(&self, id: &str) -> Option<&Answer> {
        self.answers.iter().find(|a| a.id == id)
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Hints {
    #[serde(default)]
    pub shown: usize,
}

/// The state directory.
#[derive(Debug, Clone)]
pub struct State {
    pub dir: PathBuf,
}

impl State {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
        }
    }

    pub fn stage_dir(&self, number: u32) -> PathBuf {
        self.dir.join(format!("stage-{number}"))
    }

    fn progress_file(&self) -> PathBuf {
        self.dir.join("progress.json")
    }

    pub fn progress(&self) -> Result<Progress, Error> {
        read_json(&self.progress_file())
    }

    pub fn save_progress(&self, progress: &Progress) -> Result<(), Error> {
        write_json(&self.progress_file(), progress)
    }

    /// Changes the progress file in one read-modify-write.
    pub fn update_progress(&self, change: impl FnOnce(&mut Progress)) -> Result<Progress, Error> {
        let mut progress = self.progress()?;
        change(&mut progress);
        self.save_progress(&progress)?;
        Ok(progress)
    }

    pub fn answers(&self, number: u32) -> Result<Answers, Error> {
        read_json(&self.stage_dir(number).join("answers.json"))
    }

    pub fn save_answers(&self, number: u32, answers: &Answers) -> Result<(), Error> {
        write_json(&self.stage_dir(number).join("answers.json"), answers)
    }

    pub fn hints(&self, number: u32) -> Result<Hints, Error> {
        read_json(&self.stage_dir(number).join("hints.json"))
    }

    pub fn save_hints(&self, number: u32, hints: &Hints) -> Result<(), Error> {
        write_json(&self.stage_dir(number).join("hints.json"), hints)
    }

    /// A fresh, empty file for one run's observations.
    /// Which executable the last build of each stage's tests produced (see
    /// `run::build_and_run`).
    pub fn reviews(&self) -> Result<crate::review::Reviews, Error> {
        read_json(&self.dir.join("review.json"))
    }

    pub fn save_reviews(&self, reviews: &crate::review::Reviews) -> Result<(), Error> {
        write_json(&self.dir.join("review.json"), reviews)
    }

    pub fn executables_file(&self) -> PathBuf {
        self.dir.join("executables.json")
    }

    pub fn observations_file(&self, label: &str) -> Result<PathBuf, Error> {
        let dir = self.dir.join("runs");
        create_dir(&dir)?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = dir.join(format!(
            "{label}-{}-{}-{nanos}.jsonl",
            std::process::id(),
            now()
        ));
        std::fs::write(&path, "").map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Keeps a run's observations as the stage's last ones.
    pub fn keep_observations(&self, number: u32, run_file: &Path) -> Result<(), Error> {
        let dir = self.stage_dir(number);
        create_dir(&dir)?;
        let kept = dir.join("observations.jsonl");
        std::fs::rename(run_file, &kept).map_err(|source| Error::Write { path: kept, source })
    }

    /// Forgets everything about stage `number`.
    pub fn forget(&self, number: u32) -> Result<(), Error> {
        let dir = self.stage_dir(number);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|source| Error::Write { path: dir, source })?;
        }
        self.update_progress(|p| {
            p.stages.remove(&number);
        })?;
        Ok(())
    }
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        path: dir.to_owned(),
        source,
    })
}

fn read_json<T: DeserializeOwned + Default>(path: &Path) -> Result<T, Error> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(T::default()),
        Ok(text) => serde_json::from_str(&text).map_err(|source| Error::StateJson {
            path: path.to_owned(),
            source,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(source) => Err(Error::Read {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Writes through a temporary file, so that a reader never sees half a file.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), Error> {
    if let Some(dir) = path.parent() {
        create_dir(dir)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(|source| Error::StateJson {
        path: path.to_owned(),
        source,
    })?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, format!("{text}\n"))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|source| Error::Write {
            path: path.to_owned(),
            source,
        })
}
