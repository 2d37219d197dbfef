"""The end-to-end benchmarks' questions: fixed-seed samples of TruthfulQA and HaluEval-QA
with the reference answers the judges read, and the evidence corpus they are asked of."""

from __future__ import annotations

import csv
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from veritype.evaluation.data import (
    HALUEVAL_EVAL_START,
    TRUTHFULQA_FILES,
    read_jsonl,
    require_fields,
    require_file,
)

SOURCES = ("truthfulqa", "halueval_qa")
SOURCE_TITLES = {"truthfulqa": "TruthfulQA", "halueval_qa": "HaluEval-QA"}
HALUEVAL_EVAL_STOP = 10000
Row = TypeVar("Row")


@dataclass(frozen=True, slots=True)
class Question:
    """One question with the reference answers the judge reads."""

    source: str
    question_id: str
    text: str
    correct: tuple[str, ...]
    incorrect: tuple[str, ...]
    gold_evidence: str  # the corpus text that answers it (Best Answer / knowledge paragraph)


def _split_answers(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(";") if part.strip())


def truthfulqa_rows(data_dir: Path) -> list[dict[str, str]]:
    path = require_file(data_dir / "truthfulqa" / TRUTHFULQA_FILES["2021"])
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    require_fields(rows, ("Question", "Best Answer", "Correct Answers", "Incorrect Answers"),
                   f"{path}: missing column {{field}}")
    return rows


def truthfulqa_questions(rows: Sequence[dict[str, str]], count: int, seed: int) -> list[Question]:
    """A fixed-seed sample of ``count`` questions; the Best Answer counts as correct."""
    return _sample(rows, count, seed, _truthfulqa_question)


def _truthfulqa_question(i: int, row: dict[str, str]) -> Question:
    best = row["Best Answer"].strip()
    return Question("truthfulqa", f"tqa-{i}", row["Question"].strip(),
                    correct=tuple(dict.fromkeys((best, *_split_answers(row["Correct Answers"])))),
                    incorrect=_split_answers(row["Incorrect Answers"]), gold_evidence=best)


def halueval_rows(data_dir: Path, start: int = HALUEVAL_EVAL_START,
                  stop: int = HALUEVAL_EVAL_STOP) -> list[dict[str, Any]]:
    """HaluEval-QA rows ``start`` ≤ i < ``stop`` (by default the evaluation rows)."""
    rows = list(read_jsonl(data_dir / "halueval" / "qa_data.json", start, stop))
    require_fields(rows, ("knowledge", "question", "right_answer", "hallucinated_answer"),
                   "HaluEval qa_data.json: rows lack the {field} field")
    return rows


def halueval_questions(rows: Sequence[dict[str, Any]], count: int, seed: int,
                       first_row: int = HALUEVAL_EVAL_START) -> list[Question]:
    """A fixed-seed sample of ``count`` questions with their right and hallucinated answers;
    ``rows`` start at line ``first_row`` of the file (their ids say which line)."""
    return _sample(rows, count, seed,
                   lambda i, row: _halueval_question(first_row + i, row))


def _halueval_question(line: int, row: dict[str, Any]) -> Question:
    return Question("halueval_qa", f"halueval-qa-{line}",
                    str(row["question"]).strip(), correct=(str(row["right_answer"]).strip(),),
                    incorrect=(str(row["hallucinated_answer"]).strip(),),
                    gold_evidence=str(row["knowledge"]).strip())


def _sample(rows: Sequence[Row], count: int, seed: int, question: Callable[[int, Row], Question]
            ) -> list[Question]:
    """A fixed-seed sample of ``count`` of ``rows`` (in row order) as questions."""
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [question(i, rows[i]) for i in picked]


def corpus_texts(texts: Sequence[str], questions: Sequence[Question], distractors: int | None
                 ) -> list[str]:
    """The evidence corpus: every text, or each question's own evidence plus the first
    ``distractors`` other texts (quick runs)."""
    if distractors is None:
        return list(texts)
    own = [question.gold_evidence for question in questions]
    wanted = set(own)
    others = [text for text in texts if text.strip() not in wanted][:distractors]
    return own + others
