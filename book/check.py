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
  bold and inline-code markers aside): the book asks what `cargo workbook stage N` asks;
- no spoilers: a stage's goal (stages.toml, and the chapter's Goal paragraph, which
  must be that goal) or its chapter's text before a prediction, outside folded
  answers and outside the choice lists, states that prediction's answer (see
  `spoilers`), or a stage page includes code from a solution crate (other than a
  file its exercise is given as it is, by `#[path]` or `include_str!`), or shows
  a test unfolded (its assertions are the answers);
- no spec asked as a prediction: the goal, or the chapter before the question, states
  in its own words what the prediction's answer is (see `spec_signs`): the meaning of
  the answer's status code ("refuse" for a 422), a phrase that sets the answer apart
  from the other choices ("serialization failure"), or the status the question counts,
  with its meaning ("409 while in flight" for "how many are told 409?"). In English
  and in Portuguese. The rest of that kind of spoiler, the spec said another way
  ("PRIMARY KEY (client_id, key)" for "2: one per client"), only a reader catches:
  `python3 book/prediction_reader.py` writes what that reader is given;
- the order of the book lets "Next" land on a model answer from a stage: the stages
  and the model answers are each listed in stages.toml's order, with their titles,
  and every model answer comes after every stage;
- the README's stage table, or book.toml's description, disagrees with stages.toml;
- a page, a hint, a goal or an exercise's comment tells the learner to run
  `just <command>` for a command of the runner: `cargo workbook <command>` works on a
  fresh clone (a line that names both is the one place that explains just);
- a review route is not shown whole with its line numbers (the answers cite them).

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


# ---------------------------------------------------------------------------
# No spoilers, by construction.

NUMBER_WORDS = {1: "one|single|a single", 2: "two", 3: "three", 4: "four", 5: "five", 10: "ten",
                19: "nineteen", 20: "twenty"}


# What a count of each metric is called in prose, in English and in Portuguese.
FIGURE_NOUNS = {
    "payments": (r"payments?", r"pagamentos?"),
    "created": (r"201s?", r"201s?"),
    "duplicates_409": (r"409s?", r"409s?"),
    "distinct_bodies": (r"(?:response\s+)?bod(?:y|ies)", r"corpos?(?:\s+de\s+resposta)?"),
    "charges": (r"charges?", r"cobranças?"),
    "statements": (r"(?:statements?|round[ -]trips?)", r"(?:comandos?|idas?\s+e\s+voltas?)"),
    "batches": (r"(?:batches|transactions?)", r"(?:lotes?|transaç(?:ão|ões))"),
    "reaped": (r"keys?", r"chaves?"),
}


def figure_nouns(metric, lang="en"):
    """What a count of `metric` is called in prose: `payments` -> payment(s), the
    replies with a status -> that status, and so on. None: no noun to look for."""
    if metric.startswith("replies.") and metric[len("replies."):].isdigit():
        status = metric[len("replies."):]
        return rf"{status}s?"
    nouns = FIGURE_NOUNS.get(metric)
    return nouns and nouns[lang != "en"]


# How each language says an answer, for spoilers(): its number words, the words that
# carry no meaning, how many meaningful words in four make a phrase worth looking
# for, its thousands separator, the words after a figure that do not count it, and
# "paid once".
SPOKEN = {
    "en": {
        "numbers": NUMBER_WORDS,
        "stop": {"the", "a", "an", "of", "it", "its", "and", "is", "to", "in", "for", "with"},
        "meaningful": 2,
        "thousands": ",",
        "not_counting": r"per|each|every|that|which|of",
        "once": r"\b(?:pays|paid|charged)\s+once\b",
    },
    # "um pagamento" is also "a payment": one counts only when said as one; and
    # Portuguese says in four words what English says in three ("o prazo de
    # reserva", "the lease"): three meaningful words make a phrase, not two.
    "pt-BR": {
        "numbers": {1: r"(?:um|uma)\s+(?:só|únic[oa])|só\s+uma?|apenas\s+uma?|únic[oa]", 2: "dois|duas",
                    3: "três", 4: "quatro", 5: "cinco", 10: "dez", 19: "dezenove", 20: "vinte"},
        "stop": {"o", "a", "os", "as", "um", "uma", "de", "do", "da", "dos", "das", "e", "é", "em",
                 "no", "na", "com", "para", "por", "que", "se", "ele", "ela"},
        "meaningful": 3,
        "thousands": ".",
        "not_counting": r"por|cada|que|de",
        "once": r"\b(?:paga|pagou|cobrad[oa])\s+(?:só\s+)?uma\s+vez\b",
    },
}


def spoilers(prediction, label=None, lang="en"):
    """The ways a text can state a prediction's answer, as (what, regex) pairs. Kept
    simple and honest: it catches the answer said as the answer key says it, not
    every paraphrase; reading the stages (README: "Review") catches the rest.
    - the answer's label, whole, when it is more than a bare figure;
    - the label's explanation after its colon ("1: the same payment id for
      everyone"), and any four words in a row of the label;
    - a distinctive figure of the label (four digits or more, thousands, a duration:
      23505, 2,000, 250 ms; not an HTTP status, which the questions name);
    - a bare figure said with what it counts: "one payment", "20 identical 201s",
      "19 × 409", "charged once".
    `label`: the answer in `lang` (stages.pt-BR.toml's label for Portuguese)."""
    spoken = SPOKEN[lang]
    sep = re.escape(spoken["thousands"])
    label = flat(prediction.get("answer", "") if label is None else label).lower()
    out = []
    head, _, tail = label.partition(":")
    words = re.findall(r"[\w',.-]+", label)
    if not re.fullmatch(rf"[\d{sep}]+", label):
        out.append((f"the answer {label!r}", re.escape(label)))
        if tail.strip() and len(tail.split()) >= 3:
            out.append((f"the answer's {tail.strip()!r}", re.escape(tail.strip())))
        for i in range(len(words) - 3):
            gram = words[i:i + 4]
            if sum(w.strip(",.") not in spoken["stop"] for w in gram) >= spoken["meaningful"]:
                text = " ".join(gram).strip(",.")
                out.append((f"{text!r}, from the answer", r"(?<!\w)" + re.escape(text) + r"(?!\w)"))
    for figure in re.findall(rf"\d{{4,}}|\d{{1,3}}(?:{sep}\d{{3}})+|\d+ ms\b", label):
        out.append((f"the figure {figure}", rf"(?<![\d{sep}])" + re.escape(figure) + rf"(?![\d{sep}])"))
    if re.fullmatch(r"\d+", head.strip()):
        n = int(head.strip())
        noun = figure_nouns(prediction.get("metric", ""), lang)
        if noun:
            numbers = spoken["numbers"]
            said = rf"(?:{n}|{numbers[n]})" if n in numbers else str(n)
            skip = "|".join(rf"{w}\b" for w in spoken["not_counting"].split("|"))
            out.append((f"{n} {prediction.get('metric')}",
                        rf"(?<![\w{sep}]){said}(?:\s*×\s*|(?:\s+(?!{skip})[\w'-]+){{0,2}}\s+){noun}(?!\w)"))
            if n == 1 and prediction.get("metric") in ("payments", "charges"):
                out.append(("once", spoken["once"]))
    return out


# The Portuguese goals (stages.pt-BR.toml, what the runner shows with --lang pt-BR)
# keep the same rule: the answer is the twin's label at the answer key's position.
TWIN = BOOK.parent / "stages.pt-BR.toml"


def check_twin_goals(stages):
    """No Portuguese goal gives away a prediction either."""
    try:
        with open(TWIN, "rb") as f:
            twins = {s["number"]: s for s in tomllib.load(f).get("stage", [])}
    except (OSError, tomllib.TOMLDecodeError) as e:
        error(TWIN, 1, f"cannot read the stages' Portuguese twin: {e}")
        return
    lines = TWIN.read_text(encoding="utf-8").split("\n")
    for stage in stages:
        n = stage["number"]
        twin = twins.get(n, {})
        goal = flat(twin.get("goal", ""))
        at = next((i + 1 for i, line in enumerate(lines) if line.strip() == f"number = {n}"), 1)
        labels = {p["id"]: p.get("choices", []) for p in twin.get("prediction", [])}
        questions = {p["id"]: p.get("question", "") for p in twin.get("prediction", [])}
        for prediction in stage.get("prediction", []):
            pid = prediction.get("id", "?")
            english = [c.get("label") for c in prediction.get("choices", [])]
            translated = labels.get(pid, [])
            if prediction.get("answer") not in english or len(translated) != len(english):
                continue  # verify names a missing twin
            label = translated[english.index(prediction["answer"])]
            for what, pattern in spoilers(prediction, label, "pt-BR"):
                said = re.search(pattern, goal, re.I)
                if said:
                    error(TWIN, at, f"stage {n}'s Portuguese goal gives away prediction `{pid}`: it says "
                          f"{what} ({said.group(0)!r}); what happened goes in `outcome`")
                    break
            known = SPEC_SIGNS_REVIEWED.get((n, pid))
            for what, test in [] if known else spec_signs(prediction, translated, questions.get(pid), "pt-BR"):
                said = test(goal)
                if said:
                    error(TWIN, at, f"stage {n}'s Portuguese goal states prediction `{pid}`'s answer: it says "
                          f"{what} ({said if isinstance(said, str) else said.group(0)!r}); ask something else "
                          "(stages.toml's header)")
                    break


def unfolded_lines(text):
    """The chapter's lines as a reader sees them before opening anything: without
    <details> blocks (the folded answers) and code blocks, with the line number of
    each."""
    out, folded, fenced = [], 0, False
    for number, line in enumerate(text.split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        folded += line.count("<details>")
        closing = line.count("</details>")
        if not fenced and not folded:
            out.append((number, line))
        folded -= closing
    return out


# ---------------------------------------------------------------------------
# No spec asked as a prediction. `spoilers` finds an answer copied into a goal; this
# finds an answer that IS the goal, said in the goal's own words: a question whose
# answer the spec states tests reading, not understanding (stages.toml's header).

# What a status code means, in the words a goal would use to require it.
STATUS_MEANINGS = {
    "en": {
        "409": r"\bin[ -]flight\b|\bbounded\s+wait|\bconflict",
        "422": r"\brefus\w*|\breject\w*|\bunprocessable",
        "401": r"\bunauthori[sz]ed|\bunauthenticated",
        "500": r"\binternal\s+(?:server\s+)?error",
        "502": r"\bbad\s+gateway",
    },
    "pt-BR": {
        "409": r"\bem\s+andamento\b|\bespera\s+limitada|\bconflito",
        "422": r"\brecus\w*|\brejeit\w*",
        "401": r"\bnão\s+autenticad\w*",
        "500": r"\berro\s+interno",
        "502": r"\bbad\s+gateway",
    },
}

# Words that carry no meaning of their own in a choice label, besides SPOKEN's.
CONTENT_STOP = {
    "en": {"that", "this", "those", "them", "they", "their", "his", "her", "once", "then", "there",
           "so", "at", "by", "on", "as", "be", "are", "was", "were", "has", "have", "had", "not",
           "no", "all", "but", "or", "if", "what", "which", "who", "one", "each"},
    "pt-BR": {"ela", "elas", "eles", "lhe", "seu", "sua", "seus", "suas", "dele", "dela", "aos",
              "às", "ao", "à", "pelo", "pela", "não", "mas", "ou", "foi", "são", "está", "cada"},
}


def stem(word):
    """A word's crude stem, enough to match refuse/refused/refusal, reserve/reserved,
    failure/failures: lower case, one inflection off, then a final -al or -e."""
    word = word.lower().removesuffix("'s")
    if len(word) > 4:
        for suffix in ("ations", "ation", "ings", "ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
    for suffix in ("al", "e"):
        if len(word) > 4 and word.endswith(suffix):
            word = word[: -len(suffix)]
    return word


def content_words(text, lang):
    stop = SPOKEN[lang]["stop"] | CONTENT_STOP[lang]
    words = re.findall(r"[^\W_]+(?:'s)?", flat(text).lower())
    return [stem(w) for w in words if w not in stop]


def phrases(text, lang):
    """Each two content words in a row, within a clause: what a phrase of the text
    means, roughly."""
    out = set()
    for clause in re.split(r"[,.;:()!?]+(?:\s|$)|\s[-–—]\s", flat(text)):
        words = content_words(clause, lang)
        out |= {(a, b) for a, b in zip(words, words[1:]) if not (a.isdigit() and b.isdigit())}
    return out


def statuses(text):
    # 422 and "422," but not 2,000 or 1.500.
    return set(re.findall(r"(?<![\d,.])([1-5]\d\d)(?!\d|[,.]\d)", text))


def spec_signs(prediction, labels=None, question=None, lang="en"):
    """The signs that a text states what `prediction` asks, as (what, test) pairs, each
    test a function of the text. `labels` and `question`: the choices and the question
    in `lang` (stages.pt-BR.toml's for Portuguese)."""
    choices = [c.get("label", "") for c in prediction.get("choices", [])]
    labels = choices if labels is None else labels
    question = prediction.get("question", "") if question is None else question
    if prediction.get("answer") not in choices or len(labels) != len(choices):
        return []
    answer = labels[choices.index(prediction["answer"])]
    others = [label for label in labels if label != answer]
    meanings = STATUS_MEANINGS[lang]
    signs = []
    # The answer's status code, by its meaning, when no other choice and not the
    # question says that code.
    theirs = statuses(question).union(*(statuses(o) for o in others))
    for code in sorted(statuses(answer) - theirs):
        if code in meanings:
            rx = re.compile(meanings[code], re.I)
            signs.append((f"what the answer's {code} means", lambda text, rx=rx: rx.search(flat(text))))
    # A phrase of the answer that no other choice and not the question has.
    taken = phrases(question, lang).union(*(phrases(o, lang) for o in others))
    for pair in sorted(phrases(answer, lang) - taken):
        if all(w.isdigit() or len(w) < 3 for w in pair):
            continue
        said = re.compile(rf"\b{re.escape(pair[0])}[\w']*(?:\W+[\w']+){{0,3}}?\W+{re.escape(pair[1])}[\w']*", re.I)
        signs.append((f"a phrase of the answer, {' '.join(pair)!r} (stems)",
                      lambda text, pair=pair, said=said: pair in phrases(text, lang)
                      and (said.search(flat(text)) or re.search(".+", " ".join(pair)))))
    # The status the question counts ("how many are told 409?"), said with its meaning.
    asked = re.findall(r"(?:how\s+many|quant[oa]s)\b[^?]*?\b(?:told|get|gets|receive|recebem?)\s+(?:an?\s+|um\s+)?"
                       r"([1-5]\d\d)\b", question, re.I)
    for code in asked:
        if code in meanings:
            rx = re.compile(meanings[code], re.I)
            signs.append((f"when a {code} is given, which the question counts",
                          lambda text, rx=rx: rx.search(flat(text))))
    return signs


def check_spec_asked(chapter, text, stage):
    """No prediction's answer is the spec: the goal and the chapter before the
    question do not state it in their own words (`spec_signs`)."""
    n = stage["number"]
    lines = text.split("\n")
    for prediction in stage.get("prediction", []):
        pid = prediction.get("id", "?")
        words = flat(prediction.get("question", "")).split()[:6]
        found = re.search(r"[\s*`]+".join(map(re.escape, words)), text)
        end = text[: found.start()].count("\n") if found else len(lines)
        before = " ".join(line for k, line in unfolded_lines("\n".join(lines[:end]))
                          if not line.startswith("**") and not line.startswith("- "))
        for what, test in spec_signs(prediction):
            said = test(flat(stage.get("goal", "")))
            known = SPEC_SIGNS_REVIEWED.get((n, pid))
            if said and known:
                notes.append(f"stage {n}, prediction `{pid}`: its goal says {what}: {known}")
                break
            if said:
                error(STAGES, stage_line(n), f"stage {n}'s goal states prediction `{pid}`'s answer: it says "
                      f"{what} ({said if isinstance(said, str) else said.group(0)!r}). A prediction asks what "
                      "the learner cannot read off the goal: ask something else (stages.toml's header)")
                break
            said = test(before)
            if said and not known:
                error(chapter, end, f"stage {n}: the chapter, before prediction `{pid}`, states its answer: it "
                      f"says {what} ({said if isinstance(said, str) else said.group(0)!r}); say what to build "
                      "after the questions, or ask something else")
                break


# Signs read and found not to state the answer: each with why, reported as a note.
SPEC_SIGNS_REVIEWED = {
    (10, "sibling-update"): "the goal's bounded wait (a 409) is for a key in flight; the question is a retry of "
                            "a key answered before, and why its row has no answer (a sibling UPDATE that cannot "
                            "see the row) is nowhere before it",
}


def stage_line(n):
    """The line of stages.toml where stage n's goal is (for error messages)."""
    lines = STAGES.read_text(encoding="utf-8").split("\n")
    at = next((i for i, line in enumerate(lines) if line.strip() == f"number = {n}"), 0)
    return next((i + 1 for i in range(at, len(lines)) if lines[i].startswith("goal")), at + 1)


def check_spoilers(chapter, text, stage):
    """The goal, and the chapter as it reads with every answer folded, never state a
    prediction's answer. The choice lists and the questions themselves are
    stages.toml's own, asked as they are: they are not read."""
    n = stage["number"]
    goal = flat(stage.get("goal", ""))
    goal_para = re.search(r"^## Goal\n\n(.*?)(?:\n\n|\Z)", text, re.S | re.M)
    if not goal_para or flat(goal_para.group(1)) != goal:
        at = text[: goal_para.start()].count("\n") + 1 if goal_para else 1
        error(chapter, at, f"stage {n}: the Goal's first paragraph is not stages.toml's goal "
              f"(the runner shows that one before the predictions; say the same thing): {goal!r}")
    predictions = stage.get("prediction", [])
    choices = {f"- {flat(c.get('label', ''))}" for p in predictions for c in p.get("choices", [])}
    raw = text.split("\n")
    asked = set()
    for prediction in predictions:
        # The question's lines: from its first words to the end of its paragraph.
        words = flat(prediction.get("question", "")).split()[:6]
        found = re.search(r"[\s*`]+".join(map(re.escape, words)), text)
        if found:
            k = text[: found.start()].count("\n")
            while k < len(raw) and raw[k].strip():
                asked.add(k + 1)
                k += 1
    # The page as one text (a phrase may cross a line break), and where each line starts.
    page, starts = "", []
    for k, line in unfolded_lines(text):
        if k in asked or flat(line) in choices:
            continue
        starts.append((len(page), k))
        page += flat(line) + " "
    for prediction in predictions:
        pid = prediction.get("id", "?")
        reported = set()  # one error per place, with the first way it was said
        for what, pattern in spoilers(prediction):
            rx = re.compile(pattern, re.I)
            said = rx.search(goal)
            if said and "goal" not in reported:
                reported.add("goal")
                error(STAGES, stage_line(n), f"stage {n}'s goal gives away prediction `{pid}`: it says {what} "
                      f"({said.group(0)!r}); the goal says what to build and why, what happened goes in `outcome`")
            for hit in rx.finditer(page):
                line = max(k for offset, k in starts if offset <= hit.start())
                if line in reported:
                    continue
                reported.add(line)
                error(chapter, line, f"stage {n}: the chapter gives away prediction `{pid}` outside the "
                      f"folded answers: it says {what} ({hit.group(0)!r}); fold it, or move it to the "
                      "model-answer page")


def given_files(stage):
    """Files of solution crates that a stage's exercise uses as they are (`#[path]`,
    `include_str!`): given code, not the model answer."""
    root = BOOK.parent
    # The exercise's package is stageN-SLUG-exercise unless stages.toml overrides it.
    package = stage.get("exercise") or f"stage{stage['number']}-{stage['slug']}-exercise"
    folder = root / "exercises" / package.removesuffix("-exercise")
    given = set()
    for source in folder.rglob("*.rs") if folder.is_dir() else []:
        for target in re.findall(r'(?:#\[path\s*=\s*|include_str!\()\s*"([^"]+)"', source.read_text(encoding="utf-8")):
            given.add((source.parent / target).resolve())
    return given


def check_stage_includes(chapter, text, stage):
    """A stage page shows no code of a model answer: that is the model-answer page's.
    And the code it shows (the tests) is folded: their assertions are the answers."""
    solutions = (BOOK.parent / "solutions").resolve()
    given = given_files(stage)
    folded = 0
    for k, line in enumerate(text.split("\n"), 1):
        folded += line.count("<details>") - line.count("</details>")
        for _, target in INCLUDE.findall(line):
            tests = (BOOK.parent / "tests").resolve()
            if not folded and (chapter.parent / target.split(":")[0]).resolve().is_relative_to(tests):
                error(chapter, k, f"stage {stage['number']}'s page shows {target.split(':')[0]} unfolded: a "
                      "test's assertions are the predictions' answers; put it in a <details>")
            file = (chapter.parent / target.split(":")[0]).resolve()
            if file.is_relative_to(solutions) and file not in given:
                error(chapter, k, f"stage {stage['number']}'s page includes code from a solution crate "
                      f"({target.split(':')[0]}): move it to stage{stage['number']}-solution.md")


def check_timelines(stages):
    """Each timeline of book/timelines.py is shown on its stage's model-answer page;
    no stage page shows one (a burst's picture answers the predictions)."""
    sys.path.insert(0, str(BOOK))
    import timelines
    numbers = {s["number"] for s in stages}
    for spec in timelines.TIMELINES:
        n = timelines.stage_of(spec)
        page = SRC / f"stage{n}-solution.md"
        include = f"{{{{#include generated/timelines/{spec['name']}.md}}}}"
        if n not in numbers or not page.is_file():
            error(BOOK / "timelines.py", 1, f"timeline {spec['name']}: stage {n} has no model-answer page")
        elif include not in page.read_text(encoding="utf-8"):
            error(page, 1, f"stage {n}'s model-answer page does not show its timeline: add {include}")
    for n in sorted(numbers):
        chapter = SRC / f"stage{n}.md"
        text = chapter.read_text(encoding="utf-8") if chapter.is_file() else ""
        for k, line in enumerate(text.split("\n"), 1):
            if "generated/timelines/" in line:
                error(chapter, k, f"stage {n}'s page shows a timeline: it answers the predictions; "
                      f"show it on stage{n}-solution.md")


def check_order(summary, stages):
    """SUMMARY.md lists the stages, then (later) their model answers, each in
    stages.toml's order and with stages.toml's titles: so that mdBook's "Next" from
    a stage leads on, never to a model answer."""
    listed = []
    for k, line in enumerate(summary.read_text(encoding="utf-8").split("\n"), 1):
        m = re.match(r"^\s*- \[(.*)\]\((.*)\)\s*$", line)
        if m:
            listed.append((k, m.group(1), m.group(2)))
    for kind, file, part in (("chapter", "stage{n}.md", "The stages"), ("model answer", "stage{n}-solution.md", "Model answers")):
        entries = [(k, title, target) for k, title, target in listed if re.fullmatch(file.replace("{n}", r"\d+"), target)]
        want = [(f"Stage {s['number']}: {s['title']}", file.format(n=s["number"])) for s in stages]
        got = [(title, target) for _, title, target in entries]
        if got != want:
            error(summary, entries[0][0] if entries else 1,
                  f"the {kind}s in SUMMARY.md are not stages.toml's, in its order (`- [Stage N: title]({file})`): "
                  f"want {[w[0] for w in want]}")
    pages_in_order = [target for _, _, target in listed]
    last_stage = max((i for i, t in enumerate(pages_in_order) if re.fullmatch(r"stage\d+\.md", t)), default=-1)
    first_answer = min((i for i, t in enumerate(pages_in_order) if re.fullmatch(r"stage\d+-solution\.md", t)), default=len(pages_in_order))
    if first_answer < last_stage:
        error(summary, 1, f"{pages_in_order[first_answer]} comes before the last stage: the model answers "
              "go after every stage, so that Next from a stage never shows its answer")
    for s in stages:
        n = s["number"]
        for page, want in ((SRC / f"stage{n}.md", f"# Stage {n}: {s['title']}"),
                           (SRC / f"stage{n}-solution.md", f"# Stage {n}: The model answer")):
            if page.is_file() and page.read_text(encoding="utf-8").split("\n", 1)[0] != want:
                error(page, 1, f"the page's title should be {want!r}")


def check_readme(stages):
    """The README's stage table: one row per stage of stages.toml, in order, the title
    verbatim in its second column, what the learner builds in its third."""
    readme = BOOK.parent / "README.md"
    rows = [(k, line) for k, line in enumerate(readme.read_text(encoding="utf-8").split("\n"), 1)
            if re.match(r"^\|\s*\d+\s*\|", line)]
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for _, line in rows]
    got = [tuple(row[:2]) for row in cells]
    want = [(str(s["number"]), s["title"]) for s in stages]
    if got != want:
        error(readme, rows[0][0] if rows else 1,
              "the README's stage table is not stages.toml's stages: want rows "
              + ", ".join(f"`| {n} | {t} | ... |`" for n, t in want))
    for (k, _), row in zip(rows, cells):
        if len(row) < 3 or not row[2]:
            error(readme, k, f"the README's row for stage {row[0]} does not say what the learner builds "
                  "(its third column)")


def check_description(stages):
    with (BOOK / "book.toml").open("rb") as f:
        description = tomllib.load(f).get("book", {}).get("description", "")
    count = len(stages)
    words = {7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen",
             14: "fourteen", 15: "fifteen", 16: "sixteen", 17: "seventeen", 18: "eighteen",
             19: "nineteen", 20: "twenty"}
    said = re.findall(rf"\b(\d+|{'|'.join(words.values())})\s+(?:[\w-]+\s+)?stages\b", description)
    if said != [str(count)] and said != [words.get(count, "")]:
        error(BOOK / "book.toml", 3, f"book.toml's description should say {words.get(count, count)} stages "
              f"(stages.toml has {count}): {description!r}")


def just_runner():
    """`just COMMAND` for each runner command the justfile passes on (a recipe that runs
    `{{runner}} COMMAND`): what `cargo workbook COMMAND` says without just."""
    justfile = (BOOK.parent / "justfile").read_text(encoding="utf-8")
    commands = sorted(set(re.findall(r"^\s+@?\{\{runner\}\}\s+([\w-]+)", justfile, re.M)))
    return re.compile(rf"\bjust\s+(?:{'|'.join(map(re.escape, commands))})(?![\w-])")


def check_commands(stages):
    """`cargo workbook ...` works on a fresh clone; `just` is optional. A line that
    names both is the one that explains it."""
    just_command = just_runner()

    def look(path, k, line):
        if just_command.search(line) and "cargo workbook" not in line:
            error(path, k, f"`{just_command.search(line).group(0)}`: say `cargo workbook "
                  f"{just_command.search(line).group(0).split()[-1]}` (just is optional)")
    for page in pages():
        for k, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
            look(page, k, line)
    root = BOOK.parent
    for source in sorted((root / "exercises").rglob("*")):
        if source.suffix in (".rs", ".sql", ".toml") and source.is_file():
            for k, line in enumerate(source.read_text(encoding="utf-8").split("\n"), 1):
                look(source, k, line)
    for s in stages:
        for text in [s.get("goal", ""), s.get("outcome", "")] + list(s.get("hints", [])):
            if just_command.search(text):
                error(STAGES, 1, f"stage {s['number']}: {just_command.search(text).group(0)!r} in a goal or "
                      "hint: say `cargo workbook ...`")


def check_review_routes():
    """The review's answers cite line numbers of each route's file: the book shows
    every route of review/review.toml whole, in a numbered listing."""
    key = BOOK.parent / "review" / "review.toml"
    page = SRC / "review.md"
    if not key.is_file() or not page.is_file():
        return
    with key.open("rb") as f:
        routes = tomllib.load(f).get("route", [])
    text = page.read_text(encoding="utf-8")
    for route in routes:
        name, shown = route.get("name", "?"), route.get("file", "")
        at = text.find(f"### Route {name}\n")
        include = re.match(r'\s*<div class="numbered">\n\n```rust,ignore\n\{\{#include ([^}\s]+)\}\}\n```\n\n</div>',
                           text[at + len(f"### Route {name}\n"):]) if at >= 0 else None
        if not include or (SRC / include.group(1)).resolve() != (BOOK.parent / shown).resolve():
            error(page, text[:max(at, 0)].count("\n") + 1, f"route {name}: show {shown} whole (no anchor), right "
                  'under its heading, inside <div class="numbered">: the answers cite its line numbers')



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
                  (f"stage{n}-solution.md", "a link to its model-answer page"),
                  (f"instructors/stage{n}.md", "a link to its instructor notes")]
        for needle, what in wanted:
            if needle not in text:
                error(chapter, 1, f"stage {n}'s chapter has no {what}")
        answer_page = SRC / f"stage{n}-solution.md"
        if n in diagrams and answer_page.is_file() and diagrams[n] not in answer_page.read_text(encoding="utf-8"):
            error(answer_page, 1, f"stage {n}'s model-answer page has no diagram {diagrams[n]}")
        check_predictions(chapter, text, stage)
        check_spoilers(chapter, text, stage)
        check_spec_asked(chapter, text, stage)
        check_stage_includes(chapter, text, stage)
    predictions = sum(len(s.get("prediction", [])) for s in stages)
    check_order(summary, stages)
    check_timelines(stages)
    check_readme(stages)
    check_description(stages)
    check_commands(stages)
    check_review_routes()
    check_twin_goals(stages)

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
        f"stages.toml's {predictions} predictions verbatim, and no goal or chapter gives an "
        f"answer away; the stage lists, the commands and the review routes agree"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
