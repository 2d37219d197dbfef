"""``Engine.ask`` on questions over documents the answer path was not written for
(benchmarks/data/answer_corpora): eight small corpora of invented documents in eight domains,
split by corpus into a calibration half and an evaluation half (``split.json``). The calibration
half also carries the project's own 48 questions over tests/data/corpora, reported as a block
of their own.

Each corpus folder is ingested into a fresh SQLite store and every question is asked with the
default engine (extractive drafts, default views), or with ``--generator`` and
``--generator-options``. An answerable or comparative question is right when the answer does
not abstain and contains every gold string (or every string of one ``gold_any`` alternative)
under SQuAD normalisation, as whole words; an unanswerable one is right when the answer
abstains. Reported per half and per corpus, with Wilson 95% intervals: right when shown,
coverage and right overall for the answerable questions (and for answerable and comparative
together), comparisons right, unanswerable abstained, each confidence label's count and
accuracy over the answers shown, and per answer type. Beside the engine, two baselines that
never abstain: the two sentences of the corpus that BM25 ranks highest for the question
(DESIGN §8), and "accept everything", the engine's draft before verification (empty only when
it abstained before drafting). Each question's outcome is listed.
Run: ``python benchmarks/answer_corpora.py --half calibration|evaluation|all
[--out benchmarks/results/answer_corpora_<half>.json]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from veritype._text import sentence_spans
from veritype.evaluation.answer_metrics import contains_answer

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data" / "answer_corpora"
OWN = ROOT / "tests" / "data" / "corpora"
KINDS = ("answerable", "comparative", "unanswerable")
LABELS = ("high", "medium", "low")
ANSWER_TYPES = ("condition", "duration", "count", "date", "number", "name", "other")
OWN_BLOCK = "own_corpora"
Z95 = 1.959964
_HEADING = re.compile(r"^#.*$", re.MULTILINE)


@dataclass(frozen=True)
class Question:
    """One question of a corpus, in the form both question files are read into."""

    id: str
    corpus: str
    folder: Path
    question: str
    kind: str
    gold: list[list[str]]  # alternatives: right when every string of one of them is held
    answer_type: str | None


@dataclass(frozen=True)
class Outcome:
    """One question asked: what came back, whether it was right, and the baselines."""

    id: str
    block: str
    corpus: str
    question: str
    kind: str
    answer_type: str | None
    gold: list[list[str]]
    answer: str
    abstained: bool
    abstention_reason: str | None
    confidence: str
    answer_probability: float | None
    right: bool
    draft: str
    draft_right: bool
    bm25_sentences: list[str]
    bm25_right: bool
    seconds: float


def split() -> dict[str, list[str]]:
    """The corpora of each half, fixed before the benchmark was first run."""
    loaded: dict[str, list[str]] = json.loads((DATA / "split.json").read_text(encoding="utf-8"))
    return loaded


def questions(path: Path = DATA / "questions.json") -> list[Question]:
    """The questions of a question file of benchmarks/data/answer_corpora, in file order."""
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return [Question(id=row["id"], corpus=row["corpus"], folder=DATA / row["corpus"],
                     question=row["question"], kind=row["kind"],
                     gold=row.get("gold_any") or [row["gold"]],
                     answer_type=row.get("answer_type"))
            for row in rows]


def own_questions() -> list[Question]:
    """The project's own 48 questions over tests/data/corpora (benchmarks/ask_corpora.py)."""
    loaded: dict[str, list[dict[str, Any]]] = json.loads(
        (OWN / "questions.json").read_text(encoding="utf-8"))
    return [Question(id=f"own-{name}-{number:02d}", corpus=name, folder=OWN / name,
                     question=row["question"], kind=row["kind"], gold=[row["answer"]],
                     answer_type=None)
            for name, rows in loaded.items() for number, row in enumerate(rows, start=1)]


def holds_gold(text: str, gold: Sequence[Sequence[str]]) -> bool:
    """Whether ``text`` holds every gold string of at least one alternative."""
    return any(alternative and all(contains_answer(text, value) for value in alternative)
               for alternative in gold)


def is_right(kind: str, gold: Sequence[Sequence[str]], answer: str, abstained: bool) -> bool:
    if kind == "unanswerable":
        return abstained
    return not abstained and holds_gold(answer, gold)


def corpus_sentences(folder: Path) -> list[str]:
    """Every sentence of the corpus's files, as the project's splitter cuts them; Markdown
    headings are titles, not sentences, and are left out."""
    sentences: list[str] = []
    for path in sorted(folder.iterdir()):
        if path.suffix in {".md", ".txt"}:
            text = _HEADING.sub("", path.read_text(encoding="utf-8"))
            sentences += [" ".join(text[start:end].split()) for start, end in sentence_spans(text)]
    return sentences


def bm25_ranker(sentences: list[str]) -> Callable[[str, int], list[str]]:
    """The ``k`` sentences BM25 ranks highest for a question, tokenised as the project's
    sparse index tokenises chunks (bm25s, English stop words, Snowball stemmer)."""
    import bm25s
    import numpy as np
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    model = bm25s.BM25()
    model.index(bm25s.tokenize(sentences, stopwords="en", stemmer=stemmer,
                               show_progress=False), show_progress=False)

    def top(question: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, return_ids=False,
                                show_progress=False)
        rows, scores = model.retrieve(tokens, k=min(k, len(sentences)), show_progress=False)
        return [sentences[int(row)] for row, score in
                zip(np.asarray(rows)[0], np.asarray(scores)[0], strict=True) if score > 0]

    return top


def ask_corpus(block: str, folder: Path, rows: Sequence[Question], store_dir: Path,
               config: dict[str, Any]) -> list[Outcome]:
    """Ingest ``folder`` into a fresh store under ``store_dir`` and ask ``rows``."""
    from veritype.engine import Engine, EngineConfig

    top = bm25_ranker(corpus_sentences(folder))
    store = store_dir / f"{block}-{folder.name}.sqlite"
    outcomes: list[Outcome] = []
    with Engine(EngineConfig(store=f"sqlite:///{store}", **config)) as engine:
        engine.ingest([folder])
        for row in rows:
            started = time.perf_counter()
            answer = engine.ask(row.question)
            seconds = time.perf_counter() - started
            trace = engine.trace(answer.trace_id) or {}
            draft = str(trace.get("draft") or "")
            best = top(row.question, 2)
            outcomes.append(Outcome(
                id=row.id, block=block, corpus=row.corpus, question=row.question,
                kind=row.kind, answer_type=row.answer_type, gold=row.gold,
                answer=answer.answer, abstained=answer.abstained,
                abstention_reason=answer.abstention_reason,
                confidence=answer.confidence.value,
                answer_probability=answer.answer_probability,
                right=is_right(row.kind, row.gold, answer.answer, answer.abstained),
                draft=draft, draft_right=is_right(row.kind, row.gold, draft, not draft.strip()),
                bm25_sentences=best, bm25_right=is_right(row.kind, row.gold, " ".join(best), False),
                seconds=round(seconds, 4),
            ))
    return outcomes


def wilson(hits: int, count: int) -> list[float] | None:
    """The Wilson score 95% interval of ``hits`` in ``count`` (None without any)."""
    if count == 0:
        return None
    share = hits / count
    denominator = 1 + Z95**2 / count
    centre = (share + Z95**2 / (2 * count)) / denominator
    half = Z95 * math.sqrt(share * (1 - share) / count + Z95**2 / (4 * count**2)) / denominator
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def share(hits: int, count: int) -> dict[str, Any]:
    """``hits`` of ``count`` as a share with its Wilson interval."""
    return {"hits": hits, "of": count, "share": round(hits / count, 3) if count else None,
            "wilson95": wilson(hits, count)}


def _answered_kinds(rows: Iterable[Outcome]) -> dict[str, Any]:
    """Right when shown, coverage and right overall over questions that have an answer."""
    rows = list(rows)
    shown = [o for o in rows if not o.abstained]
    return {"questions": len(rows),
            "right_when_shown": share(sum(o.right for o in shown), len(shown)),
            "coverage": share(len(shown), len(rows)),
            "right": share(sum(o.right for o in rows), len(rows))}


def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Every figure of one block of outcomes (a half, a corpus)."""
    of_kind = {kind: [o for o in outcomes if o.kind == kind] for kind in KINDS}
    answerable, comparative = of_kind["answerable"], of_kind["comparative"]
    unanswerable = of_kind["unanswerable"]
    with_answer = answerable + comparative
    shown = [o for o in outcomes if not o.abstained]
    labels = {label: share(sum(o.right for o in shown if o.confidence == label),
                           sum(o.confidence == label for o in shown))
              for label in LABELS}
    types = {kind: _answered_kinds(o for o in answerable if o.answer_type == kind)
             for kind in ANSWER_TYPES if any(o.answer_type == kind for o in answerable)}
    return {
        "questions": {kind: len(rows) for kind, rows in of_kind.items()},
        "answerable": _answered_kinds(answerable),
        "answerable_and_comparative": _answered_kinds(with_answer),
        "comparative_right": share(sum(o.right for o in comparative), len(comparative)),
        "unanswerable_abstained": share(sum(o.abstained for o in unanswerable),
                                        len(unanswerable)),
        "right_overall": share(sum(o.right for o in outcomes), len(outcomes)),
        "shown_by_label": labels,
        "wrong_at_high": sum(not o.right for o in shown if o.confidence == "high"),
        "answerable_by_type": types,
        "baselines": {
            "bm25_top2_holds_gold": {
                "answerable": share(sum(o.bm25_right for o in answerable), len(answerable)),
                "answerable_and_comparative": share(sum(o.bm25_right for o in with_answer),
                                                    len(with_answer)),
            },
            "accept_everything": {
                "answerable": share(sum(o.draft_right for o in answerable), len(answerable)),
                "answerable_and_comparative": share(sum(o.draft_right for o in with_answer),
                                                    len(with_answer)),
                "unanswerable_abstained": share(sum(o.draft_right for o in unanswerable),
                                                len(unanswerable)),
            },
        },
        "p50_ask_s": round(statistics.median(o.seconds for o in outcomes), 3)
        if outcomes else None,
        "p90_ask_s": round(statistics.quantiles([o.seconds for o in outcomes], n=10)[-1], 3)
        if len(outcomes) > 1 else None,
    }


def run(half: str, config: dict[str, Any], store_dir: Path, own: bool = True,
        corpora: Sequence[str] | None = None,
        question_file: Path = DATA / "questions.json") -> list[Outcome]:
    """Ask every question of ``question_file`` in ``half`` (``calibration``, ``evaluation``
    or ``all``), corpus by corpus; the calibration half brings the own corpora's questions
    unless ``own`` is off."""
    halves = split()
    names = [name for key in (("calibration", "evaluation") if half == "all" else (half,))
             for name in halves[key]]
    if corpora is not None:
        names = [name for name in names if name in corpora]
    rows = questions(question_file)
    outcomes: list[Outcome] = []
    for name in names:
        if not any(r.corpus == name for r in rows):
            continue
        block = next(key for key, members in halves.items() if name in members)
        outcomes += ask_corpus(block, DATA / name, [r for r in rows if r.corpus == name],
                               store_dir, config)
    if own and half in ("calibration", "all"):
        extra = own_questions()
        for name in dict.fromkeys(r.corpus for r in extra):
            if corpora is None or name in corpora:
                outcomes += ask_corpus(OWN_BLOCK, OWN / name,
                                       [r for r in extra if r.corpus == name], store_dir, config)
    return outcomes


def report(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The figures of each block (half, own corpora, and the calibration half with the own
    corpora) and of each corpus."""
    blocks = list(dict.fromkeys(o.block for o in outcomes))
    halves = {block: summary([o for o in outcomes if o.block == block]) for block in blocks}
    if "calibration" in blocks and OWN_BLOCK in blocks:
        halves["calibration_with_own_corpora"] = summary(
            [o for o in outcomes if o.block in ("calibration", OWN_BLOCK)])
    corpora = {f"{block}/{name}": summary([o for o in outcomes
                                           if o.block == block and o.corpus == name])
               for block, name in dict.fromkeys((o.block, o.corpus) for o in outcomes)}
    return {"halves": halves, "corpora": corpora}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--half", choices=("calibration", "evaluation", "all"), required=True)
    parser.add_argument("--out", type=Path, default=None,
                        help="default: benchmarks/results/answer_corpora_<half>.json")
    parser.add_argument("--no-own", action="store_true",
                        help="leave out the own corpora's 48 questions (calibration half)")
    parser.add_argument("--corpora", default=None, help="comma-separated subset of corpora")
    parser.add_argument("--questions", type=Path, default=DATA / "questions.json",
                        help="the question file (default: questions.json; "
                        "comparisons_calibration.json holds more comparisons, calibration "
                        "corpora only)")
    parser.add_argument("--answer-model", default=None,
                        help="the engine's answer scorer: a name, a directory, or none")
    parser.add_argument("--generator", default="extractive")
    parser.add_argument("--generator-options", type=json.loads, default={},
                        help='JSON, e.g. \'{"model_path": "model.gguf"}\'')
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _common import write_report

    from veritype.engine import EngineConfig

    config: dict[str, Any] = {"generator": args.generator,
                              "generator_options": args.generator_options}
    if args.answer_model is not None:
        config["answer_model"] = args.answer_model
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        outcomes = run(args.half, config, Path(folder), own=not args.no_own,
                       corpora=args.corpora.split(",") if args.corpora else None,
                       question_file=args.questions)
    defaults = EngineConfig(**config)
    write_report(
        args.out or ROOT / "benchmarks" / "results" / f"answer_corpora_{args.half}.json",
        "answer_corpora",
        half=args.half,
        questions_file=os.path.relpath(args.questions.resolve(), ROOT),
        split=split(),
        config={"generator": defaults.generator, "generator_options": defaults.generator_options,
                "views": defaults.views, "answer_model": defaults.answer_model,
                "k": defaults.k},
        seconds=round(time.perf_counter() - started, 1),
        **report(outcomes),
        questions=[asdict(o) for o in outcomes],
    )


if __name__ == "__main__":
    main()
