"""How good are the shipped verifier models? Prints and writes JSON.

For each model (and the two together): accuracy on every NLI eval set; HaluEval detection
accuracy on rows ≥ 8000 (threshold fitted on training rows 7000–7999); SciFact dev label
accuracy with gold rationales; the TruthfulQA claim-verification protocol (evidence = Best
Answer, claims = Correct / Incorrect Answers, 30/70 split by question with a fixed seed,
threshold fitted on the 30% only, metrics on the 70%); and the two models' agreement.

    python benchmarks/verifier_quality.py [--data-dir ../shared/data] [--limit N]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir
from veritype.train.card import accuracy, load_eval_set

ROOT = Path(__file__).resolve().parents[1]
EVAL_SETS = (
    "mnli_dev_matched_3k",
    "snli_test_2k",
    "sick_test",
    "cad_snli_test",
    "conjnli_dev",
    "rte_dev_2way",
    "anli_r1_dev",
    "anli_r2_dev",
    "anli_r3_dev",
)
SPLIT_SEED = 2024
Scorer = Callable[[Sequence[tuple[str, str]]], np.ndarray]


def jsonl(path: Path, start: int = 0, stop: int | None = None) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as handle:
        return [
            json.loads(line)
            for i, line in enumerate(handle)
            if i >= start and (stop is None or i < stop)
        ]


def nli_sets(score: Scorer, data_dir: Path, limit: int | None) -> dict[str, float]:
    out = {}
    for name in EVAL_SETS:
        pairs = load_eval_set(data_dir, name, limit)
        out[name] = round(
            accuracy(score([(p.premise, p.hypothesis) for p in pairs]), [p.label for p in pairs]), 4
        )
    return out


def halueval_pairs(
    data_dir: Path, task: str, start: int, stop: int
) -> tuple[list[tuple[str, str]], np.ndarray]:
    keys = {
        "qa": ("knowledge", "right_answer", "hallucinated_answer"),
        "dialogue": ("knowledge", "right_response", "hallucinated_response"),
        "summarization": ("document", "right_summary", "hallucinated_summary"),
    }[task]
    pairs, truth = [], []
    for row in jsonl(data_dir / "halueval" / f"{task}_data.json", start, stop):
        prefix = f"{row['question']} " if task == "qa" else ""
        pairs += [
            (str(row[keys[0]]), prefix + str(row[keys[1]])),
            (str(row[keys[0]]), prefix + str(row[keys[2]])),
        ]
        truth += [1, 0]
    return pairs, np.array(truth)


def best_threshold(p: np.ndarray, truth: np.ndarray) -> float:
    candidates = np.unique(np.round(p, 3))
    return float(max(candidates, key=lambda t: np.mean((p >= t) == truth)))


def halueval(score: Scorer, data_dir: Path, limit: int | None) -> dict[str, object]:
    out: dict[str, object] = {}
    for task in ("qa", "dialogue", "summarization"):
        calib_pairs, calib_truth = halueval_pairs(data_dir, task, 7000, 7000 + (limit or 1000))
        threshold = best_threshold(score(calib_pairs)[:, 0], calib_truth)
        pairs, truth = halueval_pairs(data_dir, task, 8000, 8000 + (limit or 2000))
        predicted = score(pairs)[:, 0] >= threshold
        out[task] = {
            "accuracy": round(float(np.mean(predicted == truth)), 4),
            "threshold": threshold,
            "rows": len(truth) // 2,
        }
    return out


def scifact(score: Scorer, data_dir: Path, limit: int | None) -> dict[str, object]:
    corpus = {
        int(row["doc_id"]): row["abstract"]  # type: ignore[call-overload]
        for row in jsonl(data_dir / "scifact" / "corpus.jsonl")
    }
    pairs, labels = [], []
    for row in jsonl(data_dir / "scifact" / "claims_dev.jsonl", 0, limit):
        evidence = row["evidence"]
        assert isinstance(evidence, dict)
        if evidence:
            for doc_id, sets in evidence.items():
                for rationale in sets:
                    sentences = corpus[int(doc_id)]
                    pairs.append(
                        (" ".join(sentences[i] for i in rationale["sentences"]), str(row["claim"]))
                    )
                    labels.append(
                        {"SUPPORT": "entailment", "CONTRADICT": "contradiction"}[rationale["label"]]
                    )
        else:
            doc = corpus[int(row["cited_doc_ids"][0])]  # type: ignore[index]
            pairs.append((" ".join(doc[:3]), str(row["claim"])))
            labels.append("neutral")
    return {"label_accuracy": round(accuracy(score(pairs), labels), 4), "pairs": len(pairs)}


def truthfulqa_claims(data_dir: Path) -> list[tuple[int, str, str, bool]]:
    path = data_dir / "truthfulqa" / "TruthfulQA_v2021_817.csv"
    claims = []
    with path.open(encoding="utf-8-sig") as handle:
        for question, row in enumerate(csv.DictReader(handle)):
            for column, label in (("Correct Answers", True), ("Incorrect Answers", False)):
                for answer in (a.strip() for a in row[column].split(";")):
                    if answer:
                        claims.append((question, row["Best Answer"], answer, label))
    return claims


def truthfulqa(score: Scorer, data_dir: Path) -> dict[str, object]:
    claims = truthfulqa_claims(data_dir)
    questions = sorted({c[0] for c in claims})
    random.Random(SPLIT_SEED).shuffle(questions)
    calibration = set(questions[: int(0.3 * len(questions))])
    p = score([(c[1], c[2]) for c in claims])[:, 0]
    truth = np.array([c[3] for c in claims])
    held = np.array([c[0] not in calibration for c in claims])
    cal_p, cal_t = p[~held], truth[~held]
    thresholds = np.unique(np.round(cal_p, 4))

    def precision(t: float) -> float:
        accepted = cal_p >= t
        return float(np.mean(cal_t[accepted])) if accepted.any() else 0.0

    precise = [t for t in thresholds if precision(t) >= 0.95]
    chosen = float(min(precise)) if precise else float(thresholds.max())
    out: dict[str, object] = {
        "claims": len(claims),
        "calibration_questions": len(calibration),
        "threshold_at_precision_0.95_on_calibration": chosen,
    }
    out["held_out"] = _binary_metrics(p[held] >= chosen, truth[held])
    f1_threshold = float(max(thresholds, key=lambda t: _binary_metrics(cal_p >= t, cal_t)["f1"]))
    out["held_out_at_best_calibration_f1"] = {
        "threshold": f1_threshold,
        **_binary_metrics(p[held] >= f1_threshold, truth[held]),
    }
    out["verdicts"] = (p >= chosen).astype(int).tolist()
    return out


def _binary_metrics(predicted: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    tp = float(np.sum(predicted & truth))
    fp = float(np.sum(predicted & ~truth))
    fn = float(np.sum(~predicted & truth))
    tn = float(np.sum(~predicted & ~truth))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "fpr": round(fp / (fp + tn), 4) if fp + tn else 0.0,
        "hallucination_rate": round(fp / (tp + fp), 4) if tp + fp else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data")),
    )
    parser.add_argument("--limit", type=int, default=None, help="Cap pairs per set (quick runs).")
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "verifier_quality.json"
    )
    args = parser.parse_args()
    # A cache big enough for every pair: "both" then reuses the single models' scores.
    encoders = {name: CrossEncoder(shipped_model_dir(name), cache_size=500_000)
                for name in ("nli", "align")}
    scorers: dict[str, Scorer] = {name: enc.predict for name, enc in encoders.items()}
    # Together: a claim is entailed only as far as both models agree (the smaller entailment).
    scorers["both"] = lambda pairs: np.minimum(
        encoders["nli"].predict(pairs), encoders["align"].predict(pairs)
    )
    report: dict[str, object] = {"data_dir": str(args.data_dir), "limit": args.limit}
    for name, score in scorers.items():
        started = time.perf_counter()
        report[name] = {
            "nli_eval_accuracy": nli_sets(score, args.data_dir, args.limit),
            "halueval_detection": halueval(score, args.data_dir, args.limit),
            "scifact_dev": scifact(score, args.data_dir, args.limit),
            "truthfulqa": truthfulqa(score, args.data_dir),
            "seconds": 0.0,
        }
        report[name]["seconds"] = round(time.perf_counter() - started, 1)  # type: ignore[index]
        print(
            name,
            json.dumps(
                {
                    k: v
                    for k, v in report[name].items()  # type: ignore[union-attr]
                    if k != "truthfulqa"
                },
                indent=1,
            ),
            file=sys.stderr,
        )
    verdicts = {
        name: np.array(report[name]["truthfulqa"].pop("verdicts"))  # type: ignore[index]
        for name in scorers
    }
    report["truthfulqa_agreement_nli_align"] = round(
        float(np.mean(verdicts["nli"] == verdicts["align"])), 4
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
