"""How long does a new user wait? The README's first command, timed as a new user meets it.

A new virtual environment gets the core install (``pip install .``, no extras; timed apart).
Then, in an empty folder with an empty model cache, the ``veritype ask`` of the README's first
command runs three times: the first run ingests the bundled demo corpus (reading the shipped
vectors of its chunks) and derives the fused embedder; the later ones only answer. Targets on
a quiet 2-core machine: the first run <= 20 s, a later run <= 2 s. Each run must print a
cited answer.

    python benchmarks/first_run.py [--output benchmarks/results/first_run.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from veritype.evaluation.machine import machine

ROOT = Path(__file__).resolve().parents[1]
RUNS = 3


def quick_start_ask() -> list[str]:
    """The ``veritype ask ...`` part of the README's first quick-start command."""
    quick_start = (ROOT / "README.md").read_text().split("## Quick start", 1)[1]
    first = re.findall(r"```bash\n(.*?)\n```", quick_start.split("\n## ", 1)[0], re.S)[0]
    return shlex.split(first.split("&&", 1)[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "first_run.json")
    args = parser.parse_args()
    command = quick_start_ask()
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        venv = base / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        started = time.perf_counter()
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        install_seconds = time.perf_counter() - started
        absent = [name for name in ("torch", "fastapi") if subprocess.run(
            [str(venv / "bin" / "python"), "-c", f"import {name}"],
            capture_output=True).returncode != 0]
        work = base / "work"
        work.mkdir()
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("VERITYPE_")}
        env.update(XDG_CACHE_HOME=str(base / "cache"),
                   PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
        runs = []
        for number in range(1, RUNS + 1):
            begun = time.perf_counter()
            result = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - begun
            lines = result.stdout.splitlines()
            cited = (any(line.startswith("Answer:") for line in lines)
                     and any(line.startswith("  [1] ") for line in lines))
            runs.append({"run": number, "seconds": round(seconds, 2),
                         "exit_code": result.returncode, "cited_answer": cited})
            print(runs[-1], file=sys.stderr)
        versions = subprocess.run(
            [str(venv / "bin" / "python"), "-c",
             "import importlib.metadata as m; print({n: m.version(n) for n in "
             "('veritype', 'onnxruntime', 'numpy', 'tokenizers')})"],
            capture_output=True, text=True, check=True).stdout.strip()
    report = {
        "command": shlex.join(command),
        "machine": machine(),
        "core_install_libraries": versions,
        "not_importable_in_core_install": absent,
        "install_seconds": round(install_seconds, 1),
        "runs": runs,
        "first_run_seconds": runs[0]["seconds"],
        "later_run_seconds": min(run["seconds"] for run in runs[1:]),
        "targets": {"first_run_seconds": 20, "later_run_seconds": 2},
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
