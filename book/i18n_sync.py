#!/usr/bin/env python3
"""The book and the runner say a stage's texts the same way, in each language.

A stage page shows stages.toml's title, goal, questions and choices (book/check.py
checks the English page against stages.toml); the runner shows the same texts, in
Portuguese from stages.pt-BR.toml. This script sets the msgstr of every message of
book/po/pt-BR.po whose msgid is one of those English texts to its twin, so that a
learner reads one wording in the book and in the terminal:

    "Stage N: TITLE"      -> "Etapa N: TITLE in pt-BR"   (the page's heading, SUMMARY)
    GOAL                  -> the twin's goal
    "**K. QUESTION**"     -> "**K. the twin's question**" (prediction K of the page)
    CHOICE LABEL          -> the twin's label, at the same position

    python3 book/i18n_sync.py           rewrite book/po/pt-BR.po (`just i18n-update` runs it)
    python3 book/i18n_sync.py --check   fail if any such message differs (`just book-check`)

stages.pt-BR.toml is the one source of these translations: to change one, edit it
and run `just i18n-update`. Needs polib (`pip install polib`, or Debian's python3-polib).
"""

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "stages.toml"
TWIN = ROOT / "stages.pt-BR.toml"
PO = ROOT / "book" / "po" / "pt-BR.po"
# How the book's pages head a stage, in each language.
HEADING = {"en": "Stage {n}: {title}", "pt-BR": "Etapa {n}: {title}"}

try:
    import polib
except ImportError:
    sys.exit("i18n_sync.py needs polib: `pip install polib` (or `apt-get install python3-polib`)")


def flat(text):
    return " ".join(text.split())


def pairs(stages, twin):
    """(English, Portuguese, where) for every stage text the book shows."""
    twins = {s["number"]: s for s in twin.get("stage", [])}
    out = []
    for stage in stages.get("stage", []):
        n = stage["number"]
        t = twins.get(n)
        if t is None:
            sys.exit(f"{TWIN.name}: stage {n} has no twin (`cargo workbook verify` names what is missing)")
        out.append((HEADING["en"].format(n=n, title=stage["title"]),
                    HEADING["pt-BR"].format(n=n, title=t["title"]), f"stage {n}: title"))
        if stage.get("goal"):
            out.append((flat(stage["goal"]), flat(t.get("goal", "")), f"stage {n}: goal"))
        predictions = {p["id"]: p for p in t.get("prediction", [])}
        for k, p in enumerate(stage.get("prediction", []), 1):
            tp = predictions.get(p["id"], {})
            where = f"stage {n}: prediction {p['id']!r}"
            out.append((f"**{k}. {flat(p['question'])}**", f"**{k}. {flat(tp.get('question', ''))}**",
                        f"{where}: question"))
            labels = tp.get("choices", [])
            for i, choice in enumerate(p.get("choices", [])):
                if i < len(labels):
                    out.append((flat(choice["label"]), flat(labels[i]), f"{where}: choice {i + 1}"))
    return out


def translations(stages, twin):
    """msgid -> (msgstr, where); an English text with two different twins is an error
    (one message of the .po cannot hold both)."""
    out, clashes = {}, []
    for english, portuguese, where in pairs(stages, twin):
        if not portuguese.strip("*0123456789. "):
            continue  # a missing twin: verify names it
        seen = out.get(english)
        if seen and seen[0] != portuguese:
            clashes.append(f"{TWIN.name}: {english!r} is {seen[0]!r} ({seen[1]}) and {portuguese!r} ({where}): "
                           "one English text, one translation")
        else:
            out.setdefault(english, (portuguese, where))
    return out, clashes


def main():
    check = "--check" in sys.argv[1:]
    stages = tomllib.loads(STAGES.read_text())
    twin = tomllib.loads(TWIN.read_text())
    wanted, clashes = translations(stages, twin)
    po = polib.pofile(str(PO), wrapwidth=0)
    differ, changed, found = [], 0, 0
    for entry in po:
        if entry.obsolete or entry.msgid not in wanted:
            continue
        found += 1
        msgstr, where = wanted[entry.msgid]
        if entry.msgstr == msgstr and "fuzzy" not in entry.flags:
            continue
        differ.append(f"{PO.relative_to(ROOT)}: {entry.msgid!r} ({where}) is translated "
                      f"{entry.msgstr!r}, stages.pt-BR.toml says {msgstr!r}")
        entry.msgstr = msgstr
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
        entry.previous_msgid = None
        changed += 1
    if clashes:
        sys.exit("\n".join(clashes))
    if check:
        if differ:
            print("\n".join(differ), file=sys.stderr)
            sys.exit(f"i18n_sync: {len(differ)} message(s) of the book say a stage text otherwise than "
                     "the runner: run `just i18n-update` (stages.pt-BR.toml is the source)")
        print(f"i18n_sync: the book's {found} stage texts agree with stages.pt-BR.toml")
        return
    if changed:
        po.save(str(PO))
    print(f"i18n_sync: {changed} message(s) of {PO.relative_to(ROOT)} set from stages.pt-BR.toml")


if __name__ == "__main__":
    main()
