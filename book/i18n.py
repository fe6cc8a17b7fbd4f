#!/usr/bin/env python3
"""The book's translations (gettext: book/po/messages.pot, book/po/pt-BR.po) and its glossary.

    python3 book/i18n.py glossary            # write the table of book/src/glossary.md from book/glossary.toml
    python3 book/i18n.py terms FILE.po...    # list the messages that translate a glossary term another way
    python3 book/i18n.py includes            # translate each {{#include generated/X}} into generated/LANG/X
    python3 book/i18n.py build               # build the English book and every translation (`just book`)
    python3 book/i18n.py check               # what `just book-check` runs (see below)
    python3 book/i18n.py check --complete    # the same, with the translation held complete (`just i18n-check`)

`check` fails (exit 1) when:
- the glossary's table in book/src/glossary.md differs from book/glossary.toml;
- a `{{#include generated/X}}` message of pt-BR.po is not translated into
  `{{#include generated/pt-BR/X}}`, or that file is missing (the generators write both);
- the English or the pt-BR book does not build, or one of its internal links or #anchors
  does not resolve (in the built HTML: what a reader clicks).
With `--complete` (or `complete = true` in book/po/languages.toml) it also fails when:
- book/po/messages.pot is stale against the English sources (re-extracted into a temporary
  directory and compared message by message);
- pt-BR.po has an untranslated or fuzzy message;
- a translated message translates a glossary term another way.
Without it, these are listed as warnings: the translation is being filled in.

Standard library only (tomllib: Python 3.11+); gettext's msgfmt, mdbook and
mdbook-i18n-helpers (mdbook-xgettext, mdbook-gettext) on PATH.
"""

import os
import re
import subprocess
import sys
import tempfile
import tomllib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
PO_DIR = BOOK / "po"
POT = PO_DIR / "messages.pot"
LANGUAGES = PO_DIR / "languages.toml"
GLOSSARY = BOOK / "glossary.toml"
GLOSSARY_PAGE = BOOK / "src" / "glossary.md"
GENERATED = BOOK / "src" / "generated"
FIX = "run `just i18n-update`, then translate the new and fuzzy messages of book/po/{lang}.po"
SHOWN = 12  # messages printed per problem; the rest are counted


# --- PO files ---------------------------------------------------------------------------


class Message:
    def __init__(self, line):
        self.line = line
        self.msgctxt = None
        self.msgid = ""
        self.msgstr = ""
        self.fuzzy = False
        self.obsolete = False

    @property
    def key(self):
        return (self.msgctxt, self.msgid)

    def where(self, path):
        return f"{path}:{self.line}"


def unquote_po(text):
    body = text.strip()
    if not (body.startswith('"') and body.endswith('"')):
        raise ValueError(f"not a quoted string: {text!r}")
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)), body[1:-1])


def read_po(path):
    """The messages of a .po or .pot file, the header left out."""
    messages, current, field = [], None, None

    def finish():
        if current is not None and (current.msgid or current.msgctxt):
            messages.append(current)

    for n, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            continue
        keyword = re.match(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(.*)$", line)
        if line.startswith("#") or (keyword and keyword.group(1) in ("msgctxt", "msgid")):
            # A comment, msgctxt or msgid after a msgstr starts the next message.
            if field == "msgstr":
                finish()
                current, field = None, None
            if current is None:
                current = Message(n)
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                current.fuzzy = True
            continue
        if keyword:
            name, rest = keyword.groups()
            if current is None:
                current = Message(n)
            field = "msgstr" if name.startswith("msgstr") else name
            value = unquote_po(rest)
            if name == "msgctxt":
                current.msgctxt = value
            elif name == "msgid":
                current.msgid, current.line = value, n
            elif name.startswith("msgstr"):
                current.msgstr += value
            current.obsolete = obsolete
            continue
        if line.startswith('"') and current is not None:
            value = unquote_po(line)
            if field == "msgctxt":
                current.msgctxt += value
            elif field == "msgid":
                current.msgid += value
            elif field == "msgstr":
                current.msgstr += value
    finish()
    return [m for m in messages if not m.obsolete]


def show(message, width=100):
    text = " ".join(message.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# --- The glossary -----------------------------------------------------------------------


def load_glossary():
    with GLOSSARY.open("rb") as f:
        data = tomllib.load(f)
    return data.get("term", []), data.get("allow", [])


def glossary_table(terms):
    out = ["| English | Português | note · nota |", "|---|---|---|"]
    out += [f"| {t['en']} | {t['pt']} | {t.get('note', '')} |".replace(" |  |", " | |")
            for t in terms]
    return out


def glossary_page(terms):
    """book/src/glossary.md with its table rewritten from glossary.toml (the prose kept)."""
    lines = GLOSSARY_PAGE.read_text(encoding="utf-8").splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("| English |")), None)
    if start is None:
        raise SystemExit(f"i18n.py: {GLOSSARY_PAGE.relative_to(ROOT)} has no '| English |' table")
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join(lines[:start] + glossary_table(terms) + lines[end:]) + "\n"


# What stays as it is in every language, left out before terms are looked for: code,
# HTML tags, link targets, includes, quotations (an error message, the IETF draft), paths
# (`POST /payments`), header names (Idempotency-Key), SQL keywords (PRIMARY KEY), identifiers.
NOT_PROSE = re.compile(
    r"```.*?```|`[^`]*`|<[^>]+>|\]\([^)]*\)|\{\{#[^}]*\}\}|#include\s+\S+"
    r"|\"[^\"]*\"|“[^”]*”"
    r"|(?<!\S)/\S+"
    r"|\b[A-Z][a-z]+(?:-[A-Z][a-z]+)+\b"
    r"|\b[A-Z]{2,}(?:\s+[A-Z]{2,})*\b"
    r"|\b\w+_\w+\b|\b\w+(?:-\w+){2,}\b",
    re.S,
)


def prose(text):
    """A message's words, without what stays as it is in every language."""
    return NOT_PROSE.sub(" ", text)


def term_patterns(terms):
    out = []
    for term in terms:
        if "match" not in term:
            continue
        found = re.compile(r"\b(?:" + "|".join(term["match"]) + r")\b", re.I)
        accepted = re.compile("|".join(term["accept"]), re.I)
        out.append((term, found, accepted))
    return out


def glossary_offences(messages, terms, allow):
    """(message, term) for each translated message whose English holds a glossary term
    its Portuguese does not."""
    patterns = term_patterns(terms)
    # The glossary page's own cells: its English column stays English in every language.
    cells = {t.get(column, "") for t in terms for column in ("en", "pt", "note")}
    offences = []
    for m in messages:
        if not m.msgstr or m.fuzzy or m.msgid.strip() in cells:
            continue
        english, portuguese = prose(m.msgid), prose(m.msgstr)
        for term, found, accepted in patterns:
            if not found.search(english) or accepted.search(portuguese):
                continue
            if any(a["term"] == term["en"] and a["message"] in m.msgid for a in allow):
                continue
            offences.append((m, term))
    return offences


def print_offences(path, offences):
    for m, term in offences[:SHOWN]:
        print(f"  {m.where(path)}: \"{term['en']}\" should be \"{term['pt']}\"")
        print(f"      en: {show(m.msgid)}")
        print(f"      pt: {show(m.msgstr)}")
    if len(offences) > SHOWN:
        print(f"  ... and {len(offences) - SHOWN} more (`python3 book/i18n.py terms {path}` lists them all)")


# --- Checks -----------------------------------------------------------------------------


def mdbook(*args, env=None):
    done = subprocess.run(["mdbook", *args], cwd=ROOT, env=dict(os.environ, **(env or {})),
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
    return done.returncode == 0


def fresh_pot(tmp):
    """messages.pot extracted now, as `just i18n-update` extracts it."""
    output = '{"xgettext": {"pot-file": "messages.pot", "granularity": 0}}'
    if not mdbook("build", "book", "-d", str(tmp), env={"MDBOOK_OUTPUT": output}):
        raise SystemExit("i18n.py: mdbook-xgettext failed (see above)")
    return tmp / "messages.pot"


def pot_changes(tmp):
    committed = {m.key for m in read_po(POT)}
    now = {m.key for m in read_po(fresh_pot(tmp))}
    return sorted(now - committed, key=str), sorted(committed - now, key=str)


INCLUDE_GENERATED = re.compile(r"^\{\{#include generated/([^}\s]+)\}\}$")


def include_problems(lang, messages):
    problems = []
    for m in messages:
        found = INCLUDE_GENERATED.match(m.msgid.strip())
        if not found:
            continue
        target = found.group(1)
        want = f"{{{{#include generated/{lang}/{target}}}}}"
        if m.msgstr.strip() != want:
            problems.append(f"{m.msgid.strip()} is translated {m.msgstr.strip()!r}, not {want!r} "
                            f"(the generators write the {lang} fragment)")
        file = GENERATED / lang / target.split(":")[0]
        missing = f"{file.relative_to(ROOT)} is missing"
        if not file.is_file() and not any(p.startswith(missing) for p in problems):
            problems.append(f"{file.relative_to(ROOT)} is missing: its generator writes it "
                            f"beside {target.split(':')[0]}")
    return problems


class Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.targets = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(name):
                self.ids.add(attrs[name])
        for name in ("href", "src"):
            if attrs.get(name) and tag in ("a", "img", "link", "script", "iframe"):
                self.targets.append((tag, attrs[name]))


def broken_links(site):
    """Every internal link, image, script and #anchor of a built book that does not resolve."""
    parsed = {}

    def page(path):
        if path not in parsed:
            links = Links()
            links.feed(path.read_text(encoding="utf-8"))
            parsed[path] = links
        return parsed[path]

    broken = []
    site = site.resolve()
    for html in sorted(site.rglob("*.html")):
        for tag, target in page(html).targets:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc or target.startswith("//"):
                continue
            path = html if not parts.path else (html.parent / unquote(parts.path)).resolve()
            if path.is_dir():
                path = path / "index.html"
            where = f"{html.relative_to(site)}: <{tag}> {target}"
            if not path.exists():
                broken.append(f"{where}: no file {path}")
            elif parts.fragment and path.suffix == ".html" and unquote(parts.fragment) not in page(path).ids:
                broken.append(f"{where}: no id {parts.fragment!r} in {path.relative_to(site)}")
    return broken


def languages():
    if not LANGUAGES.exists():
        raise SystemExit(f"i18n.py: {LANGUAGES.relative_to(ROOT)} is missing")
    with LANGUAGES.open("rb") as f:
        return tomllib.load(f)["language"]


def build_env(language):
    """The environment that builds the book in `language`: its code, and its title and
    description when languages.toml gives them (book.toml's are English)."""
    env = {"MDBOOK_BOOK__LANGUAGE": language["code"]}
    if "title" in language:
        env["MDBOOK_BOOK__TITLE"] = language["title"]
    if "description" in language:
        env["MDBOOK_BOOK__DESCRIPTION"] = language["description"]
    return env


def build_all():
    """Build the English book into book/book/ and each translation into book/book/<code>/."""
    if not mdbook("build", "book"):
        return 1
    for language in languages():
        if not mdbook("build", "book", "-d", f"book/book/{language['code']}", env=build_env(language)):
            return 1
    return 0


def menu_problems():
    """The language menu (book/theme/workbook.js) lists English and each language of
    languages.toml, with the same code and name."""
    script = (BOOK / "theme" / "workbook.js").read_text(encoding="utf-8")
    listed = re.findall(r'\{ code: "([^"]+)", name: "([^"]+)", folder: "([^"]*)" \}', script)
    wanted = [("en", "English", "")] + [(l["code"], l["name"], l["code"] + "/") for l in languages()]
    if listed != wanted:
        return [f"the language menu in book/theme/workbook.js lists {listed}, not {wanted} "
                f"(English, then book/po/languages.toml's languages)"]
    return []


def check(complete_flag):
    errors, warnings = [], []
    terms, allow = load_glossary()
    errors.extend(menu_problems())
    if GLOSSARY_PAGE.read_text(encoding="utf-8") != glossary_page(terms):
        errors.append(f"the glossary's table in {GLOSSARY_PAGE.relative_to(ROOT)} differs from "
                      f"{GLOSSARY.relative_to(ROOT)}: run `python3 book/i18n.py glossary`")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        added, removed = pot_changes(tmp / "pot")
        if not mdbook("build", "book", "-d", str(tmp / "en")):
            errors.append("the English book does not build (see above)")
        else:
            errors.extend(f"the English book: {link}" for link in broken_links(tmp / "en"))
        for lang_spec in languages():
            lang = lang_spec["code"]
            complete = complete_flag or lang_spec.get("complete", False)
            strict = errors if complete else warnings
            po = PO_DIR / f"{lang}.po"
            rel = po.relative_to(ROOT)
            # gettext's own reading of the file: a syntax or format error fails here,
            # where mdbook-gettext would fall back to English without a word.
            msgfmt = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, str(po)],
                                    capture_output=True, text=True)
            if msgfmt.returncode != 0:
                errors.append(f"{rel}: msgfmt --check fails:\n{msgfmt.stderr.strip()}")
            messages = read_po(po)
            errors.extend(f"{rel}: {p}" for p in include_problems(lang, messages))

            if added or removed:
                strict.append(f"book/po/messages.pot is stale against the English: {len(added)} "
                              f"message(s) new, {len(removed)} gone; {FIX.format(lang=lang)}")
                for what, keys in (("new", added), ("gone", removed)):
                    for _, msgid in keys[:SHOWN]:
                        print(f"  {what}: {show(msgid)}")
            untranslated = [m for m in messages if not m.msgstr]
            fuzzy = [m for m in messages if m.fuzzy]
            known = {m.key for m in messages}
            pot_keys = {m.key for m in read_po(POT)}
            missing = pot_keys - known
            if untranslated or fuzzy or missing:
                strict.append(f"{rel}: {len(untranslated)} untranslated, {len(fuzzy)} fuzzy, "
                              f"{len(missing)} not merged from messages.pot, of {len(pot_keys)} "
                              f"messages; {FIX.format(lang=lang)}")
                if complete:
                    for kind, listed in (("untranslated", untranslated), ("fuzzy", fuzzy)):
                        for m in listed[:SHOWN]:
                            print(f"  {m.where(rel)}: {kind}: {show(m.msgid)}")
            offences = glossary_offences(messages, terms, allow)
            if offences:
                strict.append(f"{rel}: {len(offences)} message(s) translate a glossary term "
                              f"another way (book/glossary.toml)")
                if complete:
                    print_offences(rel, offences)

            site = tmp / lang
            if not mdbook("build", "book", "-d", str(site), env=build_env(lang_spec)):
                errors.append(f"the {lang} book does not build (see above)")
            else:
                for link in broken_links(site):
                    errors.append(f"the {lang} book: {link}")
                pages = len(list(site.rglob("*.html")))
                print(f"i18n.py: the {lang} book built, {pages} pages; every internal link and anchor checked")
            done = len(messages) - len(untranslated) - len(fuzzy)
            print(f"i18n.py: {rel}: {done} of {len(messages)} messages translated "
                  f"(msgfmt: {msgfmt.stderr.strip()})"
                  f"{'' if complete else '; not yet held complete (book/po/languages.toml)'}")

    for warning in warnings:
        print(f"warning: {warning}")
    for error in errors:
        print(f"error: {error}")
    if errors:
        print(f"i18n.py: {len(errors)} problem(s)")
        return 1
    print("i18n.py: the glossary page, the generated fragments' includes, both books and their "
          f"links are right{'; ' + str(len(warnings)) + ' warning(s)' if warnings else ''}")
    return 0


def set_includes():
    """Translate each `{{#include generated/X}}` message into its language's fragment
    (in place: the rest of each .po file is left as it is)."""
    for lang_spec in languages():
        lang = lang_spec["code"]
        po = PO_DIR / f"{lang}.po"
        text = po.read_text(encoding="utf-8")
        entry = re.compile(r'^(msgid "\{\{#include generated/([^}"\s]+)\}\}"\n)msgstr ".*"$', re.M)
        text, n = entry.subn(lambda m: f'{m.group(1)}msgstr "{{{{#include generated/{lang}/{m.group(2)}}}}}"', text)
        po.write_text(text, encoding="utf-8")
        print(f"{po.relative_to(ROOT)}: {n} generated fragment(s) included in {lang}")


def main(argv):
    command = argv[0] if argv else ""
    if command == "includes":
        set_includes()
        return 0
    if command == "glossary":
        terms, _ = load_glossary()
        GLOSSARY_PAGE.write_text(glossary_page(terms), encoding="utf-8")
        print(f"wrote {GLOSSARY_PAGE.relative_to(ROOT)}")
        return 0
    if command == "terms" and len(argv) > 1:
        terms, allow = load_glossary()
        total = 0
        for path in argv[1:]:
            offences = glossary_offences(read_po(path), terms, allow)
            total += len(offences)
            for m, term in offences:
                print(f"{m.where(path)}: \"{term['en']}\" should be \"{term['pt']}\"")
                print(f"    en: {show(m.msgid, 200)}")
                print(f"    pt: {show(m.msgstr, 200)}")
        print(f"i18n.py: {total} message(s) translate a glossary term another way", file=sys.stderr)
        return 1 if total else 0
    if command == "check":
        return check("--complete" in argv[1:])
    if command == "build":
        return build_all()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
