"""The plots of the Benchmarks page, drawn from the same result files as the page.

``python docs/benchmarks_page.py`` calls :func:`write_plots`; it needs matplotlib (the ``eval``
extra). The images are committed under ``docs/img/benchmarks/``, so building the site does
not need matplotlib.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from benchmarks_page import Page, label
from matplotlib.figure import Figure

DPI = 110


def _save(figure: Figure, path: Path) -> Path:
    figure.tight_layout()
    # No software or date in the file: the same results draw the same bytes.
    figure.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(figure)
    return path


def ask_stages(page: Page) -> Figure:
    data = page.load("ask.json")
    figure, axes = plt.subplots(figsize=(7, 2.6))
    results = data["results"]
    stages = list(results[0]["stage_mean_s"])
    left = [0.0] * len(results)
    for stage in stages:
        values = [r["stage_mean_s"][stage] for r in results]
        axes.barh([r["generator"] for r in results], values, left=left,
                  label=label(stage.removesuffix("_s")))
        left = [a + b for a, b in zip(left, values, strict=True)]
    axes.set_xlabel("mean seconds per ask")
    axes.set_title("Where an ask's time goes (ask.json)")
    axes.legend(fontsize=7, ncol=3, loc="lower right")
    return figure


def _bar(record: dict[str, Any]) -> tuple[float, float, float]:
    """A share with its Wilson interval as distances below and above it; a label no answer
    was given has no share: an empty bar, no interval."""
    if not record["of"]:
        return 0.0, 0.0, 0.0
    share, (low, high) = record["share"], record["wilson95"]
    return share, share - low, high - share


def answer_corpora_labels(page: Page) -> Figure:
    figure, axes = plt.subplots(figsize=(8, 3.2))
    labels = ("high", "medium", "low")
    width = 0.38
    for offset, half in ((-width / 2, "evaluation"), (width / 2, "calibration")):
        shown = page.load(f"answer_corpora_{half}.json")["halves"][half]["shown_by_label"]
        share, low, high = zip(*(_bar(shown[k]) for k in labels), strict=True)
        axes.bar([i + offset for i in range(len(labels))], share, width, yerr=[low, high],
                 capsize=3, label=f"{half} half")
        for i, k in enumerate(labels):
            axes.annotate(f"{shown[k]['hits']}/{shown[k]['of']}", (i + offset, 0.03),
                          ha="center", fontsize=7, color="white")
    axes.set_xticks(range(len(labels)), [f'"{k}"' for k in labels])
    axes.set_ylim(0, 1)
    axes.set_ylabel("shown answers right")
    axes.set_title("Confidence labels on documents written elsewhere (Wilson 95%)")
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


def ingest_scaling(page: Page) -> Figure:
    data = page.load("ingest_scaling.json")
    figure, (left, right) = plt.subplots(1, 2, figsize=(8, 3.2))
    kinds = list(dict.fromkeys(r["kind"] for r in data["runs"]))
    for kind in kinds:
        runs = [r for r in data["runs"] if r["kind"] == kind]
        left.plot([r["mb"] for r in runs], [r["seconds"] for r in runs], marker="o", label=kind)
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("MB of text")
    left.set_ylabel("seconds to split and chunk")
    left.legend(fontsize=7)
    full = [r for r in data["runs"] if "full_ingest_default_s" in r]
    names = [f"{r['kind']}, {r['mb']} MB" for r in full]
    positions = range(len(full))
    right.bar([p - 0.2 for p in positions], [r["full_ingest_bm25_chunks_per_s"] for r in full],
              0.4, label="BM25 index alone")
    right.bar([p + 0.2 for p in positions], [r["full_ingest_default_chunks_per_s"] for r in full],
              0.4, label="default layout")
    right.set_xticks(list(positions), names, fontsize=7)
    right.set_yscale("log")
    right.set_ylabel("chunks/s, full ingest")
    right.legend(fontsize=7)
    figure.suptitle("Ingest (ingest_scaling.json)")
    return figure


def vector_search(page: Page) -> Figure:
    data = page.load("vector_search.json")
    figure, axes = plt.subplots(figsize=(7, 3.6))
    for size in data["sizes"]:
        sweep = size.get("hnsw_expansion_search_sweep") or []
        if sweep:
            axes.plot([s["p95_ms"] for s in sweep], [s["recall_at_10"] for s in sweep],
                      marker="o", label=f"HNSW, {size['vectors']:,} synthetic")
        pg = (size.get("pgvector") or {}).get("ef_search_sweep") or []
        if pg:
            axes.plot([s["p95_ms"] for s in pg], [s["recall_at_10"] for s in pg], marker="s",
                      label=f"pgvector, {size['vectors']:,} synthetic")
    real = data["real"]
    axes.plot([s["p95_ms"] for s in real["hnsw_expansion_search_sweep"]],
              [s["recall_at_10"] for s in real["hnsw_expansion_search_sweep"]], marker="^",
              label=f"HNSW, {real['vectors']:,} real")
    axes.plot([s["p95_ms"] for s in real["pgvector"]["ef_search_sweep"]],
              [s["recall_at_10"] for s in real["pgvector"]["ef_search_sweep"]], marker="v",
              label=f"pgvector, {real['vectors']:,} real")
    axes.set_xscale("log")
    axes.set_xlabel("p95 latency, ms (the search widens along each line)")
    axes.set_ylabel("recall@10 against exact search")
    axes.set_ylim(0, 1.02)
    axes.set_title("Vector search: recall against latency (vector_search.json)")
    axes.legend(fontsize=7)
    return figure


def generation(page: Page) -> Figure:
    data = page.load("generation.json")
    figure, axes = plt.subplots(figsize=(7, 2.8))
    results = {k: v for k, v in data["results"].items() if k != "extractive"}
    axes.barh(list(results), [v["decode_tokens_per_s"] for v in results.values()])
    axes.axvline(data["target"]["threshold"], color="grey", linestyle="--", label="target")
    axes.set_xlabel("decode tokens/s")
    axes.tick_params(axis="y", labelsize=7)
    axes.set_title("Generation speed (generation.json)")
    axes.legend(fontsize=7)
    return figure


def verifier_speed(page: Page) -> Figure:
    data = page.load("verifier_speed.json")
    figure, axes = plt.subplots(figsize=(7, 3))
    backends = ("torch_fp32", "onnx_fp32", "onnx_int8")
    batches = sorted({int(k.rsplit("batch", 1)[1]) for k in data
                      if k.startswith(backends) and "_batch" in k})
    width = 0.8 / len(backends)
    for i, backend in enumerate(backends):
        axes.bar([b + (i - 1) * width for b in range(len(batches))],
                 [data[f"{backend}_batch{n}"]["pairs_per_s"] for n in batches], width,
                 label=label(backend))
    axes.set_xticks(range(len(batches)), [f"batch {n}" for n in batches])
    axes.set_ylabel("pairs/s")
    axes.set_title("The nli model by backend (verifier_speed.json)")
    axes.legend(fontsize=8)
    return figure


def type_contract(page: Page) -> Figure:
    data = page.load("type_contract.json")
    categories = list(data["default"]["per_category"])
    typed: list[tuple[str, dict[str, Any]]] = [("default", data["default"])]
    typed += [(f"{name} alone", v) for name, v in data["single_views"].items()]
    typed.append(("verbatim substring", data["verbatim_baseline"]))
    figure, axes = plt.subplots(figsize=(10, 3.8))
    width = 0.8 / len(typed)
    for i, (who, v) in enumerate(typed):
        axes.bar([c + (i - (len(typed) - 1) / 2) * width for c in range(len(categories))],
                 [v["per_category"][c]["share"] for c in categories], width, label=who)
    axes.set_xticks(range(len(categories)), [label(c) for c in categories], rotation=30,
                    ha="right", fontsize=8)
    axes.set_ylim(0, 1)
    axes.set_ylabel("typed as expected")
    axes.set_title("The type contract per category (type_contract.json)")
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return figure


def verify_throughput(page: Page) -> Figure:
    data = page.load("verify_throughput.json")
    figure, axes = plt.subplots(figsize=(7, 3.2))
    for batch in sorted({s["batch_size"] for s in data["settings"]}):
        settings = [s for s in data["settings"] if s["batch_size"] == batch]
        axes.plot([s["pairs_per_second"] for s in settings],
                  [s["contract_share"] for s in settings], marker="o", label=f"batch {batch}")
        for s in settings:
            axes.annotate(f"{s['max_windows']} w", (s["pairs_per_second"], s["contract_share"]),
                          textcoords="offset points", xytext=(4, 4), fontsize=7)
    axes.axvline(data["target_pairs_per_second"], color="grey", linestyle="--",
                 label="target pairs/s")
    axes.set_xlabel("pairs/s")
    axes.set_ylabel("contract typed as expected")
    axes.set_title("Speed beside quality, by windows per claim (verify_throughput.json)")
    axes.legend(fontsize=7)
    return figure


def judge_quality(page: Page) -> Figure:
    data = page.load("judge_quality.json")
    figure, axes = plt.subplots(figsize=(7, 3))
    sets = list(data["sets"])
    for offset, key in ((-0.2, "nli"), (0.2, "judge")):
        values = [data["sets"][s][f"{key}_auc"] for s in sets]
        low = [v - data["sets"][s][f"{key}_ci95"][0] for v, s in zip(values, sets, strict=True)]
        high = [data["sets"][s][f"{key}_ci95"][1] - v for v, s in zip(values, sets, strict=True)]
        axes.bar([i + offset for i in range(len(sets))], values, 0.4, yerr=[low, high],
                 capsize=3, label=key)
    axes.axhline(0.5, color="grey", linestyle="--", label="ignores the evidence")
    axes.set_xticks(range(len(sets)), [label(s) for s in sets], fontsize=7)
    axes.set_ylim(0, 1)
    axes.set_ylabel("ROC-AUC")
    axes.set_title("nli against the judge on unseen sets (judge_quality.json)")
    axes.legend(fontsize=7, loc="lower right")
    return figure


PLOTS: dict[str, Callable[[Page], Figure]] = {
    "ask_stages": ask_stages,
    "answer_corpora_labels": answer_corpora_labels,
    "ingest_scaling": ingest_scaling,
    "vector_search": vector_search,
    "generation": generation,
    "verifier_speed": verifier_speed,
    "type_contract": type_contract,
    "verify_throughput": verify_throughput,
    "judge_quality": judge_quality,
}


def write_plots(results: Path, out: Path) -> list[Path]:
    """Draw every plot from the result files in ``results`` into ``out/<name>.png``."""
    out.mkdir(parents=True, exist_ok=True)
    page = Page(results)
    plt.rcParams.update({"font.size": 9, "svg.hashsalt": "veritype"})
    return [_save(draw(page), out / f"{name}.png") for name, draw in PLOTS.items()]
