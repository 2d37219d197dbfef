"""A run directory: ``report.json``, ``report.md``, ``table.tex`` and the plots.

Layout (the web viewer reads it): ``<out>/<benchmark>-<YYYYmmdd-HHMMSS>/`` with
``report.json`` holding at least ``benchmark``, ``created_at``, ``config``, ``headline``
(a flat dict of headline figures), ``machine`` (CPU, library versions) and ``determinism``
(whether the shipped verifier's scores repeat exactly here).
"""

from __future__ import annotations

import importlib.util
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from veritype.evaluation.machine import machine, score_determinism

Cell = str | int | float | None
# Draws one figure into the file it is given.
Plot = Callable[[Path], None]


@dataclass(frozen=True, slots=True)
class Table:
    """A titled table rendered the same way in Markdown and LaTeX."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[Cell, ...]]
    note: str = ""


@dataclass(slots=True)
class RunResult:
    """What a benchmark produced: the JSON report, its tables, its plots and its examples."""

    benchmark: str
    config: dict[str, Any]
    headline: dict[str, float | int | str]
    sections: dict[str, Any]
    tables: list[Table] = field(default_factory=list)
    plots: dict[str, Plot] = field(default_factory=dict)
    examples: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def format_cell(value: Cell) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if value != 0 and abs(value) < 1e-3:
            return f"{value:.1e}"
        return f"{value:.3f}"
    return str(value)


def markdown_table(table: Table) -> str:
    lines = [f"### {table.title}", ""]
    if table.note:
        lines += [table.note, ""]
    lines.append("| " + " | ".join(table.columns) + " |")
    lines.append("|" + "|".join("---" for _ in table.columns) + "|")
    lines += ["| " + " | ".join(format_cell(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines) + "\n"


_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
                  "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "\\": r"\textbackslash{}", "τ": r"$\tau$", "α": r"$\alpha$", "≥": r"$\geq$",
                  "≤": r"$\leq$", "±": r"$\pm$", "–": "--", "κ": r"$\kappa$", "×": r"$\times$"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)


def latex_table(table: Table, label: str) -> str:
    spec = "l" + "r" * (len(table.columns) - 1)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{" + latex_escape(table.title) + "}",
        r"\label{tab:" + label + "}",
        r"\begin{tabular}{" + spec + "}",
        r"\toprule",
        " & ".join(latex_escape(c) for c in table.columns) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(latex_escape(format_cell(c)) for c in row) + r" \\" for row in table.rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become null, tuples lists, numpy scalars floats."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def run_directory(out: Path, benchmark: str, now: datetime | None = None) -> Path:
    """A fresh ``<out>/<benchmark>-<YYYYmmdd-HHMMSS>`` (a suffix if that second is taken)."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    path = out / f"{benchmark}-{stamp}"
    suffix = 1
    while path.exists():
        suffix += 1
        path = out / f"{benchmark}-{stamp}-{suffix}"
    path.mkdir(parents=True)
    return path


PLOTS_NEED_EXTRA = 'plots skipped: they need the eval extra (pip install "veritype[eval]")'


def write_run(result: RunResult, out: Path, *, started: float | None = None) -> Path:
    """Write the run directory of ``result`` under ``out`` and return its path.

    Without matplotlib (the ``eval`` extra) the figures are written and the plots skipped,
    which ``result.notes`` and ``report.json`` say.
    """
    created = datetime.now(UTC)
    path = run_directory(out, result.benchmark, created)
    plotted = time.perf_counter()
    images = []
    if result.plots and importlib.util.find_spec("matplotlib") is None:
        result.notes.append(PLOTS_NEED_EXTRA)
    else:
        for name, plot in result.plots.items():
            target = path / f"{name}.png"
            plot(target)
            images.append(target.name)
    result.timings["plots"] = time.perf_counter() - plotted
    if started is not None:
        result.timings["total"] = time.perf_counter() - started
    report = {
        "benchmark": result.benchmark,
        "created_at": created.isoformat(timespec="seconds"),
        "config": result.config,
        "headline": result.headline,
        "machine": machine(),
        "determinism": score_determinism(),
        **result.sections,
        "timings": {k: round(v, 3) for k, v in result.timings.items()},
        "images": images,
        "notes": result.notes,
    }
    (path / "report.json").write_text(
        json.dumps(_clean(report), indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    (path / "report.md").write_text(markdown_report(result, images), encoding="utf-8")
    (path / "table.tex").write_text(
        "% Generated by veritype eval; needs \\usepackage{booktabs}.\n"
        + "\n".join(
            latex_table(table, f"{result.benchmark}-{i}") for i, table in enumerate(result.tables)
        ),
        encoding="utf-8",
    )
    if result.examples:
        with (path / "examples.jsonl").open("w", encoding="utf-8") as handle:
            for example in result.examples:
                handle.write(json.dumps(_clean(example), ensure_ascii=False) + "\n")
    return path


def markdown_report(result: RunResult, images: Sequence[str]) -> str:
    lines = [f"# veritype eval {result.benchmark}", ""]
    lines.append("| headline | value |")
    lines.append("|---|---|")
    lines += [f"| {k} | {format_cell(v)} |" for k, v in result.headline.items()]
    lines.append("")
    lines += [markdown_table(table) for table in result.tables]
    if result.timings:
        lines += ["### Where the time went", "", "| stage | seconds |", "|---|---|"]
        lines += [f"| {k} | {v:.2f} |" for k, v in result.timings.items()]
        lines.append("")
    lines += [f"![{name}]({name})" for name in images]
    config = json.dumps(_clean(result.config), indent=2)
    lines += ["", "### Configuration", "", "```json", config, "```", ""]
    return "\n".join(lines)
