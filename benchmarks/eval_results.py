"""Copy evaluation run directories into ``benchmarks/results/eval_<name>.json`` and
``docs/results/<name>.md`` (with the run's plots beside it).

Result files are written only by this script, from a run's own ``report.json`` and
``report.md``: the precision–recall point lists (``pr_curves``, kept in the run directory
and drawn in its plots) are left out of the JSON, and the run directory's name is added so
a figure can be traced to its run. ``<name>`` is the benchmark, with the TruthfulQA
protocol appended when it is not the default (``truthfulqa-reference``), or the name given
after ``=`` (``RUN_DIR=corpus-qa-local``). A report without the machine record of current
runs is refused.

    python benchmarks/eval_results.py RUN_DIR[=NAME] [RUN_DIR[=NAME] ...]
        [--out benchmarks/results] [--docs docs/results]

Then ``python docs/benchmarks_page.py`` rewrites ``docs/benchmarks.md`` from the result files.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = ("pr_curves",)
DEFAULT_PROTOCOL = "current"
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


def result_name(result: dict[str, Any]) -> str:
    protocol = result["config"].get("protocol", DEFAULT_PROTOCOL)
    suffix = "" if protocol == DEFAULT_PROTOCOL else f"-{protocol}"
    return f"{result['benchmark']}{suffix}"


def write_docs(run_dir: Path, name: str, docs: Path) -> Path:
    """The run's ``report.md`` as ``docs/<name>.md``, its plots renamed ``<name>-<plot>``."""
    text = (run_dir / "report.md").read_text(encoding="utf-8")
    for image in json.loads((run_dir / "report.json").read_text(encoding="utf-8"))["images"]:
        shutil.copyfile(run_dir / image, docs / f"{name}-{image}")
        text = text.replace(f"]({image})", f"]({name}-{image})")
    target = docs / f"{name}.md"
    target.write_text(f"<!-- written by benchmarks/eval_results.py from {run_dir.name} -->\n"
                      + text, encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="run directories, each optionally =NAME")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "results")
    args = parser.parse_args(argv)
    runs = [Path(run.partition("=")[0]) for run in args.runs]
    try:
        results = [result_of(run) for run in runs]
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    names = [run.partition("=")[2] or result_name(result)
             for run, result in zip(args.runs, results, strict=True)]
    if len(set(names)) != len(names):
        print("error: two runs would write one name; name them with RUN_DIR=NAME",
              file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    args.docs.mkdir(parents=True, exist_ok=True)
    for run, name, result in zip(runs, names, results, strict=True):
        target = args.out / f"eval_{name}.json"
        target.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n",
                          encoding="utf-8")
        page = write_docs(run, name, args.docs)
        print(f"{target}, {page}  <-  {result['run_directory']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
