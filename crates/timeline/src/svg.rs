//! The timeline as an SVG for the book: the terminal's picture, drawn. 480 units
//! wide, so that at 400 px its text is still about 11 px; each state has a
//! pattern of its own besides its colour (it reads in grey, and printed). The
//! facts it shows, without times, are in its `<metadata>` as JSON: what
//! `book/timelines.py --check` compares with a fresh run.

use std::fmt::Write;

use crate::fold::{EndKind, Picture, State};
use crate::said;
use crate::say;
use crate::trace::Trace;
use crate::words::Words;

const WIDTH: f64 = 480.0;
const MARGIN: f64 = 12.0;
const LANE_X: f64 = 58.0;
const LANE_H: f64 = 14.0;
const TEXT: f64 = 12.5;
const LINE: f64 = 16.0;
/// Where every word ends: a phone (400 px) shows the drawing at its own size
/// up to about here, past the page's margins; only the lanes run on (the book
/// scrolls them sideways), the sentences, title and legend never need it.
const TEXT_RIGHT: f64 = 340.0;
/// Characters of a sentence per line at [`TEXT`] px in a sans-serif face, to end
/// before [`TEXT_RIGHT`]: measured in the book's screenshots, with room for
/// Portuguese's longer words.
const CHARS_PER_LINE: usize = 46;
/// More groups than this are left out, and said so.
const MAX_GROUPS: usize = 8;

const FONT: &str =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

fn fill(state: State) -> &'static str {
    match state {
        State::InFlight | State::Code => "#8a939c",
        State::Waiting => "url(#tl-waiting)",
        State::IdleInTransaction => "url(#tl-idle)",
        State::Statement => "#2f6db3",
        State::Gate => "url(#tl-gate)",
        State::Blocked => "url(#tl-blocked)",
    }
}

/// A thin bar for the states where nothing runs in PostgreSQL.
fn thin(state: State) -> bool {
    matches!(state, State::InFlight | State::Code)
}

const DEFS: &str = r##"<defs>
<pattern id="tl-blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f7d4cf"/><rect width="3" height="6" fill="#c0392b"/></pattern>
<pattern id="tl-gate" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ead7f2"/><circle cx="3" cy="3" r="1.6" fill="#7d3c98"/></pattern>
<pattern id="tl-idle" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#fff1c7"/><rect x="0" y="2" width="4" height="2" fill="#b7791f"/></pattern>
<pattern id="tl-waiting" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#ffffff"/><circle cx="3" cy="3" r="1" fill="#8a939c"/></pattern>
</defs>"##;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG of `trace` in `words`' language.
pub fn draw(trace: &Trace, words: &Words) -> String {
    let picture = Picture::of(trace);
    let groups = &picture.groups[..picture.groups.len().min(MAX_GROUPS)];
    let total = picture.end_us.max(1) as f64;
    let lane_w = WIDTH - MARGIN - LANE_X;
    let x_of = |t: u64| LANE_X + (t as f64 / total) * lane_w;
    let mut body = String::new();
    let mut y = MARGIN;
    let mut desc: Vec<String> = Vec::new();

    let title = said::title(trace, &picture, words);
    // Bold, larger, and a test's name is wide (its underscores): fewer characters.
    for line in said::wrap(&title, CHARS_PER_LINE - 8) {
        y += LINE;
        let _ = writeln!(
            body,
            r##"<text x="{MARGIN}" y="{y}" font-size="14" font-weight="700" fill="#1d2733">{}</text>"##,
            escape(&line)
        );
    }
    desc.push(title);

    // The axis: round ticks, the unit after the last label.
    y += 18.0;
    let axis_y = y;
    let step = said::nice_step(picture.end_us / 4);
    let unit = said::axis_unit(picture.end_us, words);
    let mut t = 0;
    let mut ticks = Vec::new();
    while t <= picture.end_us {
        ticks.push(t);
        t += step;
    }
    for (i, t) in ticks.iter().enumerate() {
        let x = x_of(*t);
        let mut label = said::tick_label(*t, step, picture.end_us, words);
        if i == ticks.len() - 1 {
            label = format!("{label} {unit}");
        }
        // The first label starts at its tick, the last ends at it when the
        // drawing's edge is near: none runs off.
        let anchor = if i == 0 {
            "start"
        } else if x + label.chars().count() as f64 * 3.5 > WIDTH - 4.0 {
            "end"
        } else {
            "middle"
        };
        let _ = writeln!(
            body,
            r##"<text x="{x:.1}" y="{axis_y}" font-size="11" fill="#55606b" text-anchor="{anchor}">{}</text>"##,
            escape(&label)
        );
    }
    let lanes_top = axis_y + 6.0;

    // The lanes, each with its sentence under it.
    let mut present: Vec<State> = Vec::new();
    y = lanes_top;
    for group in groups {
        let Some(lane) = picture.lane(group.drawn) else {
            continue;
        };
        y += 6.0;
        let mid = y + LANE_H / 2.0;
        let _ = writeln!(
            body,
            r##"<text x="{MARGIN}" y="{:.1}" font-size="{TEXT}" font-weight="700" fill="#1d2733">{}</text>"##,
            mid + 4.5,
            escape(&said::label(group, words))
        );
        let mut spans = lane.spans.clone();
        // Lower states first: a lock wait is drawn over its statement.
        spans.sort_by_key(|s| s.state);
        for span in &spans {
            let x0 = x_of(span.from_us);
            let w = (x_of(span.to_us) - x0).max(1.5);
            if !present.contains(&span.state) {
                present.push(span.state);
            }
            let (top, h) = if thin(span.state) {
                (mid - 1.0, 2.0)
            } else {
                (y, LANE_H)
            };
            let _ = writeln!(
                body,
                r##"<rect x="{x0:.1}" y="{top:.1}" width="{w:.1}" height="{h}" fill="{}"/>"##,
                fill(span.state)
            );
        }
        let (end_fill, end_mark) = match &group.shape.end {
            EndKind::Answered(answer) if answer.starts_with('2') => ("#2f7d32", "●"),
            EndKind::Answered(answer) if answer.starts_with('4') => ("#b7791f", "●"),
            _ => ("#c0392b", "✗"),
        };
        let _ = writeln!(
            body,
            r##"<circle cx="{:.1}" cy="{mid:.1}" r="4.5" fill="{end_fill}"><title>{end_mark} {}</title></circle>"##,
            x_of(lane.end_us).min(WIDTH - MARGIN - 4.5),
            escape(&said::end(group, words))
        );
        y += LANE_H + 2.0;
        let sentence = said::sentence(group, &picture, words);
        for line in said::wrap(&sentence, CHARS_PER_LINE) {
            y += LINE;
            let _ = writeln!(
                body,
                r##"<text x="{MARGIN}" y="{y:.1}" font-size="{TEXT}" fill="#1d2733">{}</text>"##,
                escape(&line)
            );
        }
        desc.push(sentence);
    }
    let hidden = &picture.groups[groups.len()..];
    if !hidden.is_empty() {
        let requests: usize = hidden.iter().map(|g| g.members.len()).sum();
        let more = say!(
            words,
            "more-kinds",
            count = hidden.len(),
            requests = requests
        );
        for line in said::wrap(&more, CHARS_PER_LINE) {
            y += LINE;
            let _ = writeln!(
                body,
                r##"<text x="{MARGIN}" y="{y:.1}" font-size="{TEXT}" fill="#55606b">{}</text>"##,
                escape(&line)
            );
        }
    }
    // The grid of ticks, behind the lanes.
    let mut grid = String::new();
    for t in &ticks {
        let x = x_of(*t);
        let _ = writeln!(
            grid,
            r##"<line x1="{x:.1}" y1="{lanes_top:.1}" x2="{x:.1}" y2="{y:.1}" stroke="#e3e7eb" stroke-width="1"/>"##
        );
    }

    // The legend: a swatch and a word per state shown, wrapped.
    y += 14.0;
    present.sort();
    let mut entries: Vec<(Option<State>, String)> = present
        .iter()
        .map(|s| (Some(*s), said::state(*s, words)))
        .collect();
    entries.push((None, say!(words, "legend-answer")));
    let mut x = MARGIN;
    y += LINE;
    for (state, word) in entries {
        let w = 18.0 + word.chars().count() as f64 * 6.4;
        if x + w > TEXT_RIGHT && x > MARGIN {
            x = MARGIN;
            y += LINE;
        }
        match state {
            Some(state) if thin(state) => {
                let _ = writeln!(
                    body,
                    r##"<rect x="{x:.1}" y="{:.1}" width="12" height="2" fill="{}"/>"##,
                    y - 5.0,
                    fill(state)
                );
            }
            Some(state) => {
                let _ = writeln!(
                    body,
                    r##"<rect x="{x:.1}" y="{:.1}" width="12" height="10" fill="{}"/>"##,
                    y - 9.0,
                    fill(state)
                );
            }
            None => {
                let _ = writeln!(
                    body,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="4.5" fill="#2f7d32"/>"##,
                    x + 6.0,
                    y - 4.0
                );
            }
        }
        let _ = writeln!(
            body,
            r##"<text x="{:.1}" y="{y:.1}" font-size="11.5" fill="#1d2733">{}</text>"##,
            x + 16.0,
            escape(&word)
        );
        x += w + 10.0;
    }
    for note in said::notes(trace, words) {
        y += 4.0;
        for line in said::wrap(&note, CHARS_PER_LINE + 6) {
            y += 14.0;
            let _ = writeln!(
                body,
                r##"<text x="{MARGIN}" y="{y:.1}" font-size="11" fill="#55606b">{}</text>"##,
                escape(&line)
            );
        }
    }
    let height = (y + MARGIN).ceil();
    let facts = serde_json::to_string(&picture.facts()).unwrap_or_default();
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" role="img" aria-labelledby="tl-title tl-desc" xml:lang="{lang}" font-family="{FONT}">
<title id="tl-title">{title}</title>
<desc id="tl-desc">{desc}</desc>
<metadata id="tl-facts">{facts}</metadata>
{DEFS}
<rect x="0" y="0" width="{WIDTH}" height="{height}" rx="8" fill="#ffffff"/>
{grid}{body}</svg>
"##,
        lang = words.lang().tag(),
        title = escape(&desc[0]),
        desc = escape(&desc[1..].join(" ")),
        facts = escape(&facts),
    )
}

/// The facts an SVG was drawn from (its `<metadata>`), read back.
pub fn facts_of(svg: &str) -> Option<serde_json::Value> {
    let start = svg.find(r#"<metadata id="tl-facts">"#)? + r#"<metadata id="tl-facts">"#.len();
    let end = start + svg[start..].find("</metadata>")?;
    let text = svg[start..end]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::tests::stage3;
    use crate::words::Lang;

    #[test]
    fn the_svg_holds_its_facts_and_its_sentences_in_both_languages() {
        let trace = stage3();
        for lang in Lang::ALL {
            let svg = draw(&trace, &Words::of(lang));
            assert!(svg.starts_with("<svg "), "{svg}");
            assert!(svg.contains(&format!(r#"xml:lang="{}""#, lang.tag())));
            assert_eq!(facts_of(&svg), Some(Picture::of(&trace).facts()));
            assert!(svg.contains("url(#tl-blocked)") && svg.contains("url(#tl-gate)"));
        }
        let pt = draw(&trace, &Words::of(Lang::BrazilianPortuguese));
        assert!(pt.contains("bloqueado por #1"), "{pt}");
    }
}
