"""How good is one verifier model on its own? The checks behind ``verifier_quality.py``.

A *scorer* maps (premise, hypothesis) pairs to probabilities in the order entailment,
neutral, contradiction (``CrossEncoder.predict``). For a scorer: accuracy on every NLI eval
set; HaluEval detection accuracy on rows ≥ 8000 (threshold fitted on rows no shipped model
was trained on); SciFact dev label accuracy with gold rationales; and the TruthfulQA protocol
with the threshold fitted on the 30% calibration split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veritype.evaluation.binary import best_accuracy_threshold
from veritype.evaluation.data import (
    NLI_EVAL_SETS,
    is_verbatim,
    nli_examples,
    read_jsonl,
    truthfulqa_examples,
)
from veritype.evaluation.halueval import calibration_source, task_examples
from veritype.evaluation.metrics import (
    binary_metrics,
    roc_auc,
    threshold_for_f1,
    threshold_for_precision,
)
from veritype.evaluation.runner import SPLIT_SEED, EvalSettings, split_by_group

Scorer = Callable[[Sequence[tuple[str, str]]], np.ndarray]
LABELS = ("entailment", "neutral", "contradiction")
TWO_WAY = "not_entailment"


def label_accuracy(scores: np.ndarray, labels: Sequence[str]) -> float:
    """3-way accuracy; on 2-way labels, entailment against neutral + contradiction."""
    if not labels:
        return 0.0
    if TWO_WAY in labels:
        predicted = np.where(scores[:, 0] >= scores[:, 1] + scores[:, 2], "entailment", TWO_WAY)
    else:
        predicted = np.asarray(LABELS)[np.argmax(scores, axis=1)]
    return float(np.mean(predicted == np.asarray(labels)))


def nli_sets(score: Scorer, data_dir: Path, limit: int | None) -> dict[str, float]:
    out = {}
    for name in NLI_EVAL_SETS:
        examples = nli_examples(data_dir, name, limit)
        scores = score([(e.evidence[0], e.claim) for e in examples])
        out[name] = round(label_accuracy(scores, [e.label for e in examples]), 4)
    return out


def halueval(score: Scorer, data_dir: Path, limit: int | None) -> dict[str, Any]:
    """Detection accuracy per task, the threshold fitted on rows no shipped model was trained
    on (``veritype eval halueval``'s split: rows 7000–7999, or for qa a seeded 30% of rows
    ≥ 8000) and measured on the other evaluation rows."""
    out: dict[str, Any] = {}
    settings = EvalSettings(data_dir=data_dir, limit=limit)
    for task in ("qa", "dialogue", "summarization"):
        examples, calibration = task_examples(settings, task)
        p = score([(e.evidence[0], e.claim) for e in examples])[:, 0]
        truth = np.array([e.supported for e in examples])
        threshold = best_accuracy_threshold(p[calibration], truth[calibration])
        held = ~calibration
        out[task] = {
            "accuracy": round(float(np.mean((p[held] >= threshold) == truth[held])), 4),
            "threshold": threshold,
            "calibration": calibration_source(task, settings.seed),
            "examples": int(held.sum()),
        }
    return out


def scifact_gold(score: Scorer, data_dir: Path, limit: int | None) -> dict[str, Any]:
    """SciFact dev with gold rationale sentences as premises (NEI claims: the first three
    sentences of the first cited abstract)."""
    corpus = {
        str(row["doc_id"]): list(row["abstract"])
        for row in read_jsonl(data_dir / "scifact" / "corpus.jsonl")
    }
    pairs, labels = [], []
    for row in read_jsonl(data_dir / "scifact" / "claims_dev.jsonl", 0, limit):
        evidence = row["evidence"]
        if evidence:
            for doc_id, sets in evidence.items():
                for rationale in sets:
                    sentences = corpus[str(doc_id)]
                    pairs.append(
                        (" ".join(sentences[i] for i in rationale["sentences"]), str(row["claim"]))
                    )
                    labels.append(
                        {"SUPPORT": "entailment", "CONTRADICT": "contradiction"}[rationale["label"]]
                    )
        else:
            doc = corpus[str(row["cited_doc_ids"][0])]
            pairs.append((" ".join(doc[:3]), str(row["claim"])))
            labels.append("neutral")
    return {"label_accuracy": round(label_accuracy(score(pairs), labels), 4), "pairs": len(pairs)}


def _rounded(metrics: dict[str, float]) -> dict[str, float]:
    keys = ("precision", "recall", "f1", "fpr", "hallucination_rate")
    return {key: round(metrics[key], 4) for key in keys}


def truthfulqa(score: Scorer, data_dir: Path) -> dict[str, Any]:
    """The TruthfulQA protocol for one model; ``verdicts`` are its accept decisions. The
    held-out ROC-AUC is given on all claims and on those that are not verbatim copies of
    their evidence."""
    examples = truthfulqa_examples(data_dir, "2021")
    groups = [e.group for e in examples]
    calibration = split_by_group(groups, SPLIT_SEED)
    held = ~calibration
    other = held & ~np.array([is_verbatim(e) for e in examples])
    p = score([(e.evidence[0], e.claim) for e in examples])[:, 0].astype(np.float64)
    truth = np.array([e.supported for e in examples])
    cal_p, cal_t = p[calibration], truth[calibration]
    chosen = threshold_for_precision(np.round(cal_p, 4), cal_t, 0.95)
    chosen = float(chosen) if chosen is not None else float(np.round(cal_p, 4).max())
    out: dict[str, Any] = {
        "claims": len(examples),
        "calibration_questions": len({g for g, c in zip(groups, calibration, strict=True) if c}),
        "threshold_at_precision_0.95_on_calibration": chosen,
        "held_out": _rounded(binary_metrics(np.round(p[held], 4) >= chosen, truth[held])),
        "held_out_roc_auc": round(roc_auc(p[held], truth[held]), 4),
        "held_out_non_verbatim_roc_auc": round(roc_auc(p[other], truth[other]), 4),
        "held_out_non_verbatim_claims": int(other.sum()),
    }
    f1_threshold = threshold_for_f1(np.round(cal_p, 4), cal_t)
    out["held_out_at_best_calibration_f1"] = {
        "threshold": f1_threshold,
        **_rounded(binary_metrics(np.round(p[held], 4) >= f1_threshold, truth[held])),
    }
    out["verdicts"] = (np.round(p, 4) >= chosen).astype(int).tolist()
    return out
