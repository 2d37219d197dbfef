"""Copy evaluation run directories into ``benchmarks/results/eval_<benchmark>.json``.

Result files are written only by this script, from a run's own ``report.json``: the
precision–recall point lists (``pr_curves``, kept in the run directory and drawn in its
plots) are left out, and the run directory's name is added so a figure can be traced to
its run. A report without the machine record of current runs is refused.

    python benchmarks/eval_results.py RUN_DIR [RUN_DIR ...] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

LEFT_OUT = ("pr_curves",)
REQUIRED = ("benchmark", "created_at", "config", "headline", "machine", "determinism")


def _without(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without(v) for k, v in value.items() if k not in LEFT_OUT}
    if isinstance(value, list):
        return [_without(v) for v in value]
    return value


def result_of(run_dir: Path) -> dict[str, Any]:
    """The result file's content for ``run_dir``; ValueError when it is not a run."""
    path = run_dir / "report.json"
    if not path.is_file():
        raise ValueError(f"{run_dir}: no report.json; is it a run directory of veritype eval?")
    report = json.loads(path.read_text(encoding="utf-8"))
    missing = [key for key in REQUIRED if key not in report]
    if missing:
        raise ValueError(f"{path}: missing {', '.join(missing)}; rerun it with this version")
    return {**_without(report), "run_directory": run_dir.resolve().name}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run directories")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args(argv)
    try:
        results = [result_of(run) for run in args.runs]
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    names = [f"eval_{result['benchmark']}.json" for result in results]
    if len(set(names)) != len(names):
        print("error: two runs of one benchmark; give one run per benchmark", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for name, result in zip(names, results, strict=True):
        target = args.out / name
        target.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        print(f"{target}  <-  {result['run_directory']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
