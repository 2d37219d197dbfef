"""The whole recipe behind ``veritype train verifier``: train, export, evaluate, card, ship."""

from __future__ import annotations

import json
import logging
import math
import shutil
from pathlib import Path

from veritype.models.cross_encoder import CrossEncoder
from veritype.models.export import FP32_FILE, argmax_agreement, export_onnx
from veritype.models.model_files import LABELS_FILE, MODEL_FILE, TOKENIZER_FILE
from veritype.progress import Progress
from veritype.train.card import (
    FLOOR_PAIRS,
    FLOOR_SET,
    evaluate,
    load_eval_set,
    throughput,
    write_card,
)
from veritype.train.config import TrainConfig
from veritype.train.trainer import FINAL, Trainer

log = logging.getLogger("veritype.train")
CARD_FILE = "model_card.md"


def run_training(
    config_path: Path,
    data_dir: Path,
    *,
    output_dir: Path | None = None,
    resume: bool = False,
    ship_to: Path | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
) -> Path:
    """Train (or finish) the run, export it, evaluate the int8 model and write its card.

    Returns the exported model directory; with ``ship_to`` the model files are also
    copied there (e.g. ``src/veritype/models/nli``).
    """
    config = TrainConfig.load(config_path)
    if output_dir is not None:
        config = config.model_copy(update={"output_dir": str(output_dir)})
    if threads is not None:
        config = config.model_copy(update={"threads": threads})
    config.run_dir.mkdir(parents=True, exist_ok=True)
    _log_to(config.run_dir / "train.log")
    final = config.run_dir / FINAL
    if not (final / "config.json").exists():
        Trainer(config, data_dir).train(resume=resume, progress=progress)
    exported = config.run_dir / "onnx"
    log.info("exporting %s to ONNX int8", final)
    export_onnx(str(final), exported)

    int8 = CrossEncoder(exported, threads=config.threads)
    metrics: dict[str, object] = {
        "eval": evaluate(int8, data_dir, config.eval_sets, config.eval_limit),
    }
    probe = [(p.premise, p.hypothesis) for p in load_eval_set(data_dir, FLOOR_SET, 500)]
    fp32_dir = config.run_dir / "onnx-fp32"
    fp32_dir.mkdir(exist_ok=True)
    shutil.copyfile(exported / FP32_FILE, fp32_dir / MODEL_FILE)
    for name in (TOKENIZER_FILE, LABELS_FILE):
        shutil.copyfile(exported / name, fp32_dir / name)
    fp32 = CrossEncoder(fp32_dir, threads=config.threads)
    metrics["int8_fp32_argmax_agreement"] = round(
        argmax_agreement(int8.predict(probe), fp32.predict(probe)), 4
    )
    metrics["int8_pairs_per_s_batch32"] = round(throughput(int8, probe[:256]), 1)
    metrics["size_mb"] = round((exported / MODEL_FILE).stat().st_size / 1e6, 1)
    floor_accuracy = evaluate(int8, data_dir, [FLOOR_SET], FLOOR_PAIRS)[FLOOR_SET]["accuracy"]
    metrics[f"{FLOOR_SET}_first_{FLOOR_PAIRS}"] = floor_accuracy
    data_counts = json.loads((config.run_dir / "data.json").read_text())["by_source"]
    # The floor leaves room for onnxruntime differences across machines, not for regressions.
    floor = math.floor((floor_accuracy - 0.03) * 100) / 100
    write_card(exported / CARD_FILE, config, data_counts, metrics, floor)
    (exported / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    log.info("metrics: %s", json.dumps(metrics))
    if ship_to is not None:
        ship_to.mkdir(parents=True, exist_ok=True)
        for name in (MODEL_FILE, TOKENIZER_FILE, LABELS_FILE, CARD_FILE):
            shutil.copyfile(exported / name, ship_to / name)
        log.info("shipped to %s", ship_to)
    return exported


def _log_to(path: Path) -> None:
    """Progress lines to stderr and the run's log file, for runs left in the background."""
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    for handler in (logging.StreamHandler(), logging.FileHandler(path)):
        handler.setFormatter(formatter)
        log.addHandler(handler)
    log.setLevel(logging.INFO)
