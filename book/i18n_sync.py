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
and run `just i18n-update`. The .po is read by book/i18n.py's reader, and edited in
place (one msgstr line each: i18n-update writes with --no-wrap), the rest left as it is.
"""

import re
import sys
import tomllib
from pathlib import Path

from i18n import read_po

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "stages.toml"
TWIN = ROOT / "stages.pt-BR.toml"
PO = ROOT / "book" / "po" / "pt-BR.po"
# How the book's pages head a stage, in each language.
HEADING = {"en": "Stage {n}: {title}", "pt-BR": "Etapa {n}: {title}"}


def quote_po(text):
    """A string as a .po file writes it, quotes included."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


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
    if clashes:
        sys.exit("\n".join(clashes))
    differ, found = [], 0
    for message in read_po(PO):
        if message.msgctxt is not None or message.msgid not in wanted:
            continue
        found += 1
        msgstr, where = wanted[message.msgid]
        if message.msgstr != msgstr or message.fuzzy:
            differ.append((message, msgstr, where))
    if check:
        for message, msgstr, where in differ:
            print(f"{message.where(PO.relative_to(ROOT))}: {message.msgid!r} ({where}) is translated "
                  f"{message.msgstr!r}{' (fuzzy)' if message.fuzzy else ''}, stages.pt-BR.toml says "
                  f"{msgstr!r}", file=sys.stderr)
        if differ:
            sys.exit(f"i18n_sync: {len(differ)} message(s) of the book say a stage text otherwise than "
                     "the runner: run `just i18n-update` (stages.pt-BR.toml is the source)")
        print(f"i18n_sync: the book's {found} stage texts agree with stages.pt-BR.toml")
        return
    text = PO.read_text(encoding="utf-8")
    for message, msgstr, _ in differ:
        # The message's msgid line, its msgstr (one line, or "" and continuation
        # lines), and a fuzzy flag (with the previous msgid lines) before it.
        entry = re.compile(r'(?:^#, fuzzy\n)?(?:^#\| .*\n)*(^msgid ' + re.escape(quote_po(message.msgid))
                           + r'\n)msgstr (?:".*"\n)+', re.M)
        text, n = entry.subn(lambda m: m.group(1) + f"msgstr {quote_po(msgstr)}\n", text, count=1)
        if n != 1:
            sys.exit(f"i18n_sync: cannot find {message.msgid!r} in {PO.relative_to(ROOT)} as one line "
                     "(run `just i18n-update`, which writes it with --no-wrap)")
    PO.write_text(text, encoding="utf-8")
    print(f"i18n_sync: {len(differ)} message(s) of {PO.relative_to(ROOT)} set from stages.pt-BR.toml")


if __name__ == "__main__":
    main()
