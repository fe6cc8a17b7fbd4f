#!/usr/bin/env python3
"""The book's timelines: who waited on whom in one burst, drawn from a real run of a
model answer or of a known-wrong variant, in English and in Brazilian Portuguese.

    python3 book/timelines.py            # run the bursts, write the SVGs
    python3 book/timelines.py --check    # run the bursts, exit 1 if a committed SVG is stale
    python3 book/timelines.py --only stage3-model ...   # some of them

Each timeline is one burst of one test (TIMELINES below), run with the harness's
recording on (`WORKBOOK_OBSERVATIONS`: the trace of each burst lands beside the
observations; the format is `crates/timeline/src/trace.rs`'s) and drawn by the
timeline crate (`timeline-svg`, its words in crates/timeline/locales/): the same
picture, folding and sentences as the terminal's after a verdict. They go to
book/src/generated/timelines/NAME.svg and book/src/generated/pt-BR/timelines/NAME.svg,
each with a fragment NAME.md beside it (the picture, its description from the SVG as
the image's text) that the model-answer page of its stage includes,
`{{#include generated/timelines/NAME.md}}` (book/i18n.py points the Portuguese book
at generated/pt-BR/timelines/NAME.md); the stage pages never show them (they would
answer the predictions: book/check.py checks both).

Times vary from run to run; what the code does does not. Each SVG keeps the facts
it was drawn from, without times, in its <metadata> (requests, folded lanes and
their statements, answers and payments, who blocked whom), and `--check` compares
those of a fresh run with the committed ones, as `results.py --check` compares the
table rows. Where the split between answers itself varies (a deadlocked pool rescues
a varying number of waiters; 409 or the replayed 201 after a bounded wait), the spec
names the answers allowed and only those, the payments and who blocked whom are
compared. Who blocked whom is compared where the test fires its requests in an order
that makes it certain (`blocked`: the first request held at the test's gate).

Standard library only (and cargo).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from html import escape, unescape
from pathlib import Path

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
OUT = {
    "en": BOOK / "src" / "generated" / "timelines",
    "pt-BR": BOOK / "src" / "generated" / "pt-BR" / "timelines",
}

# One burst each: the SVG's name, the package and test target that fire it, the test
# (libtest's name, exact), and how it is checked (see the docstring).
TIMELINES = [
    dict(name="stage2-held-burst", package="stage2-naive-solution", target="stage2",
         test="twenty_requests_held_between_check_and_write_create_twenty_payments"),
    dict(name="stage3-model", package="stage3-unique-key-solution", target="stage3",
         test="twenty_concurrent_requests_create_one_payment", blocked=True),
    dict(name="stage3-no-transaction", package="stage3-wrong-no-transaction", target="stage3",
         test="twenty_concurrent_requests_create_one_payment", blocked=True),
    dict(name="stage5-model", package="stage5-small-pool-solution", target="stage5",
         test="twenty_requests_through_a_small_pool_create_one_payment::case_1_pool_of_5"),
    dict(name="stage5-deadlock", package="stage5-small-pool-solution", target="the_traps",
         test="reading_through_the_pool_inside_the_transaction_deadlocks_a_small_pool::case_2_pool_of_5",
         ends=["201", "error: pool timed out"]),
    dict(name="stage5-slow-request", package="stage5-small-pool-solution", target="stage5",
         test="a_slow_request_does_not_starve_requests_for_other_keys", blocked=True),
    dict(name="stage5-slow-request-unbounded", package="stage5-wrong-unbounded-lock-wait",
         target="stage5", test="a_slow_request_does_not_starve_requests_for_other_keys",
         blocked=True, ends=["201", "error: pool timed out"]),
    dict(name="stage10-model", package="stage10-one-round-trip-solution", target="stage10",
         test="twenty_concurrent_requests_create_one_payment", blocked=True, ends=["201", "409"]),
    dict(name="stage12-model", package="stage12-middleware-solution", target="stage12",
         test="twenty_requests_with_one_key_make_one_payment_through_the_layer", blocked=True),
    # Which of the 20 stores the answer's row and which its status varies.
    dict(name="stage12-no-reservation", package="stage12-wrong-no-reservation", target="stage12",
         test="twenty_requests_with_one_key_make_one_payment_through_the_layer", blocked=True,
         ends=["201"]),
]


def fail(message):
    print(f"timelines.py: {message}", file=sys.stderr)
    sys.exit(2)


def renderer():
    """The timeline crate's SVG drawer, built once."""
    command = ["cargo", "build", "-q", "-p", "workbook-timeline", "--bin", "timeline-svg",
               "--message-format", "json"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"cargo build of timeline-svg failed:\n{done.stderr[-3000:]}")
    for line in done.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            return message["executable"]
    fail("cargo built no timeline-svg")


def run_bursts(specs):
    """Runs each spec's test with the recording on; the trace of its burst, by name."""
    by_target = {}
    for spec in specs:
        by_target.setdefault((spec["package"], spec["target"]), []).append(spec)
    traces = {}
    for (package, target), group in by_target.items():
        with tempfile.TemporaryDirectory() as tmp:
            observations = Path(tmp) / "observations.jsonl"
            env = dict(os.environ, WORKBOOK_OBSERVATIONS=str(observations))
            env.pop("WORKBOOK_TRACE", None)
            command = ["cargo", "test", "-q", "-p", package, "--test", target, "--", "--exact"]
            command += [spec["test"] for spec in group]
            print("running:", " ".join(command), file=sys.stderr)
            done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
            lines = observations.read_text(encoding="utf-8").splitlines() if observations.exists() else []
        recorded = {}
        for line in lines:
            record = json.loads(line) if line.strip() else {}
            trace = record.get("trace")
            if isinstance(trace, dict) and trace.get("test"):
                # A test's last burst is the one its timeline shows.
                recorded[trace["test"]] = line
        for spec in group:
            if spec["test"] not in recorded:
                sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
                fail(f"{package} --test {target}: no burst of {spec['test']} was recorded "
                     f"(cargo test exit {done.returncode})")
            traces[spec["name"]] = recorded[spec["test"]]
    return traces


def draw(executable, trace_line, lang):
    done = subprocess.run([executable, "--lang", lang], input=trace_line, capture_output=True,
                          text=True, cwd=ROOT)
    if done.returncode != 0:
        fail(f"timeline-svg failed: {done.stderr}")
    return done.stdout


def stage_of(spec):
    """The stage whose model-answer page shows `spec`'s timeline."""
    return int(re.match(r"stage(\d+)-", spec["name"]).group(1))


def fragment(spec, lang, svg):
    """What the model-answer page includes: the picture, opening full size, with the
    SVG's own description (the timeline crate's words, in `lang`) as its text."""
    found = re.search(r'<desc id="tl-desc">(.*?)</desc>', svg, re.S)
    text = unescape(found.group(1)) if found else spec["name"]
    folder = "generated/timelines" if lang == "en" else f"generated/{lang}/timelines"
    src = f"{folder}/{spec['name']}.svg"
    # Sized by theme/workbook.css (`p.timeline`).
    return f'<p class="timeline"><a href="{src}"><img src="{src}" alt="{escape(text)}"></a></p>\n'


def facts_of(svg):
    found = re.search(r'<metadata id="tl-facts">(.*?)</metadata>', svg, re.S)
    return json.loads(unescape(found.group(1))) if found else None


def end_key(end):
    return end["kind"] + (":" + end["what"] if "what" in end else "")


def stable(facts, spec):
    """What must not change between two runs of the same code."""
    groups = facts["groups"]
    view = {"requests": facts["requests"]}
    if spec.get("blocked"):
        view["blocked"] = sorted({holder for g in groups for holder in g["blocked_by"]})
    if "ends" in spec:
        allowed = {f"answered:{answer}" for answer in spec["ends"]}
        ends = {end_key(g["shape"]["end"]) for g in groups}
        view["ends"] = "within " + ", ".join(sorted(allowed)) if ends <= allowed else sorted(ends)
        paid = [g["requests"] * g["shape"]["times"] for g in groups if g["shape"]["paid"] == "times"]
        unknown = any(g["shape"]["paid"] == "unknown" for g in groups)
        view["paid"] = None if unknown else sum(paid)
    else:
        view["groups"] = sorted(
            (json.dumps({"requests": g["requests"], "shape": g["shape"]}, sort_keys=True) for g in groups))
    return view


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--only", nargs="+", metavar="NAME")
    args = parser.parse_args()
    specs = [s for s in TIMELINES if not args.only or s["name"] in args.only]
    unknown = set(args.only or []) - {s["name"] for s in TIMELINES}
    if unknown:
        fail(f"no timeline named {', '.join(sorted(unknown))}")
    executable = renderer()
    traces = run_bursts(specs)
    stale = False
    for spec in specs:
        for lang, out in OUT.items():
            svg = draw(executable, traces[spec["name"]], lang)
            path = out / f"{spec['name']}.svg"
            page = out / f"{spec['name']}.md"
            where = path.relative_to(ROOT)
            if not args.check:
                out.mkdir(parents=True, exist_ok=True)
                path.write_text(svg, encoding="utf-8")
                page.write_text(fragment(spec, lang, svg), encoding="utf-8")
                print(f"wrote {where} and {page.name}", file=sys.stderr)
                continue
            if not path.exists() or not page.exists():
                print(f"timelines.py --check: {where} or {page.name} is missing; run `just timelines`")
                stale = True
                continue
            committed = facts_of(path.read_text(encoding="utf-8"))
            fresh = facts_of(svg)
            if committed is None or stable(committed, spec) != stable(fresh, spec):
                print(f"timelines.py --check: {where} is stale; run `just timelines`.")
                print(f"  committed: {json.dumps(committed and stable(committed, spec))}")
                print(f"  fresh:     {json.dumps(stable(fresh, spec))}")
                stale = True
            else:
                print(f"timelines.py --check: {where} is current")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
