//! What an exercise crate may hold (like rustlings' check for unexpected files):
//! its manifest, its crate root (`src/lib.rs`, which names the learner's files and
//! compiles the given ones from the solution with `#[path]`), the stage's edit
//! files, and files identical to their solution twin. Anything else is given code
//! copied by hand, which nothing would keep equal to the model answer.

use std::path::{Path, PathBuf};

use crate::commands::walk;

/// The files of an exercise crate that may differ from the solution's.
const CRATE_FILES: [&str; 2] = ["Cargo.toml", "src/lib.rs"];

/// A file of an exercise crate that should not be there, and its solution twin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unexpected {
    /// The file, relative to the workbook's root.
    pub file: String,
    /// The solution's file of the same name, relative to the root.
    pub twin: String,
    /// Whether the twin exists (and differs), or there is none.
    pub twin_exists: bool,
}

impl Unexpected {
    /// What is wrong, and the fix, in one sentence.
    pub fn message(&self, stage: u32) -> String {
        let what = if self.twin_exists {
            format!("{} differs from {}", self.file, self.twin)
        } else {
            format!("{} has no twin in the solution ({})", self.file, self.twin)
        };
        format!(
            "{what}, and stage {stage}'s `edit` in stages.toml does not list it: \
             list it there if the learner writes it; if it is given code, keep it \
             once in the solution and compile it into the exercise with \
             `#[path = \"...\"]` in src/lib.rs (or copy the solution's file as it is)"
        )
    }
}

/// The files of the exercise crate in `exercise` that are neither allowed to
/// differ (manifest, crate root, `edit`) nor byte-identical to their twin in
/// `solution`. Paths in `edit` and in the answer are relative to `root`.
pub fn unexpected_files(
    root: &Path,
    exercise: &Path,
    solution: &Path,
    edit: &[String],
) -> Vec<Unexpected> {
    let mut files = Vec::new();
    walk(exercise, &mut files);
    files.sort();
    let shown = |path: &Path| -> String {
        path.strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    };
    files
        .into_iter()
        .filter_map(|file| {
            let inside = file.strip_prefix(exercise).ok()?.to_owned();
            let name = shown(&file);
            if CRATE_FILES.iter().any(|f| inside == Path::new(f)) || edit.contains(&name) {
                return None;
            }
            let twin: PathBuf = solution.join(&inside);
            let twin_text = std::fs::read(&twin).ok();
            if twin_text.is_some() && twin_text == std::fs::read(&file).ok() {
                return None;
            }
            Some(Unexpected {
                file: name,
                twin: shown(&twin),
                twin_exists: twin_text.is_some(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the folder");
        std::fs::write(path, text).expect("write the file");
    }

    #[test]
    fn only_files_that_are_neither_edited_nor_the_solutions_own_are_unexpected() {
        let root = std::env::temp_dir().join(format!("exercise-files-{}", std::process::id()));
        let exercise = root.join("exercises/stage1");
        let solution = root.join("solutions/stage1");
        for (dir, lib) in [(&exercise, "mod a;"), (&solution, "mod a; mod b;")] {
            write(&dir.join("Cargo.toml"), &format!("# {}", dir.display()));
            write(&dir.join("src/lib.rs"), lib);
        }
        write(&exercise.join("src/a.rs"), "todo!()");
        write(&solution.join("src/a.rs"), "the answer");
        write(&exercise.join("src/same.rs"), "given");
        write(&solution.join("src/same.rs"), "given");
        write(&exercise.join("src/copied.rs"), "an old copy");
        write(
            &solution.join("src/copied.rs"),
            "the given code, since changed",
        );
        write(&exercise.join("migrations/stray.sql"), "SELECT 1;");
        write(&exercise.join("target/debug/x.rs"), "built");

        let found = unexpected_files(
            &root,
            &exercise,
            &solution,
            &["exercises/stage1/src/a.rs".to_owned()],
        );
        std::fs::remove_dir_all(&root).expect("remove the temporary tree");

        let files: Vec<&str> = found.iter().map(|u| u.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "exercises/stage1/migrations/stray.sql",
                "exercises/stage1/src/copied.rs"
            ],
            "the manifest, the crate root, an edit file, an identical copy and target/ \
             are expected; a copy that drifted and a file with no twin are not"
        );
        assert!(!found[0].twin_exists, "stray.sql has no twin");
        let message = found[1].message(1);
        assert!(
            message.contains(
                "exercises/stage1/src/copied.rs differs from solutions/stage1/src/copied.rs"
            ) && message.contains("#[path"),
            "the message names the file, its twin and the fix: {message}"
        );
    }
}
