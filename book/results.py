#!/usr/bin/env python3
"""Writes the book's results table from a real run of the solutions' tests.

    python3 book/results.py           # run the tests, write book/src/generated/results.md
    python3 book/results.py --check   # run the tests, exit 1 if the committed file is stale

The tests append one JSON line per scenario to the file named by
WORKBOOK_OBSERVATIONS (see `harness::observe`); this script runs them with that
variable set and turns the lines into markdown. Nothing in the table is typed by
hand: each cell is either a figure a test recorded, or a bound computed from the
configuration the tests ran with (the pool size, the acquire timeout).

Some figures vary from run to run (how many waiters a deadlocked pool rescues, how
often an undriven naive burst pays twice, how many tries stage 7's client made). They are printed under the tables, as
"this run", and `--check` ignores them: it compares only the table rows, which
hold the facts the tests assert.

Standard library only.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
FRAGMENT = BOOK / "src" / "generated" / "results.md"
STAGES = ROOT / "stages.toml"
# Stage 11's crash points, in the order of the test's cases (the names are the
# test's `DiesAfter` variants).
CRASHES = [
    ("Started", "after `started`, before the provider charged"),
    ("ProviderCharged", "after the provider charged, its answer lost"),
    ("ChargeRecorded", "after `charged`, writing the payment"),
    ("Finished", "after `finished`, the answer lost on the way to the client"),
]
# Stage 7's fault cases, in the order of the test's cases, with what the proxy did to
# the first try (the names are `harness::proxy::Fault`'s variants).
FAULTS = [
    ("DropResponse", "(a) the answer lost after the commit"),
    ("DropRequest", "(b) the request lost before the server"),
    ("HoldResponseUntilClientGivesUp", "(c) the answer later than the client's timeout"),
    ("Answer503", "(d) a 503 answered by the proxy itself"),
]


# What client B got when it sent a key client A had used (stage 8's tests record one word).
OTHER_CLIENT = {
    "A's answer": "A's 201, replayed: A's payment id and amount, and B paid nothing",
    "own payment": "a 201 of its own: a second payment, B's",
    "refused": "422: the key is taken",
}

# What a key past the retention window got (stage 9's tests record one word).
AFTER_EXPIRY = {
    "new payment": "a new payment: the expired key is taken over",
    "replayed": "the old 201, replayed",
    "refused": "a refusal",
}


class Stale(Exception):
    pass


def fail(message):
    print(f"results.py: {message}", file=sys.stderr)
    sys.exit(2)


def source_value(path, pattern, what):
    """A constant read out of the source the tests ran with, not retyped here."""
    text = (ROOT / path).read_text(encoding="utf-8")
    found = re.search(pattern, text)
    if not found:
        fail(f"cannot find {what} in {path} (pattern {pattern!r}); update results.py")
    return found.group(1)


def run_tests(packages, required):
    with tempfile.TemporaryDirectory() as tmp:
        observations = Path(tmp) / "observations.jsonl"
        env = dict(os.environ, WORKBOOK_OBSERVATIONS=str(observations))
        command = ["cargo", "test", "-q"]
        for package in packages:
            command += ["-p", package]
        print("running:", " ".join(command), file=sys.stderr)
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            failed = sorted(set(re.findall(r"^    (\S+)$", done.stdout, re.M)))
            print(
                "results.py: WARNING: some tests failed (cargo test exit "
                f"{done.returncode}); the table uses what they recorded before failing.",
                file=sys.stderr,
            )
            for name in failed:
                print(f"  failed: {name}", file=sys.stderr)
            if not observations.exists():
                sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
                fail("the tests recorded nothing")
        lines = observations.read_text(encoding="utf-8").splitlines() if observations.exists() else []
    seen = {}
    for line in lines:
        if not line.strip():
            continue
        record = json.loads(line)
        # The harness's conditions (`{"condition": ...}`) are the runner's, not figures.
        if "scenario" not in record:
            continue
        seen.setdefault(record.pop("scenario"), {}).update(record)
    missing = [name for name in required if name not in seen]
    if missing:
        fail(f"the run recorded no {', '.join(missing)}")
    return seen


def replies(outcome):
    """`{"201": 1, "error: unique violation (23505)": 19}` as `1 × 201, 19 × ...`."""
    def order(item):
        kind, n = item
        return (not kind.isdigit(), kind if kind.isdigit() else "", -n, kind)

    parts = sorted(outcome["replies"].items(), key=order)
    return ", ".join(f"{n} × {kind.removeprefix('error: ')}" for kind, n in parts)


def expect(condition, message):
    if not condition:
        fail(f"the run contradicts the book: {message}")


def second_request(name, seen):
    words = {
        "refused": "422, nothing paid",
        "replayed": "not detected: the first 201 is replayed",
        "paid again": "a second payment",
    }
    record = seen[name]
    second = record.get("second")
    if second is None:
        # Only the outcome of the two requests was recorded: read it the way
        # `harness::second_request` does.
        if record["payments"] == 2:
            second = "paid again"
        elif record["replies"].get("422"):
            second = "refused"
        elif record["replies"].get("201") == 2 and record["distinct_bodies"] == 1:
            second = "replayed"
        else:
            fail(f"cannot tell what the second request of {name} got: {record}")
    return words.get(second, second)


def body_note(outcome):
    n = outcome["distinct_bodies"]
    return "one body: the same payment for all" if n == 1 else f"{n} different bodies"


# Each stage's part of the page. A stage's spec names the scenarios its
# solution's tests record (the run must hold them all), and gives any of:
# `rows` (its rows of the first table: 20 concurrent requests with one key),
# `section` (its own lines after that table), `varying` (figures that vary from
# run to run, listed at the end). Stages are laid out in stages.toml's order.


def naive_rows(seen):
    naive = seen["stage2.held_burst"]
    return [(
        "Naive: check, then write (all 20 held between check and write)",
        f"{naive['payments']}",
        f"{naive['replies'].get('201', 0)} × 201; "
        f"{naive['replies'].get('error: unique violation (23505)', 0)} × unique violation "
        "(23505) on the key's INSERT, each after its payment was made",
        second_request("stage2.changed_body", seen),
    )]


def naive_varying(seen):
    if "stage2.undriven" not in seen:
        return []
    u = seen["stage2.undriven"]
    return [
        f"- the naive version without the hold between check and write: "
        f"{u['runs_with_duplicates']} of {u['runs']} bursts paid more than once, "
        f"from {u['payments_min']} to {u['payments_max']} payments per burst;"
    ]


def unique_key_rows(seen):
    s3 = seen["stage3.burst"]
    return [(
        "Stage 3: the key reserved in the paying transaction",
        f"{s3['payments']}",
        f"{replies(s3)}, {body_note(s3)}",
        "not compared yet (stage 4)",
    )]


def changed_body_rows(seen):
    s4, s4_other = seen["stage4.two_bodies"], seen["stage4.other_body"]
    return [(
        "Stage 4: a hash of the body stored with the key (10 requests with amount 100, 10 with 999)",
        f"{s4['payments']}",
        replies(s4),
        f"{second_request('stage4.other_body', seen)} ({s4_other.get('payments', '?')} payment in all)",
    )]


def small_pool_rows(seen):
    acquire = source_value(
        "tests/harness/src/db.rs",
        r"ACQUIRE_TIMEOUT: Duration = Duration::from_secs\((\d+)\)",
        "the harness's acquire timeout",
    )
    p5, p10 = seen["stage5.pool_of_5"], seen["stage5.pool_of_10"]
    dead, dead20 = seen["stage5.deadlocking_pool_of_10"], seen["stage5.deadlocking_pool_of_20"]
    # The deadlocked pool: what its test asserts, whatever the run's split.
    requests = dead["requests"]
    # The winner always finishes; the deadlock ends only when an acquire times out.
    at_most_201 = requests - 1
    ok = dead["replies"].get("201", 0)
    timed_out = dead["replies"].get("error: pool timed out", 0)
    expect(dead["payments"] == 1, "the deadlocked pool of 10 paid other than once")
    expect(ok + timed_out == requests, "a deadlocked request ended otherwise than 201 or pool timeout")
    expect(1 <= ok <= at_most_201, f"{ok} × 201 from the deadlocked pool is outside 1..{at_most_201}")
    return [
        (
            "Stage 5: pool of 5 connections",
            f"{p5['payments']}",
            f"{replies(p5)}, {body_note(p5)}",
            "as stage 4",
        ),
        (
            "Stage 5: pool of 10 connections",
            f"{p10['payments']}",
            f"{replies(p10)}, {body_note(p10)}",
            "as stage 4",
        ),
        (
            "Deadlocking shape (read through the pool inside the transaction), pool of 10",
            f"{dead['payments']}",
            f"stuck until the {acquire} s acquire timeout; then 1 to {at_most_201} × 201 "
            "(each timeout frees a connection that may rescue a waiter), the rest PoolTimedOut",
            "as stage 4",
        ),
        (
            "Deadlocking shape, pool of 20",
            f"{dead20['payments']}",
            f"{replies(dead20)}: a connection per request hides the bug",
            "as stage 4",
        ),
    ]


def small_pool_section(seen):
    in_flight_wait = source_value(
        "solutions/stage5-small-pool/src/lib.rs",
        r'IN_FLIGHT_WAIT: &str = "([^"]+)"',
        "stage 5's lock_timeout",
    )
    slow_acquire = source_value(
        "tests/stage5_small_pool.rs",
        r"PoolSize::of\(\d+\)\.with_acquire_timeout\(Duration::from_secs\((\d+)\)\)",
        "the slow-request test's acquire timeout",
    )
    slow_pool = source_value(
        "tests/stage5_small_pool.rs",
        r"PoolSize::of\((\d+)\)\.with_acquire_timeout",
        "the slow-request test's pool size",
    )
    return [
        f"A slow first request holds its key inside its transaction; its 19 duplicates arrive, "
        f"then one request for another key (pool of {slow_pool}, {slow_acquire} s acquire timeout):",
        "",
        "| Version | The request for another key |",
        "|---|---|",
        f"| Stage 4's code: the duplicates wait on the key's lock without a bound | "
        f"{seen['stage5.slow_unbounded']['unrelated']} |",
        f"| Stage 5: `lock_timeout` {in_flight_wait} on the reserving INSERT, then 409 | "
        f"{seen['stage5.slow_first_request']['unrelated']} |",
    ]


def small_pool_varying(seen):
    out = [f"- the deadlocking shape with a pool of 10 ended with {replies(seen['stage5.deadlocking_pool_of_10'])};"]
    if "stage5.deadlocking_pool_of_5" in seen:
        out.append(f"- with a pool of 5, {replies(seen['stage5.deadlocking_pool_of_5'])};")
    return out


def http_route_section(seen):
    s6 = seen["stage6.burst"]
    s6_requests = source_value(
        "tests/stage6_http_route.rs",
        r"fire_concurrently\((\d+), \|_\| async move \{ post\(addr, Some\(\"key-1\"\)",
        "the stage 6 burst's size",
    )
    return [
        "Over HTTP: stage 6's `POST /payments`, 20 concurrent requests with one Idempotency-Key "
        "(a real server on 127.0.0.1, a real HTTP client):",
        "",
        "| Version | Payments | Replies |",
        "|---|---|---|",
        f"| Stage 6: the route over stage 5's `create_payment` | {s6['payments']} | "
        f"{s6['created']} × 201 ({s6_requests} requests) |",
    ]


def retrying_client_section(seen):
    out = [
        "Stage 7: the client's first try broken by the proxy, one call of `pay(1, 100)`:",
        "",
        "| The first try | The client | Payments |",
        "|---|---|---|",
    ]
    out += [
        f"| {label} | stage 7: one key, made before the first try | {seen[f'stage7.{name}']['payments']} |"
        for name, label in FAULTS
    ]
    out += [
        f"| {FAULTS[0][1]} | known-wrong: a new key for every try | "
        f"{seen['stage7.new_key_per_try']['payments']} |",
    ]
    return out


def retrying_client_varying(seen):
    tries = [seen[f"stage7.{name}"]["tries"] for name, _ in FAULTS]
    cases = [label[:3] for _, label in FAULTS]
    each = ", ".join(f"{n} in {case}" for n, case in zip(tries[1:], cases[1:]))
    return [f"- stage 7's client made {tries[0]} tries in {cases[0]}, {each}, the first try included."]


def key_per_client_section(seen):
    stage8_attempts = source_value(
        "solutions/stage8-key-per-client/src/route.rs",
        r"attempts: (\d+),",
        "stage 8's default number of attempts",
    )
    return [
        "Stage 8: two clients, A and B, over HTTP. B sends the key A used, with the same body:",
        "",
        "| The key's identity | What B gets |",
        "|---|---|",
        f"| `key TEXT PRIMARY KEY` (stages 1 to 7; the trap kept in stage 8's solution) | "
        f"{OTHER_CLIENT[seen['stage8.other_client_global_key']['second']]} |",
        f"| `PRIMARY KEY (client_id, key)` (stage 8) | "
        f"{OTHER_CLIENT[seen['stage8.other_client']['second']]} |",
        "",
        f"20 requests from A and 20 from B, all with one key text, at once: "
        f"{seen['stage8.two_clients']['payments']} payments, "
        f"{seen['stage8.two_clients']['created']} × 201.",
        "",
        "20 requests from A with one key, with `default_transaction_isolation = 'serializable'`; "
        "the first is held in its payment until the 19 others wait on its key:",
        "",
        "| The route | Payments | Replies |",
        "|---|---|---|",
        f"| stage 8 with `attempts: 1`: a serialization failure is not retried | "
        f"{seen['stage8.serializable_without_retry']['payments']} | "
        f"{replies(seen['stage8.serializable_without_retry'])} |",
        f"| stage 8: the transaction run again on 40001, at most {stage8_attempts} times | "
        f"{seen['stage8.serializable']['payments']} | {replies(seen['stage8.serializable'])} |",
    ]


def expiry_section(seen):
    stage9_hours = int(source_value(
        "solutions/stage9-expiry/src/route.rs",
        r"retention: Duration::from_secs\((\d+) \* 60 \* 60\)",
        "stage 9's default retention",
    ))
    stage9_batch = source_value(
        "tests/stage9_expiry.rs",
        r"reap_batch: (\d+),",
        "the stage 9 tests' batch size",
    )
    return [
        f"Stage 9: keys that expire after {stage9_hours} hours, and the reaper "
        f"(at most {stage9_batch} keys per transaction in these tests):",
        "",
        "| Scenario | What happened |",
        "|---|---|",
        f"| A sends a key answered {stage9_hours} h 1 min ago, not yet reaped | "
        f"{AFTER_EXPIRY[seen['stage9.after_expiry']['second']]} "
        f"({seen['stage9.after_expiry']['payments']} payments in all) |",
        f"| The reaper, with 250 expired keys and 5 inside the window | "
        f"{seen['stage9.reaped']['keys']} keys deleted in {seen['stage9.reaped']['batches']} transactions |",
        f"| The reaper looping through a burst of 20 requests whose first takes an expired key over "
        f"(and 2000 other expired keys) | {seen['stage9.reaper_during_burst']['payments']} payment; "
        f"{replies(seen['stage9.reaper_during_burst'])}; "
        f"{seen['stage9.reaper_during_burst']['reaped']} keys reaped |",
    ]


def one_round_trip_section(seen):
    s10_new, s10_burst = seen["stage10.new_key"], seen["stage10.burst"]
    s10_slow = seen["stage10.slow_first_request"]
    s10_answered = seen["stage10.answered_key"]
    in_flight_wait10 = source_value(
        "solutions/stage10-one-round-trip/src/lib.rs",
        r'IN_FLIGHT_WAIT: &str = "([^"]+)"',
        "stage 10's lock_timeout",
    )
    expect(s10_burst["payments"] == 1, "stage 10's burst paid other than once")
    return [
        "Stage 10: the key, the payment and the answer in one statement, in autocommit:",
        "",
        "| Scenario | What happened |",
        "|---|---|",
        f"| A new key | {s10_new['writes']} rows written (the key with its answer, the payment) "
        f"by {s10_new['statements']} statement, in {s10_new['transactions']} transaction |",
        f"| 20 requests with one key, the first held in its statement until the 19 others arrived | "
        f"{s10_burst['payments']} payment; the first 201, each duplicate the same 201 replayed, or "
        f"409 after waiting {in_flight_wait10} on the key |",
        f"| The same key with another amount | {second_request('stage10.other_body', seen)} |",
        f"| A key answered before: a retry, then the same key with another amount | "
        f"{s10_answered['statements']} statement for the replay, "
        f"{s10_answered['statements_other_body']} for the 422; "
        f"{s10_answered['ids_taken']} payment ids taken by the two |",
        f"| A slow first request, its 19 duplicates, then a request for another key (pool of 5) | "
        f"{s10_slow['duplicates_409']} duplicates × 409 while it was held; the other key: "
        f"{s10_slow['unrelated']} |",
    ]


def one_round_trip_varying(seen):
    return [f"- stage 10's burst ended with {replies(seen['stage10.burst'])};"]


def payment_provider_section(seen):
    out = [
        "Stage 11: the card charged by a fake provider over HTTP (its list of charges is the "
        "truth), called outside any transaction. A request dies at each point, and the client "
        "retries with the same key once the dead request's lease has expired:",
        "",
        "| The request dies | Charges at the provider | Payments | Calls to the provider |",
        "|---|---|---|---|",
    ]
    out += [
        f"| {label} | {seen[f'stage11.crash.{name}']['charges']} | "
        f"{seen[f'stage11.crash.{name}']['payments']} | "
        f"{seen[f'stage11.crash.{name}']['provider_calls']} |"
        for name, label in CRASHES
    ]
    s11_burst, s11_slow = seen["stage11.burst"], seen["stage11.slow_provider"]

    def refusal(case):
        got = seen[f"stage11.saved_refusal.{case}"]
        statuses = ", then ".join(str(status) for status in got["statuses"])
        return f"{statuses}; {got['provider_calls']} call(s) to the provider, no charge"
    expect(s11_burst["charges"] == 1 and s11_burst["payments"] == 1, "stage 11's burst charged other than once")
    out += [
        "",
        "| Scenario | What happened |",
        "|---|---|",
        f"| 20 concurrent requests with one key | {s11_burst['charges']} charge, "
        f"{s11_burst['payments']} payment; each request 201 or 409 |",
        f"| 19 duplicates of a request held at the provider (its key committed as `started`, "
        f"its lease live) | {seen['stage11.in_flight']['duplicates_409']} × 409 |",
        f"| Five payments held at a slow provider (pool of 5), then one for another key | "
        f"the other key: {s11_slow['unrelated']} |",
        f"| A request taken over fails at the provider and releases; a duplicate arrives while "
        f"the request that took the key over waits for its answer | the duplicate: "
        f"{seen['stage11.taken_over_release']['duplicate']} |",
        f"| The provider declines the card (402, kept for its key); three tries with one key | "
        f"{refusal('Decline')} |",
        f"| The provider fails inside its endpoint (500, kept for its key); three tries with one "
        f"key | {refusal('Error')} |",
        f"| A `charged` key and a finished one, both two days old, then the reaper | "
        f"{seen['stage11.reaper']['deleted']} deleted (the finished one), "
        f"{seen['stage11.reaper']['stranded']} kept for reconciliation |",
    ]
    return out


def payment_provider_varying(seen):
    return [f"- stage 11's burst ended with {replies(seen['stage11.burst'])};"]


def middleware_section(seen):
    s12_bare, s12_burst = seen["stage12.bare_burst"], seen["stage12.burst"]
    s12_crash, s12_in_route = seen["stage12.crash_in_layer"], seen["stage12.crash_in_route"]
    s12_stale = seen["stage12.stale_store"]
    expect(s12_burst["payments"] == 1, "stage 12's burst behind the layer paid other than once")
    return [
        "Stage 12: routes with no idempotency code of their own, and a tower layer around them "
        "(20 requests with one key, the first held in its payment until the 19 others arrived):",
        "",
        "| Scenario | Payments | Replies |",
        "|---|---|---|",
        f"| The route alone | {s12_bare['payments']} | {replies(s12_bare)} |",
        f"| The route behind `IdempotencyLayer` | {s12_burst['payments']} | {replies(s12_burst)} |",
        f"| The same key with another amount, behind the layer | "
        f"{seen['stage12.other_body']['payments']} | "
        f"{second_request('stage12.other_body', seen)} |",
        f"| A crash after the route's commit, before the layer stores the answer; a retry, then "
        f"another once the lease has passed | {s12_crash['payments']} | "
        f"{s12_crash['retry']}, then {s12_crash['after_lease']}: the route ran again |",
        f"| A first request past its lease, its key taken over by a duplicate that pays and "
        f"answers; then the first stores its answer, and the client retries | "
        f"{s12_stale['payments']} | the retry gets the {s12_stale['retry_gets']}'s 201 |",
        f"| The same crash against stage 8's route (the key, the payment and the answer in one "
        f"transaction); a retry | {s12_in_route['payments']} | {s12_in_route['retry']}, replayed |",
    ]


# The results spec of each stage, by its slug in stages.toml. `None`: the stage
# has no part on the page (say why).
RESULTS = {
    # Stage 1's one figure (a second INSERT of a key fails with 23505) is its chapter's.
    "tables": None,
    "naive": dict(
        scenarios=["stage2.held_burst", "stage2.changed_body"],
        rows=naive_rows,
        varying=naive_varying,
    ),
    "unique-key": dict(scenarios=["stage3.burst"], rows=unique_key_rows),
    "changed-body": dict(scenarios=["stage4.two_bodies", "stage4.other_body"], rows=changed_body_rows),
    "small-pool": dict(
        scenarios=[
            "stage5.pool_of_5",
            "stage5.pool_of_10",
            "stage5.deadlocking_pool_of_10",
            "stage5.deadlocking_pool_of_20",
            "stage5.slow_unbounded",
            "stage5.slow_first_request",
        ],
        rows=small_pool_rows,
        section=small_pool_section,
        varying=small_pool_varying,
    ),
    "http-route": dict(scenarios=["stage6.burst"], section=http_route_section),
    "retrying-client": dict(
        scenarios=[f"stage7.{name}" for name, _ in FAULTS] + ["stage7.new_key_per_try"],
        section=retrying_client_section,
        varying=retrying_client_varying,
    ),
    "key-per-client": dict(
        scenarios=[
            "stage8.two_clients",
            "stage8.other_client",
            "stage8.other_client_global_key",
            "stage8.serializable",
            "stage8.serializable_without_retry",
        ],
        section=key_per_client_section,
    ),
    "expiry": dict(
        scenarios=["stage9.after_expiry", "stage9.reaped", "stage9.reaper_during_burst"],
        section=expiry_section,
    ),
    "one-round-trip": dict(
        scenarios=["stage10.new_key", "stage10.burst", "stage10.other_body", "stage10.answered_key",
                   "stage10.slow_first_request"],
        section=one_round_trip_section,
        varying=one_round_trip_varying,
    ),
    "payment-provider": dict(
        scenarios=[f"stage11.crash.{name}" for name, _ in CRASHES]
        + ["stage11.in_flight", "stage11.burst", "stage11.slow_provider"]
        + ["stage11.taken_over_release", "stage11.reaper"]
        + [f"stage11.saved_refusal.{case}" for case in ("Decline", "Error")],
        section=payment_provider_section,
        varying=payment_provider_varying,
    ),
    "middleware": dict(
        scenarios=[
            "stage12.bare_burst",
            "stage12.burst",
            "stage12.other_body",
            "stage12.crash_in_layer",
            "stage12.stale_store",
            "stage12.crash_in_route",
        ],
        section=middleware_section,
    ),
}


def stages():
    """The stages of stages.toml, in order, each with its results spec and the
    package whose tests record its figures (its solution, named as the runner
    names it: `stageN-SLUG-solution` unless given)."""
    with STAGES.open("rb") as f:
        listed = sorted(tomllib.load(f)["stage"], key=lambda s: s["number"])
    out = []
    for stage in listed:
        slug = stage.get("slug")
        if slug not in RESULTS:
            fail(f"stage {stage['number']} ({slug}) has no results spec in book/results.py (RESULTS)")
        spec = RESULTS[slug]
        if spec is None:
            continue
        package = stage.get("solution") or f"stage{stage['number']}-{slug}-solution"
        out.append((package, spec))
    unknown = set(RESULTS) - {stage.get("slug") for stage in listed}
    if unknown:
        fail(f"book/results.py has results specs for stages stages.toml does not have: {sorted(unknown)}")
    return out


def render(specs, seen):
    rows = [row for _, spec in specs if "rows" in spec for row in spec["rows"](seen)]
    out = [
        "<!-- Generated by book/results.py from a run of the solutions' tests. Do not edit:",
        "     `just results` rewrites it; `python3 book/results.py --check` fails when it is stale. -->",
        "",
        "| Version | Payments made by 20 concurrent requests, one key | Replies | Same key, another amount |",
        "|---|---|---|---|",
    ]
    out += [f"| {' | '.join(row)} |" for row in rows]
    for _, spec in specs:
        if "section" in spec:
            out += [""] + spec["section"](seen)
    out += ["", "Figures that vary from run to run, from the run that wrote this page:", ""]
    varying = [line.rstrip(";.") for _, spec in specs if "varying" in spec for line in spec["varying"](seen)]
    out += [line + (";" if i < len(varying) - 1 else ".") for i, line in enumerate(varying)]
    return "\n".join(out) + "\n"


def table_rows(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def main():
    check = "--check" in sys.argv[1:]
    specs = stages()
    packages = [package for package, _ in specs]
    required = [name for _, spec in specs for name in spec["scenarios"]]
    fresh = render(specs, run_tests(packages, required))
    if not check:
        FRAGMENT.parent.mkdir(parents=True, exist_ok=True)
        FRAGMENT.write_text(fresh, encoding="utf-8")
        print(f"wrote {FRAGMENT.relative_to(ROOT)}", file=sys.stderr)
        return 0
    if not FRAGMENT.exists():
        print(f"results.py --check: {FRAGMENT.relative_to(ROOT)} is missing; run `just results`")
        return 1
    committed = table_rows(FRAGMENT.read_text(encoding="utf-8"))
    now = table_rows(fresh)
    if committed != now:
        print(f"results.py --check: {FRAGMENT.relative_to(ROOT)} is stale; run `just results`.")
        for old, new in zip(committed + [""] * len(now), now + [""] * len(committed)):
            if old != new:
                print(f"  committed: {old}\n  fresh:     {new}")
        return 1
    print(f"results.py --check: {FRAGMENT.relative_to(ROOT)} is current ({len(now)} table rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
