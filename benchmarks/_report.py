"""Writing a benchmark's figures: one JSON file that names the benchmark, the time and the
machine (CPU and library versions) beside the figures themselves."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from veritype.evaluation.machine import machine


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
