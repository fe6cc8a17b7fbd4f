#!/usr/bin/env python3
"""Writes the book's results table from a real run of the solutions' tests.

    python3 book/results.py           # run the tests, write book/src/generated/[pt-BR/]results.md
    python3 book/results.py --check   # run the tests, exit 1 if a committed page is stale
    python3 book/results.py --last-run   # rewrite the pages from the last run's records
    python3 book/results.py --check --observations FILE
        # the same check on the records a run of the same tests already wrote (CI's
        # `cargo test`, run with WORKBOOK_OBSERVATIONS=FILE): the tests are not run again

One run, two pages: the English one and its pt-BR twin (the same figures; the words of
each row in both languages, side by side in this script).

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
# The page in each language of the book: English, and its pt-BR twin.
FRAGMENTS = {
    "en": BOOK / "src" / "generated" / "results.md",
    "pt-BR": BOOK / "src" / "generated" / "pt-BR" / "results.md",
}
STAGES = ROOT / "stages.toml"
# The last run's records (build output, not committed): `--last-run` renders from them.
LAST_RUN = ROOT / "target" / "results-last-run.json"


class Words:
    """The language a page is written in: `t(english, portuguese)` picks a text. The
    Portuguese follows the book's glossary (book/glossary.toml)."""

    def __init__(self, lang):
        self.lang = lang

    def __call__(self, en, pt):
        return pt if self.lang == "pt-BR" else en


# Stage 11's crash points, in the order of the test's cases (the names are the
# test's `DiesAfter` variants).
CRASHES = [
    ("Started", "after `started`, before the provider charged",
     "depois de `started`, antes de o provedor cobrar"),
    ("ProviderCharged", "after the provider charged, its answer lost",
     "depois de o provedor cobrar, com a resposta dele perdida"),
    ("ChargeRecorded", "after `charged`, writing the payment",
     "depois de `charged`, ao gravar o pagamento"),
    ("Finished", "after `finished`, the answer lost on the way to the client",
     "depois de `finished`, com a resposta perdida no caminho até o cliente"),
]
# Stage 7's fault cases, in the order of the test's cases, with what the proxy did to
# the first try (the names are `harness::proxy::Fault`'s variants).
FAULTS = [
    ("DropResponse", "(a) the answer lost after the commit", "(a) a resposta perdida depois do commit"),
    ("DropRequest", "(b) the request lost before the server", "(b) o pedido perdido antes do servidor"),
    ("HoldResponseUntilClientGivesUp", "(c) the answer later than the client's timeout",
     "(c) a resposta depois do timeout do cliente"),
    ("Answer503", "(d) a 503 answered by the proxy itself", "(d) um 503 respondido pelo próprio proxy"),
]


# What client B got when it sent a key client A had used (stage 8's tests record one word).
OTHER_CLIENT = {
    "A's answer": ("A's 201, replayed: A's payment id and amount, and B paid nothing",
                   "o 201 de A, repetido: o id e o valor do pagamento de A, e B não pagou nada"),
    "own payment": ("a 201 of its own: a second payment, B's",
                    "um 201 só dele: um segundo pagamento, o de B"),
    "refused": ("422: the key is taken", "422: a chave já está em uso"),
}

# What a key past the retention window got (stage 9's tests record one word).
AFTER_EXPIRY = {
    "new payment": ("a new payment: the expired key is taken over",
                    "um pagamento novo: a chave expirada é retomada"),
    "replayed": ("the old 201, replayed", "o 201 antigo, repetido"),
    "refused": ("a refusal", "uma recusa"),
}

# The replies the harness records that are not statuses (`harness::burst::ReplyKind`).
REPLY_KINDS = {
    "error: pool timed out": ("pool timed out", "tempo esgotado no pool"),
    "error: unique violation (23505)": ("unique violation (23505)", "violação de unicidade (23505)"),
    "error: lock timeout (55P03)": ("lock timeout (55P03)", "tempo de lock esgotado (55P03)"),
}

# Whose 201 the retry got after a stale first request stored its answer (stage 12).
RETRY_GETS = {
    "duplicate": ("the retry gets the duplicate's 201", "a nova tentativa recebe o 201 da duplicata"),
    "first": ("the retry gets the first request's 201", "a nova tentativa recebe o 201 do primeiro pedido"),
    "refused": ("the retry is refused", "a nova tentativa é recusada"),
}


class Stale(Exception):
    pass


def fail(message):
    print(f"results.py: {message}", file=sys.stderr)
    sys.exit(2)


def source_value(path, pattern, what):
    """A constant read out of the source the tests ran with, not retyped here. `path`: a
    file, or a crate's `src` folder, every .rs file of it read (a constant may move from
    one module of its crate to another: the harness's acquire timeout did)."""
    where = ROOT / path
    files = sorted(where.rglob("*.rs")) if where.is_dir() else [where]
    values = {}
    for file in files:
        found = re.search(pattern, file.read_text(encoding="utf-8"))
        if found:
            values.setdefault(found.group(1), []).append(str(file.relative_to(ROOT)))
    if not values:
        fail(f"cannot find {what} in {path} (pattern {pattern!r}); update results.py")
    if len(values) > 1:
        fail(f"{what} has more than one value in {path}: "
             + "; ".join(f"{value} in {', '.join(at)}" for value, at in values.items()))
    return next(iter(values))


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
    return scenarios(lines, required)


def scenarios(lines, required):
    """The scenarios a run recorded (JSON lines), by name; every required one present."""
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




def reply_kind(kind, t):
    """A reply as the tables name it: a status, or the error without its `error: `."""
    if kind in REPLY_KINDS:
        return t(*REPLY_KINDS[kind])
    return kind.removeprefix("error: ")


def outcome_word(kind, t):
    """A recorded reply shown whole (`201`, `error: pool timed out`)."""
    if kind in REPLY_KINDS:
        return t(kind, f"erro: {REPLY_KINDS[kind][1]}")
    return kind


def replies(outcome, t):
    """`{"201": 1, "error: unique violation (23505)": 19}` as `1 × 201, 19 × ...`."""
    def order(item):
        kind, n = item
        return (not kind.isdigit(), kind if kind.isdigit() else "", -n, kind)

    parts = sorted(outcome["replies"].items(), key=order)
    return ", ".join(f"{n} × {reply_kind(kind, t)}" for kind, n in parts)


def expect(condition, message):
    if not condition:
        fail(f"the run contradicts the book: {message}")


def second_request(name, seen, t):
    words = {
        "refused": t("422, nothing paid", "422, nada pago"),
        "replayed": t("not detected: the first 201 is replayed",
                      "não detectado: o primeiro 201 é repetido"),
        "paid again": t("a second payment", "um segundo pagamento"),
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


def body_note(outcome, t):
    n = outcome["distinct_bodies"]
    if n == 1:
        return t("one body: the same payment for all", "um só corpo: o mesmo pagamento para todos")
    return t(f"{n} different bodies", f"{n} corpos diferentes")


# Each stage's part of the page. A stage's spec names the scenarios its
# solution's tests record (the run must hold them all), and gives any of:
# `rows` (its rows of the first table: 20 concurrent requests with one key),
# `section` (its own lines after that table), `varying` (figures that vary from
# run to run, listed at the end). Each is called with the run's records and the
# page's language (`t`). Stages are laid out in stages.toml's order.


def naive_rows(seen, t):
    naive = seen["stage2.held_burst"]
    created = naive["replies"].get("201", 0)
    violations = naive["replies"].get("error: unique violation (23505)", 0)
    return [(
        t("Naive: check, then write (all 20 held between check and write)",
          "Ingênua: conferir e depois gravar (os 20 retidos entre conferir e gravar)"),
        f"{naive['payments']}",
        t(f"{created} × 201; {violations} × unique violation (23505) on the key's INSERT, "
          "each after its payment was made",
          f"{created} × 201; {violations} × violação de unicidade (23505) no INSERT da "
          "chave, cada uma depois de o pagamento ter sido feito"),
        second_request("stage2.changed_body", seen, t),
    )]


def naive_varying(seen, t):
    if "stage2.undriven" not in seen:
        return []
    u = seen["stage2.undriven"]
    return [t(
        f"- the naive version without the hold between check and write: "
        f"{u['runs_with_duplicates']} of {u['runs']} bursts paid more than once, "
        f"from {u['payments_min']} to {u['payments_max']} payments per burst;",
        f"- a versão ingênua sem a retenção entre conferir e gravar: "
        f"{u['runs_with_duplicates']} de {u['runs']} rajadas pagaram mais de uma vez, "
        f"de {u['payments_min']} a {u['payments_max']} pagamentos por rajada;",
    )]


def unique_key_rows(seen, t):
    s3 = seen["stage3.burst"]
    return [(
        t("Stage 3: the key reserved in the paying transaction",
          "Etapa 3: a chave reservada na transação que paga"),
        f"{s3['payments']}",
        f"{replies(s3, t)}, {body_note(s3, t)}",
        t("not compared yet (stage 4)", "ainda não comparado (etapa 4)"),
    )]


def changed_body_rows(seen, t):
    s4, s4_other = seen["stage4.two_bodies"], seen["stage4.other_body"]
    paid = s4_other.get("payments", "?")
    return [(
        t("Stage 4: a hash of the body stored with the key (10 requests with amount 100, 10 with 999)",
          "Etapa 4: um hash do corpo guardado com a chave (10 pedidos com valor 100, 10 com 999)"),
        f"{s4['payments']}",
        replies(s4, t),
        second_request("stage4.other_body", seen, t)
        + t(f" ({paid} payment in all)", f" ({paid} pagamento ao todo)"),
    )]


def small_pool_rows(seen, t):
    acquire = source_value(
        "tests/harness/src",
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
    as_stage_4 = t("as stage 4", "como na etapa 4")
    return [
        (
            t("Stage 5: pool of 5 connections", "Etapa 5: pool de 5 conexões"),
            f"{p5['payments']}",
            f"{replies(p5, t)}, {body_note(p5, t)}",
            as_stage_4,
        ),
        (
            t("Stage 5: pool of 10 connections", "Etapa 5: pool de 10 conexões"),
            f"{p10['payments']}",
            f"{replies(p10, t)}, {body_note(p10, t)}",
            as_stage_4,
        ),
        (
            t("Deadlocking shape (read through the pool inside the transaction), pool of 10",
              "Formato que trava (leitura pelo pool dentro da transação), pool de 10"),
            f"{dead['payments']}",
            t(f"stuck until the {acquire} s acquire timeout; then 1 to {at_most_201} × 201 "
              "(each timeout frees a connection that may rescue a waiter), the rest PoolTimedOut",
              f"travado até o tempo limite de aquisição de {acquire} s; depois 1 a {at_most_201} "
              "× 201 (cada tempo esgotado libera uma conexão que pode resgatar quem espera), o "
              "resto PoolTimedOut"),
            as_stage_4,
        ),
        (
            t("Deadlocking shape, pool of 20", "Formato que trava, pool de 20"),
            f"{dead20['payments']}",
            replies(dead20, t) + t(": a connection per request hides the bug",
                                   ": uma conexão por pedido esconde o bug"),
            as_stage_4,
        ),
    ]


def small_pool_section(seen, t):
    in_flight_wait = source_value(
        "solutions/stage5-small-pool/src",
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
    unbounded = outcome_word(seen["stage5.slow_unbounded"]["unrelated"], t)
    bounded = outcome_word(seen["stage5.slow_first_request"]["unrelated"], t)
    return [
        t(f"A slow first request holds its key inside its transaction; its 19 duplicates arrive, "
          f"then one request for another key (pool of {slow_pool}, {slow_acquire} s acquire timeout):",
          f"Um primeiro pedido lento segura a chave dentro da transação; chegam as 19 duplicatas "
          f"dele, depois um pedido para outra chave (pool de {slow_pool}, tempo limite de aquisição "
          f"de {slow_acquire} s):"),
        "",
        t("| Version | The request for another key |", "| Versão | O pedido para outra chave |"),
        "|---|---|",
        t("| Stage 4's code: the duplicates wait on the key's lock without a bound | ",
          "| O código da etapa 4: as duplicatas esperam pelo lock da chave sem limite | ")
        + f"{unbounded} |",
        t(f"| Stage 5: `lock_timeout` {in_flight_wait} on the reserving INSERT, then 409 | ",
          f"| Etapa 5: `lock_timeout` de {in_flight_wait} no INSERT que reserva, depois 409 | ")
        + f"{bounded} |",
    ]


def small_pool_varying(seen, t):
    dead10 = replies(seen["stage5.deadlocking_pool_of_10"], t)
    out = [t(f"- the deadlocking shape with a pool of 10 ended with {dead10};",
             f"- o formato que trava, com um pool de 10, terminou com {dead10};")]
    if "stage5.deadlocking_pool_of_5" in seen:
        dead5 = replies(seen["stage5.deadlocking_pool_of_5"], t)
        out.append(t(f"- with a pool of 5, {dead5};", f"- com um pool de 5, {dead5};"))
    return out


def http_route_section(seen, t):
    s6 = seen["stage6.burst"]
    s6_requests = source_value(
        "tests/stage6_http_route.rs",
        r"fire_concurrently\((\d+), \|_\| async move \{ post\(addr, Some\(\"key-1\"\)",
        "the stage 6 burst's size",
    )
    return [
        t("Over HTTP: stage 6's `POST /payments`, 20 concurrent requests with one Idempotency-Key "
          "(a real server on 127.0.0.1, a real HTTP client):",
          "Por HTTP: o `POST /payments` da etapa 6, 20 pedidos simultâneos com uma Idempotency-Key "
          "(um servidor de verdade em 127.0.0.1, um cliente HTTP de verdade):"),
        "",
        t("| Version | Payments | Replies |", "| Versão | Pagamentos | Respostas |"),
        "|---|---|---|",
        t("| Stage 6: the route over stage 5's `create_payment` | ",
          "| Etapa 6: a rota sobre o `create_payment` da etapa 5 | ")
        + f"{s6['payments']} | {s6['created']} × 201 "
        + t(f"({s6_requests} requests) |", f"({s6_requests} pedidos) |"),
    ]


def retrying_client_section(seen, t):
    out = [
        t("Stage 7: the client's first try broken by the proxy, one call of `pay` for "
          "`Payment::new(1, 100)`:",
          "Etapa 7: a primeira tentativa do cliente quebrada pelo proxy, uma chamada de `pay` "
          "para `Payment::new(1, 100)`:"),
        "",
        t("| The first try | The client | Payments |", "| A primeira tentativa | O cliente | Pagamentos |"),
        "|---|---|---|",
    ]
    one_key = t("stage 7: the payment's key, made before the first try",
                "etapa 7: a chave do pagamento, criada antes da primeira tentativa")
    out += [
        f"| {t(en, pt)} | {one_key} | {seen[f'stage7.{name}']['payments']} |"
        for name, en, pt in FAULTS
    ]
    out += [
        f"| {t(FAULTS[0][1], FAULTS[0][2])} | "
        + t("known-wrong: a new key for every try", "sabidamente errado: uma chave nova a cada tentativa")
        + f" | {seen['stage7.new_key_per_try']['payments']} |",
    ]
    restarted = t("(a), then the process dies and starts again",
                  "(a), e o processo morre e começa de novo")
    out += [
        f"| {restarted} | "
        + t("stage 7: the key kept with the order, read back",
            "etapa 7: a chave guardada com o pedido de compra, lida de volta")
        + f" | {seen['stage7.restart']['payments']} |",
        f"| {restarted} | "
        + t("known-wrong: the key made in memory by each call of `pay`",
            "sabidamente errado: a chave criada em memória a cada chamada de `pay`")
        + f" | {seen['stage7.restarted_with_the_key_in_memory']['payments']} |",
    ]
    return out


def retrying_client_varying(seen, t):
    tries = [seen[f"stage7.{name}"]["tries"] for name, _, _ in FAULTS]
    cases = [label[:3] for _, label, _ in FAULTS]
    each = ", ".join(t(f"{n} in {case}", f"{n} em {case}") for n, case in zip(tries[1:], cases[1:]))
    return [t(f"- stage 7's client made {tries[0]} tries in {cases[0]}, {each}, the first try included.",
              f"- o cliente da etapa 7 fez {tries[0]} tentativas em {cases[0]}, {each}, contando a primeira.")]


def key_per_client_section(seen, t):
    stage8_attempts = source_value(
        "solutions/stage8-key-per-client/src",
        r"attempts: (\d+),",
        "stage 8's default number of attempts",
    )
    two = seen["stage8.two_clients"]
    global_key = t(*OTHER_CLIENT[seen["stage8.other_client_global_key"]["second"]])
    per_client = t(*OTHER_CLIENT[seen["stage8.other_client"]["second"]])
    without_retry, serializable = seen["stage8.serializable_without_retry"], seen["stage8.serializable"]
    return [
        t("Stage 8: two clients, A and B, over HTTP. B sends the key A used, with the same body:",
          "Etapa 8: dois clientes, A e B, por HTTP. B manda a chave que A usou, com o mesmo corpo:"),
        "",
        t("| The key's identity | What B gets |", "| A identidade da chave | O que B recebe |"),
        "|---|---|",
        t("| `key TEXT PRIMARY KEY` (stages 1 to 7; the trap kept in stage 8's solution) | ",
          "| `key TEXT PRIMARY KEY` (etapas 1 a 7; a armadilha mantida na solução da etapa 8) | ")
        + f"{global_key} |",
        t("| `PRIMARY KEY (client_id, key)` (stage 8) | ", "| `PRIMARY KEY (client_id, key)` (etapa 8) | ")
        + f"{per_client} |",
        "",
        t(f"20 requests from A and 20 from B, all with one key text, at once: "
          f"{two['payments']} payments, {two['created']} × 201.",
          f"20 pedidos de A e 20 de B, todos com o mesmo texto de chave, ao mesmo tempo: "
          f"{two['payments']} pagamentos, {two['created']} × 201."),
        "",
        t("20 requests from A with one key, with `default_transaction_isolation = 'serializable'`; "
          "the first is held in its payment until the 19 others wait on its key:",
          "20 pedidos de A com uma chave, com `default_transaction_isolation = 'serializable'`; "
          "o primeiro fica retido no pagamento até os outros 19 esperarem pela chave dele:"),
        "",
        t("| The route | Payments | Replies |", "| A rota | Pagamentos | Respostas |"),
        "|---|---|---|",
        t("| stage 8 with `attempts: 1`: a serialization failure is not retried | ",
          "| etapa 8 com `attempts: 1`: uma falha de serialização não é tentada de novo | ")
        + f"{without_retry['payments']} | {replies(without_retry, t)} |",
        t(f"| stage 8: the transaction run again on 40001, at most {stage8_attempts} times | ",
          f"| etapa 8: a transação rodada de novo no 40001, no máximo {stage8_attempts} vezes | ")
        + f"{serializable['payments']} | {replies(serializable, t)} |",
    ]


def expiry_section(seen, t):
    stage9_hours = int(source_value(
        "solutions/stage9-expiry/src",
        r"retention: Duration::from_secs\((\d+) \* 60 \* 60\)",
        "stage 9's default retention",
    ))
    stage9_batch = source_value(
        "tests/stage9_expiry.rs",
        r"reap_batch: (\d+),",
        "the stage 9 tests' batch size",
    )
    after, reaped = seen["stage9.after_expiry"], seen["stage9.reaped"]
    burst = seen["stage9.reaper_during_burst"]
    return [
        t(f"Stage 9: keys that expire after {stage9_hours} hours, and the reaper "
          f"(at most {stage9_batch} keys per transaction in these tests):",
          f"Etapa 9: chaves que expiram depois de {stage9_hours} horas, e a rotina de limpeza "
          f"(no máximo {stage9_batch} chaves por transação nestes testes):"),
        "",
        t("| Scenario | What happened |", "| Cenário | O que aconteceu |"),
        "|---|---|",
        t(f"| A sends a key answered {stage9_hours} h 1 min ago, not yet reaped | ",
          f"| A manda uma chave respondida há {stage9_hours} h 1 min, ainda não limpa | ")
        + t(*AFTER_EXPIRY[after["second"]])
        + t(f" ({after['payments']} payments in all) |", f" ({after['payments']} pagamentos ao todo) |"),
        t(f"| The reaper, with 250 expired keys and 5 inside the window | "
          f"{reaped['keys']} keys deleted in {reaped['batches']} transactions |",
          f"| A rotina de limpeza, com 250 chaves expiradas e 5 dentro do prazo de validade | "
          f"{reaped['keys']} chaves apagadas em {reaped['batches']} transações |"),
        t(f"| The reaper looping through a burst of 20 requests whose first takes an expired key over "
          f"(and 2000 other expired keys) | {burst['payments']} payment; "
          f"{replies(burst, t)}; {burst['reaped']} keys reaped |",
          f"| A rotina de limpeza rodando em laço durante uma rajada de 20 pedidos cujo primeiro "
          f"retoma uma chave expirada (e 2000 outras chaves expiradas) | {burst['payments']} "
          f"pagamento; {replies(burst, t)}; {burst['reaped']} chaves limpas |"),
    ]


def one_round_trip_section(seen, t):
    s10_new, s10_burst = seen["stage10.new_key"], seen["stage10.burst"]
    s10_slow = seen["stage10.slow_first_request"]
    s10_answered = seen["stage10.answered_key"]
    in_flight_wait10 = source_value(
        "solutions/stage10-one-round-trip/src",
        r'IN_FLIGHT_WAIT: &str = "([^"]+)"',
        "stage 10's lock_timeout",
    )
    expect(s10_burst["payments"] == 1, "stage 10's burst paid other than once")
    other_body = second_request("stage10.other_body", seen, t)
    unrelated = outcome_word(s10_slow["unrelated"], t)
    return [
        t("Stage 10: the key, the payment and the answer in one statement, in autocommit:",
          "Etapa 10: a chave, o pagamento e a resposta num único comando, em autocommit:"),
        "",
        t("| Scenario | What happened |", "| Cenário | O que aconteceu |"),
        "|---|---|",
        t(f"| A new key | {s10_new['writes']} rows written (the key with its answer, the payment) "
          f"by {s10_new['statements']} statement, in {s10_new['transactions']} transaction |",
          f"| Uma chave nova | {s10_new['writes']} linhas gravadas (a chave com a resposta, o "
          f"pagamento) por {s10_new['statements']} comando, em {s10_new['transactions']} transação |"),
        t(f"| 20 requests with one key, the first held in its statement until the 19 others arrived | "
          f"{s10_burst['payments']} payment; the first 201, each duplicate the same 201 replayed, or "
          f"409 after waiting {in_flight_wait10} on the key |",
          f"| 20 pedidos com uma chave, o primeiro retido no comando até os outros 19 chegarem | "
          f"{s10_burst['payments']} pagamento; o primeiro 201, cada duplicata o mesmo 201 repetido, "
          f"ou 409 depois de esperar {in_flight_wait10} pela chave |"),
        t(f"| The same key with another amount | {other_body} |",
          f"| A mesma chave com outro valor | {other_body} |"),
        t(f"| A key answered before: a retry, then the same key with another amount | "
          f"{s10_answered['statements']} statement for the replay, "
          f"{s10_answered['statements_other_body']} for the 422; "
          f"{s10_answered['ids_taken']} payment ids taken by the two |",
          f"| Uma chave já respondida: uma nova tentativa, depois a mesma chave com outro valor | "
          f"{s10_answered['statements']} comando para a resposta repetida, "
          f"{s10_answered['statements_other_body']} para o 422; "
          f"{s10_answered['ids_taken']} ids de pagamento consumidos pelos dois |"),
        t(f"| A slow first request, its 19 duplicates, then a request for another key (pool of 5) | "
          f"{s10_slow['duplicates_409']} duplicates × 409 while it was held; the other key: {unrelated} |",
          f"| Um primeiro pedido lento, as 19 duplicatas dele, depois um pedido para outra chave "
          f"(pool de 5) | {s10_slow['duplicates_409']} duplicatas × 409 enquanto ele estava retido; "
          f"a outra chave: {unrelated} |"),
    ]


def one_round_trip_varying(seen, t):
    burst = replies(seen["stage10.burst"], t)
    return [t(f"- stage 10's burst ended with {burst};", f"- a rajada da etapa 10 terminou com {burst};")]


def payment_provider_section(seen, t):
    out = [
        t("Stage 11: the card charged by a fake provider over HTTP (its list of charges is the "
          "truth), called outside any transaction. A request dies at each point, and the client "
          "retries with the same key once the dead request's lease has expired:",
          "Etapa 11: o cartão cobrado por um provedor falso por HTTP (a lista de cobranças dele é "
          "a verdade), chamado fora de qualquer transação. Um pedido morre em cada ponto, e o "
          "cliente tenta de novo com a mesma chave quando o prazo de reserva (lease) do pedido "
          "morto expira:"),
        "",
        t("| The request dies | Charges at the provider | Payments | Calls to the provider |",
          "| O pedido morre | Cobranças no provedor | Pagamentos | Chamadas ao provedor |"),
        "|---|---|---|---|",
    ]
    out += [
        f"| {t(en, pt)} | {seen[f'stage11.crash.{name}']['charges']} | "
        f"{seen[f'stage11.crash.{name}']['payments']} | "
        f"{seen[f'stage11.crash.{name}']['provider_calls']} |"
        for name, en, pt in CRASHES
    ]
    s11_burst, s11_slow = seen["stage11.burst"], seen["stage11.slow_provider"]

    def refusal(case):
        got = seen[f"stage11.saved_refusal.{case}"]
        statuses = t(", then ", ", depois ").join(str(status) for status in got["statuses"])
        calls = got["provider_calls"]
        return t(f"{statuses}; {calls} call(s) to the provider, no charge",
                 f"{statuses}; {calls} chamada(s) ao provedor, nenhuma cobrança")
    expect(s11_burst["charges"] == 1 and s11_burst["payments"] == 1, "stage 11's burst charged other than once")
    reaper = seen["stage11.reaper"]
    unrelated = outcome_word(s11_slow["unrelated"], t)
    duplicate = outcome_word(str(seen["stage11.taken_over_release"]["duplicate"]), t)
    out += [
        "",
        t("| Scenario | What happened |", "| Cenário | O que aconteceu |"),
        "|---|---|",
        t(f"| 20 concurrent requests with one key | {s11_burst['charges']} charge, "
          f"{s11_burst['payments']} payment; each request 201 or 409 |",
          f"| 20 pedidos simultâneos com uma chave | {s11_burst['charges']} cobrança, "
          f"{s11_burst['payments']} pagamento; cada pedido 201 ou 409 |"),
        t(f"| 19 duplicates of a request held at the provider (its key committed as `started`, "
          f"its lease live) | {seen['stage11.in_flight']['duplicates_409']} × 409 |",
          f"| 19 duplicatas de um pedido retido no provedor (a chave dele gravada como `started`, "
          f"o prazo de reserva vivo) | {seen['stage11.in_flight']['duplicates_409']} × 409 |"),
        t(f"| Five payments held at a slow provider (pool of 5), then one for another key | "
          f"the other key: {unrelated} |",
          f"| Cinco pagamentos retidos num provedor lento (pool de 5), depois um para outra chave | "
          f"a outra chave: {unrelated} |"),
        t(f"| A request taken over fails at the provider and releases; a duplicate arrives while "
          f"the request that took the key over waits for its answer | the duplicate: {duplicate} |",
          f"| Um pedido retomado falha no provedor e libera a chave; chega uma duplicata enquanto o "
          f"pedido que retomou a chave espera pela resposta | a duplicata: {duplicate} |"),
        t(f"| The provider declines the card (402, kept for its key); three tries with one key | "
          f"{refusal('Decline')} |",
          f"| O provedor recusa o cartão (402, guardado para a chave); três tentativas com uma chave | "
          f"{refusal('Decline')} |"),
        t(f"| The provider fails inside its endpoint (500, kept for its key); three tries with one "
          f"key | {refusal('Error')} |",
          f"| O provedor falha dentro do endpoint (500, guardado para a chave); três tentativas com "
          f"uma chave | {refusal('Error')} |"),
        t(f"| A `charged` key and a finished one, both two days old, then the reaper | "
          f"{reaper['deleted']} deleted (the finished one), "
          f"{reaper['stranded']} kept for reconciliation |",
          f"| Uma chave `charged` e uma terminada, ambas de dois dias atrás, depois a rotina de "
          f"limpeza | {reaper['deleted']} apagada (a terminada), "
          f"{reaper['stranded']} mantida para reconciliação |"),
    ]
    return out


def payment_provider_varying(seen, t):
    burst = replies(seen["stage11.burst"], t)
    return [t(f"- stage 11's burst ended with {burst};", f"- a rajada da etapa 11 terminou com {burst};")]


def middleware_section(seen, t):
    s12_bare, s12_burst = seen["stage12.bare_burst"], seen["stage12.burst"]
    s12_crash, s12_in_route = seen["stage12.crash_in_layer"], seen["stage12.crash_in_route"]
    s12_stale = seen["stage12.stale_store"]
    expect(s12_burst["payments"] == 1, "stage 12's burst behind the layer paid other than once")
    other_body = second_request("stage12.other_body", seen, t)
    return [
        t("Stage 12: routes with no idempotency code of their own, and a tower layer around them "
          "(20 requests with one key, the first held in its payment until the 19 others arrived):",
          "Etapa 12: rotas sem nenhum código de idempotência próprio, e uma layer do tower em volta "
          "delas (20 pedidos com uma chave, o primeiro retido no pagamento até os outros 19 chegarem):"),
        "",
        t("| Scenario | Payments | Replies |", "| Cenário | Pagamentos | Respostas |"),
        "|---|---|---|",
        t("| The route alone | ", "| A rota sozinha | ") + f"{s12_bare['payments']} | {replies(s12_bare, t)} |",
        t("| The route behind `IdempotencyLayer` | ", "| A rota atrás da `IdempotencyLayer` | ")
        + f"{s12_burst['payments']} | {replies(s12_burst, t)} |",
        t("| The same key with another amount, behind the layer | ",
          "| A mesma chave com outro valor, atrás da layer | ")
        + f"{seen['stage12.other_body']['payments']} | {other_body} |",
        t(f"| A crash after the route's commit, before the layer stores the answer; a retry, then "
          f"another once the lease has passed | {s12_crash['payments']} | "
          f"{s12_crash['retry']}, then {s12_crash['after_lease']}: the route ran again |",
          f"| Uma queda depois do commit da rota, antes de a layer guardar a resposta; uma nova "
          f"tentativa, depois outra quando o prazo de reserva passou | {s12_crash['payments']} | "
          f"{s12_crash['retry']}, depois {s12_crash['after_lease']}: a rota rodou de novo |"),
        t("| A first request past its lease, its key taken over by a duplicate that pays and "
          "answers; then the first stores its answer, and the client retries | ",
          "| Um primeiro pedido além do prazo de reserva, a chave dele retomada por uma duplicata "
          "que paga e responde; depois o primeiro guarda a resposta, e o cliente tenta de novo | ")
        + f"{s12_stale['payments']} | {t(*RETRY_GETS[s12_stale['retry_gets']])} |",
        t(f"| The same crash against stage 8's route (the key, the payment and the answer in one "
          f"transaction); a retry | {s12_in_route['payments']} | {s12_in_route['retry']}, replayed |",
          f"| A mesma queda contra a rota da etapa 8 (a chave, o pagamento e a resposta numa única "
          f"transação); uma nova tentativa | {s12_in_route['payments']} | {s12_in_route['retry']}, "
          f"repetido |"),
    ]


# What a retry got after a failover, and what became of a payment (stage 13's tests
# record one phrase each).
FAILOVER_WORDS = {
    "paid again, the same id": ("paid again, under the first payment's id",
                                "pagou de novo, com o id do primeiro pagamento"),
    "paid again, another id": ("paid again, under another id", "pagou de novo, com outro id"),
    "replayed": ("replayed the payment's 201", "repetiu o 201 do pagamento"),
    "paid": ("paid, for the first time on the promoted standby",
             "pagou, pela primeira vez no standby promovido"),
    "still waiting": ("still waiting for the standby", "ainda esperando pelo standby"),
    "committed on the primary only": ("committed on the primary, not on the standby",
                                      "gravado (commit) no primário, não no standby"),
    "rolled back": ("rolled back", "desfeito (rollback)"),
    "committed": ("committed without the standby", "gravado sem o standby"),
}


def failover_word(word, t):
    if word in FAILOVER_WORDS:
        return t(*FAILOVER_WORDS[word])
    return str(word)


def failover_section(seen, t):
    asynchronous, remote_apply = seen["stage13.async_failover"], seen["stage13.remote_apply_alone"]
    timeout, away = seen["stage13.statement_timeout"], seen["stage13.standby_down"]
    failover, lagging = seen["stage13.failover"], seen["stage13.lagging_standby"]
    expect(asynchronous["payments"] == 2, "stage 13's asynchronous failover paid other than twice")
    expect(failover["payments_in_flight"] == 1, "stage 13's model answer paid the in-flight key other than once")

    def lost(record):
        ids = t(f"payment {record['first_id']}, then payment {record['retry_id']}",
                f"pagamento {record['first_id']}, depois pagamento {record['retry_id']}")
        return t(f"the retry: {failover_word(record['retry_gets'], t)} ({ids}); {record['payments']} "
                 f"payments for one key, {record['kept']} kept by the new primary",
                 f"a nova tentativa: {failover_word(record['retry_gets'], t)} ({ids}); "
                 f"{record['payments']} pagamentos para uma chave, {record['kept']} mantido pelo novo "
                 "primário")
    return [
        t("Stage 13: stage 8's route on a primary and its streaming standby, both real servers. The "
          "standby's stream is cut, the primary crashed as `pg_ctl stop -m immediate` does, the "
          "standby promoted, and the client retries with the same key:",
          "Etapa 13: a rota da etapa 8 num primário e no standby dele, que recebe o WAL por "
          "streaming, os dois servidores reais. O streaming para o standby é cortado, o primário "
          "cai como com `pg_ctl stop -m immediate`, o standby é promovido, e o cliente tenta de "
          "novo com a mesma chave:"),
        "",
        t("| Scenario | What happened |", "| Cenário | O que aconteceu |"),
        "|---|---|",
        t(f"| Asynchronous replication (no standby named), a payment answered "
          f"{asynchronous['first_status']} | {lost(asynchronous)} |",
          f"| Replicação assíncrona (nenhum standby nomeado), um pagamento respondido com "
          f"{asynchronous['first_status']} | {lost(asynchronous)} |"),
        t(f"| The same, the paying sessions at `synchronous_commit = remote_apply` | {lost(remote_apply)} |",
          f"| O mesmo, com as sessões que pagam em `synchronous_commit = remote_apply` | "
          f"{lost(remote_apply)} |"),
        t(f"| A synchronous standby away: stage 8's COMMIT under `statement_timeout = 200ms`, 600 ms "
          f"later | {failover_word(timeout['commit'], t)}; after a cancel, answered "
          f"{timeout['after_cancel']}: {timeout['on_primary']} payment on the primary, "
          f"{timeout['on_standby']} on the standby; a session whose client had gone: "
          f"{failover_word(timeout['client_gone'], t)} |",
          f"| Um standby síncrono fora do ar: o COMMIT da etapa 8 sob `statement_timeout = 200ms`, "
          f"600 ms depois | {failover_word(timeout['commit'], t)}; depois de um cancelamento, "
          f"respondido com {timeout['after_cancel']}: {timeout['on_primary']} pagamento no "
          f"primário, {timeout['on_standby']} no standby; uma sessão cujo cliente tinha ido embora: "
          f"{failover_word(timeout['client_gone'], t)} |"),
        t(f"| The model answer, the standby away: a payment | answered {away['first']} within the "
          f"bound; the payment {failover_word(away['payment'], t)}; its retry "
          f"{failover_word(away['retry'], t)} |",
          f"| A solução de referência, com o standby fora do ar: um pagamento | respondido com "
          f"{away['first']} dentro do limite; o pagamento {failover_word(away['payment'], t)}; a "
          f"nova tentativa {failover_word(away['retry'], t)} |"),
        t(f"| The model answer through a failover: a payment in flight when the primary crashed | "
          f"answered {failover['in_flight_first']}, then its retry "
          f"{failover_word(failover['in_flight_retry'], t)}: {failover['payments_in_flight']} payment; "
          f"a payment answered before the crash: its retry {failover_word(failover['a_retry'], t)} |",
          f"| A solução de referência num failover: um pagamento em andamento quando o primário "
          f"caiu | respondido com {failover['in_flight_first']}, depois a nova tentativa "
          f"{failover_word(failover['in_flight_retry'], t)}: {failover['payments_in_flight']} "
          f"pagamento; um pagamento respondido antes da queda: a nova tentativa "
          f"{failover_word(failover['a_retry'], t)} |"),
        t(f"| The model answer, the standby's replay paused: a retry of a key paid on the primary | "
          f"{failover_word(lagging['retry'], t)}, read on the primary |",
          f"| A solução de referência, com a aplicação do WAL no standby pausada: a nova tentativa "
          f"de uma chave paga no primário | {failover_word(lagging['retry'], t)}, lido no primário |"),
    ]


def failover_varying(seen, t):
    record = seen["stage13.async_failover"]
    return [t(f"- stage 13's asynchronous failover: the 201 was sent with the primary's WAL flushed "
              f"up to {record['acknowledged_at']}, and the standby had received up to "
              f"{record['standby_had']};",
              f"- o failover assíncrono da etapa 13: o 201 foi enviado com o WAL do primário gravado "
              f"até {record['acknowledged_at']}, e o standby tinha recebido até "
              f"{record['standby_had']};")]


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
        scenarios=[f"stage7.{name}" for name, *_ in FAULTS]
        + ["stage7.new_key_per_try", "stage7.restart", "stage7.restarted_with_the_key_in_memory"],
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
        scenarios=[f"stage11.crash.{name}" for name, *_ in CRASHES]
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
    "failover": dict(
        scenarios=[
            "stage13.async_failover",
            "stage13.remote_apply_alone",
            "stage13.statement_timeout",
            "stage13.standby_down",
            "stage13.failover",
            "stage13.lagging_standby",
        ],
        section=failover_section,
        varying=failover_varying,
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
        if spec.get("todo"):
            fail(f"stage {stage['number']} ({slug}): its results spec in book/results.py (RESULTS) is the "
                 "stub `cargo workbook new-stage` wrote: name the scenarios its tests record and the rows "
                 "or section they give the results page, or None with why it has none")
        package = stage.get("solution") or f"stage{stage['number']}-{slug}-solution"
        out.append((package, spec))
    unknown = set(RESULTS) - {stage.get("slug") for stage in listed}
    if unknown:
        fail(f"book/results.py has results specs for stages stages.toml does not have: {sorted(unknown)}")
    return out




def render(specs, seen, t):
    rows = [row for _, spec in specs if "rows" in spec for row in spec["rows"](seen, t)]
    out = [
        "<!-- Generated by book/results.py from a run of the solutions' tests. Do not edit:",
        "     `just results` rewrites it; `python3 book/results.py --check` fails when it is stale. -->",
        "",
        t("| Version | Payments made by 20 concurrent requests, one key | Replies | Same key, another amount |",
          "| Versão | Pagamentos feitos por 20 pedidos simultâneos, uma chave | Respostas | Mesma chave, outro valor |"),
        "|---|---|---|---|",
    ]
    out += [f"| {' | '.join(row)} |" for row in rows]
    for _, spec in specs:
        if "section" in spec:
            out += [""] + spec["section"](seen, t)
    out += ["", t("Figures that vary from run to run, from the run that wrote this page:",
                  "Números que variam de uma execução para outra, da execução que escreveu esta página:"), ""]
    varying = [line.rstrip(";.") for _, spec in specs if "varying" in spec for line in spec["varying"](seen, t)]
    out += [line + (";" if i < len(varying) - 1 else ".") for i, line in enumerate(varying)]
    return "\n".join(out) + "\n"


def table_rows(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def main():
    check = "--check" in sys.argv[1:]
    specs = stages()
    packages = [package for package, _ in specs]
    required = [name for _, spec in specs for name in spec["scenarios"]]
    args = sys.argv[1:]
    if "--observations" in args:
        # A run of the same tests has recorded already (CI's `cargo test`): its records.
        at = args.index("--observations") + 1
        if at >= len(args):
            fail("--observations needs a file: the one WORKBOOK_OBSERVATIONS named for the run")
        recorded = Path(args[at])
        if not recorded.exists():
            fail(f"{recorded} does not exist: run the tests with WORKBOOK_OBSERVATIONS={recorded} first")
        seen = scenarios(recorded.read_text(encoding="utf-8").splitlines(), required)
    elif "--last-run" in args:
        # The records of the last run, kept by it: to rewrite the pages after an edit of
        # their words without running the tests again.
        seen = json.loads(LAST_RUN.read_text(encoding="utf-8"))
    else:
        seen = run_tests(packages, required)
        LAST_RUN.parent.mkdir(parents=True, exist_ok=True)
        LAST_RUN.write_text(json.dumps(seen, indent=1), encoding="utf-8")
    fresh = {lang: render(specs, seen, Words(lang)) for lang in FRAGMENTS}
    if not check:
        for lang, path in FRAGMENTS.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(fresh[lang], encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
        return 0
    stale = False
    for lang, path in FRAGMENTS.items():
        where = path.relative_to(ROOT)
        if not path.exists():
            print(f"results.py --check: {where} is missing; run `just results`")
            stale = True
            continue
        committed = table_rows(path.read_text(encoding="utf-8"))
        now = table_rows(fresh[lang])
        if committed != now:
            print(f"results.py --check: {where} is stale; run `just results`.")
            for old, new in zip(committed + [""] * len(now), now + [""] * len(committed)):
                if old != new:
                    print(f"  committed: {old}\n  fresh:     {new}")
            stale = True
            continue
        print(f"results.py --check: {where} is current ({len(now)} table rows)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
