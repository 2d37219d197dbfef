"""The default aggregator's model card, written from its fit report (``aggregator.fit_default``)."""

from __future__ import annotations

from typing import Any


def _number(value: float | None) -> str:
    return "–" if value is None or value != value else f"{value:.3f}"


def _held_out(result: dict[str, Any], source: str, key: str) -> str:
    """A held-out figure, or "seen" where one of the candidate's views read the source."""
    figures = result["per_source"][source]
    return "seen" if figures.get("seen_in_training") else _number(figures[key])


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

    def table(key: str, mean_key: str, verbatim_key: str, accept_key: str) -> str:
        rows = [
            f"| {name}{' **(default)**' if name == chosen['candidate'] else ''} | "
            f"{result[mean_key]:.3f}{'' if result['eligible'] else '*'} | "
            + " | ".join(_held_out(result, s, key) for s in sources) + " |"
            for name, result in loso.items()
        ]
        for label, figure in (("verbatim substring", verbatim_key),
                              ("accept everything", accept_key)):
            values = [data["per_source"][s][figure] for s in sources]
            rows.append(f"| {label} | {sum(values) / len(values):.3f} | "
                        + " | ".join(_number(v) for v in values) + " |")
        return "\n".join([header, rule, *rows])

    precision_rows = "\n\n".join(
        f"**{name}**{' (default)' if name == chosen['candidate'] else ''}\n\n"
        f"| held out | Verified precision | Unsupported precision | decided |\n|---|---|---|---|\n"
        + "\n".join(
            f"| {s} | {_held_out(result, s, 'verified_precision')} | "
            f"{_held_out(result, s, 'unsupported_precision')} | {_held_out(result, s, 'decided')} |"
            for s in sources)
        for name, result in loso.items())
    auc_rows = [
        f"| {name} | " + " | ".join(_held_out(result, s, "auc") for s in sources)
        + " |" for name, result in loso.items()
    ]
    counts = ", ".join(f"{s} {v['claims']:,} ({v['supported_share']:.0%} supported)"
                       for s, v in data["per_source"].items())
    decisive = "; ".join(f"`{r['view']}` contradicted with a contradiction score ≥ {r['floor']}"
                         for r in chosen["decisive"]) or "none"
    rule_rows = "\n".join(
        f"| {view} | {f['floor']} | {f['fired']} | " + ", ".join(
            f"{source} {v['fired']} at {_number(v['precision'])}"
            for source, v in f["per_source"].items()) + " |"
        for view, result in report["rules"].items() for f in result["floors"])
    precise = ", ".join(f"`{view}` ≥ {r['floor']}" for view, r in report["rules"].items()
                        if r["floor"] is not None) or "none"
    sampled = data.get("sampled_per_source")
    sample = ("" if not sampled else
              f"; a seeded sample of at most {sampled} claims of each source "
              f"(`veritype train aggregator --per-source {sampled}`)")
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
between. τ is the lowest P(supported) at which the claims typed Verified are supported 95% of
the time in every fitting source, τ' the highest at which those typed Unsupported are not
supported 95% of the time in every source: Uncertain holds the claims neither type states
that reliably. A costly view (the judge) is asked about the claims with P(supported) in
({chosen['ask'][0]:.4f}, {chosen['ask'][1]:.4f}) that no contradiction decided: the Uncertain
band. Shipped as `aggregator.json`;
`veritype train aggregator` rewrites this folder.

## Data: training-side only, {len(sources)} sources

{counts} ({data['examples']:,} claims, {data['pairs_scored']:,} distinct pairs; sources
described in `veritype.train.fitting_data`){sample}. P(contradicted) is fitted on the sources that
label contradictions ({', '.join(data['contradiction_sources'])}).

## Choosing the views: leave one source out

Each candidate's models, τ and τ' are fitted on all sources but one and judged on that one.
A source one of the candidate's views read in training ("seen") is neither fitted on nor
judged for it; such a candidate's mean (*) covers the other sources only, and it cannot be
the default. What the held-out claims' types are worth, with τ, τ' and the decisive rules
(below) chosen on the other sources: per kind of claim (supported or not, weighing the
same), the share typed right less the share typed wrong; Uncertain is neither, so a
candidate gains by deciding only where it is right:

{table("net_right", "mean_net_right", "verbatim_net_right", "accept_all_net_right")}

The default is the candidate judged on every source with several views and the best mean
(ties to fewer views), unless a single view beats it; the best single view so judged is
{chosen['best_single_view']}. On the held-out source, the precision of Verified (the share
supported), of Unsupported (the share not supported), and the share of claims decided
(Verified or Unsupported):

{precision_rows}

ROC-AUC of P(supported) on the held-out source:

| candidate | {' | '.join(sources)} |
|---|{'---|' * len(sources)}
{chr(10).join(auc_rows)}

## Decisive rules

Claims each view called contradicted, by contradiction-score floor, on the sources it never
read: how many fired, and per source how many and the share of them not supported. A floor is
precise where that share is at least 0.95 in every source where ten or more fire (and 30 fire
in all): {precise}. A rule view (`numeric`, `lexical`) that the candidate reads, or that the
default runs beside it (`numeric`), decides Unsupported alone at its precise floor; decisive
here: {decisive}.

| view | floor | fired | per source |
|---|---|---|---|
{rule_rows}

{judge}
Fitted on {machine['cpu']}, Python {machine['python']}, NumPy {machine['numpy']}.
"""


def _judge_section(head: dict[str, Any] | None) -> str:
    if head is None:
        return ""
    if "reused_from" in head:
        return f"""
## The judge's head

Used once the judge has voted: P(supported) = {_model(head['support'])}. Not fitted anew: the
head of `{head['reused_from']}` (fitted when τ was {head['fitted_at_tau']:.4f}), its bias
shifted by the change of τ to {head['tau']:.4f}, so that it types Verified exactly the judged
claims it typed Verified before. Its lift and sink precision under the new τ are not yet
measured; `veritype train aggregator --judge` fits it anew (about 400 judged claims).
"""
    rows = "\n".join(
        f"| {source} | {v['claims']} | {_number(v['encoders_balanced_accuracy'])} | "
        f"{_number(v['judge']['balanced_accuracy'])} | "
        f"{_number(v['judge + encoders']['balanced_accuracy'])} |"
        for source, v in head["leave_one_source_out"].items())
    means = head["mean_balanced_accuracy"]
    on = head["on_judged_claims"]
    return f"""
## The judge's head

Used once the judge has voted (it is asked about the claims the encoders leave unsettled, with
P(supported) in {head['ask_band']}): P(supported) = {_model(head['support'])}, reading
{head['chosen']}. Fitted on {head['sample']} unsettled claims, as many from each source,
judged once. On those claims the head makes {on['verified']:.0%} Verified and
{on['unsupported']:.0%} Unsupported ({on['supported_share']:.0%} are supported).

Balanced accuracy on the held-out source's judged claims (leave one source out; each head's
threshold chosen on the other sources):

| source | claims | encoders at τ | judge | judge + encoders |
|---|---|---|---|---|
{rows}
| mean | | {_number(means['encoders'])} | {_number(means['judge'])} | \
{_number(means['judge + encoders'])} |
"""
