"""The default aggregator's model card, written from its fit report (``aggregator.fit_default``)."""

from __future__ import annotations

from typing import Any


def _number(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:.3f}"


def _model(model: dict[str, Any] | None) -> str:
    if model is None or not model["features"]:
        return "a constant near 0 (no contradiction data for these views)"
    terms = " ".join(f"{w:+.3f}·{name}" for name, w in
                     zip(model["features"], model["weights"], strict=True) if w != 0.0)
    return f"sigmoid({terms} {model['bias']:+.3f})"


def model_card(report: dict[str, Any]) -> str:
    """The card shipped beside the default aggregator, written from the fit report."""
    chosen, data, loso = report["chosen"], report["data"], report["leave_one_source_out"]
    sources = list(data["per_source"])
    header = "| candidate | mean | " + " | ".join(sources) + " |"
    rule = "|---|---|" + "---|" * len(sources)
    rows = [
        f"| {name}{' **(default)**' if name == chosen['candidate'] else ''} | "
        f"{result['mean_balanced_accuracy']:.3f} | "
        + " | ".join(_number(result["per_source"][s]["balanced_accuracy"]) for s in sources)
        + " |"
        for name, result in loso.items()
    ]
    verbatim = [data["per_source"][s]["verbatim_balanced_accuracy"] for s in sources]
    rows.append("| verbatim substring | "
                f"{sum(verbatim) / len(verbatim):.3f} | "
                + " | ".join(_number(v) for v in verbatim) + " |")
    rows.append("| accept everything | 0.500 | " + " | ".join("0.500" for _ in sources) + " |")
    auc_rows = [
        f"| {name} | " + " | ".join(_number(result["per_source"][s]["auc"]) for s in sources)
        + " |" for name, result in loso.items()
    ]
    counts = ", ".join(f"{s} {v['claims']:,} ({v['supported_share']:.0%} supported)"
                       for s, v in data["per_source"].items())
    decisive = "; ".join(f"`{r['view']}` contradicted with a contradiction score ≥ {r['floor']}"
                         for r in chosen["decisive"]) or "none"
    rule_rows = "\n".join(
        f"| {view} | {f['floor']} | {f['fired']} | {_number(f['precision'])} |"
        for view, result in report["rules"].items() for f in result["floors"])
    machine = report["machine"]
    judge = _judge_section(report.get("judge_head"))
    return f"""# The default aggregator

Two calibrated scores per claim, from the views {', '.join(chosen['views'])}:

- P(supported) = {_model(chosen['support'])}
- P(contradicted) = {_model(chosen['contradiction'])}

A view that abstained or did not run contributes 0 to every feature of its own: it casts no
vote. Weights keep their signs (a view's support never lowers P(supported), its
contradiction never raises it). Typing: **Unsupported** when P(contradicted) ≥
κ = {chosen['kappa']:.3f}, when a decisive rule fires ({decisive}), or when
P(supported) ≤ τ' = {chosen['tau_low']:.4f};
**Verified** when P(supported) ≥ τ = {chosen['tau']:.4f} and none of those; **Uncertain** in
between. Shipped as `aggregator.json`; `veritype train aggregator` rewrites this folder.

## Data: training-side only, {len(sources)} sources

{counts} ({data['examples']:,} claims, {data['pairs_scored']:,} distinct pairs; sources
described in `veritype.train.fitting_data`). P(contradicted) is fitted on the sources that
label contradictions ({', '.join(data['contradiction_sources'])}).

## Choosing the views: leave one source out

Each candidate's models and τ are fitted on all sources but one and judged on that one.
Balanced accuracy of "Verified" against "supported" on the held-out source:

{header}
{rule}
{chr(10).join(rows)}

The default is the candidate with several views and the best mean (ties to fewer views),
unless a single view beats it; the best single view is {chosen['best_single_view']}.

ROC-AUC of P(supported) on the held-out source:

| candidate | {' | '.join(sources)} |
|---|{'---|' * len(sources)}
{chr(10).join(auc_rows)}

## Decisive rules

Claims a rule view called contradicted, by contradiction-score floor, with the share not
supported (the rule decides Unsupported at the lowest floor where it is at least 0.95 in every
source and fires on at least 30 claims):

| view | floor | fired | precision |
|---|---|---|---|
{rule_rows}

{judge}
Fitted on {machine['cpu']}, Python {machine['python']}, NumPy {machine['numpy']}.
"""


def _judge_section(head: dict[str, Any] | None) -> str:
    if head is None:
        return ""
    rows = "\n".join(
        f"| {source} | {v['claims']} | {_number(v['encoders_balanced_accuracy'])} | "
        f"{_number(v['judge_alone_balanced_accuracy'])} | {_number(v['head_balanced_accuracy'])} |"
        for source, v in head["leave_one_source_out"].items())
    on = head["on_judged_claims"]
    return f"""
## The judge's head

Used once the judge has voted (it is asked about the claims the encoders leave Uncertain):
P(supported) = {_model(head['support'])}. Fitted on {head['sample']} borderline claims,
as many from each source, judged once. On those claims the head makes {on['verified']:.0%}
Verified and {on['unsupported']:.0%} Unsupported ({on['supported_share']:.0%} are supported).

Balanced accuracy on the held-out source's judged claims (leave one source out):

| source | claims | encoders at τ | judge alone | head |
|---|---|---|---|---|
{rows}
"""
