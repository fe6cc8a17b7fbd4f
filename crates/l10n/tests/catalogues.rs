//! Every catalogue of the workspace (`**/locales/en/NAME.ftl`, the English one
//! a crate or a test file says its words from) has its Brazilian Portuguese twin
//! (`locales/pt-BR/NAME.ftl`): both parse, hold the same message ids, and the
//! twin uses no argument the English does not give.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fluent_syntax::ast;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The English catalogues, found under the workspace (build output and
/// dependencies left out).
fn english_catalogues(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if name.starts_with('.') || ["target", "node_modules", "book"].contains(&name.as_str())
            {
                continue;
            }
            english_catalogues(&path, out);
        } else if name.ends_with(".ftl")
            && path.parent().and_then(Path::file_name) == Some("en".as_ref())
            && path
                .parent()
                .and_then(Path::parent)
                .and_then(Path::file_name)
                == Some("locales".as_ref())
        {
            out.push(path);
        }
    }
}

/// Each message's id and the variables its value and attributes use.
fn messages(path: &Path) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let resource = fluent_syntax::parser::parse(text.as_str())
        .map_err(|(_, errors)| format!("{} does not parse: {errors:?}", path.display()))?;
    let mut out = BTreeMap::new();
    for entry in &resource.body {
        if let ast::Entry::Message(message) = entry {
            let mut variables = BTreeSet::new();
            if let Some(value) = &message.value {
                pattern_variables(value, &mut variables);
            }
            out.insert(message.id.name.to_owned(), variables);
        }
    }
    Ok(out)
}

fn pattern_variables(pattern: &ast::Pattern<&str>, out: &mut BTreeSet<String>) {
    for element in &pattern.elements {
        if let ast::PatternElement::Placeable { expression } = element {
            expression_variables(expression, out);
        }
    }
}

fn expression_variables(expression: &ast::Expression<&str>, out: &mut BTreeSet<String>) {
    match expression {
        ast::Expression::Select { selector, variants } => {
            inline_variables(selector, out);
            for variant in variants {
                pattern_variables(&variant.value, out);
            }
        }
        ast::Expression::Inline(inline) => inline_variables(inline, out),
    }
}

fn inline_variables(inline: &ast::InlineExpression<&str>, out: &mut BTreeSet<String>) {
    match inline {
        ast::InlineExpression::VariableReference { id } => {
            out.insert(id.name.to_owned());
        }
        ast::InlineExpression::Placeable { expression } => expression_variables(expression, out),
        _ => {}
    }
}

#[test]
fn every_catalogue_has_its_portuguese_twin_with_the_same_messages() {
    let mut catalogues = Vec::new();
    english_catalogues(&workspace(), &mut catalogues);
    catalogues.sort();
    assert!(
        catalogues.len() >= 4,
        "the runner's, the harness's, provisioning's and clap's catalogues at least; found {catalogues:?}"
    );
    let mut problems = Vec::new();
    for english in &catalogues {
        let name = english.file_name().expect("a file");
        let twin = english
            .parent()
            .and_then(Path::parent)
            .expect("locales/")
            .join("pt-BR")
            .join(name);
        let shown = |p: &Path| {
            p.strip_prefix(workspace())
                .unwrap_or(p)
                .display()
                .to_string()
        };
        let (en, pt) = match (messages(english), messages(&twin)) {
            (Ok(en), Ok(pt)) => (en, pt),
            (en, pt) => {
                problems.extend(en.err());
                problems.extend(pt.err());
                continue;
            }
        };
        for id in en.keys().filter(|id| !pt.contains_key(*id)) {
            problems.push(format!("{} lacks `{id}`", shown(&twin)));
        }
        for id in pt.keys().filter(|id| !en.contains_key(*id)) {
            problems.push(format!(
                "{} has `{id}`, which {} does not",
                shown(&twin),
                shown(english)
            ));
        }
        for (id, variables) in &pt {
            if let Some(given) = en.get(id) {
                for unknown in variables.difference(given) {
                    problems.push(format!(
                        "{}: `{id}` uses ${unknown}, which the English message is not given",
                        shown(&twin)
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// CLDR's Portuguese puts 0 in the `one` category (as 1), so `[one] 1 pagamento`
/// would say "1" of no payment: a Portuguese catalogue picks the exact number,
/// `[1]`, as runner.ftl's header says.
#[test]
fn no_portuguese_catalogue_says_one_of_zero() {
    let mut catalogues = Vec::new();
    english_catalogues(&workspace(), &mut catalogues);
    let mut problems = Vec::new();
    for english in &catalogues {
        let twin = english
            .parent()
            .and_then(Path::parent)
            .expect("locales/")
            .join("pt-BR")
            .join(english.file_name().expect("a file"));
        let text = std::fs::read_to_string(&twin).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let variant = line.trim_start().trim_start_matches('*');
            if variant.starts_with("[one]") {
                problems.push(format!(
                    "{}:{}: `[one]` (say `[1]`)",
                    twin.strip_prefix(workspace()).unwrap_or(&twin).display(),
                    n + 1
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "a Portuguese variant `[one]` is also chosen for 0:\n{}",
        problems.join("\n")
    );
}
