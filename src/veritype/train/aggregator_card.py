"""The default aggregator's model card, written from its fit report (``aggregator.fit_default``)."""

from __future__ import annotations

from typing import Any

# The precision targets of the fit, which the card states.
TARGET_PRECISION = 0.95
VETO_PRECISION = 0.95
MIN_VETOED = 10
UNSUPPORTED_PRECISION = 0.90


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _with_ci(value: float, interval: list[float]) -> str:
    return f"{value:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def model_card(report: dict[str, Any]) -> str:
    """The card shipped beside the default aggregator, written from the fit report."""
    chosen, check, data = report["chosen"], report["check"], report["data"]
    features = ", ".join(chosen["features"])
    products = " and their pairwise products" if chosen["products"] else ""
    rows = "\n".join(
        f"| {c['candidate']} | {', '.join(c['features']) or 'not monotone'} | "
        f"{_number(c['tau'])} | {c['choose_recall']:.3f} | {_number(c['choose_auc'])} |"
        for c in report["candidates"]
    )
    vetoes = "\n".join(
        f"| {', '.join(v['views']) if v['views'] else 'any strong'} | {v['quorum']} | "
        f"{v['floor']:.2f} | {v['vetoed']} | {_number(v['precision'])} |"
        for v in report["vetoes"]
    )
    veto = chosen["veto"]
    veto_rule = (
        "never: no (quorum, floor) reached the target, so a contradiction only lowers the score "
        "through the views' scores, and a claim is Unsupported when its score is at or below τ'"
        if veto is None else
        f"when at least {veto['quorum']} of "
        f"{', '.join(veto['views']) if veto.get('views') else 'the strong views'} say "
        f"contradicted with a contradiction score of at least {veto['floor']:.2f}"
    )
    parts = ", ".join(f"{name} {v['examples']:,} ({v['supported']:,} supported)"
                      for name, v in data["parts"].items())
    first, stop = data["halueval_dialogue_rows"]
    ci, verbatim, machine = check["ci95"], check["verbatim_baseline"], report["machine"]
    vote = check["vote_at_0_8"]
    verified = (f"| Verified at τ | {_with_ci(check['precision'], ci['precision'])} | "
                f"{_with_ci(check['recall'], ci['recall'])} |")
    return f"""# The default aggregator

A logistic regression over {features}{products}, giving P(supported) for a
claim. Shipped as `aggregator.json`; `veritype train aggregator` rewrites this folder from
the data below.

## Data: training-side only

- HaluEval dialogue rows {first}–{stop - 1} (MIT; the dialogues come from OpenDialKG,
  CC BY-NC 4.0): the knowledge as evidence, the right response supported, the hallucinated
  response not. Neither shipped verifier read these rows (`align` trained on rows 0–3999;
  rows 7000 and above are kept for calibration and evaluation elsewhere). A response checked
  against the passage it should rest on is what veritype does.
- Not the NLI pool: its `train/` files are all `nli`'s training data, and a fit on pairs a
  view has read trusts it more than it deserves.
- Nothing from an evaluation split (NLI `eval/`, HaluEval rows ≥ 7000, SciFact dev,
  TruthfulQA).

{data['examples']:,} examples, split by HaluEval row (seed {data['seed']}): {parts}.

## Choices, made on the *choose* part

First the contradiction veto. A veto is reliable when at least {VETO_PRECISION} of the claims
it fires on are unsupported, over at least {MIN_VETOED} claims:

| views | quorum | contradiction score ≥ | vetoed | share unsupported |
|---|---|---|---|---|
{vetoes}

A contradiction vetoes a claim {veto_rule}.

Then the features, each set fitted on the *fit* part with that veto and
kept monotone (more support from any view never lowers P(supported): a feature whose weight
comes out negative is dropped and the rest refitted). `align` was trained on other rows of
the same HaluEval tasks, so it reads these rows as its own kind of data; it enters only
through its agreement with `nli` (`nli*align`, high only when both entail):

| candidate | features kept | τ at P ≥ {TARGET_PRECISION} | recall | ROC-AUC |
|---|---|---|---|---|
{rows}

Chosen: **{chosen['candidate']}**, τ = {chosen['tau']:.3f}
(the lowest threshold whose Verified claims reach precision {TARGET_PRECISION} on *choose*)
and τ' = {chosen['tau_low']:.3f} (the highest threshold at or below which
{UNSUPPORTED_PRECISION:.0%} of claims are unsupported).

## Figures on the *check* part (read once, after the choices)

| | precision | recall |
|---|---|---|
{verified}
| the vote at τ = 0.8 (the previous default) | {vote['precision']:.3f} | {vote['recall']:.3f} |
| accept everything | {check['accept_all_precision']:.3f} | 1.000 |
| verbatim substring | {verbatim['precision']:.3f} | {verbatim['recall']:.3f} |

95% intervals: group bootstrap, 1,000 resamples. ROC-AUC {check['auc']:.3f}.

{judge_stage_section(report.get("judge_stage"))}
Machine: {machine['cpu']}, Python {machine['python']}, numpy {machine['numpy']}.
"""


def judge_stage_section(stage: dict[str, Any] | None) -> str:
    """The card's account of the judge stage; empty when none was fitted."""
    if stage is None:
        return ""
    low, high = stage["borderline_band"]
    rows = "\n".join(
        f"| {c['candidate']} | {', '.join(c['features']) or 'not monotone'} | "
        f"{_number(c['threshold'])} | {c['choose_recall']:.3f} | "
        f"{_number(c.get('choose_auc'))} |"
        for c in stage["candidates"]
    )
    seconds = stage["judge_seconds_per_claim"]
    cost = "time not measured" if seconds is None else f"about {seconds:.2f} s"
    head = f"""## The judge stage

With the `judge` view on (the `judge` extra), the budget sends the judge the claims this
model leaves Uncertain (score in ({low:.3f}, {high:.3f})). A second logistic model, over this
model's features and the judge's P(yes), scores those claims; where it reaches τ it lifts
the claim to Verified. It never lowers a claim: a yes/no judge cannot tell a refuted claim
from an unstated one.

Data: {stage['sample']:,} borderline claims of the same rows, sampled in a fixed order. The
judge took {cost} per claim on this machine. The model is fitted on their *fit* part; its
threshold is the lowest whose lifted claims reach precision {TARGET_PRECISION} on those of
*choose*:

| candidate | features kept | threshold | recall | ROC-AUC |
|---|---|---|---|---|
{rows}
"""
    if stage["chosen"] is None:
        return head + (f"\nNo candidate reached precision {TARGET_PRECISION}, so no judge stage "
                       "ships: with the judge on, its answers do not change any claim's type.\n")
    check = stage["check"]
    return head + f"""
Chosen: **{', '.join(stage['chosen']['features'])}**. On the borderline claims of *check*
({check['borderline_claims']:,}, read once):

| | precision | recall |
|---|---|---|
| lifted to Verified | {_with_ci(check['precision'], check['ci95']['precision'])} | \
{_with_ci(check['recall'], check['ci95']['recall'])} |
| accept every borderline claim | {check['accept_all_precision']:.3f} | 1.000 |

The judge's own ROC-AUC there: {check['judge_auc']:.3f}.
"""
