//! Draws the book's timelines: `timeline-svg --lang en|pt-BR < trace.json > out.svg`
//! (the trace as one JSON object, or a line `{"trace": ...}` of an observations
//! file), or `--facts < out.svg`: the facts an SVG was drawn from, as one line of
//! JSON (what `book/timelines.py --check` compares).

use std::io::{Read, Write};
use std::process::ExitCode;

use timeline::{Lang, Trace, Words, svg};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("timeline-svg: cannot read standard input: {e}");
        return ExitCode::from(2);
    }
    if args.first().map(String::as_str) == Some("--facts") {
        return match svg::facts_of(&input) {
            Some(facts) => {
                println!("{facts}");
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("timeline-svg: no facts in this SVG (is it a timeline?)");
                ExitCode::from(1)
            }
        };
    }
    let lang = match args.as_slice() {
        [flag, tag] if flag == "--lang" => Lang::from_tag(tag),
        [] => Some(Lang::English),
        _ => None,
    };
    let Some(lang) = lang else {
        eprintln!(
            "usage: timeline-svg [--lang en|pt-BR] < TRACE.json > OUT.svg; timeline-svg --facts < OUT.svg"
        );
        return ExitCode::from(2);
    };
    let line = input.trim();
    let trace = match Trace::from_line(line) {
        Some(read) => read,
        None => serde_json::from_str::<Trace>(line),
    };
    match trace {
        Ok(trace) => {
            let _ = std::io::stdout().write_all(svg::draw(&trace, &Words::of(lang)).as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("timeline-svg: standard input is not a trace: {e}");
            ExitCode::from(1)
        }
    }
}
