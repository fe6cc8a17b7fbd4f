//! The learner's state, as JSON under `.workbook/`:
//!
//! - `progress.json`: stages done, and how each prediction turned out;
//! - `stage-N/answers.json`: the predictions given before stage N ran;
//! - `stage-N/hints.json`: how many of stage N's hints were shown;
//! - `stage-N/observations.jsonl`: what the last run of stage N recorded (the
//!   bursts' traces included);
//! - `stage-N/timeline.json`: which burst's timeline that run showed;
//! - `stage-N/observed-by-PACKAGE.json`: the figures another package's tests
//!   recorded for stage N's predictions, while its executables are unchanged;
//! - `runs/`: the observation files of runs in progress (a run's file goes when
//!   the run does; those of runs that died are swept by the next run);
//! - `flaky/<started>-<pid>/`: the whole output of each run `flaky` counted as
//!   bad, one file per run, kept for the maintainer to read;
//! - `executables.json`: the test executable each stage's last build produced;
//! - `review.json`: the reviews of `cargo workbook review`, and their points;
//! - `.lock`: held while a file is written, so that runs at once (two terminals,
//!   `watch` and `stage`) never lose each other's updates.
//!
//! Nothing else reads or writes under `.workbook/`. Every write goes through a
//! temporary file renamed into place, under the lock; a file that cannot be read
//! (not UTF-8, not JSON) is an error naming it and the way out.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::cargo::Executable;
use crate::error::Error;
use crate::observations::Observations;

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

    /// Changes the progress file in one read-modify-write, under the lock: runs
    /// at once each add their own.
    pub fn update_progress(&self, change: impl FnOnce(&mut Progress)) -> Result<Progress, Error> {
        let _lock = self.lock()?;
        let mut progress = self.progress()?;
        change(&mut progress);
        write_json(&self.progress_file(), &progress)?;
        Ok(progress)
    }

    /// Counts a run of stage `number`: the first judgement of each prediction is
    /// kept (that is when it was made), and the stage is done once a run passed.
    pub fn record_run(
        &self,
        number: u32,
        passed: bool,
        results: &BTreeMap<String, PredictionResult>,
    ) -> Result<Progress, Error> {
        self.update_progress(|p| {
            let entry = p.stages.entry(number).or_default();
            entry.runs += 1;
            for (id, result) in results {
                entry
                    .predictions
                    .entry(id.clone())
                    .or_insert_with(|| result.clone());
            }
            if passed && !entry.done {
                entry.done = true;
                entry.done_at = Some(now());
            }
        })
    }

    /// Whether every file a run of stage `number` reads and writes can be read:
    /// checked before the tests run, so that their result is never lost to it.
    pub fn check_readable(&self, number: u32) -> Result<(), Error> {
        self.progress()?;
        self.answers(number)?;
        self.hints(number)?;
        Ok(())
    }

    pub fn answers(&self, number: u32) -> Result<Answers, Error> {
        read_json(&self.stage_dir(number).join("answers.json"))
    }

    pub fn save_answers(&self, number: u32, answers: &Answers) -> Result<(), Error> {
        let _lock = self.lock()?;
        write_json(&self.stage_dir(number).join("answers.json"), answers)
    }

    pub fn hints(&self, number: u32) -> Result<Hints, Error> {
        read_json(&self.stage_dir(number).join("hints.json"))
    }

    /// Changes stage `number`'s hints file in one read-modify-write, under the lock.
    pub fn update_hints(
        &self,
        number: u32,
        change: impl FnOnce(&mut Hints),
    ) -> Result<Hints, Error> {
        let _lock = self.lock()?;
        let file = self.stage_dir(number).join("hints.json");
        let mut hints: Hints = read_json(&file)?;
        change(&mut hints);
        write_json(&file, &hints)?;
        Ok(hints)
    }

    /// `review.json`, in the shape the capstone gives it (`review::Reviews`).
    pub fn reviews<R: DeserializeOwned + Default>(&self) -> Result<R, Error> {
        read_json(&self.dir.join("review.json"))
    }

    pub fn save_reviews(&self, reviews: &impl Serialize) -> Result<(), Error> {
        let _lock = self.lock()?;
        write_json(&self.dir.join("review.json"), reviews)
    }

    fn executables_file(&self) -> PathBuf {
        self.dir.join("executables.json")
    }

    /// The executable the last build of `package`'s test `target` produced.
    pub fn remembered_executable(&self, package: &str, target: &str) -> Option<Executable> {
        let mut all: Remembered = read_json(&self.executables_file()).ok()?;
        all.remove(&format!("{package}/{target}"))
    }

    /// Remembers `exe` as its test target's last build (best effort: it only
    /// saves time).
    pub fn remember_executable(&self, exe: &Executable) {
        let Ok(_lock) = self.lock() else { return };
        let file = self.executables_file();
        let mut all: Remembered = read_json(&file).unwrap_or_default();
        let key = format!("{}/{}", exe.package, exe.target);
        if all.get(&key) != Some(exe) {
            all.insert(key, exe.clone());
            let _ = write_json(&file, &all);
        }
    }

    fn observed_by_file(&self, number: u32, package: &str) -> PathBuf {
        self.stage_dir(number)
            .join(format!("observed-by-{package}.json"))
    }

    /// What `package`'s tests recorded when its executables were `key`.
    pub fn observed_by(&self, number: u32, package: &str, key: &str) -> Option<Observations> {
        if key.is_empty() {
            return None;
        }
        let value: Value = read_json(&self.observed_by_file(number, package)).ok()?;
        if value["key"].as_str()? != key {
            return None;
        }
        Some(Observations::parse(value["lines"].as_str()?))
    }

    /// Keeps what `package`'s tests recorded, for as long as its executables are `key`.
    pub fn save_observed_by(
        &self,
        number: u32,
        package: &str,
        key: &str,
        observations: &Observations,
    ) {
        let lines: Vec<String> = observations
            .lines
            .iter()
            .map(|l| Value::Object(l.clone()).to_string())
            .collect();
        let value = serde_json::json!({ "key": key, "lines": lines.join("\n") });
        let Ok(_lock) = self.lock() else { return };
        let _ = write_json(&self.observed_by_file(number, package), &value);
    }

    /// A fresh, empty file for one run's observations, removed when the returned
    /// guard is dropped (unless kept). The files of runs that died are swept first.
    pub fn run_file(&self, label: &str) -> Result<RunFile, Error> {
        let dir = self.dir.join("runs");
        create_dir(&dir)?;
        sweep_dead_runs(&dir);
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let path = dir.join(format!(
            "{label}-{}-{}-{}.jsonl",
            std::process::id(),
            now(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, "").map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
        Ok(RunFile { path })
    }

    /// A directory of its own for one `flaky` session's bad runs (made when the
    /// first one is kept).
    pub fn flaky_dir(&self) -> PathBuf {
        self.dir
            .join("flaky")
            .join(format!("{}-{}", now(), std::process::id()))
    }

    /// Writes `text` as `name` in `dir` (a [`State::flaky_dir`]) and says where.
    pub fn keep_run_output(&self, dir: &Path, name: &str, text: &str) -> Result<PathBuf, Error> {
        create_dir(dir)?;
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Remembers that the last run of stage `number` showed the timeline of the
    /// burst `trace` (best effort: `cargo workbook timeline` shows it again).
    pub fn remember_timeline(&self, number: u32, trace: &str) {
        let Ok(_lock) = self.lock() else { return };
        let file = self.stage_dir(number).join("timeline.json");
        let _ = write_json(&file, &serde_json::json!({ "shown": trace }));
    }

    /// The burst the last run of stage `number` showed, if it showed one.
    pub fn shown_timeline(&self, number: u32) -> Option<String> {
        let value: Value = read_json(&self.stage_dir(number).join("timeline.json")).ok()?;
        value["shown"].as_str().map(str::to_owned)
    }

    /// The observations file of stage `number`'s last run.
    pub fn last_observations(&self, number: u32) -> PathBuf {
        self.stage_dir(number).join("observations.jsonl")
    }

    /// The stage whose tests ran last, by its kept observations.
    pub fn last_run_stage(&self) -> Option<u32> {
        std::fs::read_dir(&self.dir)
            .ok()?
            .flatten()
            .filter_map(|entry| {
                let number = entry
                    .file_name()
                    .to_str()?
                    .strip_prefix("stage-")?
                    .parse::<u32>()
                    .ok()?;
                let modified = self
                    .last_observations(number)
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()?;
                Some((modified, number))
            })
            .max()
            .map(|(_, number)| number)
    }

    /// Keeps a run's observations as the stage's last ones.
    pub fn keep_observations(&self, number: u32, run: RunFile) -> Result<(), Error> {
        create_dir(&self.stage_dir(number))?;
        let kept = self.last_observations(number);
        let result = std::fs::rename(&run.path, &kept);
        result.map_err(|source| Error::Write { path: kept, source })
    }

    /// Forgets everything about stage `number`.
    pub fn forget(&self, number: u32) -> Result<(), Error> {
        let dir = self.stage_dir(number);
        {
            let _lock = self.lock()?;
            if dir.exists() {
                std::fs::remove_dir_all(&dir)
                    .map_err(|source| Error::Write { path: dir, source })?;
            }
        }
        self.update_progress(|p| {
            p.stages.remove(&number);
        })?;
        Ok(())
    }

    /// The state directory's lock, held until the guard is dropped.
    fn lock(&self) -> Result<File, Error> {
        create_dir(&self.dir)?;
        let path = self.dir.join(".lock");
        let failed = |source| Error::Write {
            path: path.clone(),
            source,
        };
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(failed)?;
        file.lock().map_err(failed)?;
        Ok(file)
    }
}

/// The executables of single test targets the last builds produced, by
/// `package/target`.
type Remembered = BTreeMap<String, Executable>;

/// One run's observations file: removed when dropped, unless kept
/// ([`State::keep_observations`]).
#[derive(Debug)]
pub struct RunFile {
    path: PathBuf,
}

impl RunFile {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RunFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes the run files of processes that are gone (a run killed, or stopped
/// by Ctrl-C). Where there is no `/proc` to ask, files older than a day go.
fn sweep_dead_runs(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let proc = Path::new("/proc/self").exists();
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(pid) = run_file_pid(&path) else {
            continue;
        };
        let dead = if proc {
            pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() > 24 * 60 * 60)
        };
        if dead {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// The pid in a run file's name, `LABEL-PID-SECS-N.jsonl`.
fn run_file_pid(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let mut parts = name.rsplitn(4, '-');
    let (_n, _secs, pid) = (parts.next()?, parts.next()?, parts.next()?);
    parts.next()?;
    pid.parse().ok()
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
    let unreadable = |why: String| Error::StateUnreadable {
        path: path.to_owned(),
        why,
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(T::default()),
        Err(source) => {
            return Err(Error::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let text = String::from_utf8(bytes).map_err(|e| unreadable(format!("not UTF-8: {e}")))?;
    if text.trim().is_empty() {
        return Ok(T::default());
    }
    serde_json::from_str(&text).map_err(|e| unreadable(format!("invalid JSON: {e}")))
}

/// Writes through a temporary file renamed into place, so that a reader never
/// sees half a file. Callers hold the state's lock.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), Error> {
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    if let Some(dir) = path.parent() {
        create_dir(dir)?;
    }
    let failed = |source| Error::Write {
        path: path.to_owned(),
        source,
    };
    let text = serde_json::to_string_pretty(value).map_err(|e| failed(std::io::Error::other(e)))?;
    let tmp = path.with_extension(format!(
        "tmp{}-{}",
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, format!("{text}\n"))
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            failed(e)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> State {
        let dir = std::env::temp_dir().join(format!("runner-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        State::new(&dir)
    }

    #[test]
    fn concurrent_progress_updates_are_all_kept() {
        let state = scratch("concurrent");
        const N: u32 = 16;
        std::thread::scope(|scope| {
            for _ in 0..N {
                scope.spawn(|| {
                    state
                        .update_progress(|p| p.stages.entry(3).or_default().runs += 1)
                        .expect("the update is written");
                });
            }
        });
        let runs = state.progress().expect("readable").stages[&3].runs;
        assert_eq!(runs, N, "{N} updates at once: runs grows by {N}, not less");
        let _ = std::fs::remove_dir_all(&state.dir);
    }

    #[test]
    fn unreadable_state_names_the_file_and_the_way_out() {
        let state = scratch("unreadable");
        let cases: [(&str, &[u8], &str); 3] = [
            ("progress.json", b"{ not json", "invalid JSON"),
            ("stage-2/hints.json", b"\xff\xfe{}", "not UTF-8"),
            ("stage-2/answers.json", b"[1, 2]", "invalid JSON"),
        ];
        for (file, bytes, why) in cases {
            let path = state.dir.join(file);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("the directory");
            std::fs::write(&path, bytes).expect("the broken file");
            let error = state
                .check_readable(2)
                .expect_err("a broken file is an error")
                .to_string();
            assert!(error.contains(&path.display().to_string()), "{error}");
            assert!(error.contains(why), "{error}");
            assert!(error.contains("delete it"), "the way out: {error}");
            std::fs::remove_file(&path).expect("removed");
        }
        state
            .check_readable(2)
            .expect("missing files are empty state");
        let _ = std::fs::remove_dir_all(&state.dir);
    }

    #[test]
    fn a_run_file_goes_with_its_run_unless_kept_and_dead_runs_are_swept() {
        let state = scratch("runs");
        let run = state.run_file("stage-3").expect("a run file");
        let path = run.path().to_owned();
        assert!(path.is_file());
        assert_eq!(run_file_pid(&path), Some(std::process::id()));
        drop(run);
        assert!(!path.exists(), "dropped, the file goes");

        let run = state.run_file("stage-3").expect("a run file");
        state.keep_observations(3, run).expect("kept");
        assert!(state.stage_dir(3).join("observations.jsonl").is_file());

        // A run that died: a pid no process has.
        let dead = state.dir.join("runs/stage-3-4000000000-1-0.jsonl");
        std::fs::write(&dead, "").expect("a dead run's file");
        let alive = state.run_file("stage-3").expect("a run file");
        if Path::new("/proc/self").exists() {
            assert!(!dead.exists(), "the dead run's file is swept");
        }
        assert!(alive.path().is_file(), "a live run's file stays");
        let _ = std::fs::remove_dir_all(&state.dir);
    }
}
