"""Which kinds of synthetic training pair help the verifier? An ablation, written as JSON.

Every variant continues the same trained NLI checkpoint (``--base``, e.g. the ``final/``
folder of ``veritype train verifier -c configs/nli.toml``) for one epoch on the same replay
of small NLI-pool files plus one kind of pair: each synthetic kind alone (perturbations of
SciFact abstracts and HaluEval training rows < 400), HaluEval QA rows 0–699 recast as
statements with the right and the hallucinated answer (``qa``), everything together
(``all``, the staple ``clause`` and ``unrelated`` kinds included), or nothing more
(``replay``: the baseline every other variant is compared with).
A variant named ``KIND@TEACHER`` is distillation: the same extra pairs as ``KIND``, each
carrying the soft label a teacher gave it (``--teacher NAME=judge`` or ``NAME=MODEL_DIR``,
labelled with ``veritype.train.label`` and kept under ``--work``), so comparing it with
``KIND`` shows what the teacher's labels add over the gold ones. ``--soft NAME=FILE`` adds a
variant training on a soft-label file written elsewhere, such as the judge's answers of
``veritype train aggregator --judge`` beside the gold labels of the same pairs
(``benchmarks/judged_pairs.py``).
Each variant is exported to ONNX int8 and scored on validation data no variant trained on
and no evaluation figure comes from: TruthfulQA's calibration questions (the 30% of the
fixed split; all claims and those that are not verbatim copies of their evidence) and
HaluEval QA and dialogue rows 7000–7999. Gains over ``replay`` carry 95% paired bootstrap
intervals (resampling questions / rows).

    python benchmarks/synthetic_ablation.py --base runs/nli/final [--work runs/ablation]
        [--teacher mpnet=runs/nli_large/onnx --only replay,qa,qa@mpnet]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import add_data_dir, write_report

from veritype.evaluation.data import (
    Example,
    halueval_examples,
    is_verbatim,
    truthfulqa_examples,
)
from veritype.evaluation.metrics import roc_auc
from veritype.evaluation.runner import SPLIT_SEED, split_by_group
from veritype.models.cross_encoder import CrossEncoder
from veritype.models.export import export_onnx
from veritype.train.config import DataConfig, TrainConfig
from veritype.train.data import SYNTHETIC_KINDS
from veritype.train.label import label_pairs, make_teacher
from veritype.train.trainer import Trainer

ROOT = Path(__file__).resolve().parents[1]
REPLAY = ["mpe_dev", "cad_snli_dev", "joci_dev"]
SCIFACT_DOCS = 600
HALUEVAL_ROWS = 400
QA_ROWS = 700
VALIDATION_ROWS = (7000, 8000)
RESAMPLES = 1000


def variants() -> dict[str, dict[str, Any]]:
    """The data of every variant beyond the replay."""
    synthetic = {"synthetic_scifact_docs": SCIFACT_DOCS, "synthetic_halueval_rows": HALUEVAL_ROWS,
                 "synthetic_per_document": 1}
    made: dict[str, dict[str, Any]] = {"replay": {}}
    # clause (entailment) and unrelated (neutral) are the staples every recipe had; the
    # ablation varies what was added to them.
    for kind in SYNTHETIC_KINDS:
        if kind not in ("clause", "unrelated"):
            made[kind] = {**synthetic, "synthetic_kinds": [kind]}
    made["qa"] = {"halueval_qa": QA_ROWS}
    made["all"] = {**synthetic, "synthetic_kinds": list(SYNTHETIC_KINDS), "halueval_qa": QA_ROWS}
    return made


def distilled(name: str, made: dict[str, dict[str, Any]], teachers: dict[str, str],
              data_dir: Path, work: Path, threads: int) -> dict[str, Any]:
    """The data of ``KIND@TEACHER``: ``KIND``'s extra pairs, soft-labelled by the teacher."""
    kind, _, teacher = name.partition("@")
    if kind not in made or kind == "replay" or teacher not in teachers:
        raise SystemExit(f"{name}: a distilled variant is KIND@TEACHER with KIND one of "
                         f"{sorted(set(made) - {'replay'})} and TEACHER one of {sorted(teachers)}")
    labels = work / "labels" / f"{kind}@{teacher}.jsonl"
    recipe = TrainConfig(name=f"labels_{kind}", threads=threads,
                         data=DataConfig(**made[kind]))
    label_pairs(recipe, data_dir, make_teacher(teachers[teacher], threads=threads), labels)
    return {"soft_label_files": [str(labels)]}


def validation(data_dir: Path) -> dict[str, tuple[list[tuple[str, str]], np.ndarray, list[str]]]:
    """Validation sets: (pairs as (premise, hypothesis), truth, group of each pair)."""
    examples = truthfulqa_examples(data_dir, "2021")
    calibration = split_by_group([e.group for e in examples], SPLIT_SEED)
    chosen = [e for e, c in zip(examples, calibration, strict=True) if c]
    named: dict[str, list[Example]] = {
        "truthfulqa_calibration": chosen,
        "truthfulqa_calibration_non_verbatim": [e for e in chosen if not is_verbatim(e)],
    }
    for task in ("qa", "dialogue"):
        named[f"halueval_{task}_rows_7000_7999"] = halueval_examples(data_dir, task,
                                                                     *VALIDATION_ROWS)
    return {name: ([(e.evidence[0], e.claim) for e in subset],
                   np.array([e.supported for e in subset]), [e.group for e in subset])
            for name, subset in named.items()}


def paired_gain(base: np.ndarray, other: np.ndarray, truth: np.ndarray, groups: Sequence[str],
                seed: int = 0,
                metric: Callable[[np.ndarray, np.ndarray], float] = roc_auc) -> list[float]:
    """95% interval of metric(other) − metric(base), resampling whole groups."""
    names, index = np.unique(np.asarray(groups), return_inverse=True)
    members = [np.nonzero(index == g)[0] for g in range(len(names))]
    rng = np.random.default_rng(seed)
    gains = []
    for _ in range(RESAMPLES):
        rows = np.concatenate([members[g] for g in rng.integers(0, len(names), len(names))])
        if len(np.unique(truth[rows])) < 2:
            continue
        gains.append(metric(other[rows], truth[rows]) - metric(base[rows], truth[rows]))
    return [round(float(np.percentile(gains, 2.5)), 4), round(float(np.percentile(gains, 97.5)), 4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True,
                        help="A trained NLI checkpoint folder (a run's final/).")
    add_data_dir(parser)
    parser.add_argument("--work", type=Path, default=Path("runs") / "ablation")
    parser.add_argument("--only", default=None,
                        help="Comma-separated variants (default: every undistilled one).")
    parser.add_argument("--teacher", action="append", default=[], metavar="NAME=SPEC",
                        help="A teacher for KIND@NAME variants: judge, or an exported model.")
    parser.add_argument("--soft", action="append", default=[], metavar="NAME=FILE",
                        help="A variant training on the replay plus this soft-label file.")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--output", type=Path,
        default=ROOT / "benchmarks" / "results" / "synthetic_ablation.json",
    )
    args = parser.parse_args()
    if not (args.base / "config.json").is_file():
        parser.error(f"--base {args.base} is not a checkpoint folder (no config.json)")
    teachers = dict(spec.split("=", 1) for spec in args.teacher)
    made = variants()
    chosen = made
    if args.only:
        chosen = {name: made[name] if name in made else distilled(
            name, made, teachers, args.data_dir, args.work, args.threads)
            for name in args.only.split(",")}
    for spec in args.soft:
        name, _, path = spec.partition("=")
        chosen[name] = {"soft_label_files": [path]}
    sets = validation(args.data_dir)
    results: dict[str, Any] = {}
    scores: dict[str, dict[str, np.ndarray]] = {}
    for name, extra in chosen.items():
        config = TrainConfig(
            name=f"ablation_{name.replace('@', '_by_')}", base_model=str(args.base),
            learning_rate=3e-5, batch_size=32, max_length=128, epochs=1.0, threads=args.threads,
            checkpoint_every=10_000, output_dir=str(args.work),
            data=DataConfig(nli_files=REPLAY, **extra),
        )
        started = time.perf_counter()
        exported = config.run_dir / "onnx"
        # A variant trained and exported by an earlier run of this script is scored again.
        reused = (exported / "model.onnx").is_file()
        if not reused:
            final = Trainer(config, args.data_dir).train(resume=True)
            export_onnx(str(final), exported)
        trained = time.perf_counter() - started
        encoder = CrossEncoder(exported, threads=args.threads, cache_size=0)
        scores[name] = {label: encoder.predict(pairs)[:, 0].astype(np.float64)
                        for label, (pairs, _, _) in sets.items()}
        data = json.loads((config.run_dir / "data.json").read_text())
        results[name] = {
            "pairs": data["pairs"], "by_source": data["by_source"],
            "train_and_export_seconds": None if reused else round(trained, 1),
            "roc_auc": {label: round(roc_auc(scores[name][label], truth), 4)
                        for label, (_, truth, _) in sets.items()},
        }
        print(name, json.dumps(results[name]["roc_auc"]), flush=True)
    if "replay" in scores:
        for name in results:
            if name == "replay":
                continue
            results[name]["gain_over_replay_ci95"] = {
                label: paired_gain(scores["replay"][label], scores[name][label], truth, groups)
                for label, (_, truth, groups) in sets.items()
            }
    write_report(
        args.output, "synthetic_ablation", base=str(args.base), replay_files=REPLAY,
        validation={label: {"pairs": len(pairs), "supported": int(truth.sum())}
                    for label, (pairs, truth, _) in sets.items()},
        variants=results,
    )


if __name__ == "__main__":
    main()
