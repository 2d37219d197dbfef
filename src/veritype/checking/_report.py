"""A check's outputs: ``results.json`` and ``results.csv`` for pipelines, and ``report.html``
for a person (one self-contained file: summary, how to read the types and verdicts,
histogram, worst rows with their claims and citations, skipped rows, and every row).
Faithfulness everywhere counts Uncertain claims as the result's ``uncertain_as`` says."""

from __future__ import annotations

import csv
import importlib.metadata
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from veritype.checking._check_result import CheckResult
from veritype.checking._row_result import (
    NEEDS_REVIEW,
    ClaimResult,
    RowResult,
    RowVerdict,
    UncertainAs,
    verdict_label,
)
from veritype.graph import EvidenceType

RESULTS_JSON = "results.json"
RESULTS_CSV = "results.csv"
REPORT_HTML = "report.html"
WORST_ROWS = 20
CSV_FIELDS = ("line", "id", "question", "answer", "faithfulness", "verdict", "needs_review",
              "relevance", "claims", "verified", "uncertain", "unsupported",
              "unsupported_claims", "uncertain_claims", "seconds")


def claims_of_type(row: RowResult, kind: EvidenceType) -> str:
    """The row's claims of ``kind``, each with its answer span and reason, joined by " | "."""
    return " | ".join(f"{claim.described()} [{claim.start}:{claim.end}]"
                      for claim in row.claims_of(kind))


def write_outputs(result: CheckResult, out: Path) -> dict[str, Path]:
    """Write the JSON, CSV and HTML outputs into ``out``; returns their paths by kind."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / RESULTS_JSON, "csv": out / RESULTS_CSV, "html": out / REPORT_HTML}
    summary = result.summary()
    payload = {"summary": summary, "bad_rows": [bad.to_dict() for bad in result.bad_rows],
               "rows": [{**row.to_dict(), "faithfulness": result.faithfulness_of(row),
                         "needs_review": row.needs_review} for row in result.rows]}
    paths["json"].write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n",
                             encoding="utf-8")
    with paths["csv"].open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_FIELDS)
        for row in result.rows:
            counts = row.counts()
            faithfulness = result.faithfulness_of(row)
            writer.writerow([
                row.row.line, row.row.row_id or "", row.row.question or "", row.row.answer,
                "" if faithfulness is None else f"{faithfulness:.4f}",
                row.verdict.value, str(row.needs_review).lower(),
                "" if row.relevance is None else f"{row.relevance:.4f}",
                len(row.claims), counts[EvidenceType.VERIFIED],
                counts[EvidenceType.UNCERTAIN], counts[EvidenceType.UNSUPPORTED],
                claims_of_type(row, EvidenceType.UNSUPPORTED),
                claims_of_type(row, EvidenceType.UNCERTAIN),
                f"{row.seconds:.4f}",
            ])
    paths["html"].write_text(html_report(result), encoding="utf-8")
    return paths


_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;
color:#1d2430}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #d8dde6}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
td,th{border-bottom:1px solid #e6e9ef;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f6f9}.num{text-align:right;font-variant-numeric:tabular-nums}
.verified{color:#11703a}.uncertain{color:#8a6200}.unsupported{color:#b3261e}
.tag{display:inline-block;border-radius:.3rem;padding:0 .35rem;font-size:.8rem;
font-weight:600;border:1px solid currentColor}
.row{border:1px solid #d8dde6;border-radius:.4rem;padding:.6rem .9rem;margin:.8rem 0}
.claim{margin:.35rem 0 .35rem 1rem}.quote{color:#4a5261;margin-left:2rem;font-style:italic}
.reason{margin-left:2rem}
.muted{color:#5f6775}svg text{font:12px system-ui,sans-serif}
details{margin:.3rem 0}summary{cursor:pointer;color:#33507a}
"""


def html_report(result: CheckResult) -> str:
    summary = result.summary()
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width,initial-scale=1'>",
        f"<title>veritype check: {escape(Path(result.source or 'rows').name)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>veritype check: {escape(Path(result.source).name if result.source else 'rows')}"
        "</h1>",
        f"<p class='muted'>{escape(result.source or 'Rows given in Python')}; veritype "
        f"{importlib.metadata.version('veritype')}, "
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}; views "
        f"{escape(', '.join(result.settings.views))}.</p>",
        "<h2>Summary</h2>",
        _summary_table(summary),
        "<h2>How to read it</h2>",
        _legend(result),
        "<h2>Faithfulness of the rows</h2>",
        _histogram_svg(summary["histogram"]),
        f"<h2>Worst rows</h2><div id='worst'>{_worst(result, result.worst(WORST_ROWS))}"
        "</div>",
        "<h2>Skipped rows</h2>",
        _bad_rows(result),
        "<h2>Every row</h2>",
        _all_rows(result),
        "</body></html>",
    ]
    return "\n".join(parts)


def _summary_table(summary: dict[str, Any]) -> str:
    mean = summary["mean_faithfulness"]
    low, high = summary["mean_faithfulness_ci95"] or (None, None)
    rate = summary["rows_per_second"]
    cells = [
        ("Rows in the file", f"{summary['rows']:,}"),
        ("Rows checked", f"{summary['checked']:,}"),
        ("Rows skipped", f"{summary['skipped']:,}"),
        ("Mean faithfulness", "n/a" if mean is None else
         f"{mean:.3f} (95% CI {low:.3f}–{high:.3f})"),
        ("Mean answer relevance", "n/a" if summary["mean_relevance"] is None else
         f"{summary['mean_relevance']:.3f}"),
        *((f"Rows {verdict_label(RowVerdict(name))}", f"{count:,}")
          for name, count in summary["verdicts"].items()),
        (f"Rows failing (uncertain rows {summary['uncertain_as']})",
         f"{summary['failing_rows']:,}"),
        *((f"Claims {name}", f"{count:,}") for name, count in summary["claims"].items()),
        ("τ (Verified at or above)", f"{summary['tau']:.4g}"),
        ("τ' (Unsupported at or below)", f"{summary['tau_low']:.4g}"),
        ("Engine", f"{summary['engine']}, {summary['workers']} worker(s)"),
        ("Rows per second (this run)", "n/a" if rate is None else f"{rate:.2f}"),
    ]
    rows = "".join(f"<tr><th>{escape(name)}</th><td class='num' data-field='{escape(name)}'>"
                   f"{escape(value)}</td></tr>" for name, value in cells)
    return f"<table id='summary'>{rows}</table>"


def _legend(result: CheckResult) -> str:
    """What the claim types and row verdicts mean, with the τ and τ' this check used, and
    how Uncertain claims counted."""
    tau, tau_low = (f"{value:.4g}" for value in (result.thresholds.tau,
                                                   result.thresholds.tau_low))
    counted = ("count towards faithfulness, and uncertain rows pass"
               if result.uncertain_as is UncertainAs.PASS else
               "do not count towards faithfulness, and uncertain rows fail")
    items = [
        ("verified", "Verified", f"the views find the claim stated in the row's contexts: "
         f"support ≥ τ = {tau}."),
        ("uncertain", "Uncertain", f"the views cannot tell: τ' = {tau_low} < support < "
         f"τ = {tau}."),
        ("unsupported", "Unsupported", f"not stated, or contradicted: support ≤ τ' = "
         f"{tau_low}, or a view found the contexts say otherwise."),
        ("verified", RowVerdict.FAITHFUL.value, "every claim of the row is Verified."),
        ("uncertain", verdict_label(RowVerdict.UNCERTAIN), "no claim is Unsupported and at "
         "least one is Uncertain: a person should read the row's contexts."),
        ("unsupported", RowVerdict.UNFAITHFUL.value, "at least one claim is Unsupported."),
        ("muted", RowVerdict.NO_CLAIMS.value, "the answer states nothing to check (such as "
         "\"I don't know\"); it has no faithfulness."),
    ]
    listed = "".join(f"<li><span class='tag {kind}'>{escape(name)}</span> {escape(text)}</li>"
                     for kind, name, text in items)
    return (f"<ul id='legend'>{listed}</ul><p class='muted'>A row's faithfulness is the share "
            f"of its claims that count as faithful: Verified ones; Uncertain ones "
            f"{escape(counted)} (--uncertain-as {result.uncertain_as.value}).</p>")


def _histogram_svg(counts: Sequence[int]) -> str:
    width, height, left, bottom = 640, 220, 40, 30
    top = max(counts) if counts and max(counts) > 0 else 1
    bar = (width - left) / len(counts)
    shapes = []
    for i, count in enumerate(counts):
        h = (height - bottom - 20) * count / top
        x = left + i * bar
        y = height - bottom - h
        label = f"{i / len(counts):.1f}–{(i + 1) / len(counts):.1f}"
        shapes.append(
            f"<rect class='bin' x='{x + 2:.1f}' y='{y:.1f}' width='{bar - 4:.1f}' "
            f"height='{h:.1f}' fill='#4f7cc3'><title>{label}: {count} rows</title></rect>"
            f"<text x='{x + bar / 2:.1f}' y='{y - 4:.1f}' text-anchor='middle'>{count}</text>"
            f"<text x='{x + bar / 2:.1f}' y='{height - bottom + 16}' text-anchor='middle'>"
            f"{i / len(counts):.1f}</text>")
    return (f"<svg id='histogram' role='img' aria-label='rows per faithfulness bin' "
            f"width='{width}' height='{height}' viewBox='0 0 {width} {height}'>"
            f"<line x1='{left}' y1='{height - bottom}' x2='{width}' y2='{height - bottom}' "
            f"stroke='#888'/>{''.join(shapes)}</svg>"
            "<p class='muted'>Rows per faithfulness bin (the last bin holds 1.0).</p>")


def _claim(claim: ClaimResult, row: RowResult) -> str:
    kind = claim.type.value.lower()
    shown = claim.written if claim.written else claim.text
    extra = "" if claim.written == claim.text else (
        f" <span class='muted'>(checked as: {escape(claim.text)})</span>")
    quotes = "".join(
        f"<div class='quote'>context {c.context}, characters {c.start}–{c.end}: "
        f"“{escape(c.quote)}”</div>" for c in claim.citations)
    views = ", ".join(f"{name} {verdict} {score:.2f}"
                      for name, (verdict, score) in claim.views.items())
    reason = f"<div class='reason'>{escape(claim.reason)}</div>" if claim.reason else ""
    return (f"<div class='claim' data-start='{claim.start}' data-end='{claim.end}'>"
            f"<span class='tag {kind}'>{escape(claim.type.value)}</span> "
            f"{escape(shown)}{extra} <span class='muted'>support {claim.support:.2f}; "
            f"{escape(views)}</span>{reason}{quotes}</div>")


def _worst(result: CheckResult, rows: Sequence[RowResult]) -> str:
    if not rows:
        return "<p>No row with claims was checked.</p>"
    blocks = []
    for row in rows:
        question = (f"<div><b>Question:</b> {escape(row.row.question)}</div>"
                    if row.row.question else "")
        contexts = "".join(f"<li>{escape(text)}</li>" for text in row.row.contexts)
        blocks.append(
            f"<div class='row' data-line='{row.row.line}' data-verdict='{row.verdict.value}' "
            f"data-needs-review='{str(row.needs_review).lower()}'><div><b>Line {row.row.line}"
            f"</b>{' · id ' + escape(row.row.row_id) if row.row.row_id else ''} · faithfulness "
            f"<b>{_score(result.faithfulness_of(row))}</b> · "
            f"{escape(verdict_label(row.verdict))}</div>{question}"
            f"<div><b>Answer:</b> {escape(row.row.answer)}</div>"
            f"{''.join(_claim(claim, row) for claim in row.claims)}"
            f"<details><summary>{len(row.row.contexts)} context(s)</summary><ol start='0'>"
            f"{contexts}"
            "</ol></details></div>")
    return "".join(blocks)


def _bad_rows(result: CheckResult) -> str:
    if not result.bad_rows:
        return "<p>None.</p>"
    rows = "".join(f"<tr><td class='num'>{bad.line}</td><td>{escape(bad.problem)}</td></tr>"
                   for bad in result.bad_rows)
    return f"<table id='skipped'><tr><th>Line</th><th>Problem</th></tr>{rows}</table>"


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _all_rows(result: CheckResult) -> str:
    body = "".join(
        f"<tr data-verdict='{row.verdict.value}'><td class='num'>{row.row.line}</td>"
        f"<td>{escape(row.row.question or '')}</td><td>{escape(row.row.answer[:200])}</td>"
        f"<td class='num'>{_score(result.faithfulness_of(row))}</td>"
        f"<td>{escape(row.verdict.value)}</td>"
        f"<td class='needs-review'>{NEEDS_REVIEW if row.needs_review else ''}</td>"
        f"<td class='num'>{_score(row.relevance)}</td></tr>" for row in result.rows)
    return ("<table id='rows'><tr><th>Line</th><th>Question</th><th>Answer</th>"
            "<th>Faithfulness</th><th>Verdict</th><th>Needs review</th><th>Relevance</th></tr>"
            f"{body}</table>")
