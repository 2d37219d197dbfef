"""The answer model on SQuAD 2.0's trap, an article it never read: does the sentence that
answers beat the sentence holding the span an unanswerable question tempts a reader to give?

Reads the held-out article of the SQuAD 2.0 subset (``veritype.train.answer_data``'s
``SQUAD2_HELD_OUT``). For each answerable question, P(answers) of its answer sentences; for
each unanswerable one, P(answers) of the sentences holding its plausible answer (the asked
attribute of a sibling, another attribute of the asked entity). Reported per model, side by
side: ROC-AUC of answer sentences against tempting ones, the share of each above 0.5, and for
answerable questions how often the paragraph's best-scored sentence holds the answer.

    python benchmarks/answer_model_squad2.py --models answers path/to/other/model \
        --labels shipped other
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
from _common import ROOT, add_data_dir, write_report

from veritype.evaluation.answer_metrics import contains_answer
from veritype.evaluation.metrics import roc_auc
from veritype.models.cross_encoder import CrossEncoder, model_directory
from veritype.train.answer_data import SQUAD2_HELD_OUT, knowledge_sentences, squad2_questions


def _read(model: str, label: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    encoder = CrossEncoder(model_directory(model), threads=2, max_length=128)
    answering: list[float] = []
    tempting: list[float] = []
    best_holds = 0
    answerable = 0
    for row in rows:
        sentences = knowledge_sentences(str(row["context"]))
        scores = [float(p[0]) for p in encoder.predict([(row["question"], s) for s in sentences])]
        if row["answers"]:
            holds = [any(contains_answer(s, a) for a in row["answers"]) for s in sentences]
            if not any(holds):
                continue
            answerable += 1
            answering += [p for p, held in zip(scores, holds, strict=True) if held]
            best_holds += holds[int(np.argmax(scores))]
        else:
            tempting += [p for s, p in zip(sentences, scores, strict=True)
                         if any(contains_answer(s, a) for a in row["plausible_answers"])]
    labels = np.array([True] * len(answering) + [False] * len(tempting))
    values = np.array(answering + tempting)
    return {
        "label": label,
        "model": model,
        "answer_sentences": len(answering),
        "tempting_sentences": len(tempting),
        "roc_auc_answer_vs_tempting": round(roc_auc(values, labels), 4),
        "answer_sentences_above_half": round(float(np.mean(np.array(answering) > 0.5)), 4),
        "tempting_sentences_above_half": round(float(np.mean(np.array(tempting) > 0.5)), 4),
        "answerable_questions": answerable,
        "best_sentence_holds_answer": round(best_holds / answerable, 4),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_dir(parser)
    parser.add_argument("--models", nargs="+", default=["answers"],
                        help="Answer models to compare: names or folders.")
    parser.add_argument("--labels", nargs="+",
                        help="What each model is, in the report (default: its name).")
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "answer_model_squad2.json")
    args = parser.parse_args(argv)
    labels = args.labels or args.models
    if len(labels) != len(args.models):
        parser.error("give one --labels entry per model")
    rows = [row for row in squad2_questions(args.data_dir) if row["title"] == SQUAD2_HELD_OUT]
    write_report(args.output, "answer_model_squad2", article=SQUAD2_HELD_OUT,
                 questions=len(rows), models=[_read(model, label, rows)
                         for model, label in zip(args.models, labels, strict=True)])


if __name__ == "__main__":
    main()
