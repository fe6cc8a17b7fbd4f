#!/usr/bin/env python3
"""The reader's check of the predictions (stages.toml's header; README, "Writing a
prediction"): can someone who has seen only what the learner has seen by then answer a
prediction, and be sure? Standard library only; mdbook and mdbook-i18n-helpers on PATH
for the Portuguese chapters (the same tools `just book` uses).

    python3 book/prediction_reader.py packets [--out DIR] [--lang en|pt-BR] [--stages 1-10]
    python3 book/prediction_reader.py score ANSWERS.tsv [--stages 1-10]

`packets` writes, for each prediction and each language, one packet: what the learner
has seen when the question is asked, and nothing else, in the order a learner meets it:

1. the earlier stages, as `cargo workbook stage N` left them: each question, what
   happened (the choice the run showed: the answer key, which `cargo workbook verify`
   holds true), and the stage's outcome;
2. the stage's chapter of the book, from its top to the question, with every folded
   answer and every code block left out (the book folds them);
3. the runner's screen up to the question: the stage's title line, its goal, the files
   it says to edit, the heading of the questions, the stage's earlier questions with
   their choices, and the question with its choices, numbered.

No packet holds its own answer: the answer key stays in stages.toml, which `score`
reads. Packets go to DIR/LANG/stage-NN/K-ID.md (default DIR: ../reader-packets beside
the repository, outside it), with DIR/README.md saying how to run the readers and
DIR/answers.tsv, the sheet they fill in. A reader is given one stage's packets in one
language, one packet at a time, in order, and answers each before seeing the next: the
number of their choice, `sure` or `guessing`, and why in a line. Nothing else: not the
repository, not the answers of another reader.

`score` reads the filled sheet (tab-separated: lang, stage, id, choice number,
sure|guessing, why) and prints the table for the closing note: stage, prediction,
language, the reader's answer, sure or guessing, right or wrong. A prediction answered
right and sure is marked REWRITE: exit 1 when there is one.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

BOOK = Path(__file__).resolve().parent
ROOT = BOOK.parent
STAGES = ROOT / "stages.toml"
TWIN = ROOT / "stages.pt-BR.toml"
LOCALES = ROOT / "crates" / "runner" / "locales"
LANGS = ("en", "pt-BR")

# The packet's own headings and instructions, in each language.
WORDS = {
    "en": {
        "title": "Stage {n}, question {k} of {count}: what you have seen",
        "intro": (
            "You are learning with the Idempotency Workbook, a Rust workbook that teaches how to "
            "make a payment API safe to retry, with idempotency keys on PostgreSQL. Below is "
            "everything you have seen so far, and nothing else: the earlier stages as the runner "
            "left them, this stage's chapter up to the question, and what `cargo workbook stage "
            "{n}` shows before it asks. You have not run this stage's code."
        ),
        "earlier": "1. The earlier stages, as the runner left them",
        "none_earlier": "(This is the first stage: nothing before it.)",
        "happened": "what happened",
        "chapter": "2. The chapter of stage {n}, up to the question",
        "folded": "[an answer, folded]",
        "code": "[a code block]",
        "screen": "3. What `cargo workbook stage {n}` shows",
        "answer": "Your answer",
        "ask": (
            "Answer question {k} with the number of your choice, then `sure` or `guessing`, then "
            "one line: why. Use only what is above."
        ),
    },
    "pt-BR": {
        "title": "Etapa {n}, pergunta {k} de {count}: o que você viu",
        "intro": (
            "Você está aprendendo com O Caderno da Idempotência, um caderno de exercícios em Rust "
            "que ensina a tornar uma API de pagamentos segura para novas tentativas, com chaves de "
            "idempotência no PostgreSQL. Abaixo está tudo o que você viu até agora, e nada mais: "
            "as etapas anteriores como o runner as deixou, o capítulo desta etapa até a pergunta, "
            "e o que `cargo workbook stage {n}` mostra antes de perguntar. Você não rodou o código "
            "desta etapa."
        ),
        "earlier": "1. As etapas anteriores, como o runner as deixou",
        "none_earlier": "(Esta é a primeira etapa: não há nada antes dela.)",
        "happened": "o que aconteceu",
        "chapter": "2. O capítulo da etapa {n}, até a pergunta",
        "folded": "[uma resposta, recolhida]",
        "code": "[um bloco de código]",
        "screen": "3. O que `cargo workbook stage {n}` mostra",
        "answer": "Sua resposta",
        "ask": (
            "Responda à pergunta {k} com o número da sua escolha, depois `sure` (certeza) ou "
            "`guessing` (chute), depois uma linha: por quê. Use só o que está acima."
        ),
    },
}


def load(path):
    with path.open("rb") as f:
        return tomllib.load(f)


def flat(text):
    return " ".join(text.split())


def stages_in(lang):
    """The stages as the runner shows them in `lang`: English from stages.toml, the
    learner's texts of another language from its twin (matched by number and id)."""
    stages = load(STAGES)["stage"]
    if lang == "en":
        return stages
    twins = {s["number"]: s for s in load(TWIN)["stage"]}
    out = []
    for stage in stages:
        twin = twins[stage["number"]]
        shown = dict(stage, title=twin["title"], goal=twin["goal"], outcome=twin.get("outcome", ""))
        questions = {p["id"]: p for p in twin.get("prediction", [])}
        shown["prediction"] = [
            dict(p, question=questions[p["id"]]["question"],
                 choices=[dict(c, shown=label) for c, label in zip(p["choices"], questions[p["id"]]["choices"])])
            for p in stage.get("prediction", [])
        ]
        out.append(shown)
    return out


def label_of(choice):
    return choice.get("shown", choice["label"])


def answer_shown(prediction):
    """The answer key as the learner reads it, in the packet's language."""
    for choice in prediction["choices"]:
        if choice["label"] == prediction["answer"]:
            return label_of(choice)
    raise SystemExit(f"prediction {prediction['id']}: its answer is not one of its choices")


def ftl(lang):
    """The runner's one-line messages (crates/runner/locales/LANG/runner.ftl)."""
    messages = {}
    for line in (LOCALES / lang / "runner.ftl").read_text(encoding="utf-8").split("\n"):
        m = re.match(r"^([a-z][\w-]*)\s*=\s*(.*)$", line)
        if m:
            messages[m.group(1)] = m.group(2)
    return messages


def say(messages, key, **args):
    return re.sub(r"\{\s*\$(\w+)\s*\}", lambda m: str(args[m.group(1)]), messages[key])


def rendered_chapters(lang):
    """Each stage's chapter as the book shows it in `lang`: the English sources, or the
    book translated by mdbook-gettext (book/po/LANG.po) and written out as Markdown."""
    if lang == "en":
        return {p.stem: p.read_text(encoding="utf-8") for p in (BOOK / "src").glob("stage*.md")}
    if not shutil.which("mdbook"):
        raise SystemExit("prediction_reader.py: the Portuguese chapters need mdbook and mdbook-i18n-helpers "
                         "(`cargo install --locked mdbook@0.5.4 mdbook-i18n-helpers@0.4.0`)")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ,
                   MDBOOK_BOOK__LANGUAGE=lang,
                   MDBOOK_OUTPUT='{"markdown": {}}',
                   MDBOOK_PREPROCESSOR__GETTEXT__RENDERERS='["markdown"]',
                   MDBOOK_PREPROCESSOR__LINKS__RENDERERS='["markdown"]')
        done = subprocess.run(["mdbook", "build", "book", "-d", tmp], cwd=ROOT, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"prediction_reader.py: mdbook could not write the {lang} book:\n{done.stderr}")
        out = Path(tmp)
        return {p.stem: p.read_text(encoding="utf-8") for p in out.glob("stage*.md")}


def chapter_before(markdown, k, words):
    """The chapter from its top to question `k` (`**k. ...`), as a reader sees it with
    the answers folded: each <details> block and each code block replaced by a mark."""
    lines = markdown.split("\n")
    end = next((i for i, line in enumerate(lines) if re.match(rf"^\*\*{k}\.\s", line)), None)
    if end is None:
        raise SystemExit(f"prediction_reader.py: no question `**{k}. ...` in the chapter")
    out, folded, fenced = [], 0, False
    for line in lines[:end]:
        if re.match(r"^\s*(```|~~~)", line):
            if not fenced and not folded:
                out.append(words["code"])
            fenced = not fenced
            continue
        opened = line.count("<details>")
        if opened and not folded:
            out.append(words["folded"])
        folded += opened - line.count("</details>")
        if not fenced and not folded and "</details>" not in line:
            out.append(line)
    # The chapter's headings sit under the packet's own: two levels down, without the
    # explicit ids a translation gives them (`{#goal}`).
    text = "\n".join("##" + re.sub(r"\s*\{#[\w-]+\}\s*$", "", line) if line.startswith("#") else line
                     for line in out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def screen(stage, k, count_of, messages, words):
    """What `cargo workbook stage N` prints before it asks question k: the header, then
    the questions up to k (dialoguer shows each one's choices as a list)."""
    n = stage["number"]
    lines = [say(messages, "stage-title", number=n, of=count_of, title=stage["title"]),
             "  " + flat(stage["goal"])]
    if stage.get("edit"):
        lines.append("  " + say(messages, "stage-you-edit", files=", ".join(stage["edit"])))
    lines += ["", say(messages, "predict-heading")]
    predictions = stage["prediction"]
    for i, p in enumerate(predictions[:k], 1):
        lines += ["", f"{i}/{len(predictions)} {flat(p['question'])}"]
        lines += [f"  {j}. {flat(label_of(c))}" for j, c in enumerate(p["choices"], 1)]
    return "\n".join(lines)


def earlier(stages, n, messages, words):
    parts = []
    for stage in stages:
        if stage["number"] >= n:
            break
        parts.append(f"### {say(messages, 'stage-title', number=stage['number'], of=stages[-1]['number'], title=stage['title'])}")
        for p in stage.get("prediction", []):
            parts.append(f"- {flat(p['question'])}\n  {words['happened']}: {flat(answer_shown(p))}")
        if stage.get("outcome"):
            parts.append(f"{say(messages, 'outcome-heading')}: {flat(stage['outcome'])}")
    return "\n\n".join(parts) or words["none_earlier"]


def packet(stages, stage, k, chapter, messages, words):
    n = stage["number"]
    count = len(stage["prediction"])
    return "\n\n".join([
        f"# {words['title'].format(n=n, k=k, count=count)}",
        words["intro"].format(n=n),
        f"## {words['earlier']}",
        earlier(stages, n, messages, words),
        f"## {words['chapter'].format(n=n)}",
        chapter_before(chapter, k, words),
        f"## {words['screen'].format(n=n)}",
        "```text\n" + screen(stage, k, stages[-1]["number"], messages, words) + "\n```",
        f"## {words['answer']}",
        words["ask"].format(k=k),
    ]) + "\n"


READERS = """# The reader's check: packets

Written by `python3 book/prediction_reader.py packets` from the repository's
stages.toml, stages.pt-BR.toml and book. Each file under `LANG/stage-NN/` is what a
learner has seen when one prediction is asked, in that language, and nothing else. The
answers are not here: `score` reads them from stages.toml.

How to run the readers (README, "Writing a prediction"):

1. One reader per stage and language: a person who has not done the workbook, or an
   assistant given nothing but the packets (not the repository, not this file's
   directory, not another reader's answers).
2. Give them the stage's packets one at a time, in order (`1-...`, `2-...`): each
   question is answered before the next packet is shown, and not changed afterwards.
   (A reader who cannot be fed one at a time gets one packet, and answers one question.)
3. Copy each answer into `answers.tsv`: the choice's number, `sure` or `guessing`, and
   the reader's one line of why.
4. `python3 book/prediction_reader.py score PATH/answers.tsv` prints the table. A
   prediction answered right and sure is rewritten.
"""


def stage_range(text):
    a, _, b = text.partition("-")
    return range(int(a), int(b or a) + 1)


def write_packets(out, langs, numbers):
    out.mkdir(parents=True, exist_ok=True)
    sheet = ["lang\tstage\tid\tchoice\tsure_or_guessing\twhy"]
    written = 0
    for lang in langs:
        stages = stages_in(lang)
        chapters = rendered_chapters(lang)
        messages = ftl(lang)
        words = WORDS[lang]
        for stage in stages:
            n = stage["number"]
            if n not in numbers:
                continue
            folder = out / lang / f"stage-{n:02}"
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir(parents=True)
            chapter = chapters.get(f"stage{n}")
            if chapter is None:
                raise SystemExit(f"prediction_reader.py: no chapter stage{n}.md in the {lang} book")
            for k, p in enumerate(stage["prediction"], 1):
                (folder / f"{k}-{p['id']}.md").write_text(
                    packet(stages, stage, k, chapter, messages, words), encoding="utf-8")
                sheet.append(f"{lang}\t{n}\t{p['id']}\t\t\t")
                written += 1
    (out / "README.md").write_text(READERS, encoding="utf-8")
    answers = out / "answers.tsv"
    if not answers.exists():
        answers.write_text("\n".join(sheet) + "\n", encoding="utf-8")
    print(f"prediction_reader.py: {written} packets in {out} ({', '.join(langs)}); the sheet: {answers}")


def score(path, numbers):
    stages = {s["number"]: s for s in load(STAGES)["stage"]}
    rows, rewrite, missing = [], 0, []
    answered = set()
    for line in Path(path).read_text(encoding="utf-8").split("\n")[1:]:
        if not line.strip():
            continue
        cells = (line.split("\t") + [""] * 6)[:6]
        lang, n, pid, choice, sureness, why = (c.strip() for c in cells)
        stage = stages.get(int(n))
        prediction = next((p for p in stage.get("prediction", []) if p["id"] == pid), None) if stage else None
        if prediction is None:
            raise SystemExit(f"{path}: no prediction {pid!r} in stage {n}")
        if int(n) not in numbers:
            continue
        if not choice:
            missing.append(f"{lang} stage {n} {pid}")
            continue
        answered.add((lang, int(n), pid))
        chosen = prediction["choices"][int(choice) - 1]["label"]
        right = chosen == prediction["answer"]
        sure = sureness.lower().startswith("sure")
        flag = "REWRITE" if right and sure else ""
        rewrite += bool(flag)
        rows.append((int(n), pid, lang, f"{choice}: {chosen}", "sure" if sure else "guessing",
                     "right" if right else "wrong", flag, why))
    print("| stage | prediction | lang | reader's answer | sure or guessing | right or wrong | | why |")
    print("|---|---|---|---|---|---|---|---|")
    for row in sorted(rows):
        print("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    print(f"\n{len(rows)} answers; {rewrite} right and sure (rewrite them); {len(missing)} not answered yet")
    return 1 if rewrite else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("packets", help="write the packets and the answer sheet")
    make.add_argument("--out", type=Path, default=ROOT.parent / "reader-packets")
    make.add_argument("--lang", choices=LANGS)
    make.add_argument("--stages", default="1-99", help="e.g. 1-10")
    marks = sub.add_parser("score", help="the table, from a filled answer sheet")
    marks.add_argument("answers")
    marks.add_argument("--stages", default="1-99")
    args = parser.parse_args(argv)
    if args.command == "packets":
        write_packets(args.out, [args.lang] if args.lang else list(LANGS), stage_range(args.stages))
        return 0
    return score(args.answers, stage_range(args.stages))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
