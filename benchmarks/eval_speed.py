"""How long does a full ``veritype eval truthfulqa`` take? Prints and writes JSON.

Runs the command as a user would (a fresh process: imports, model loading, verification of
both TruthfulQA releases, every report and plot) and records the wall time, the per-stage
timings from the run's report.json and the machine's load while it ran.

    python benchmarks/eval_speed.py [--data-dir ../shared/data] [--engine local|ray] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 60.0


def run_once(data_dir: Path, engine: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="veritype-eval-speed-") as work:
        command = [sys.executable, "-m", "veritype", "eval", "truthfulqa", "--data-dir",
                   str(data_dir), "--out", work, "--engine", engine]
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        finished = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        if finished.returncode != 0:
            raise SystemExit(f"eval failed ({finished.returncode}):\n{finished.stderr[-3000:]}")
        (run_dir,) = Path(work).glob("truthfulqa-*")
        report = json.loads((run_dir / "report.json").read_text())
    return {
        "wall_seconds": round(wall, 2),
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
        "stages": report["timings"],
        "claims": report["headline"]["claims"],
        "claims_both_releases": report["headline"]["claims"]
        + report["headline"]["release_2025_claims"],
        "distinct_pairs": report["headline"]["distinct_pairs"],
        "views": report["config"]["views"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data")),
    )
    parser.add_argument("--engine", default="local", choices=("local", "ray"))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--output", type=Path, default=ROOT / "benchmarks" / "results" / "eval_speed.json"
    )
    args = parser.parse_args()
    runs = [run_once(args.data_dir, args.engine) for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["wall_seconds"])
    result = {
        "command": "veritype eval truthfulqa (all views, every report)",
        "engine": args.engine,
        "cpus": os.cpu_count(),
        "target_seconds": TARGET_SECONDS,
        "best_wall_seconds": best["wall_seconds"],
        "met": best["wall_seconds"] <= TARGET_SECONDS,
        "pairs_per_second": round(best["distinct_pairs"] / best["stages"]["verify_wall"], 1),
        "runs": runs,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
