"""Evaluation runs on disk: ``<benchmark>-<YYYYmmdd-HHMMSS>/`` folders under one directory.

Each holds ``report.json`` (``benchmark``, ``created_at``, ``config``, ``headline``),
``report.md``, ``table.tex`` and plots as ``*.png``. Names from a URL are checked against
these patterns and resolved inside the directory, so no request can read anything else.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from veritype.server.models import EvalRunDetail, EvalRunSummary

RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}-\d{8}-\d{6}$")
PLOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}\.png$")


class EvalRunError(LookupError):
    """An unknown or unreadable run or file; the message says which."""


def _inside(root: Path, *parts: str) -> Path:
    base = root.resolve()
    path = base.joinpath(*parts).resolve()
    if not path.is_relative_to(base) or path == base:
        raise EvalRunError(f"no such run or file: {'/'.join(parts)!r}")
    return path


def run_dir(root: Path, run: str) -> Path:
    if not RUN_NAME.fullmatch(run):
        raise EvalRunError(f"not a run name: {run!r} (expected <benchmark>-<YYYYmmdd-HHMMSS>)")
    path = _inside(root, run)
    if not (path / "report.json").is_file():
        raise EvalRunError(f"no evaluation run {run!r} in {root}")
    return path


def _report(path: Path) -> dict[str, Any]:
    try:
        data = json.loads((path / "report.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise EvalRunError(f"run {path.name!r}: report.json is unreadable: {error}") from None
    if not isinstance(data, dict):
        raise EvalRunError(f"run {path.name!r}: report.json is not a JSON object")
    return data


def _plots(path: Path) -> list[str]:
    base = path.resolve()
    return sorted(
        p.name for p in path.glob("*.png")
        if PLOT_NAME.fullmatch(p.name) and p.resolve().is_relative_to(base) and p.is_file()
    )


def _summary_fields(path: Path, report: dict[str, Any]) -> dict[str, Any]:
    headline = report.get("headline")
    return {
        "run": path.name,
        "benchmark": str(report.get("benchmark", path.name.rsplit("-", 2)[0])),
        "created_at": str(report.get("created_at", "")),
        "headline": headline if isinstance(headline, dict) else {},
        "plots": _plots(path),
    }


def list_runs(root: Path) -> list[EvalRunSummary]:
    """Every readable run under ``root``, newest first (unreadable ones are left out)."""
    if not root.is_dir():
        return []
    runs = []
    for path in root.iterdir():
        if not (path.is_dir() and RUN_NAME.fullmatch(path.name)):
            continue
        try:
            runs.append(EvalRunSummary(**_summary_fields(path, _report(path))))
        except EvalRunError:
            continue
    return sorted(runs, key=lambda run: (run.run.rsplit("-", 2)[-2:], run.run), reverse=True)


def load_run(root: Path, run: str) -> EvalRunDetail:
    path = run_dir(root, run)
    report = _report(path)
    config = report.get("config")
    return EvalRunDetail(
        **_summary_fields(path, report),
        config=config if isinstance(config, dict) else {},
        report_md=_read_optional(path / "report.md"),
        table_tex=_read_optional(path / "table.tex"),
    )


def plot_file(root: Path, run: str, name: str) -> Path:
    """The path of one plot of a run, after checking both names."""
    if not PLOT_NAME.fullmatch(name):
        raise EvalRunError(f"not a plot name: {name!r} (expected a .png file)")
    path = _inside(run_dir(root, run), name)
    if not path.is_file():
        raise EvalRunError(f"run {run!r} has no plot {name!r}")
    return path


def _read_optional(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
