"""Answer relevance: does ``check``'s relevance tell an answer to the question from an
answer to another question?

Two sources, each split into a training side and an evaluation side:

- TruthfulQA (the 817 questions of ``TruthfulQA_v2021_013686a.csv``): the 245 calibration
  questions of the reference protocol are the training side, the other 572 the evaluation
  side. Per question: its best answer and its first incorrect answer (both address the
  question: relevance is not truth) against the best answer of another question of the same
  category (off the question, on a neighbouring topic).
- HaluEval QA: rows below 8000 are the training side (2,000 of them), rows 8000+ the
  evaluation side (2,000). Per row: its right and its hallucinated answer against the right
  answer of another row.

The labels come from the data's construction (which question an answer was written for),
not from veritype. The relevance score is judged as a ranking (ROC-AUC, no threshold) on
both sides, beside the trivial baseline "any content word of the question is in the answer"
(every answer relevant has AUC 0.5). Whether a verdict ("addresses the question") could
ship is decided on the training sides alone, leave-one-source-out: the floor of the cosine
that best separates one source's pairs (balanced accuracy) is applied to the other, and
compared with the floor-free word rule. Intervals: 95% bootstrap over questions.

Run: ``python benchmarks/answer_relevance.py --data-dir ../shared/data`` (writes
``benchmarks/results/answer_relevance.json``).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _common import add_data_dir, write_report

from veritype._text import content_words
from veritype.checking._relevance import AnswerRelevance
from veritype.evaluation._truthfulqa_selection import REFERENCE_SEED, reference_split
from veritype.evaluation.metrics import balanced_accuracy, roc_auc

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "answer_relevance.json"
FIRST_EVAL_ROW = 8000
HALUEVAL_ROWS = 2000
RESAMPLES = 1000


class Pairs:
    """(question, answer) pairs with their label and the question each belongs to."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []
        self.relevant: list[bool] = []
        self.groups: list[int] = []

    def add(self, group: int, question: str, answer: str, relevant: bool) -> None:
        self.pairs.append((question, answer))
        self.relevant.append(relevant)
        self.groups.append(group)


def truthfulqa(data_dir: Path, seed: int) -> dict[str, Pairs]:
    path = data_dir / "truthfulqa" / "TruthfulQA_v2021_013686a.csv"
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    calibration = reference_split([f"q{i}" for i in range(len(rows))], REFERENCE_SEED)
    by_category: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        by_category.setdefault(row["Category"], []).append(index)
    rng = random.Random(seed)
    sides = {"train": Pairs(), "eval": Pairs()}
    for index, row in enumerate(rows):
        side = sides["train" if calibration[index] else "eval"]
        question = row["Question"]
        wrong = next((part.strip() for part in row["Incorrect Answers"].split(";")
                      if len(part.strip()) >= 3), "")
        others = [j for j in by_category[row["Category"]] if j != index] or [
            j for j in range(len(rows)) if j != index]
        side.add(index, question, row["Best Answer"], True)
        if wrong:
            side.add(index, question, wrong, True)
        side.add(index, question, rows[rng.choice(others)]["Best Answer"], False)
    return sides


def halueval(data_dir: Path, seed: int) -> dict[str, Pairs]:
    path = data_dir / "halueval" / "qa_data.json"
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    rng = random.Random(seed)
    sides: dict[str, Pairs] = {}
    for name, start in (("train", 0), ("eval", FIRST_EVAL_ROW)):
        chosen = rows[start:start + HALUEVAL_ROWS]
        pairs = Pairs()
        for index, row in enumerate(chosen):
            other = rng.choice([j for j in range(len(chosen)) if j != index])
            pairs.add(index, row["question"], row["right_answer"], True)
            pairs.add(index, row["question"], row["hallucinated_answer"], True)
            pairs.add(index, row["question"], chosen[other]["right_answer"], False)
        sides[name] = pairs
    return sides


def shares_a_word(question: str, answer: str) -> float:
    """The trivial baseline: 1 when a content word of the question is in the answer."""
    return float(bool(set(content_words(question)) & set(content_words(answer))))


def interval(statistic: Callable[[np.ndarray], float], groups: np.ndarray, seed: int
             ) -> list[float]:
    """A 95% bootstrap interval of ``statistic`` over resampled questions."""
    rng = np.random.default_rng(seed)
    unique = np.unique(groups)
    members = {group: np.flatnonzero(groups == group) for group in unique}
    values = []
    for _ in range(RESAMPLES):
        drawn = rng.choice(unique, size=unique.size)
        values.append(statistic(np.concatenate([members[group] for group in drawn])))
    low, high = np.quantile(values, [0.025, 0.975])
    return [round(float(low), 4), round(float(high), 4)]


def ranking(scores: np.ndarray, truth: np.ndarray, groups: np.ndarray, seed: int
            ) -> dict[str, Any]:
    return {"roc_auc": round(roc_auc(scores, truth), 4),
            "roc_auc_ci95": interval(lambda rows: roc_auc(scores[rows], truth[rows]), groups,
                                     seed),
            "pairs": int(truth.size)}


def best_floor(scores: np.ndarray, truth: np.ndarray) -> float:
    candidates = np.unique(np.round(scores, 3))
    return float(max(candidates, key=lambda floor: balanced_accuracy(scores >= floor, truth)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_data_dir(parser)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    relevance = AnswerRelevance()
    sources = {"truthfulqa": truthfulqa(args.data_dir, args.seed),
               "halueval_qa": halueval(args.data_dir, args.seed)}
    scored: dict[str, dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]] = {}
    for source, sides in sources.items():
        scored[source] = {}
        for side, pairs in sides.items():
            scores = np.array(relevance.score_batch(pairs.pairs))
            words = np.array([shares_a_word(*pair) for pair in pairs.pairs])
            scored[source][side] = (scores, words, np.array(pairs.relevant, dtype=bool),
                                    np.array(pairs.groups))
            print(f"{source} {side}: {len(pairs.pairs)} pairs scored", flush=True)

    # Could a verdict ship? Each source's best cosine floor, applied to the other source,
    # against the word rule, which needs no floor (training sides only).
    verdict = {}
    for source in scored:
        other = next(name for name in scored if name != source)
        scores, words, truth, _ = scored[source]["train"]
        floor = best_floor(scored[other]["train"][0], scored[other]["train"][2])
        verdict[source] = {
            "cosine_floor_from_other_source": round(floor, 3),
            "cosine_balanced_accuracy": round(balanced_accuracy(scores >= floor, truth), 4),
            "own_best_cosine_floor": round(best_floor(scores, truth), 3),
            "shares_a_question_word_balanced_accuracy": round(
                balanced_accuracy(words > 0, truth), 4),
        }
    ships = all(row["cosine_balanced_accuracy"] > row["shares_a_question_word_balanced_accuracy"]
                for row in verdict.values())
    rankings = {
        source: {side: {"relevance": ranking(scores, truth, groups, args.seed),
                        "baseline_shares_a_question_word": ranking(words, truth, groups,
                                                                   args.seed)}
                 for side, (scores, words, truth, groups) in sides.items()}
        for source, sides in scored.items()
    }
    write_report(
        args.output, "answer_relevance",
        encoder="minilm (the dense retriever's default)",
        ranking=rankings,
        verdict_leave_one_source_out=verdict,
        verdict_ships=ships,
        protocol=__doc__,
    )
    print(json.dumps({"ranking": rankings, "verdict": verdict, "verdict_ships": ships},
                     indent=1))


if __name__ == "__main__":
    main()
