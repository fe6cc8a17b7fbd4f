#!/usr/bin/env python3
"""No import cycle between the modules of a crate: `python3 .ci/module_cycles.py`.

For every crate of `crates/` and for `tests/harness` (each `src/lib.rs` and
`src/main.rs` is the root of a crate), the script reads the module tree from the
`mod NAME;` lines (and their `#[path]`), and draws an arrow from a file to every
file whose module it names: `use crate::...`, `super::...`, `self::...`, a child
module's name, and any such path inside the code, `{...}` groups included. A
name that is not a module (a type, a function) points at the file of the module
that holds it; the crate's root file counts like any other (`pub use` in
`lib.rs` is an arrow from it, so an item used from `lib.rs` closes a circle).
Inline modules (`mod tests { ... }`) belong to their file. Comments and string
literals are left out.

It checks twice: file by file, and with each folder below `src/` taken as one
room (a file outside `commands/` that takes something from `commands/`, while
`commands/` takes something from it, is a circle too).

Prints every circle with the names that tie it; exits 1 when there is one.
`--edges` prints every arrow, and how many there are.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(text: str) -> str:
    """The code without comments, strings and char literals (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:]) and not re.match(r"[A-Za-z0-9_]", text[i - 1 : i] or " "):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append('""' + "\n" * text[i:end].count("\n"))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""' + "\n" * text[i:j].count("\n"))
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i : i + 4] + "   "):
            m = re.match(r"'(\\[^']*|[^\\'])'", text[i:])
            i += len(m.group(0)) if m else 1
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Module:
    def __init__(self, path: tuple[str, ...], file: Path, dir_: Path):
        self.path, self.file, self.dir = path, file, dir_
        self.children: dict[str, Module] = {}
        # The file's code as `strip` leaves it: read once, by every pass.
        self.code = strip(file.read_text())


def module_tree(root_file: Path) -> dict[tuple[str, ...], Module]:
    modules: dict[tuple[str, ...], Module] = {}

    def visit(path: tuple[str, ...], file: Path, dir_: Path) -> Module:
        module = Module(path, file, dir_)
        modules[path] = module
        code = module.code
        # `mod name;` at the file's top level (inline modules hold no file modules here).
        for m in re.finditer(
            r'((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(' + IDENT + r")\s*;", code
        ):
            name = m.group(2)
            explicit = path_attribute(file, name)
            if explicit is not None:
                child_file = (file.parent / explicit).resolve()
                child_dir = child_file.parent
            elif (dir_ / f"{name}.rs").exists():
                child_file, child_dir = dir_ / f"{name}.rs", dir_ / name
            else:
                child_file, child_dir = dir_ / name / "mod.rs", dir_ / name
            if not child_file.exists():
                continue
            module.children[name] = visit(path + (name,), child_file, child_dir)
        return module

    visit((), root_file, root_file.parent)
    return modules


def path_attribute(file: Path, name: str) -> str | None:
    """The `#[path = "..."]` of `mod name;`, read from the file as written."""
    m = re.search(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+' + name + r"\s*;", file.read_text())
    return m.group(1) if m else None


def expand(path_text: str) -> list[list[str]]:
    """`a::{b, c::{d, e}}` -> [[a, b], [a, c, d], [a, c, e]] (glob and `self` cut off)."""
    path_text = re.sub(r"\s+as\s+" + IDENT, "", path_text)
    path_text = re.sub(r"\s+", "", path_text)

    def parse(s: str, i: int) -> tuple[list[list[str]], int]:
        prefix: list[str] = []
        while i < len(s):
            if s[i] == "{":
                i += 1
                alternatives: list[list[str]] = []
                while i < len(s) and s[i] != "}":
                    sub, i = parse(s, i)
                    alternatives.extend(sub)
                    if i < len(s) and s[i] == ",":
                        i += 1
                i += 1
                return [prefix + a for a in alternatives] or [prefix], i
            m = re.match(IDENT + r"|\*", s[i:])
            if not m:
                break
            word = m.group(0)
            i += len(word)
            if word not in ("*", "self"):
                prefix.append(word)
            if s.startswith("::", i):
                i += 2
            else:
                break
        return [prefix], i

    paths, _ = parse(path_text, 0)
    return paths


def reexports(modules: dict[tuple[str, ...], Module]) -> dict[tuple[tuple[str, ...], str], tuple[str, ...] | None]:
    """`pub use child::Name;` in a module: (module, Name) -> the module that defines Name
    (None: another crate's). `#[macro_export]` macros live at the crate's root: (root,
    name) -> their file's module."""
    found = {}
    for module in modules.values():
        code = module.code
        for m in re.finditer(r"\bmacro_export\s*\]\s*macro_rules!\s*(" + IDENT + ")", code):
            found[((), m.group(1))] = module.path
        for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", code):
            for segments in expand(m.group(1)):
                name = segments[-1] if segments else None
                if re.search(r"\bas\b", m.group(1)) or not name:
                    continue
                here, rest = module.path, segments
                if rest and rest[0] == "crate":
                    here, rest = (), rest[1:]
                elif rest and rest[0] != "super" and rest[0] not in module.children:
                    # Another crate's name, passed on: no arrow inside this crate.
                    found[(module.path, name)] = None
                    continue
                while rest and rest[0] == "super":
                    here, rest = here[:-1], rest[1:]
                target = modules.get(here)
                for word in rest[:-1]:
                    target = target.children.get(word) if target else None
                if target and target.path != module.path:
                    found[(module.path, name)] = target.path
    return found


def arrows(modules: dict[tuple[str, ...], Module]) -> dict[tuple[Path, Path], set[str]]:
    found: dict[tuple[Path, Path], set[str]] = {}
    forwarded = reexports(modules)
    for module in modules.values():
        code = module.code
        # Where inline modules open and close, to resolve `super::` inside them.
        inline = []
        for m in re.finditer(r"\bmod\s+" + IDENT + r"\s*\{", code):
            depth, j = 1, m.end()
            while j < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[j], 0)
                j += 1
            inline.append((m.end(), j))
        path_re = re.compile(
            r"(?<![A-Za-z0-9_:])((?:crate|super|self|" + IDENT + r")(?:\s*::\s*(?:super\s*::\s*)*(?:" + IDENT + r"|\{[^;]*?\}|\*))+)"
        )
        for m in path_re.finditer(code):
            nesting = sum(1 for a, b in inline if a <= m.start() < b)
            for segments in expand(m.group(1)):
                depth = nesting
                if not segments:
                    continue
                here = module.path
                first = segments[0]
                if first == "crate":
                    here, rest = (), segments[1:]
                elif first == "super":
                    rest = segments
                    while rest and rest[0] == "super":
                        if depth:
                            depth -= 1
                        else:
                            here = here[:-1]
                        rest = rest[1:]
                elif first in modules[here].children and depth == 0:
                    rest = segments
                else:
                    continue
                target = modules.get(here)
                taken = None
                for word in rest:
                    if target and word in target.children:
                        target = target.children[word]
                    else:
                        taken = word
                        break
                # A name a module only passes on: the arrow goes where it is defined.
                # (A macro the root defines is forwarded to the root itself: stop there.)
                while (
                    target is not None
                    and taken
                    and forwarded.get((target.path, taken), target.path) != target.path
                ):
                    elsewhere = forwarded[(target.path, taken)]
                    target = None if elsewhere is None else modules[elsewhere]
                if target is None or target.file == module.file:
                    continue
                found.setdefault((module.file, target.file), set()).add(taken or target.path[-1])
    return found


def circles(edges: dict[tuple[str, str], set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def connect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def rooms(file: Path, src: Path) -> str:
    """The file, or the folder right below `src/` that holds it."""
    rel = file.relative_to(src) if file.is_relative_to(src) else file
    return str(src.relative_to(ROOT) / rel.parts[0]) + ("/" if len(rel.parts) > 1 else "")


def main() -> int:
    roots = sorted(ROOT.glob("crates/*/src/lib.rs")) + sorted(ROOT.glob("crates/*/src/main.rs"))
    roots.append(ROOT / "tests/harness/src/lib.rs")
    show_edges = "--edges" in sys.argv
    bad = 0
    total = 0
    for root_file in roots:
        src = root_file.parent
        modules = module_tree(root_file)
        found = arrows(modules)
        total += len(found)
        by_file = {(str(a.relative_to(ROOT)), str(b.relative_to(ROOT))): names for (a, b), names in found.items()}
        by_room: dict[tuple[str, str], set[str]] = {}
        for (a, b), names in found.items():
            ra, rb = rooms(a, src), rooms(b, src)
            if ra != rb:
                by_room.setdefault((ra, rb), set()).update(names)
        if show_edges:
            for (a, b), names in sorted(by_file.items()):
                print(f"{a} -> {b}: {', '.join(sorted(names))}")
        for level, edges in (("file", by_file), ("folder", by_room)):
            for circle in circles(edges):
                bad += 1
                print(f"circle ({level} by {level}): {', '.join(circle)}")
                for (a, b), names in sorted(edges.items()):
                    if a in circle and b in circle:
                        print(f"  {a} -> {b}: {', '.join(sorted(names))}")
    crates = len(roots)
    if bad:
        print(f"{bad} circle(s) of imports in {crates} crates ({total} arrows between files)")
        return 1
    print(f"no import cycle in {crates} crates ({total} arrows between files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
