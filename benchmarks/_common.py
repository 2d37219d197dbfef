"""What benchmark scripts share: the data directory option, writing the figures as one JSON
file that names the benchmark, the time and the machine (CPU and library versions), and
waiting for a server a benchmark started."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from veritype.evaluation.machine import machine

ROOT = Path(__file__).resolve().parents[1]


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    """``--data-dir``: the shared datasets, by default ``$VERITYPE_DATA_DIR`` or the
    ``shared/data`` folder beside the repository."""
    parser.add_argument(
        "--data-dir", type=Path,
        default=Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data")),
    )


def write_report(path: Path, benchmark: str, **figures: Any) -> dict[str, Any]:
    """Write ``figures`` to ``path`` under a header of benchmark name, time and machine;
    print the report and return it."""
    report = {
        "benchmark": benchmark,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        **figures,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    print(text, end="")
    return report


def wait_until_serving(process: subprocess.Popen[bytes], probe: str, log: Path,
                       seconds: float) -> None:
    """Poll ``probe`` until it answers with success; ``SystemExit`` with the end of ``log``
    when ``process`` exits first, or when ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise SystemExit(f"error: the server exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(probe, timeout=2).is_success:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"error: the server did not answer {probe} in {seconds:g} s")
        time.sleep(0.2)
