"""Evaluation runs on disk: ``<benchmark>-<YYYYmmdd-HHMMSS>/`` folders under one directory.

Each holds ``report.json`` (``benchmark``, ``created_at``, ``config``, ``headline``),
``report.md``, ``table.tex`` and plots as ``*.png``. Names from a URL are checked against
these patterns and resolved inside the directory, so no request can read anything else.
An unknown or unreadable run or file is a :class:`~veritype.errors.DataError` saying which.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

from veritype.errors import DataError
from veritype.server.models import (
    NOT_FOUND,
    EvalRunDetail,
    EvalRunSummary,
    IdParam,
    error_responses,
)
from veritype.server.service import Authorized, ServiceDep

RUN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}-\d{8}-\d{6}$")
PLOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}\.png$")


def _inside(root: Path, *parts: str) -> Path:
    base = root.resolve()
    path = base.joinpath(*parts).resolve()
    if not path.is_relative_to(base) or path == base:
        raise DataError(f"no such run or file: {'/'.join(parts)!r}")
    return path


def run_dir(root: Path, run: str) -> Path:
    if not RUN_NAME.fullmatch(run):
        raise DataError(f"not a run name: {run!r} (expected <benchmark>-<YYYYmmdd-HHMMSS>)")
    path = _inside(root, run)
    if not (path / "report.json").is_file():
        raise DataError(f"no evaluation run {run!r} in {root}")
    return path


def _report(path: Path) -> dict[str, Any]:
    try:
        data = json.loads((path / "report.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise DataError(f"run {path.name!r}: report.json is unreadable: {error}") from None
    if not isinstance(data, dict):
        raise DataError(f"run {path.name!r}: report.json is not a JSON object")
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
        except DataError:
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
        raise DataError(f"not a plot name: {name!r} (expected a .png file)")
    path = _inside(run_dir(root, run), name)
    if not path.is_file():
        raise DataError(f"run {run!r} has no plot {name!r}")
    return path


def _read_optional(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def evals_router() -> APIRouter:
    router = APIRouter(dependencies=[Authorized], tags=["evaluation"])

    @router.get("/evals", response_model=list[EvalRunSummary], responses=error_responses(401))
    async def list_eval_runs(service: ServiceDep) -> list[EvalRunSummary]:
        """Evaluation runs found under the eval directory, newest first."""
        return list_runs(service.settings.eval_dir)

    @router.get(
        "/evals/{run}", response_model=EvalRunDetail,
        responses=error_responses(401, 404, 422, notes=NOT_FOUND),
    )
    async def get_eval_run(run: IdParam, service: ServiceDep) -> EvalRunDetail:
        """One run: headline figures, config, report and the names of its plots."""
        try:
            return load_run(service.settings.eval_dir, run)
        except DataError as error:
            raise HTTPException(404, str(error)) from None

    @router.get(
        "/evals/{run}/files/{name}", response_class=FileResponse,
        responses={200: {"content": {"image/png": {}}},
                   **error_responses(401, 404, 422, notes={404: "No such run or plot."})},
    )
    async def get_eval_plot(run: IdParam, name: IdParam, service: ServiceDep) -> FileResponse:
        """A plot of a run (PNG)."""
        try:
            path = plot_file(service.settings.eval_dir, run, name)
        except DataError as error:
            raise HTTPException(404, str(error)) from None
        return FileResponse(path, media_type="image/png")

    return router
