"""``Engine.ask`` on veritype's own small corpora (tests/data/corpora): e-bikes and a warranty
policy, six bridges, five scientists, with overlapping facts on purpose (prices, ranges,
weights; opening years and spans; birth years and places).

Each corpus folder is ingested into a fresh SQLite store and every question of
``questions.json`` is asked with the default engine (extractive drafts, default views). An
answerable or comparative question is right when the answer does not abstain and contains
every gold string (SQuAD normalisation, whole words); an unanswerable one is right when the
answer abstains. Reports, per corpus and in all: the share right per kind, the confidence
labels with their accuracy, and each question's outcome.
Run: ``python benchmarks/ask_corpora.py [--out benchmarks/results/ask_corpora.json]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from veritype.answer import GroundedAnswer
from veritype.engine import Engine, EngineConfig
from veritype.evaluation.answer_metrics import contains_answer

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT / "tests" / "data" / "corpora"
KINDS = ("answerable", "comparative", "unanswerable")


@dataclass(frozen=True)
class Outcome:
    """One question asked: what came back and whether it was right."""

    corpus: str
    question: str
    kind: str
    gold: list[str]
    answer: str
    abstained: bool
    confidence: str
    answer_probability: float | None
    right: bool
    seconds: float


def questions() -> dict[str, list[dict[str, Any]]]:
    """The questions of each corpus, by corpus name."""
    loaded: dict[str, list[dict[str, Any]]] = json.loads(
        (CORPORA / "questions.json").read_text(encoding="utf-8"))
    return loaded


def is_right(kind: str, gold: list[str], answer: GroundedAnswer) -> bool:
    if kind == "unanswerable":
        return answer.abstained
    return not answer.abstained and all(contains_answer(answer.answer, value) for value in gold)


def ask_corpus(name: str, store_dir: Path, answer_model: str = "answers") -> list[Outcome]:
    """Ingest corpus ``name`` into a store under ``store_dir`` and ask all its questions."""
    config = EngineConfig(store=f"sqlite:///{store_dir / f'{name}.sqlite'}",
                          answer_model=answer_model)
    outcomes: list[Outcome] = []
    with Engine(config) as engine:
        engine.ingest([CORPORA / name])
        for row in questions()[name]:
            started = time.perf_counter()
            answer = engine.ask(row["question"])
            seconds = time.perf_counter() - started
            outcomes.append(Outcome(
                corpus=name, question=row["question"], kind=row["kind"], gold=row["answer"],
                answer=answer.answer, abstained=answer.abstained,
                confidence=answer.confidence.value,
                answer_probability=answer.answer_probability,
                right=is_right(row["kind"], row["answer"], answer), seconds=seconds,
            ))
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    """Share right per kind, and the accuracy of each confidence label over answered
    questions (abstentions carry no answer to be right about)."""
    by_kind: dict[str, dict[str, float]] = {}
    for kind in KINDS:
        rows = [o for o in outcomes if o.kind == kind]
        if rows:
            by_kind[kind] = {"questions": len(rows),
                             "right": round(sum(o.right for o in rows) / len(rows), 3)}
    labels: dict[str, list[bool]] = defaultdict(list)
    for outcome in outcomes:
        if not outcome.abstained:
            labels[outcome.confidence].append(outcome.right)
    return {
        "by_kind": by_kind,
        "answered_by_label": {label: {"answered": len(rights),
                                      "right": round(sum(rights) / len(rights), 3)}
                              for label, rights in sorted(labels.items())},
        "p50_ask_s": round(statistics.median(o.seconds for o in outcomes), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results"
                        / "ask_corpora.json")
    parser.add_argument("--corpora", default=",".join(questions()),
                        help="comma-separated corpus names")
    parser.add_argument("--answer-model", default="answers",
                        help="the engine's answer scorer: a name, a directory, or none")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _common import write_report

    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.corpora.split(","):
            outcomes.extend(ask_corpus(name, Path(folder), args.answer_model))
    write_report(
        args.out, "ask_corpora",
        config={"generator": "extractive", "views": EngineConfig().views,
                "answer_model": args.answer_model},
        overall=summary(outcomes),
        corpora={name: summary([o for o in outcomes if o.corpus == name])
                 for name in dict.fromkeys(o.corpus for o in outcomes)},
        questions=[asdict(o) for o in outcomes],
    )


if __name__ == "__main__":
    main()
