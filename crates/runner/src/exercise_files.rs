//! What an exercise crate may hold (like rustlings' check for unexpected files):
//! its manifest, its crate root (`src/lib.rs`, which names the learner's files and
//! compiles the given ones from the solution with `#[path]`), the stage's edit
//! files, and files identical to their solution twin. Anything else is given code
//! copied by hand, which nothing would keep equal to the model answer.
//!
//! The crate root itself, when the learner does not edit it, holds only the
//! stage's wiring ([`pasted_code`]): a function or an impl pasted there would be
//! given code that no check keeps equal to the solution's, or the learner's answer
//! in a file the stage does not say to edit.

use std::path::{Path, PathBuf};

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::{Expr, Item, Lit, Token};

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

/// An item of an exercise's crate root that is not wiring: code that belongs in
/// an edit file, or in the solution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastedCode {
    /// The crate root, relative to the workbook's root.
    pub file: String,
    /// The line of the item's keyword (1-based); 0 when the file does not parse.
    pub line: usize,
    /// The item, as a sentence names it: "a function `create`".
    pub item: String,
}

impl PastedCode {
    /// Where, what is wrong, and the fix, in one sentence.
    pub fn message(&self, stage: u32, edit: &[String]) -> String {
        let place = if edit.is_empty() {
            "the stage's edit files".to_owned()
        } else {
            format!("an edit file ({})", edit.join(", "))
        };
        format!(
            "{}:{}: {} in the crate root, which stage {stage}'s `edit` does not list: it may \
             hold only the stage's wiring (`mod` declarations, `#[path]` lines, `use`, \
             constants naming files); if the learner writes it, move it into {place}; if it \
             is given code, keep it once in the solution and compile it in with \
             `#[path = \"...\"]`",
            self.file, self.line, self.item
        )
    }
}

/// The items of `exercise`'s `src/lib.rs` that are not the stage's wiring, unless
/// `edit` lists that file (then it is the learner's to fill). Wiring is: `mod NAME;`
/// (with `#[path]` or not), `use` and `extern crate`, and constants whose value
/// names or includes files (a one-line string, `include_str!`, `concat!` of those).
/// A missing crate root is left to the build check.
pub fn pasted_code(root: &Path, exercise: &Path, edit: &[String]) -> Vec<PastedCode> {
    let lib = exercise.join("src/lib.rs");
    let file = lib
        .strip_prefix(root)
        .unwrap_or(&lib)
        .to_string_lossy()
        .into_owned();
    if edit.contains(&file) {
        return Vec::new();
    }
    let Ok(text) = std::fs::read_to_string(&lib) else {
        return Vec::new();
    };
    let found = |line: usize, item: String| PastedCode {
        file: file.clone(),
        line,
        item,
    };
    match syn::parse_file(&text) {
        Ok(parsed) => parsed
            .items
            .iter()
            .filter_map(not_wiring)
            .map(|(span, item)| found(span.start().line, item))
            .collect(),
        Err(e) => vec![found(
            e.span().start().line,
            format!("Rust that does not parse ({e})"),
        )],
    }
}

/// `None` for an item of wiring; else where it starts and what it is.
fn not_wiring(item: &Item) -> Option<(Span, String)> {
    let named = |what: &str, ident: &syn::Ident| format!("{what} `{ident}`");
    Some(match item {
        Item::Mod(m) if m.content.is_none() => return None,
        Item::Use(_) | Item::ExternCrate(_) => return None,
        Item::Const(c) if names_files(&c.expr) => return None,
        Item::Mod(m) => (
            m.mod_token.span,
            named("a module with an inline body,", &m.ident),
        ),
        Item::Fn(f) => (f.sig.fn_token.span, named("a function", &f.sig.ident)),
        Item::Impl(i) => (i.impl_token.span, "an `impl` block".to_owned()),
        Item::Struct(s) => (s.struct_token.span, named("a struct", &s.ident)),
        Item::Enum(e) => (e.enum_token.span, named("an enum", &e.ident)),
        Item::Union(u) => (u.union_token.span, named("a union", &u.ident)),
        Item::Trait(t) => (t.trait_token.span, named("a trait", &t.ident)),
        Item::TraitAlias(t) => (t.trait_token.span, named("a trait alias", &t.ident)),
        Item::Type(t) => (t.type_token.span, named("a type alias", &t.ident)),
        Item::Static(s) => (s.static_token.span, named("a static", &s.ident)),
        Item::Const(c) => (
            c.const_token.span,
            named("a constant computed in place,", &c.ident),
        ),
        Item::Macro(m) => match &m.ident {
            Some(ident) => (m.mac.bang_token.span, named("a macro definition", ident)),
            None => (
                m.mac.bang_token.span,
                "a macro invocation (it expands to code)".to_owned(),
            ),
        },
        Item::ForeignMod(f) => (f.abi.extern_token.span, "an `extern` block".to_owned()),
        _ => (Span::call_site(), "an item of an unknown kind".to_owned()),
    })
}

/// Whether a constant's value only names or includes files: a string on one line
/// (a path), `include_str!`/`include_bytes!` of one, or `concat!` of those.
fn names_files(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => matches!(&lit.lit, Lit::Str(s) if !s.value().contains('\n')),
        Expr::Macro(m) => {
            let Some(name) = m.mac.path.get_ident().map(ToString::to_string) else {
                return false;
            };
            let Ok(args) = m
                .mac
                .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            else {
                return false;
            };
            match name.as_str() {
                "include_str" | "include_bytes" => args.len() == 1 && args.iter().all(names_files),
                "concat" => args.iter().all(names_files),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Every file under `dir`, skipping `target` and hidden directories.
pub fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, files),
            Ok(t) if t.is_file() => files.push(path),
            _ => {}
        }
    }
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

    /// A crate root of wiring, as today's stages write it, with `extra` after it.
    const WIRING: &str = r#"//! Stage 1: docs that say what to write.

// The given code is the solution's.
#[allow(dead_code)]
#[path = "../../../solutions/stage1/src/given.rs"]
mod given;
mod answer;

pub use answer::{create, parse};
pub use given::Given;
use std::fmt;
extern crate core;

/// The migration, and its path (named in errors).
pub const MIGRATION: &str = concat!(
    include_str!("../../../solutions/stage0/migrations/0001.sql"),
    include_str!("../migrations/0002.sql"),
);
pub const MIGRATION_SOURCE: &str = "exercises/stage1/migrations/0002.sql";
pub const MIGRATION_SQL: &str = include_str!("../migrations/0002.sql");
"#;

    /// What `pasted_code` finds in a crate root of [`WIRING`] then `extra`, as
    /// (line, item); `edit` lists the learner's files.
    fn found_after_wiring(extra: &str, edit: &[&str]) -> Vec<(usize, String)> {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let root = std::env::temp_dir().join(format!(
            "exercise-lib-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let exercise = root.join("exercises/stage1");
        write(&exercise.join("src/lib.rs"), &format!("{WIRING}{extra}"));
        let edit: Vec<String> = edit.iter().map(|e| (*e).to_owned()).collect();
        let found = pasted_code(&root, &exercise, &edit);
        std::fs::remove_dir_all(&root).expect("remove the temporary tree");
        found.into_iter().map(|p| (p.line, p.item)).collect()
    }

    /// The lines of [`WIRING`]: an item after it starts on line `AFTER + 1` or later.
    const AFTER: usize = 20;

    #[test]
    fn a_crate_root_of_mods_paths_uses_and_file_constants_is_wiring() {
        assert_eq!(WIRING.lines().count(), AFTER);
        assert_eq!(found_after_wiring("", &[]), []);
    }

    #[test]
    fn a_function_pasted_into_the_crate_root_is_named_with_its_line() {
        let found = found_after_wiring(
            "\n/// The answer, pasted.\npub async fn create(key: &str) -> u32 {\n    1\n}\n",
            &[],
        );
        assert_eq!(found, [(AFTER + 3, "a function `create`".to_owned())]);
    }

    #[test]
    fn an_impl_pasted_into_the_crate_root_is_named_with_its_line() {
        let found = found_after_wiring(
            "pub struct Key(String);\n\nimpl fmt::Display for Key {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(&self.0) }\n}\n",
            &[],
        );
        assert_eq!(
            found,
            [
                (AFTER + 1, "a struct `Key`".to_owned()),
                (AFTER + 3, "an `impl` block".to_owned()),
            ]
        );
    }

    #[test]
    fn a_module_with_an_inline_body_is_code_not_wiring() {
        let found = found_after_wiring("mod helpers {\n    pub fn f() {}\n}\n", &[]);
        assert_eq!(
            found,
            [(
                AFTER + 1,
                "a module with an inline body, `helpers`".to_owned()
            )]
        );
    }

    #[test]
    fn a_constant_computed_in_place_or_holding_pasted_sql_is_code() {
        let found = found_after_wiring(
            "const LIMIT: u32 = 2 + 3;\nconst SQL: &str = \"CREATE TABLE t (\n  id int\n);\";\n\
             const TEXT: &str = stringify!(fn pasted() {});\nmacro_rules! m { () => {} }\n",
            &[],
        );
        let lines: Vec<usize> = found.iter().map(|(line, _)| *line).collect();
        assert_eq!(
            lines,
            [AFTER + 1, AFTER + 2, AFTER + 5, AFTER + 6],
            "{found:?}"
        );
        assert_eq!(found[0].1, "a constant computed in place, `LIMIT`");
        assert_eq!(found[3].1, "a macro definition `m`");
    }

    #[test]
    fn a_crate_root_the_learner_edits_may_hold_code() {
        let found = found_after_wiring(
            "pub fn create() -> u32 { 1 }\n",
            &["exercises/stage1/src/lib.rs"],
        );
        assert_eq!(found, []);
    }

    #[test]
    fn the_message_names_the_file_the_line_the_item_and_where_it_goes() {
        let pasted = PastedCode {
            file: "exercises/stage6/src/lib.rs".to_owned(),
            line: 27,
            item: "a function `create`".to_owned(),
        };
        let message = pasted.message(6, &["exercises/stage6/src/handler.rs".to_owned()]);
        assert!(
            message.starts_with(
                "exercises/stage6/src/lib.rs:27: a function `create` in the crate root, \
                 which stage 6's `edit` does not list"
            ),
            "{message}"
        );
        assert!(
            message.contains("move it into an edit file (exercises/stage6/src/handler.rs)")
                && message.contains("#[path"),
            "the message says where it goes: {message}"
        );
    }

    /// No false positive on the workbook's own exercises: every crate root the
    /// learner does not edit holds only wiring.
    #[test]
    fn the_workbooks_own_exercises_crate_roots_are_wiring() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .expect("the workbook's root");
        let stages = crate::stages::load(&root.join("stages.toml")).expect("stages.toml loads");
        let edit: Vec<String> = stages.iter().flat_map(|s| s.edit.clone()).collect();
        let mut exercises: Vec<PathBuf> = std::fs::read_dir(root.join("exercises"))
            .expect("the exercises folder")
            .flatten()
            .map(|entry| entry.path())
            .filter(|dir| dir.join("src/lib.rs").is_file())
            .collect();
        exercises.sort();
        assert_eq!(
            exercises.len(),
            stages.len(),
            "one exercise crate per stage"
        );
        let wired = exercises
            .iter()
            .filter(|dir| {
                let lib = dir.join("src/lib.rs");
                let lib = lib.strip_prefix(&root).expect("inside the root");
                !edit.contains(&lib.to_string_lossy().into_owned())
            })
            .count();
        assert!(
            wired >= 7,
            "stages 1, 6, 7, 8, 9, 11, 12 keep their work out of src/lib.rs: {wired}"
        );
        let found: Vec<String> = exercises
            .iter()
            .flat_map(|dir| pasted_code(&root, dir, &edit))
            .map(|p| format!("{}:{}: {}", p.file, p.line, p.item))
            .collect();
        assert_eq!(found, Vec::<String>::new());
    }
}
