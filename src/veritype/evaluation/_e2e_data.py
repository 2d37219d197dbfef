"""The end-to-end benchmarks' questions: fixed-seed samples of TruthfulQA and HaluEval-QA
with the reference answers the judges read, and the evidence corpus they are asked of."""

from __future__ import annotations

import csv
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [
        Question(
            source="truthfulqa",
            question_id=f"tqa-{i}",
            text=rows[i]["Question"].strip(),
            correct=tuple(dict.fromkeys(
                (rows[i]["Best Answer"].strip(), *_split_answers(rows[i]["Correct Answers"]))
            )),
            incorrect=_split_answers(rows[i]["Incorrect Answers"]),
            gold_evidence=rows[i]["Best Answer"].strip(),
        )
        for i in picked
    ]


def halueval_rows(data_dir: Path) -> list[dict[str, Any]]:
    rows = list(read_jsonl(data_dir / "halueval" / "qa_data.json", HALUEVAL_EVAL_START,
                           HALUEVAL_EVAL_STOP))
    require_fields(rows, ("knowledge", "question", "right_answer", "hallucinated_answer"),
                   "HaluEval qa_data.json: rows lack the {field} field")
    return rows


def halueval_questions(rows: Sequence[dict[str, Any]], count: int, seed: int) -> list[Question]:
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(count, len(rows))))
    return [
        Question(
            source="halueval_qa",
            question_id=f"halueval-qa-{HALUEVAL_EVAL_START + i}",
            text=str(rows[i]["question"]).strip(),
            correct=(str(rows[i]["right_answer"]).strip(),),
            incorrect=(str(rows[i]["hallucinated_answer"]).strip(),),
            gold_evidence=str(rows[i]["knowledge"]).strip(),
        )
        for i in picked
    ]


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
