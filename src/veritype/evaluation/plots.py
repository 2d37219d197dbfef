"""The report plots, drawn with matplotlib's Agg backend (no display needed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veritype.evaluation.metrics import Bools, Floats, precision_recall_curve


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def pr_curves(
    path: Path,
    scores: Mapping[str, Floats],
    truth: Bools,
    published: Mapping[str, tuple[float, float]] | None = None,
) -> None:
    """Precision against recall for every configuration, with published points."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 5))
    for name, values in scores.items():
        curve = precision_recall_curve(values, truth)
        axes.plot(curve["recall"], curve["precision"], label=name, linewidth=1.4)
    for name, (precision, recall) in (published or {}).items():
        axes.scatter([recall], [precision], marker="*", s=90, label=f"{name} (published)")
    axes.set_xlabel("recall")
    axes.set_ylabel("precision")
    axes.set_xlim(0, 1)
    axes.set_ylim(max(0.0, float(np.mean(truth)) - 0.05), 1.0)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=7, loc="lower left")
    axes.set_title("Precision–recall on the held-out split")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def bound_scaling(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Measured false-accept rate of the vote against N, beside P1's bound and exact tail."""
    plt = _pyplot()
    taus = sorted({float(r["tau"]) for r in rows})
    figure, axes = plt.subplots(figsize=(7, 5))
    colours = plt.get_cmap("viridis")(np.linspace(0, 0.9, len(taus)))
    for colour, tau in zip(colours, taus, strict=True):
        mine = sorted((r for r in rows if float(r["tau"]) == tau), key=lambda r: r["n"])
        ns = [r["n"] for r in mine]
        floor = 1e-5
        axes.plot(ns, [max(r["measured_fpr"], floor) for r in mine], "o-", color=colour,
                  label=f"measured τ={tau:g}")
        axes.plot(ns, [max(r["kl_bound"], floor) for r in mine], "--", color=colour,
                  label=f"KL bound τ={tau:g}")
        axes.plot(ns, [max(r["exact_tail"], floor) for r in mine], ":", color=colour)
    axes.set_yscale("log")
    axes.set_xlabel("N (views)")
    axes.set_ylabel("false-accept rate")
    axes.set_title("Proposition 1: bound (dashed), exact tail (dotted), measured (solid)")
    axes.grid(alpha=0.3, which="both")
    axes.legend(fontsize=6, ncol=2)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def support_mass(path: Path, mass: Floats, learned: Floats, truth: Bools, name: str) -> None:
    """Histograms of the vote's support mass and the chosen score, correct vs incorrect."""
    plt = _pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 4))
    bins = np.linspace(0, 1, 13)
    for axes, values, title in ((left, mass, "support mass m(c)"), (right, learned, name)):
        axes.hist(values[truth], bins=bins, alpha=0.6, label="correct claims", density=True)
        axes.hist(values[~truth], bins=bins, alpha=0.6, label="incorrect claims", density=True)
        axes.set_xlabel(title)
        axes.set_ylabel("density")
        axes.legend(fontsize=8)
    figure.suptitle("Support for correct and incorrect claims (held-out split)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def accuracy_bars(path: Path, values: Mapping[str, Mapping[str, float]], ylabel: str) -> None:
    """Grouped bars: one group per set (outer key), one bar per configuration."""
    plt = _pyplot()
    groups = list(values)
    series = sorted({name for inner in values.values() for name in inner})
    figure, axes = plt.subplots(figsize=(max(6, 1.2 * len(groups)), 4))
    width = 0.8 / max(len(series), 1)
    for i, name in enumerate(series):
        axes.bar(np.arange(len(groups)) + i * width,
                 [values[g].get(name, 0.0) for g in groups], width, label=name)
    axes.set_xticks(np.arange(len(groups)) + 0.4 - width / 2, groups, rotation=30, ha="right",
                    fontsize=8)
    axes.set_ylabel(ylabel)
    axes.set_ylim(0, 1)
    axes.legend(fontsize=7)
    axes.grid(alpha=0.3, axis="y")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def precision_bars(path: Path, summaries: dict[str, dict[str, Any]]) -> None:
    """Raw against rendered claim precision per source, with 95% bootstrap intervals."""
    plt = _pyplot()
    names = list(summaries)
    figure, axes = plt.subplots(figsize=(7, 4))
    width = 0.38
    for offset, (key, label) in enumerate((("raw_precision", "raw draft"),
                                           ("rendered_precision", "veritype rendered"))):
        values = [summaries[name][key] for name in names]
        intervals = [summaries[name][f"{key}_ci95"] for name in names]
        errors = np.array([
            [max(value - (low if low is not None else value), 0.0) for value, (low, _) in
             zip(values, intervals, strict=True)],
            [max((high if high is not None else value) - value, 0.0) for value, (_, high) in
             zip(values, intervals, strict=True)],
        ])
        axes.bar(np.arange(len(names)) + offset * width, values, width, yerr=errors, capsize=4,
                 label=label)
    axes.set_xticks(np.arange(len(names)) + width / 2, names)
    axes.set_ylabel("claim precision (judged supported / claims)")
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3, axis="y")
    axes.legend(fontsize=8)
    axes.set_title("Factual precision: raw drafts vs rendered answers (95% CI)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
