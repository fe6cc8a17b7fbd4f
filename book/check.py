#!/usr/bin/env python3
"""Checks the book's sources before mdbook builds them. Standard library only.

    python3 book/check.py

Fails (exit 1) when:
- a ```rust or ```sql block holds anything but `{{#include ...}}` lines: code in the
  book comes from compiled, tested files, never pasted;
- a ```rust block is not marked `ignore` (so `mdbook test` skips it: the code is
  tested by `cargo test`, with its real dependencies);
- an `{{#include path:anchor}}` names a missing file, or an anchor the file does
  not define (mdbook would silently include nothing);
- a link `[..](page.md#anchor)`, `<a href>`, image `![..](path)` or `<img src>`
  does not resolve to a file in book/src (and, for a page, to a heading or id in it);
- a page in SUMMARY.md is missing, or a page in book/src is not in SUMMARY.md;
- a stage in stages.toml has no chapter, or a prediction's question or one of its
  choice labels does not appear verbatim in the chapter (whitespace, line breaks,
  bold and inline-code markers aside): the book asks what `just stage N` asks.

Line-range includes (`path:10:20`) are allowed but reported: they break silently
when the file changes, so prefer anchors.
"""

import re
import sys
import tomllib
from pathlib import Path

BOOK = Path(__file__).resolve().parent
SRC = BOOK / "src"
STAGES = BOOK.parent / "stages.toml"

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([^\s`]*)\s*$")
INCLUDE = re.compile(r"\{\{#(include|rustdoc_include)\s+([^}\s]+)\s*\}\}")
MD_LINK = re.compile(r"(!?)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(a|img)\b[^>]*?\b(href|src)\s*=\s*\"([^\"]+)\"", re.I)
HTML_ID = re.compile(r"\bid\s*=\s*\"([^\"]+)\"")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ID = re.compile(r"\{\s*#([\w-]+)[^}]*\}\s*$")

ITEM_STARTS = ("///", "//", "#[", "pub ", "pub(", "fn ", "async fn", "use ", "const ", "struct ", "enum ", "impl ", "mod ")

errors = []
notes = []


def error(path, line, message):
    errors.append(f"{path.relative_to(BOOK.parent)}:{line}: {message}")


def pages():
    return sorted(p for p in SRC.rglob("*.md") if "generated" not in p.relative_to(SRC).parts)


def split_blocks(text):
    """Yields (line number, info, [lines]) for fenced blocks, and the prose lines
    with code blocks and inline code blanked out (for the link check)."""
    blocks, prose = [], []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence:
            marker, info = fence.group(2), fence.group(3)
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker):
                body.append(lines[i])
                prose.append("")
                i += 1
            blocks.append((start, info, body))
            prose += ["", ""]
            i += 1
            continue
        prose.append(re.sub(r"`[^`]*`", "``", lines[i]))
        i += 1
    return blocks, prose[: len(lines)]


def slug(heading):
    """The id mdbook gives a heading: its text, lowercased, spaces to dashes,
    everything but letters, digits, `-` and `_` dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = text.replace("`", "").replace("*", "")
    out = []
    for ch in text.strip().lower():
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch.isspace():
            out.append("-")
    return "".join(out)


def ids_of(page, cache={}):
    if page in cache:
        return cache[page]
    text = page.read_text(encoding="utf-8")
    _, prose = split_blocks(text)
    seen, ids = {}, set()
    for line in prose:
        h = HEADING.match(line)
        if h:
            title = h.group(2)
            explicit = EXPLICIT_ID.search(title)
            if explicit:
                ids.add(explicit.group(1))
                continue
            base = slug(title)
            n = seen.get(base, 0)
            ids.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
        ids.update(HTML_ID.findall(line))
    cache[page] = ids
    return ids


def anchors_in(path):
    text = path.read_text(encoding="utf-8")
    starts = set(re.findall(r"ANCHOR:\s*([\w-]+)", text))
    ends = set(re.findall(r"ANCHOR_END:\s*([\w-]+)", text))
    return starts, ends


def check_include(page, line, target):
    parts = target.split(":")
    file = (page.parent / parts[0]).resolve()
    if not file.is_file():
        error(page, line, f"include of a missing file: {parts[0]}")
        return
    if len(parts) == 1:
        return
    if len(parts) == 2 and not parts[1].isdigit():
        starts, ends = anchors_in(file)
        name = parts[1]
        if name not in starts or name not in ends:
            error(page, line, f"{parts[0]} has no `ANCHOR: {name}` / `ANCHOR_END: {name}` pair")
        return
    notes.append(f"{page.relative_to(BOOK.parent)}:{line}: line-range include {target} (prefer an anchor)")
    # A range that no longer starts where an item starts has probably shifted.
    try:
        first = int(parts[1]) if parts[1] else 1
    except ValueError:
        error(page, line, f"cannot read the line range in {target}")
        return
    lines = file.read_text(encoding="utf-8").split("\n")
    start = lines[first - 1].lstrip() if 0 < first <= len(lines) else ""
    if file.suffix == ".rs" and not start.startswith(ITEM_STARTS):
        error(page, line, f"{target} starts at {start!r}, not at an item: has the file changed?")


def check_link(page, line, target, image):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
        return  # http:, https:, mailto: ...: not ours to check offline
    path_part, _, anchor = target.partition("#")
    if path_part:
        resolved = (page.parent / path_part).resolve()
    else:
        resolved = page
    try:
        resolved.relative_to(SRC)
    except ValueError:
        error(page, line, f"link outside book/src: {target}")
        return
    if path_part.endswith(".html"):
        md = resolved.with_suffix(".md")
        if md.is_file():
            resolved = md
    if not resolved.is_file():
        kind = "image" if image else "link"
        error(page, line, f"{kind} to a missing file: {target}")
        return
    if anchor and resolved.suffix == ".md" and anchor not in ids_of(resolved):
        error(page, line, f"{target}: no heading or id `{anchor}` in {resolved.relative_to(SRC)}")


def load_stages():
    """The stages, as the runner reads them (stages.toml, at the repository root)."""
    try:
        with STAGES.open("rb") as f:
            stages = tomllib.load(f).get("stage", [])
    except (OSError, tomllib.TOMLDecodeError) as e:
        error(STAGES, 1, f"cannot read the stages: {e}")
        return []
    if not stages:
        error(STAGES, 1, "no [[stage]] in stages.toml")
    return stages


def flat(text):
    """Text as a reader sees it, for comparing with stages.toml: markdown emphasis and
    code markers dropped (the runner prints plain text; the book may set
    `idempotency_keys` as code), every run of whitespace, line breaks included, one
    space."""
    text = text.replace("**", "").replace("__", "").replace("`", "")
    return re.sub(r"\s+", " ", text).strip()


def check_predictions(chapter, text, stage):
    """Each prediction's question, and each of its choice labels, verbatim in the
    chapter: the book must ask what `just stage N` asks."""
    page = flat(text)
    lines = [flat(line) for line in text.split("\n")]
    n = stage["number"]
    # Errors point at the predictions' section, where the fix goes.
    at = next((i for i, line in enumerate(text.split("\n"), 1) if line.startswith("## Predict")), 1)
    for prediction in stage.get("prediction", []):
        pid = prediction.get("id", "?")
        question = flat(prediction.get("question", ""))
        if question not in page:
            error(chapter, at, f"stage {n}, prediction `{pid}`: the chapter does not ask stages.toml's "
                  f"question verbatim: {prediction.get('question')!r}")
        for choice in prediction.get("choices", []):
            label = flat(choice.get("label", ""))
            # A choice is a list item of its own: `- label`, the whole line.
            if f"- {label}" not in lines:
                error(chapter, at, f"stage {n}, prediction `{pid}`: no choice `- {choice.get('label')}` "
                      "(a list item on one line, verbatim from stages.toml)")
        answer = flat(prediction.get("answer", ""))
        if answer and answer not in page:
            error(chapter, at, f"stage {n}, prediction `{pid}`: the chapter never gives stages.toml's "
                  f"answer verbatim: {prediction.get('answer')!r}")


def main():
    summary = SRC / "SUMMARY.md"
    listed = set()
    for n, line in enumerate(summary.read_text(encoding="utf-8").split("\n"), 1):
        for _, target in MD_LINK.findall(line):
            page = (SRC / target).resolve()
            listed.add(page)
            if not page.is_file():
                error(summary, n, f"SUMMARY lists a missing page: {target}")
    for page in pages():
        if page.name != "SUMMARY.md" and page not in listed:
            error(page, 1, "page not in SUMMARY.md: mdbook would not render it")

    counts = {"rust": 0, "sql": 0, "other": 0}
    for page in pages():
        text = page.read_text(encoding="utf-8")
        blocks, prose = split_blocks(text)
        for start, info, body in blocks:
            lang = info.split(",")[0].lower()
            if lang in ("rust", "sql"):
                counts[lang] += 1
                content = [b for b in body if b.strip()]
                if not content or not all(INCLUDE.fullmatch(b.strip()) for b in content):
                    error(page, start, f"a ```{lang} block that is not an {{{{#include ...}}}}: no pasted code")
                if lang == "rust" and "ignore" not in info.split(",")[1:]:
                    error(page, start, "a ```rust block not marked `ignore` (write ```rust,ignore)")
            else:
                counts["other"] += 1
                if any(INCLUDE.search(b) for b in body) is False and lang not in ("sh", "console", "text", "toml"):
                    error(page, start, f"a ```{info or '(no language)'} block: use sh/console/text, or include the code")
            for offset, b in enumerate(body):
                for _, target in INCLUDE.findall(b):
                    check_include(page, start + offset + 1, target)
        for n, line in enumerate(prose, 1):
            for _, target in INCLUDE.findall(line):
                check_include(page, n, target)
            for bang, target in MD_LINK.findall(line):
                check_link(page, n, target, bool(bang))
            for tag, _, target in HTML_LINK.findall(line):
                check_link(page, n, target, tag.lower() == "img")

    # Every stage chapter: predictions with hidden answers, a solution page after it,
    # instructor notes; stages 3, 5 and 7 their diagrams.
    diagrams = {3: "images/stage3-timeline.svg", 5: "images/stage5-deadlock.svg",
                7: "images/stage7-lost-answer.svg"}
    stages = load_stages()
    for stage in stages:
        n = stage["number"]
        chapter = SRC / f"stage{n}.md"
        if not chapter.is_file():
            error(chapter, 1, f"missing stage chapter for stage {n} of stages.toml")
            continue
        text = chapter.read_text(encoding="utf-8")
        wanted = [("<details>", "hidden answers (<details>)"),
                  (f"stage{n}-solution.md", "a link to its solution page"),
                  (f"instructors/stage{n}.md", "a link to its instructor notes")]
        if n in diagrams:
            wanted.append((diagrams[n], "its diagram"))
        for needle, what in wanted:
            if needle not in text:
                error(chapter, 1, f"stage {n}'s chapter has no {what}")
        check_predictions(chapter, text, stage)
    predictions = sum(len(s.get("prediction", [])) for s in stages)

    for note in notes:
        print(f"note: {note}")
    if errors:
        for e in errors:
            print(f"error: {e}")
        print(f"check.py: {len(errors)} problem(s)")
        return 1
    print(
        f"check.py: {len(pages())} pages, {counts['rust']} rust and {counts['sql']} sql blocks, "
        f"all includes; links, images and anchors resolve; {len(stages)} stage chapters ask "
        f"stages.toml's {predictions} predictions verbatim"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
