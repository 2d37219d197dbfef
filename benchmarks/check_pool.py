"""`veritype check` on this machine's CPUs: in one process, or with a worker process per CPU.

The input is 300 check rows of HaluEval-QA (rows 8000-8149, right and hallucinated answers,
as ``check_halueval.py`` writes them). Each round runs ``veritype check`` as a user does, in
turn with ``--workers 1`` (in this process), ``--workers 2`` and no ``--workers`` (the
default), and records the wall time and check's own rows/s. Every run's rows must be
identical to the in-process run's (verdicts, types, supports, view scores, citations).

Apart, the time a local engine takes to start its two workers (spawn, import, load their
models) is measured in this process; with the two rates it gives the number of rows from
which the workers pay for their start (``veritype.checking._run.POOL_FROM_ROWS``).

    python benchmarks/check_pool.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, add_data_dir, write_report
from check_halueval import _comparable, run_cli, write_input

from veritype.checking import CheckSettings
from veritype.checking._run import POOL_FROM_ROWS, LocalEngine

RUNS = {"in process (--workers 1)": ["--workers", "1"],
        "2 workers (--workers 2)": ["--workers", "2"],
        "default": []}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "results" / "check_pool.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        source = work / "halueval_qa_8000_8150.jsonl"
        rows = write_input(args.data_dir, "qa", 8000, 8150, source)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in RUNS}
        identical: dict[str, bool] = dict.fromkeys(RUNS, True)
        reference: list[Any] | None = None
        for _ in range(args.rounds):
            for name, extra in RUNS.items():
                out = work / name.split()[0]
                seconds, summary = run_cli(source, out, extra)
                runs[name].append({"wall_seconds": round(seconds, 2),
                                   "rows_per_second": summary["rows_per_second"],
                                   "workers": summary["workers"]})
                found = _comparable(out)
                reference = reference if reference is not None else found
                identical[name] &= found == reference
        starts = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            engine = LocalEngine(CheckSettings(), workers=2)
            starts.append(time.perf_counter() - started)
            engine.close()
    median = {name: {key: statistics.median(run[key] for run in found)
                     for key in ("wall_seconds", "rows_per_second")}
              for name, found in runs.items()}
    one, two = (median[name]["rows_per_second"] for name in list(RUNS)[:2])
    start = statistics.median(starts)
    write_report(
        args.out, "check_pool", rows=rows, rounds=args.rounds, runs=runs, median=median,
        identical_to_in_process=identical, speedup=round(two / one, 3),
        pool_start_seconds=[round(s, 2) for s in starts],
        break_even_rows=round(start / (1 / one - 1 / two)) if two > one else None,
        pool_from_rows=POOL_FROM_ROWS, target_rows_per_second=30)


if __name__ == "__main__":
    main()
