#!/usr/bin/env python3
"""The book's diagrams in Brazilian Portuguese, from one source of their geometry.

The English SVGs in book/src/images/ are the only drawings. This script
  - extracts every visible text of them (<title>, <desc>, <text> with its <tspan>s, aria-label)
    into the catalog book/po/diagrams.pt-BR.po: msgctxt is the file name, msgid the English text,
    and keeps the translations already there;
  - writes book/src/images/pt-BR/<file>.svg: the English SVG, byte for byte, with each text
    replaced by its translation.

A <text> holding <tspan>s is one message, its tspans written <0>…</0>, <1>…</1> in order, so a
translation can move them. Where a translation does not fit its box, a translator comment on
the message changes attributes of its <text> in the Portuguese output only, e.g.
    # svg: font-size=13 x=612
(the English geometry is never edited by hand).

Usage (from the repository root):
    python3 book/diagrams_i18n.py            update the catalog, then write the pt-BR SVGs whose
                                             texts are all translated (lists the others' texts)
    python3 book/diagrams_i18n.py --check    fail when the catalog lacks a text or its translation,
                                             when a pt-BR SVG is stale, or when a page of
                                             book/po/pt-BR.po shows an English diagram
    python3 book/diagrams_i18n.py --fit      measure every text of every diagram, English and pt-BR, in
                                             headless chromium, in each face of FACES (DejaVu Sans, what
                                             a reader on Debian gets; Arial's metrics; Roboto): fail on
                                             one that overflows its box, runs into another box, overlaps
                                             another text, crosses a line or reaches the drawing's edge,
                                             saying by how many px (just book-check runs it; look at the
                                             diagrams too)
    python3 book/diagrams_i18n.py --repoint OUT.po IN.po...
                                             write to OUT.po the messages of IN.po that show a
                                             diagram, their msgstr pointing at images/pt-BR/
                                             (OUT.po = the one IN.po: only those msgstrs change)
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from html import unescape
from pathlib import Path
from xml.etree import ElementTree
from xml.sax.saxutils import escape

import polib

BOOK = Path(__file__).resolve().parent
IMAGES = BOOK / "src" / "images"
LANG = "pt-BR"
OUT = IMAGES / LANG
CATALOG = BOOK / "po" / f"diagrams.{LANG}.po"
BOOK_PO = BOOK / "po" / f"{LANG}.po"

# A text-bearing element (its content is one message) or an aria-label attribute (its value is).
ELEMENT = re.compile(r"<(title|desc|text)\b([^>]*)>(.*?)</\1>", re.S)
ARIA = re.compile(r'\baria-label="([^"]*)"')
TSPAN = re.compile(r"(<tspan\b[^>]*>)(.*?)</tspan>", re.S)
PLACEHOLDER = re.compile(r"</?(\d+)>")
OVERRIDE = re.compile(r"^svg:\s*(.*)$", re.M)
ATTRIBUTE = re.compile(r'^([A-Za-z_:][-\w:.]*)=("?)([^"\s]*)\2$')
# A diagram shown in a page: images/<file>.svg, not already under images/pt-BR/.
PAGE_DIAGRAM = re.compile(r"\bimages/(?!" + re.escape(LANG) + r"/)([\w.-]+\.svg)")


class DiagramError(Exception):
    """A problem in a diagram, the catalog or a page, worded for whoever must fix it."""


class MissingTranslation(DiagramError):
    """Texts of a diagram with no translation yet: its pt-BR SVG cannot be written."""


def english_svgs():
    return sorted(IMAGES.glob("*.svg"), key=lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.name)])


def line_of(source, offset):
    return source.count("\n", 0, offset) + 1


def to_message(content, where):
    """The msgid of an element's content: tspans become numbered placeholders, entities (named or
    numeric) their characters."""
    tspans = []

    def placeholder(m):
        tspans.append(m.group(1))
        n = len(tspans) - 1
        return f"<{n}>{m.group(2)}</{n}>"

    text = TSPAN.sub(placeholder, content)
    if re.search(r"<(?!/?\d+>)", text):
        raise DiagramError(f"{where}: a text holds markup other than <tspan>: {content!r}")
    return unescape(text), tspans


def from_message(message, tspans, where):
    """The element content for a (translated) message: placeholders back to the English tspans."""
    wanted = [f"<{s}{n}>" for n in range(len(tspans)) for s in ("", "/")]
    found = [m.group(0) for m in PLACEHOLDER.finditer(message)]
    if sorted(found) != sorted(wanted):
        tags = ", ".join(f"<{n}>…</{n}>" for n in range(len(tspans))) or "no <N> tags"
        raise DiagramError(f"{where}: the translation {message!r} must hold {tags}, each once, as its English does")
    out = []
    for piece in re.split(r"(</?\d+>)", message):
        m = PLACEHOLDER.fullmatch(piece)
        if m is None:
            out.append(escape(piece))
        else:
            out.append("</tspan>" if piece.startswith("</") else tspans[int(m.group(1))])
    return "".join(out)


def texts(path):
    """Each text of an English SVG: (offset, end, kind, opening tag, msgid, tspans), in order."""
    source = path.read_text(encoding="utf-8")
    found = []
    for m in ELEMENT.finditer(source):
        where = f"{path.name}:{line_of(source, m.start())}"
        msgid, tspans = to_message(m.group(3), where)
        start = m.start(3)
        found.append((start, m.end(3), m.group(1), m.group(0)[: start - m.start()], msgid, tspans))
    for m in ARIA.finditer(source):
        found.append((m.start(1), m.end(1), "aria-label", None, unescape(m.group(1)), []))
    found.sort()
    for start, _, kind, _, msgid, _ in found:
        if not msgid.strip():
            raise DiagramError(f"{path.name}:{line_of(source, start)}: an empty <{kind}>: give it a text or remove it")
    return source, found


def overrides(entry, where):
    """The attributes a translator comment sets on the Portuguese <text>: {name: value}."""
    result = {}
    for line in OVERRIDE.findall(entry.tcomment or ""):
        for item in line.split():
            m = ATTRIBUTE.match(item)
            if m is None:
                raise DiagramError(f"{where}: the override {item!r} is not name=value (e.g. '# svg: font-size=13 x=612')")
            result[m.group(1)] = m.group(3)
    return result


def with_attributes(tag, attributes):
    for name, value in attributes.items():
        attr = re.compile(r'(\s' + re.escape(name) + r'=")[^"]*(")')
        if attr.search(tag):
            tag = attr.sub(lambda m: m.group(1) + value + m.group(2), tag, count=1)
        else:
            tag = tag[:-1] + f' {name}="{value}">'
    return tag


def extract():
    """The catalog the English SVGs call for, translations and comments taken from the current one."""
    old = polib.pofile(str(CATALOG), wrapwidth=0) if CATALOG.is_file() else polib.POFile(wrapwidth=0)
    known = {(e.msgctxt, e.msgid): e for e in old if not e.obsolete}
    po = polib.POFile(wrapwidth=0)
    po.header = "The texts of the book's diagrams (book/src/images/*.svg) in Brazilian Portuguese.\n" \
                "Written by book/diagrams_i18n.py: translate the msgstrs; '# svg: name=value' sets an\n" \
                "attribute of the Portuguese <text> only (a smaller font-size, another x) where a text does not fit."
    po.metadata = {
        "Project-Id-Version": "The Idempotency Workbook diagrams",
        "PO-Revision-Date": "2026-12-04 18:45+0000",
        "Last-Translator": "The Idempotency Workbook authors",
        "Language-Team": "none",
        "Language": "pt_BR",
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "Plural-Forms": "nplurals=2; plural=(n > 1);",
    }
    po.metadata.update(old.metadata)  # a field set by hand (a revision date) stays
    entries = {}
    for path in english_svgs():
        source, found = texts(path)
        for start, _, kind, _, msgid, _ in found:
            key = (path.name, msgid)
            place = (f"src/images/{path.name}", str(line_of(source, start)))
            if key in entries:
                entries[key].occurrences.append(place)
                continue
            was = known.get(key)
            entry = polib.POEntry(msgctxt=path.name, msgid=msgid, occurrences=[place],
                                  comment=f"<{kind}>" if kind != "aria-label" else "aria-label",
                                  msgstr=was.msgstr if was else "", tcomment=was.tcomment if was else "",
                                  flags=list(was.flags) if was else [])
            entries[key] = entry
            po.append(entry)
    # A text no longer drawn keeps its translation as an obsolete entry (#~), as msgmerge does.
    gone = [k for k in known if k not in entries]
    for key in gone:
        was = known[key]
        po.append(polib.POEntry(msgctxt=was.msgctxt, msgid=was.msgid, msgstr=was.msgstr, obsolete=True))
    for was in old:
        if was.obsolete and (was.msgctxt, was.msgid) not in entries and (was.msgctxt, was.msgid) not in known:
            po.append(was)
    return po, gone


def render(path, catalog):
    """The Portuguese SVG for an English one; raises MissingTranslation naming each untranslated text."""
    source, found = texts(path)
    translations = {e.msgid: e for e in catalog if e.msgctxt == path.name and not e.obsolete}
    missing, out, at = [], [], 0
    for start, end, kind, tag, msgid, tspans in found:
        where = f"{path.name}:{line_of(source, start)}"
        entry = translations.get(msgid)
        if entry is None or not entry.msgstr or "fuzzy" in entry.flags:
            missing.append(f"{where}: <{kind}> {msgid!r} has no translation in {CATALOG.relative_to(BOOK.parent)}")
            continue
        if kind == "aria-label":
            content = escape(entry.msgstr, {'"': "&quot;"})
        else:
            content = from_message(entry.msgstr, tspans, where)
        attributes = overrides(entry, where)
        if attributes and kind != "text":
            raise DiagramError(f"{where}: '# svg:' overrides apply to a <text>, not a <{kind}>")
        if attributes:
            tag_start = start - len(tag)
            out.append(source[at:tag_start])
            out.append(with_attributes(tag, attributes))
        else:
            out.append(source[at:start])
        out.append(content)
        at = end
    if missing:
        raise MissingTranslation("\n".join(missing))
    out.append(source[at:])
    svg = "".join(out)
    # The root says its language; a comment says where the file comes from.
    svg = re.sub(r"<svg\b", f'<svg xml:lang="{LANG}"', svg, count=1)
    svg = re.sub(r"(<svg\b[^>]*>)", lambda m: m.group(1) + f"\n  <!-- Generated by book/diagrams_i18n.py from ../{path.name} and po/diagrams.{LANG}.po: do not edit. -->", svg, count=1)
    try:
        ElementTree.fromstring(svg)
    except ElementTree.ParseError as e:
        raise DiagramError(f"{path.name}: the Portuguese SVG is not well-formed XML ({e})") from e
    return svg


def repoint(out_path, in_paths):
    """Write the messages of the given PO files that show a diagram, msgstr pointing at images/pt-BR/.

    With one input that is also the output, edit it in place: only those msgstrs change."""
    if len(in_paths) == 1 and out_path.resolve() == in_paths[0].resolve():
        po = polib.pofile(str(out_path), wrapwidth=0)
        changed = 0
        for e in po:
            if not e.obsolete and e.msgstr and "fuzzy" not in e.flags and PAGE_DIAGRAM.search(e.msgstr):
                e.msgstr = PAGE_DIAGRAM.sub(lambda m: f"images/{LANG}/{m.group(1)}", e.msgstr)
                changed += 1
        po.save(str(out_path))
        print(f"{out_path}: {changed} msgstr(s) pointed at images/{LANG}/")
        return []
    out = polib.POFile(wrapwidth=0)
    out.metadata = polib.pofile(str(in_paths[0]), wrapwidth=0).metadata
    seen, problems = set(), []
    for in_path in in_paths:
        for e in polib.pofile(str(in_path), wrapwidth=0):
            if e.obsolete or not PAGE_DIAGRAM.search(e.msgid) or (e.msgctxt, e.msgid) in seen:
                continue
            seen.add((e.msgctxt, e.msgid))
            if not e.msgstr or "fuzzy" in e.flags:
                problems.append(f"{in_path}: not translated yet: {e.msgid[:80]!r}")
                continue
            for name in PAGE_DIAGRAM.findall(e.msgstr):
                if not (IMAGES / name).is_file():
                    problems.append(f"{in_path}: {name} is not a diagram of book/src/images")
            out.append(polib.POEntry(msgctxt=e.msgctxt, msgid=e.msgid, occurrences=e.occurrences,
                                     msgstr=PAGE_DIAGRAM.sub(lambda m: f"images/{LANG}/{m.group(1)}", e.msgstr)))
    out.save(str(out_path))
    print(f"wrote {out_path}: {len(out)} messages showing a diagram, pointed at images/{LANG}/")
    return problems


def check_book_po():
    """A translated page of book/po/pt-BR.po must show the Portuguese diagram, not the English one."""
    problems = []
    if not BOOK_PO.is_file():
        return problems
    for e in polib.pofile(str(BOOK_PO), wrapwidth=0):
        if e.obsolete or not e.msgstr or "fuzzy" in e.flags:
            continue
        for name in sorted(set(PAGE_DIAGRAM.findall(e.msgstr))):
            problems.append(f"{BOOK_PO.relative_to(BOOK.parent)}: the msgstr of {e.msgid[:60]!r}… shows images/{name}: "
                            f"write images/{LANG}/{name} (python3 book/diagrams_i18n.py --repoint {BOOK_PO.relative_to(BOOK.parent)} {BOOK_PO.relative_to(BOOK.parent)})")
    return problems


# The faces every diagram is measured in, each standing for readers who get it: (sans, mono).
# The SVGs ask for "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial,
# sans-serif" (and "ui-monospace, … monospace" for code). Of those, Debian packages Roboto
# (fonts-roboto-unhinted) and Arial's widths (Liberation Sans is drawn to them, glyph for glyph);
# Segoe UI, San Francisco and Helvetica Neue are not free to install. A reader on Debian gets
# DejaVu Sans and DejaVu Sans Mono: system-ui, sans-serif and monospace resolve to them, and they
# are the widest of the lot (stage 11's texts run up to 20% wider in DejaVu Sans than in Arial).
# Each face is named outright, not left to the machine's fontconfig, so the check measures the
# same on every machine; a missing face is an error, never a silent fallback.
FACES = {
    "DejaVu Sans": ("DejaVu Sans", "DejaVu Sans Mono"),
    "Arial's metrics (Liberation Sans)": ("Liberation Sans", "Liberation Mono"),
    "Roboto": ("Roboto", "DejaVu Sans Mono"),
}
FONT_PACKAGES = "fonts-dejavu-core fonts-liberation fonts-roboto-unhinted"
FONT_FAMILY = re.compile(r'font-family="([^"]*)"')
SVG_TEXT = re.compile(r"<text\b")
# A drawing made to fail, measured beside the diagrams: each finding the check can make must come
# back from it, or the browser measured nothing real (a layout that gives every text a zero box
# would otherwise pass every diagram).
CANARY = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 200" width="400" height="200" font-family="sans-serif" font-size="15">
  <rect x="20" y="20" width="120" height="40"/><text x="32" y="46">a text far too long for its box</text>
  <rect x="300" y="80" width="60" height="40"/><text x="250" y="106">runs into</text>
  <text x="30" y="150">one text</text><text x="60" y="152">another</text>
  <line x1="160" y1="130" x2="160" y2="190"/><text x="140" y="165">crossed</text>
  <text x="330" y="190">edge of it</text>
  <rect x="220" y="150" width="80" height="8"/><text x="224" y="157">tall</text>
</svg>"""
CANARY_FINDS = {"overflows its box", "sticks out of its box's top or bottom", "runs into a box", "overlaps another text", "crosses or touches a <line>", "runs to the drawing's edge"}

# Measures every <text> of the inlined SVGs: the box it sits in (the smallest rect holding its
# anchor), boxes it runs into, texts it overlaps, lines and paths that cross it, the drawing's
# edge; each finding with how many px would have to go. Then whether each face is installed: a family the browser lacks falls back
# to its default face, so a probe line measures as wide as in a family that does not exist.
FIT_JS = r"""
const CLEAR = 3, PAD = 3, EDGE = 12, out = {diagrams: {}, missing: []};
const px = v => Math.round(v * 10) / 10;
const inRoot = (root, el, x, y) => new DOMPoint(x, y).matrixTransform(root.getCTM().inverse().multiply(el.getCTM()));
const bbox = (root, el) => { const b = el.getBBox(); const p = inRoot(root, el, b.x, b.y), q = inRoot(root, el, b.x + b.width, b.y + b.height);
  return {x1: Math.min(p.x, q.x), y1: Math.min(p.y, q.y), x2: Math.max(p.x, q.x), y2: Math.max(p.y, q.y)}; };
// How far two boxes overlap, less a slack: along the narrower of the two axes (0 when apart).
const overlap = (a, b, s) => Math.max(0, Math.min(Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1), Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1)) - s);
for (const root of document.querySelectorAll("svg[data-name]")) {
  const width = root.viewBox.baseVal.width;
  const texts = [...root.querySelectorAll("text")].map(t => ({b: bbox(root, t), s: t.textContent.trim().replace(/\s+/g, " "), line: t.dataset.line,
    a: inRoot(root, t, parseFloat(t.getAttribute("x")), parseFloat(t.getAttribute("y")) - 4)}));
  // The shapes drawn (not the background), and of them the boxes a text can sit in.
  const shapes = [...root.querySelectorAll("rect, circle, ellipse")].filter(r => !r.closest("defs")).map(el => ({el, b: bbox(root, el)}))
    .filter(c => !(c.b.x1 <= 0.5 && c.b.y1 <= 0.5 && c.b.x2 >= width - 0.5));
  const rects = shapes.filter(c => c.el.tagName == "rect").map(c => c.b);
  // Each line and path as points 2 px apart, in the drawing's coordinates.
  const strokes = [...root.querySelectorAll("line, path, polyline")].filter(l => !l.closest("defs")).map(el => {
    const n = el.getTotalLength(), m = root.getCTM().inverse().multiply(el.getCTM()), points = [];
    for (let d = 0; d <= n; d += 2) points.push(el.getPointAtLength(d).matrixTransform(m));
    return {el, points, b: bbox(root, el)}; });
  const found = [];
  const note = (t, what, by, detail) => found.push({line: t.line, text: t.s, what, by: px(by), detail});
  texts.forEach((t, i) => {
    const holds = r => t.a.x >= r.x1 && t.a.x <= r.x2 && t.a.y >= r.y1 && t.a.y <= r.y2;
    const box = rects.filter(holds).sort((p, q) => (p.x2 - p.x1) * (p.y2 - p.y1) - (q.x2 - q.x1) * (q.y2 - q.y1))[0];
    if (box) {
      const by = Math.max(box.x1 + PAD - t.b.x1, t.b.x2 - (box.x2 - PAD));
      if (by > 0) note(t, "overflows its box", by, `text ${px(t.b.x1)}..${px(t.b.x2)}, box ${px(box.x1)}..${px(box.x2)} less ${PAD} px inside each side`);
      const high = Math.max(box.y1 - t.b.y1, t.b.y2 - box.y2);
      if (high > 0) note(t, "sticks out of its box's top or bottom", high, `text ${px(t.b.y1)}..${px(t.b.y2)}, box ${px(box.y1)}..${px(box.y2)}`);
    }
    const edge = Math.max(EDGE - t.b.x1, t.b.x2 - (width - EDGE));
    if (edge > 0) note(t, "runs to the drawing's edge", edge, `text ${px(t.b.x1)}..${px(t.b.x2)}, drawing 0..${width} less ${EDGE} px each side`);
    for (const r of rects) { const by = holds(r) ? 0 : overlap(t.b, r, 1); if (by > 0) note(t, "runs into a box", by, `the box at ${px(r.x1)},${px(r.y1)}`); }
    texts.forEach((u, j) => { const by = j > i ? overlap(t.b, u.b, 1.5) : 0; if (by > 0) note(t, "overlaps another text", by, `"${u.s}" (line ${u.line})`); });
    // A line or path across the text or within CLEAR px of it, unless the shape the text sits on is drawn over it.
    for (const l of strokes) {
      if (overlap(t.b, l.b, -CLEAR - 1) <= 0) continue;
      const hit = l.points.filter(q => q.x > t.b.x1 - CLEAR && q.x < t.b.x2 + CLEAR && q.y > t.b.y1 - CLEAR && q.y < t.b.y2 + CLEAR);
      const covered = shapes.some(c => holds(c.b) && (l.el.compareDocumentPosition(c.el) & Node.DOCUMENT_POSITION_FOLLOWING));
      // by: how far the text would have to end sooner (or begin later) to keep CLEAR px from the stroke.
      const xs = hit.map(q => q.x);
      if (hit.length && !covered) note(t, `crosses or touches a <${l.el.tagName}>`, Math.min(t.b.x2 + CLEAR - Math.min(...xs), Math.max(...xs) + CLEAR - t.b.x1),
        `text ${px(t.b.x1)}..${px(t.b.x2)}, the stroke at ${px(hit[0].x)},${px(hit[0].y)}, closer than ${CLEAR} px`);
    }
  });
  out.diagrams[root.dataset.name] = found;
}
const probe = document.createElementNS("http://www.w3.org/2000/svg", "svg"); document.body.appendChild(probe);
const widthIn = family => { const t = document.createElementNS("http://www.w3.org/2000/svg", "text"); t.setAttribute("font-family", family);
  t.setAttribute("font-size", "20"); t.textContent = "Idempotency-Key: derived_key(client, key) 0123456789 ÁÇÕ"; probe.appendChild(t); return t.getBBox().width; };
const none = widthIn("'no such font, the fallback'");
for (const family of FAMILIES) if (Math.abs(widthIn(`'${family}', 'no such font, the fallback'`) - none) < 0.01) out.missing.push(family);
const pre = document.createElement("pre"); pre.id = "fit"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
"""


def in_face(svg, face):
    """The SVG with every font-family replaced by the face's sans or mono family."""
    sans, mono = FACES[face]
    return FONT_FAMILY.sub(lambda m: f'font-family="{mono if "monospace" in m.group(1) else sans}"', svg)


def with_lines(svg):
    """Each <text> tagged with its line in the file, for the report."""
    return SVG_TEXT.sub(lambda m: f'<text data-line="{line_of(svg, m.start())}"', svg)


def fit():
    """Every text of every diagram, English and pt-BR, that does not fit in one of FACES (needs chromium)."""
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if browser is None:
        raise DiagramError("--fit measures the texts in a browser: install chromium (apt-get install chromium)")
    files = [file for path in english_svgs() for file in (path, OUT / path.name)]
    pages = []
    for file in files:
        svg = with_lines(file.read_text(encoding="utf-8"))
        for face in FACES:
            pages.append(in_face(svg, face).replace("<svg ", f'<svg data-name="{file.relative_to(BOOK.parent)}@{face}" ', 1))
    pages.append(with_lines(CANARY).replace("<svg ", '<svg data-name="canary" ', 1))
    families = sorted({f for pair in FACES.values() for f in pair})
    script = FIT_JS.replace("FAMILIES", json.dumps(families))
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "fit.html"
        page.write_text("<!doctype html><meta charset=utf-8><body>" + "\n".join(pages) + f"<script>{script}</script>", encoding="utf-8")
        run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp}/profile",
                              "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    m = re.search(r'<pre id="fit">(.*?)</pre>', run.stdout, re.S)
    if m is None:
        raise DiagramError(f"{browser} measured nothing: {run.stderr.strip()[-500:]}")
    measured = json.loads(unescape(m.group(1)))
    missed = CANARY_FINDS - {f["what"] for f in measured["diagrams"]["canary"]}
    if missed:
        raise DiagramError(f"{browser} measured a drawing made to fail and did not find what it must: {', '.join(sorted(missed))}")
    if measured["missing"]:
        raise DiagramError(f"--fit measures the diagrams in {', '.join(FACES)}; the browser lacks {', '.join(measured['missing'])}: "
                           f"apt-get install {FONT_PACKAGES}")
    # One line per text and problem, with how many px in each face that shows it.
    problems = {}
    for file in files:
        for face in FACES:
            for f in measured["diagrams"][f"{file.relative_to(BOOK.parent)}@{face}"]:
                where = f"{file.relative_to(BOOK.parent)}:{f['line']}"
                problems.setdefault((file.parent == OUT, where, f["text"], f["what"]), []).append((face, f["by"], f["detail"]))
    lines = []
    for (portuguese, where, text, what), faces in problems.items():
        fix = (f"shorten its msgstr in {CATALOG.relative_to(BOOK.parent)}, or give it '# svg: font-size=N' / '# svg: x=N'" if portuguese
               else "widen its box, move it or reword it, then run `python3 book/diagrams_i18n.py` (or `just diagrams`)")
        worst = max(faces, key=lambda f: f[1])
        by = ", ".join(f"{by:g} px in {face}" for face, by, _ in faces)
        lines.append(f"{where}: {text!r} {what} by {by} ({worst[2]} in {worst[0]}): {fix}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; fail when anything is missing or stale")
    ap.add_argument("--repoint", nargs="+", metavar="PO", help="OUT.po IN.po...: the diagram-showing messages, repointed")
    ap.add_argument("--fit", action="store_true", help="measure every text of the English and pt-BR diagrams in headless chromium, "
                                                       "in each face of FACES: fail on one that overflows its box, runs into another, "
                                                       "overlaps another text, crosses a line or reaches the drawing's edge")
    a = ap.parse_args()
    if a.fit:
        try:
            problems = fit()
        except DiagramError as e:
            print(f"diagrams: {e}", file=sys.stderr)
            return 1
        for p in problems:
            print(p, file=sys.stderr)
        print(f"diagrams: {len(problems)} text(s) that do not fit" if problems
              else f"diagrams: every text of the {len(english_svgs())} diagrams fits, in English and pt-BR, in {', '.join(FACES)}")
        return 1 if problems else 0
    if a.repoint:
        if len(a.repoint) < 2:
            ap.error("--repoint needs OUT.po and at least one IN.po")
        out, ins = Path(a.repoint[0]), [Path(p) for p in a.repoint[1:]]
        if out.resolve() in [p.resolve() for p in ins] and ins != [out]:
            ap.error("--repoint OUT.po IN.po...: OUT.po is either a new file or the one IN.po (edited in place)")
        problems = repoint(out, ins)
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0

    catalog, gone = extract()
    fix = "run `python3 book/diagrams_i18n.py` (or `just diagrams`), translate, then run it again"
    problems = []
    if a.check:
        on_disk = polib.pofile(str(CATALOG), wrapwidth=0) if CATALOG.is_file() else polib.POFile()
        have = {(e.msgctxt, e.msgid) for e in on_disk if not e.obsolete}
        for e in catalog:
            if (e.msgctxt, e.msgid) not in have:
                problems.append(f"{e.msgctxt}: {e.msgid!r} is not in {CATALOG.relative_to(BOOK.parent)}: {fix}")
        for ctxt, msgid in gone:
            problems.append(f"{ctxt}: {msgid!r} is in the catalog but no longer in the diagram: {fix}")
        catalog = on_disk
    else:
        catalog.save(str(CATALOG))
        for ctxt, msgid in gone:
            print(f"kept as obsolete (no longer in {ctxt}): {msgid!r}")

    OUT.mkdir(exist_ok=True)
    written = []
    for path in english_svgs():
        target = OUT / path.name
        try:
            svg = render(path, catalog)
        except MissingTranslation as e:
            if a.check:
                problems.append(str(e))
            else:  # the usual state after an English edit: say what to translate, fail only --check
                print(f"{e}\n{path.name}: not written until these are translated")
            continue
        except DiagramError as e:
            problems.append(str(e))
            continue
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current == svg:
            continue
        if a.check:
            problems.append(f"{target.relative_to(BOOK.parent)} is stale: {fix}")
        else:
            target.write_text(svg, encoding="utf-8")
            written.append(target.name)
    for stray in sorted(OUT.glob("*.svg")):
        if not (IMAGES / stray.name).is_file():
            if a.check:
                problems.append(f"{stray.relative_to(BOOK.parent)} has no English diagram: delete it, or run `python3 book/diagrams_i18n.py`")
            else:
                stray.unlink()
                print(f"deleted {stray.relative_to(BOOK.parent)} (no English diagram)")
    if a.check:
        problems += check_book_po()

    for p in problems:
        print(p, file=sys.stderr)
    translated = sum(1 for e in catalog if e.msgstr and "fuzzy" not in e.flags and not e.obsolete)
    total = sum(1 for e in catalog if not e.obsolete)
    if not a.check:
        print(f"{CATALOG.relative_to(BOOK.parent)}: {translated} of {total} texts translated; "
              f"wrote {len(written)} pt-BR diagram(s){': ' + ', '.join(written) if written else ''}")
    if problems:
        print(f"diagrams: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    if a.check:
        print(f"diagrams: {total} texts translated, {len(english_svgs())} pt-BR diagrams current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
