//! A clap command in the learner's language: its help from the program's
//! catalogue, clap's own words (the usage line, the headings, `--help`'s and
//! `--version`'s help, `[default: ...]`) and its errors from this crate's
//! (`locales/*/clap.ftl`). The language is chosen before the arguments are
//! parsed ([`lang_flag`]), so that `--help` and a mistyped argument are already
//! said in it.
//!
//! The program's texts are found by the command's path and the argument's id
//! (`PREFIX-about`, `PREFIX-after-help`, `PREFIX-stage-about`,
//! `PREFIX-stage-no_predict`, then `PREFIX-arg-no_predict` for an argument several
//! commands share, `PREFIX-value-secs` for a value's name); [`missing`] lists
//! what a catalogue lacks, for its test.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::Arg as Said;
use crate::{Catalogue, Lang, Localiser, t};

/// clap's own words.
static CLAP: Catalogue = Catalogue::new(
    "clap",
    include_str!("../locales/en/clap.ftl"),
    include_str!("../locales/pt-BR/clap.ftl"),
);

/// The value of `--lang` (`--lang X` or `--lang=X`) among `args`, read before
/// clap parses them; the words after `--` are not options.
pub fn lang_flag(args: &[OsString]) -> Option<String> {
    let mut words = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(word) = words.next() {
        if word == "--" {
            return None;
        }
        if let Some(value) = word.strip_prefix("--lang=") {
            return Some(value.to_owned());
        }
        if word == "--lang" {
            return words.next().map(|w| w.into_owned());
        }
    }
    None
}

/// `cmd` said by `l` (the program's catalogue, whose language is the learner's):
/// every command's about, every argument's help, value names, headings, the
/// usage line and the help and version flags. `prefix` starts the program's
/// message ids (`cli`).
pub fn localise(cmd: Command, l: &Localiser, prefix: &str) -> Command {
    let words = CLAP.in_lang(l.lang());
    let root = cmd.get_name().to_owned();
    let mut cmd = localise_command(cmd, l, words, prefix, &[]);
    if cmd.has_subcommands() {
        // clap's own `help` subcommand speaks English; this one is said like the
        // rest, and the program answers it ([`help_asked`]).
        cmd = cmd.disable_help_subcommand(true).subcommand(
            Command::new("help")
                .about(t!(words, "clap-help-command"))
                .help_template(template(words, false))
                .disable_help_flag(true)
                .arg(
                    Arg::new("command")
                        .num_args(0..)
                        .value_name(t!(words, "clap-command-value"))
                        .help(t!(words, "clap-help-command-which"))
                        .help_heading(t!(words, "clap-arguments")),
                ),
        );
    }
    if cmd.get_version().is_some() {
        cmd = cmd.disable_version_flag(true).arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help(t!(words, "clap-version-flag"))
                .display_order(usize::MAX)
                .help_heading(t!(words, "clap-options")),
        );
    }
    with_usages(cmd, words, &root)
}

fn localise_command(
    cmd: Command,
    l: &Localiser,
    words: &Localiser,
    prefix: &str,
    path: &[String],
) -> Command {
    let id = |what: &str| {
        let mut parts = vec![prefix.to_owned()];
        parts.extend(path.iter().cloned());
        parts.push(what.to_owned());
        parts.join("-")
    };
    let mut cmd = cmd
        .help_template(template(words, true))
        .subcommand_help_heading(t!(words, "clap-commands"))
        .subcommand_value_name(t!(words, "clap-command-value"))
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help(t!(words, "clap-help-flag"))
                // Last, after the global arguments, as clap puts its own.
                .display_order(usize::MAX - 1),
        );
    if let Some(about) = l.try_say(&id("about")) {
        cmd = cmd.about(about).long_about(None);
    }
    if let Some(after) = l.try_say(&id("after-help")) {
        cmd = cmd.after_help(after).after_long_help(None);
    }
    cmd = cmd.mut_args(|arg| localise_arg(arg, l, words, prefix, path));
    cmd.mut_subcommands(|sub| {
        let mut path = path.to_vec();
        path.push(sub.get_name().to_owned());
        localise_command(sub, l, words, prefix, &path)
    })
}

fn localise_arg(arg: Arg, l: &Localiser, words: &Localiser, prefix: &str, path: &[String]) -> Arg {
    let name = arg.get_id().as_str().to_owned();
    let heading = if arg.is_positional() {
        t!(words, "clap-arguments")
    } else {
        t!(words, "clap-options")
    };
    let mut arg = arg.help_heading(heading);
    if name == "help" {
        return arg;
    }
    let own = format!("{prefix}-{}-{name}", path.join("-"));
    let shared = format!("{prefix}-arg-{name}");
    let help = if path.is_empty() {
        l.try_say(&shared)
    } else {
        l.try_say(&own).or_else(|| l.try_say(&shared))
    };
    let mut help = help.or_else(|| arg.get_help().map(ToString::to_string));
    if arg.get_action().takes_values() {
        let names: Vec<String> = arg
            .get_value_names()
            .map(|names| names.iter().map(ToString::to_string).collect())
            .unwrap_or_else(|| vec![name.to_uppercase()]);
        let said: Vec<String> = names
            .iter()
            .map(|n| l.try_say(&value_id(prefix, n)).unwrap_or_else(|| n.clone()))
            .collect();
        arg = arg.value_names(said);
        let possible: Vec<_> = arg
            .get_possible_values()
            .into_iter()
            .filter(|v| !v.is_hide_set())
            .collect();
        if !possible.is_empty() && !arg.is_hide_possible_values_set() {
            help = Some(with_possible_values(help, &possible, words));
            arg = arg.hide_possible_values(true);
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if !defaults.is_empty() && !arg.is_hide_default_value_set() {
            let default = t!(words, "clap-default", value = defaults.join(", "));
            help = Some(append(help, &default));
            arg = arg.hide_default_value(true);
        }
        if let Some(variable) = arg.get_env().map(|v| v.to_string_lossy().into_owned()) {
            let env = t!(words, "clap-env", variable = variable);
            help = Some(append(help, &env));
            arg = arg.hide_env(true);
        }
    }
    match help {
        Some(help) => arg.help(help).long_help(None),
        None => arg,
    }
}

/// The message id of a value's name: `PREFIX-value-` and the name in lowercase,
/// each run of other characters than letters and digits a dash
/// (`FORMAT[=FILE]`: `cli-value-format-file`).
fn value_id(prefix: &str, name: &str) -> String {
    let mut id = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_alphanumeric() {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    format!("{prefix}-value-{}", id.trim_end_matches('-'))
}

/// `help` and the values the argument takes, said like the rest (clap's own
/// "[possible values: ...]" and "Possible values:" are English): a list with
/// each value's help when they have one, else the names on one line.
fn with_possible_values(
    help: Option<String>,
    possible: &[clap::builder::PossibleValue],
    words: &Localiser,
) -> String {
    if possible.iter().all(|v| v.get_help().is_none()) {
        let names: Vec<&str> = possible.iter().map(|v| v.get_name()).collect();
        let said = t!(
            words,
            "clap-error-possible-values",
            values = names.join(", ")
        );
        return append(help, &said);
    }
    let width = possible
        .iter()
        .map(|v| v.get_name().chars().count())
        .max()
        .unwrap_or(0);
    let mut lines = vec![t!(words, "clap-possible-values")];
    for value in possible {
        let name = value.get_name();
        let pad = " ".repeat(width - name.chars().count());
        let help = value
            .get_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        // Each line a message of its own: the value's name labels its help.
        let line = t!(
            words,
            "clap-possible-value",
            value = format!("{name}:{pad}"),
            help = help
        );
        lines.push(format!("- {line}"));
    }
    match help {
        Some(help) => format!("{help}\n\n{}", lines.join("\n")),
        None => lines.join("\n"),
    }
}

/// `[default: VALUE]`, said in `lang`: for a program that shows a default its own
/// way (on a line of its own, say).
pub fn default_note(lang: Lang, value: &str) -> String {
    t!(CLAP.in_lang(lang), "clap-default", value = value)
}

fn append(help: Option<String>, more: &str) -> String {
    match help {
        Some(help) => format!("{help} {more}"),
        None => more.to_owned(),
    }
}

/// clap's default help template, its "Usage:" said in the language.
fn template(words: &Localiser, with_args: bool) -> String {
    let usage = t!(words, "clap-usage")
        .replace('{', "{{")
        .replace('}', "}}");
    if with_args {
        format!(
            "{{before-help}}{{about-with-newline}}\n{usage} {{usage}}\n\n{{all-args}}{{after-help}}"
        )
    } else {
        format!("{{before-help}}{{about-with-newline}}\n{usage} {{usage}}{{after-help}}")
    }
}

/// Each command's usage line with clap's `[OPTIONS]` said in the language.
fn with_usages(cmd: Command, words: &Localiser, root: &str) -> Command {
    let options = t!(words, "clap-options-value");
    let mut built = cmd.clone();
    built.build();
    let usage_of = |c: &mut Command| {
        let text = c.render_usage().to_string();
        // clap's "Usage: " title, then the line.
        let line = text
            .split_once(": ")
            .map_or(text.as_str(), |(_, line)| line);
        // A message of its own, whose words are the command's: said like the rest.
        t!(
            words,
            "clap-usage-line",
            usage = line.replace("[OPTIONS]", &options)
        )
    };
    let root_usage = usage_of(&mut built);
    let mut subs: Vec<(String, String)> = Vec::new();
    for sub in built.get_subcommands_mut() {
        let name = sub.get_name().to_owned();
        subs.push((name, usage_of(sub)));
    }
    let _ = root;
    cmd.override_usage(root_usage).mut_subcommands(|sub| {
        match subs.iter().find(|(name, _)| name == sub.get_name()) {
            Some((_, usage)) => sub.override_usage(usage.clone()),
            None => sub,
        }
    })
}

/// The help `help [COMMAND...]` asks for, rendered; `None` when the matches are
/// not of the `help` subcommand [`localise`] added.
pub fn help_asked(cmd: &mut Command, matches: &ArgMatches) -> Option<String> {
    let (name, sub) = matches.subcommand()?;
    if name != "help" {
        return None;
    }
    let path: Vec<String> = sub
        .get_many::<String>("command")
        .map(|names| names.cloned().collect())
        .unwrap_or_default();
    // Built, so that the global arguments are in every command's help.
    cmd.build();
    let mut target = cmd;
    for name in &path {
        if target.find_subcommand(name).is_none() {
            break;
        }
        target = target.find_subcommand_mut(name)?;
    }
    Some(target.render_help().to_string())
}

/// A clap error said in the language of `lang`: the problem, a suggestion, the
/// usage line and where to read more. Help and version "errors" are clap's
/// rendering (already said by [`localise`]'s command).
pub fn error_message(error: &clap::Error, lang: Lang) -> String {
    let words = CLAP.in_lang(lang);
    match error.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => return error.to_string(),
        _ => {}
    }
    let text = |kind: ContextKind| match error.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(s)) => Some(s.join(", ")),
        Some(ContextValue::StyledStr(s)) => Some(s.to_string()),
        Some(ContextValue::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg).unwrap_or_default();
    let value = text(ContextKind::InvalidValue).unwrap_or_default();
    let mut out = match error.kind() {
        ErrorKind::InvalidValue if value.is_empty() => {
            t!(words, "clap-error-value-required", arg = arg)
        }
        ErrorKind::InvalidValue => {
            let mut said = t!(words, "clap-error-invalid-value", value = value, arg = arg);
            if let Some(valid) = text(ContextKind::ValidValue) {
                said.push_str(&format!(
                    "\n  {}",
                    t!(words, "clap-error-possible-values", values = valid)
                ));
            }
            said
        }
        ErrorKind::ValueValidation => {
            let why = std::error::Error::source(error)
                .map(
                    |source| match source.downcast_ref::<std::num::ParseIntError>() {
                        Some(_) => t!(words, "clap-error-not-a-number"),
                        None => source.to_string(),
                    },
                )
                .unwrap_or_default();
            t!(
                words,
                "clap-error-invalid-value-because",
                value = value,
                arg = arg,
                why = why
            )
        }
        ErrorKind::UnknownArgument => t!(words, "clap-error-unknown-argument", arg = arg),
        ErrorKind::InvalidSubcommand => t!(
            words,
            "clap-error-unknown-command",
            command = text(ContextKind::InvalidSubcommand).unwrap_or_default()
        ),
        ErrorKind::MissingRequiredArgument => t!(words, "clap-error-missing-argument", arg = arg),
        ErrorKind::MissingSubcommand => t!(
            words,
            "clap-error-missing-command",
            commands = text(ContextKind::ValidSubcommand).unwrap_or_default()
        ),
        ErrorKind::ArgumentConflict => t!(
            words,
            "clap-error-conflict",
            arg = arg,
            other = text(ContextKind::PriorArg).unwrap_or_default()
        ),
        ErrorKind::TooManyValues => t!(
            words,
            "clap-error-too-many-values",
            value = value,
            arg = arg
        ),
        ErrorKind::TooFewValues | ErrorKind::WrongNumberOfValues => {
            t!(words, "clap-error-number-of-values", arg = arg)
        }
        ErrorKind::NoEquals => t!(words, "clap-error-no-equals", arg = arg),
        ErrorKind::InvalidUtf8 => t!(words, "clap-error-not-utf8"),
        _ => t!(words, "clap-error-other", said = error.to_string()),
    };
    out = format!("{} {out}", t!(words, "clap-error"));
    for (kind, id) in [
        (ContextKind::SuggestedSubcommand, "clap-tip-command"),
        (ContextKind::SuggestedArg, "clap-tip-argument"),
        (ContextKind::SuggestedValue, "clap-tip-value"),
    ] {
        if let Some(similar) = text(kind) {
            out.push_str(&format!(
                "\n\n  {}",
                words.say(id, &[("similar", Said::from(similar))])
            ));
        }
    }
    if let Some(usage) = text(ContextKind::Usage) {
        // clap's "Usage: " title, then the line (the command's own, as localised).
        let line = usage
            .split_once(": ")
            .map_or(usage.as_str(), |(_, line)| line);
        out.push_str(&format!("\n\n{} {line}", t!(words, "clap-usage")));
    }
    out.push_str(&format!(
        "\n\n{}\n",
        t!(words, "clap-more", help = "--help")
    ));
    out
}

/// The program's texts a command asks for and `l`'s catalogue lacks: each
/// command's about and each argument's help (own or shared) and value name, for
/// the test that keeps a catalogue complete. The subcommands named in `foreign`
/// are another program's (`cargo workbook probe` is the probe's): only their
/// line in the list of commands is asked for.
pub fn missing(cmd: &Command, l: &Localiser, prefix: &str, foreign: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    missing_in(cmd, l, prefix, &[], foreign, &mut out);
    out
}

fn missing_in(
    cmd: &Command,
    l: &Localiser,
    prefix: &str,
    path: &[String],
    foreign: &[&str],
    out: &mut Vec<String>,
) {
    let join = |what: &str| {
        let mut parts = vec![prefix.to_owned()];
        parts.extend(path.iter().cloned());
        parts.push(what.to_owned());
        parts.join("-")
    };
    if cmd.get_about().is_some() && !l.has(&join("about")) {
        out.push(join("about"));
    }
    if cmd.get_after_help().is_some() && !l.has(&join("after-help")) {
        out.push(join("after-help"));
    }
    if path
        .last()
        .is_some_and(|name| foreign.contains(&name.as_str()))
    {
        return;
    }
    for arg in cmd.get_arguments() {
        let name = arg.get_id().as_str();
        if name == "help" || name == "version" {
            continue;
        }
        let own = join(name);
        let shared = format!("{prefix}-arg-{name}");
        if !(l.has(&shared) || (!path.is_empty() && l.has(&own))) {
            out.push(if path.is_empty() { shared } else { own });
        }
        if arg.get_action().takes_values() {
            let names: Vec<String> = arg
                .get_value_names()
                .map(|names| names.iter().map(ToString::to_string).collect())
                .unwrap_or_else(|| vec![name.to_uppercase()]);
            for value in names {
                let id = value_id(prefix, &value);
                if !l.has(&id) && !out.contains(&id) {
                    out.push(id);
                }
            }
        }
    }
    for sub in cmd.get_subcommands() {
        let mut path = path.to_vec();
        path.push(sub.get_name().to_owned());
        missing_in(sub, l, prefix, &path, foreign, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static PROGRAM: Catalogue = Catalogue::new(
        "program",
        "cli-about = Runs stages.\ncli-arg-lang = The language.\ncli-stage-about = Run a stage.\ncli-stage-number = The stage.\ncli-stage-timeout = Stop after this.\ncli-value-secs = SECS\ncli-value-number = NUMBER\ncli-value-lang = LANG\n",
        "cli-about = Roda etapas.\ncli-arg-lang = O idioma.\ncli-stage-about = Roda uma etapa.\ncli-stage-number = A etapa.\ncli-stage-timeout = Para depois disso.\ncli-value-secs = SEGS\ncli-value-number = NÚMERO\ncli-value-lang = IDIOMA\n",
    );

    fn program() -> Command {
        Command::new("workbook")
            .version("0.1.0")
            .about("Runs stages.")
            .arg(
                Arg::new("lang")
                    .long("lang")
                    .global(true)
                    .help("The language."),
            )
            .subcommand(
                Command::new("stage")
                    .about("Run a stage.")
                    .arg(
                        Arg::new("number")
                            .required(true)
                            .value_parser(clap::value_parser!(u32)),
                    )
                    .arg(
                        Arg::new("timeout")
                            .long("timeout")
                            .value_name("SECS")
                            .default_value("300")
                            .value_parser(clap::value_parser!(u64)),
                    ),
            )
    }

    fn in_portuguese() -> Command {
        localise(program(), PROGRAM.in_lang(Lang::BrazilianPortuguese), "cli")
    }

    #[test]
    fn the_help_is_said_in_the_language_headings_and_flags_included() {
        let mut cmd = in_portuguese();
        cmd.build();
        let help = cmd
            .find_subcommand_mut("stage")
            .expect("stage")
            .render_help()
            .to_string();
        for said in [
            "Roda uma etapa.",
            "Uso: workbook stage [OPÇÕES] <NÚMERO>",
            "Argumentos:",
            "<NÚMERO>  A etapa.",
            "Opções:",
            "--timeout <SEGS>  Para depois disso. [padrão: 300]",
            "--lang <IDIOMA>",
            "Mostra a ajuda",
        ] {
            assert!(help.contains(said), "the help lacks {said:?}:\n{help}");
        }
        for english in ["Usage", "Options", "Arguments", "Print help", "[default"] {
            assert!(
                !help.contains(english),
                "the help says {english:?}:\n{help}"
            );
        }
        let root = in_portuguese().render_help().to_string();
        assert!(
            root.contains("Comandos:")
                && root.contains("Mostra esta mensagem ou a ajuda de um comando"),
            "{root}"
        );
    }

    #[test]
    fn a_mistyped_argument_is_an_error_in_the_language_with_its_usage() {
        let error = in_portuguese()
            .try_get_matches_from(["workbook", "stage", "2", "--no-predcit"])
            .expect_err("an unknown flag");
        let said = error_message(&error, Lang::BrazilianPortuguese);
        assert!(
            said.starts_with("erro: argumento inesperado '--no-predcit'"),
            "{said}"
        );
        assert!(
            said.contains("Uso: workbook stage [OPÇÕES] <NÚMERO>"),
            "{said}"
        );
        assert!(said.contains("tente '--help'"), "{said}");
        let error = in_portuguese()
            .try_get_matches_from(["workbook", "stage", "two"])
            .expect_err("not a number");
        let said = error_message(&error, Lang::BrazilianPortuguese);
        assert!(
            said.starts_with("erro: valor inválido 'two' para '<NÚMERO>': não é um número inteiro"),
            "{said}"
        );
        let error = in_portuguese()
            .try_get_matches_from(["workbook", "stgae"])
            .expect_err("a mistyped command");
        let said = error_message(&error, Lang::BrazilianPortuguese);
        assert!(said.contains("comando desconhecido 'stgae'"), "{said}");
    }

    #[test]
    fn help_of_a_command_is_answered_in_the_language() {
        let mut cmd = in_portuguese();
        let matches = cmd
            .clone()
            .try_get_matches_from(["workbook", "help", "stage"])
            .expect("help stage parses");
        let help = help_asked(&mut cmd, &matches).expect("help was asked");
        assert!(
            help.contains("Roda uma etapa.") && help.contains("--lang <IDIOMA>"),
            "{help}"
        );
    }

    #[test]
    fn the_lang_flag_is_read_before_parsing() {
        let args = |words: &[&str]| words.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            lang_flag(&args(&["wb", "--lang", "pt-BR", "stage"])).as_deref(),
            Some("pt-BR")
        );
        assert_eq!(
            lang_flag(&args(&["wb", "stage", "--lang=en"])).as_deref(),
            Some("en")
        );
        assert_eq!(
            lang_flag(&args(&["wb", "probe", "--", "--lang", "x"])),
            None
        );
    }

    #[test]
    fn what_a_catalogue_lacks_is_named() {
        let l = PROGRAM.in_lang(Lang::English);
        assert_eq!(missing(&program(), l, "cli", &[]), Vec::<String>::new());
        let more = program().subcommand(Command::new("hint").about("A hint.").arg(Arg::new("url")));
        assert_eq!(
            missing(&more, l, "cli", &[]),
            ["cli-hint-about", "cli-hint-url", "cli-value-url"]
        );
        assert_eq!(missing(&more, l, "cli", &["hint"]), ["cli-hint-about"]);
    }

    #[test]
    fn both_languages_of_claps_words_hold_the_same_ids() {
        let en = crate::ids(CLAP.source(Lang::English)).expect("parses");
        let pt = crate::ids(CLAP.source(Lang::BrazilianPortuguese)).expect("parses");
        assert_eq!(en, pt);
    }
}
