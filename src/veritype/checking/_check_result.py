"""What a check found: every row's result, the rows it skipped, and the file's figures, as
records, DataFrames and a summary."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from veritype.checking._row_result import RowResult, RowVerdict, UncertainAs
from veritype.checking._rows import BadRow
from veritype.checking._verify import CheckSettings
from veritype.errors import InputError
from veritype.graph import EvidenceType
from veritype.thresholds import Thresholds

# The verdict of an input row that could not be checked, in :meth:`CheckResult.records`.
SKIPPED = "skipped"
PANDAS_NEEDED = "a DataFrame needs pandas: pip install pandas (records() gives the same rows)"


@dataclass
class CheckResult:
    """Every checked row (in file order), every skipped row, how the check ran and the τ and
    τ' its claims were typed by. ``uncertain_as`` says how Uncertain claims and ``uncertain``
    rows count in every faithfulness figure here (see :class:`UncertainAs`)."""

    rows: list[RowResult]
    bad_rows: list[BadRow]
    settings: CheckSettings
    thresholds: Thresholds
    engine: str = "local"
    workers: int = 1
    seconds: float = 0.0
    checked_now: int = 0
    source: str | None = None
    uncertain_as: UncertainAs = UncertainAs.FAIL

    def faithfulness_of(self, row: RowResult) -> float | None:
        """The row's faithfulness as this result counts it (``uncertain_as``)."""
        return row.faithfulness_as(self.uncertain_as)

    def _scores(self) -> list[float]:
        return [score for row in self.rows if (score := self.faithfulness_of(row)) is not None]

    @property
    def mean_faithfulness(self) -> float | None:
        scores = self._scores()
        return float(np.mean(scores)) if scores else None

    @property
    def mean_relevance(self) -> float | None:
        """The mean relevance of the answers to their questions (rows with a question)."""
        scores = [r.relevance for r in self.rows if r.relevance is not None]
        return float(np.mean(scores)) if scores else None

    def faithfulness_interval(self, resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
        """A 95% bootstrap interval of the mean faithfulness over rows."""
        scores = np.array(self._scores())
        if scores.size == 0:
            return (float("nan"), float("nan"))
        rng = np.random.default_rng(seed)
        means = scores[rng.integers(0, scores.size, (resamples, scores.size))].mean(axis=1)
        low, high = np.quantile(means, [0.025, 0.975])
        return (float(low), float(high))

    def worst(self, count: int = 10) -> list[RowResult]:
        """The rows with the lowest faithfulness, most Unsupported claims first among equals."""
        scored = [(score, r) for r in self.rows if (score := self.faithfulness_of(r)) is not None]
        ranked = sorted(scored, key=lambda pair: (pair[0], -pair[1].counts()[
            EvidenceType.UNSUPPORTED], pair[1].row.line))
        return [row for _, row in ranked[:count]]

    def histogram(self, bins: int = 10) -> list[int]:
        """Row counts per faithfulness bin of width ``1/bins``; 1.0 falls in the last."""
        counts = [0] * bins
        for score in self._scores():
            counts[min(bins - 1, int(score * bins))] += 1
        return counts

    def records(self) -> list[dict[str, Any]]:
        """One record per input row, in input order: its faithfulness (as ``uncertain_as``
        counts it), verdict, ``needs_review`` (the verdict is ``uncertain``), and its
        Unsupported and Uncertain claims each with its reason and answer span; a skipped
        row has verdict ``skipped`` and its problem."""
        records: list[dict[str, Any]] = []
        for row in self.rows:
            counts = row.counts()
            records.append({
                "line": row.row.line, "id": row.row.row_id, "question": row.row.question,
                "answer": row.row.answer, "faithfulness": self.faithfulness_of(row),
                "verdict": row.verdict.value, "needs_review": row.needs_review,
                "relevance": row.relevance,
                "claims": len(row.claims),
                **{kind.value: counts[kind] for kind in EvidenceType},
                "unsupported_claims": _failing(row, EvidenceType.UNSUPPORTED),
                "uncertain_claims": _failing(row, EvidenceType.UNCERTAIN),
                "problem": None,
            })
        for bad in self.bad_rows:
            records.append({"line": bad.line, "verdict": SKIPPED, "needs_review": False,
                            "problem": bad.problem})
        return sorted(records, key=lambda record: int(record["line"]))

    def claim_records(self) -> list[dict[str, Any]]:
        """One record per claim: its row, text, type, support, reason, its span in the
        answer, each view's verdict and score, and its citations as character spans of the
        row's contexts (``context`` counts from 0, as in the row's list)."""
        records: list[dict[str, Any]] = []
        for row in self.rows:
            for claim in row.claims:
                views: dict[str, Any] = {}
                for name, (verdict, score) in claim.views.items():
                    views[f"{name}_verdict"] = verdict
                    views[f"{name}_score"] = score
                records.append({
                    "line": row.row.line, "id": row.row.row_id, "claim": claim.written,
                    "checked_as": claim.text, "type": claim.type.value,
                    "support": claim.support, "reason": claim.reason,
                    "answer_start": claim.start, "answer_end": claim.end, **views,
                    "citations": [c.to_dict() for c in claim.citations],
                })
        return records

    def to_pandas(self) -> Any:
        """:meth:`records` as a pandas DataFrame (needs pandas)."""
        return _data_frame(self.records())

    def claims_frame(self) -> Any:
        """:meth:`claim_records` as a pandas DataFrame (needs pandas)."""
        return _data_frame(self.claim_records())

    def failing_rows(self) -> list[RowResult]:
        """The checked rows that do not pass (``uncertain`` ones too, with ``fail``)."""
        return [row for row in self.rows if not row.passes(self.uncertain_as)]

    def summary(self) -> dict[str, Any]:
        """The file's figures. ``verdicts`` counts rows per verdict and ``needs_review``
        the ``uncertain`` ones; ``tau`` and ``tau_low`` are the thresholds the claims were
        typed by; faithfulness counts Uncertain claims as ``uncertain_as`` says."""
        verdicts = {v.value: sum(r.verdict is v for r in self.rows) for v in RowVerdict}
        claims = {t.value: sum(r.counts()[t] for r in self.rows) for t in EvidenceType}
        mean, relevance = self.mean_faithfulness, self.mean_relevance
        return {
            "rows": len(self.rows) + len(self.bad_rows),
            "checked": len(self.rows),
            "skipped": len(self.bad_rows),
            "mean_faithfulness": None if mean is None else round(mean, 4),
            "mean_faithfulness_ci95": None if mean is None else [
                round(x, 4) for x in self.faithfulness_interval()],
            "mean_relevance": None if relevance is None else round(relevance, 4),
            "verdicts": verdicts,
            "needs_review": verdicts[RowVerdict.UNCERTAIN.value],
            "failing_rows": len(self.failing_rows()),
            "uncertain_as": self.uncertain_as.value,
            "tau": self.thresholds.tau,
            "tau_low": self.thresholds.tau_low,
            "claims": claims,
            "histogram": self.histogram(),
            "engine": self.engine,
            "workers": self.workers,
            "seconds": round(self.seconds, 2),
            "checked_now": self.checked_now,
            "rows_per_second": round(self.checked_now / self.seconds, 3)
            if self.seconds > 0 and self.checked_now else None,
            "settings": self.settings.to_dict(),
            "source": self.source,
        }


def _failing(row: RowResult, kind: EvidenceType) -> list[dict[str, Any]]:
    return [{"claim": claim.written, "reason": claim.reason, "start": claim.start,
             "end": claim.end} for claim in row.claims_of(kind)]


def _data_frame(records: list[dict[str, Any]]) -> Any:
    try:
        # Imported by name: pandas is optional and ships no type information.
        pandas = importlib.import_module("pandas")
    except ImportError:
        raise InputError(PANDAS_NEEDED) from None
    return pandas.DataFrame.from_records(records)
