"""How the shipped default types the fitting sources, and which contradictions could decide
Unsupported on them.

The fit report holds, on the scores of every fitting pair:

- for each view, its contradiction by floor, per source (only the sources the view never
  read): a view may decide Unsupported alone only at a floor where at least
  {PRECISION:.0%} of the claims it fires on are not supported in every source where it fires
  {MIN_PER_SOURCE} times or more, and {MIN_FIRED} times in all (``precise_floor``);
- per source, the shipped default's types beside each single view's own verdict and the
  verbatim baseline: balanced accuracy of Verified against supported, and how often
  Unsupported is given and right.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from veritype.aggregate import StagedAggregator
from veritype.aggregate._base import views_read
from veritype.aggregate._calibrated import VERDICT_CODES
from veritype.aggregate._learned import LearnedAggregator
from veritype.evaluation.configurations import view_results
from veritype.evaluation.data import Example, is_verbatim
from veritype.evaluation.metrics import Bools, balanced_accuracy
from veritype.evaluation.scoring import ScoreTable
from veritype.graph import EvidenceType
from veritype.train._selection import CONTRADICTION_PRECISION as PRECISION
from veritype.train._selection import MIN_FIRED, lowest_precise_floor, seen_sources
from veritype.train.judge_head import evidence_types
from veritype.verdicts import Verdict

VETO_VIEWS = ("numeric", "lexical", "nli", "align")
VETO_FLOORS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98)
MIN_PER_SOURCE = 10

__doc__ = (__doc__ or "").format(PRECISION=PRECISION, MIN_FIRED=MIN_FIRED,
                                 MIN_PER_SOURCE=MIN_PER_SOURCE)


def precise_floor(floors: Sequence[dict[str, Any]]) -> float | None:
    """The lowest floor precise in every source where the rule fires often enough."""
    for row in floors:
        measured = [v["precision"] for v in row["per_source"].values()
                    if v["fired"] >= MIN_PER_SOURCE]
        if row["fired"] >= MIN_FIRED and measured and min(measured) >= PRECISION:
            return float(row["floor"])
    return None


def contradiction_rules(table: ScoreTable, supported: Bools, sources: npt.NDArray[np.str_]
                        ) -> dict[str, Any]:
    """Each view's contradiction by floor, judged on the sources it never read."""
    report: dict[str, Any] = {}
    contradicted = VERDICT_CODES[Verdict.CONTRADICTED]
    for view in (v for v in VETO_VIEWS if v in table.views):
        column = table.column(view)
        rows = ~np.isin(sources, sorted(seen_sources([view])))
        fired = table.verdict[rows, column] == contradicted
        _, measured = lowest_precise_floor(table.contradiction[rows, column], fired,
                                           supported[rows], sources[rows], VETO_FLOORS)
        report[view] = {"precise_floor": precise_floor(measured),
                        "judged_on": sorted({str(s) for s in sources[rows]}),
                        "floors": measured}
    return report


def types_of(model: StagedAggregator | LearnedAggregator, table: ScoreTable
             ) -> npt.NDArray[np.str_]:
    """The type ``model`` gives each row of ``table`` (encoders only: no judge voted)."""
    assert model.thresholds is not None
    return evidence_types(model.aggregate_batch(view_results(table, list(table.views))),
                          model.thresholds)


def typing_figures(types: npt.NDArray[np.str_], supported: Bools) -> dict[str, Any]:
    """Balanced accuracy of Verified against supported, and how often each type is right."""
    verified = types == EvidenceType.VERIFIED.value
    unsupported = types == EvidenceType.UNSUPPORTED.value
    return {"balanced_accuracy": balanced_accuracy(verified, supported),
            "verified": float(verified.mean()),
            "verified_precision": float(supported[verified].mean()) if verified.any() else None,
            "unsupported": float(unsupported.mean()),
            "unsupported_precision": float((~supported[unsupported]).mean())
            if unsupported.any() else None}


def _own_types(table: ScoreTable, view: str, rows: Bools) -> npt.NDArray[np.str_]:
    """A view's own verdict as a type: entailed → Verified, contradicted → Unsupported."""
    verdicts = table.verdict[rows, table.column(view)]
    return np.where(verdicts == VERDICT_CODES[Verdict.ENTAILED], EvidenceType.VERIFIED.value,
                    np.where(verdicts == VERDICT_CODES[Verdict.CONTRADICTED],
                             EvidenceType.UNSUPPORTED.value, EvidenceType.UNCERTAIN.value))


def per_source_comparison(model: StagedAggregator, table: ScoreTable, examples: Sequence[Example],
                          supported: Bools, sources: npt.NDArray[np.str_]) -> dict[str, Any]:
    """Per source: the default, each single view by its own verdict, and the verbatim
    baseline; figures on a source a view (or one of the default's views) read are marked
    seen."""
    typed = types_of(model, table)
    verbatim = np.array([is_verbatim(e) for e in examples])
    first_views = sorted(views_read(model.first.view_names))
    comparison: dict[str, Any] = {}
    for source in (str(s) for s in np.unique(sources)):
        rows = sources == source
        entry: dict[str, Any] = {
            "claims": int(rows.sum()),
            "default": {**typing_figures(typed[rows], supported[rows]),
                        "seen": source in seen_sources(first_views)}}
        for view in table.views:
            entry[view] = {**typing_figures(_own_types(table, view, rows), supported[rows]),
                           "seen": source in seen_sources([view])}
        entry["verbatim"] = {**typing_figures(
            np.where(verbatim[rows], EvidenceType.VERIFIED.value, EvidenceType.UNCERTAIN.value),
            supported[rows]), "seen": False}
        comparison[source] = entry
    return comparison


def default_typing_report(model: StagedAggregator, table: ScoreTable,
                          examples: Sequence[Example], supported: Bools,
                          sources: npt.NDArray[np.str_]) -> dict[str, Any]:
    """The shipped default's veto and thresholds, each view's contradiction rule as measured,
    and the per-source comparison."""
    return {"veto": None if model.first.veto is None else model.first.veto.to_dict(),
            "thresholds": list(model.thresholds or ()),
            "rules": contradiction_rules(table, supported, sources),
            "per_source": per_source_comparison(model, table, examples, supported, sources)}
