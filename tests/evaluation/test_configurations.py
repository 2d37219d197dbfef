"""Configurations over a score table: vote, single views, learned fit, early-stop accounting."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from veritype.aggregate import VoteAggregator
from veritype.budget import run_views
from veritype.claims import Claim
from veritype.evaluation.configurations import (
    early_stop_calls,
    fit_learned,
    vote_mass,
    vote_score,
)
from veritype.evaluation.scoring import ABSTAINED, CONTRADICTED, ENTAILED, VERDICTS, ScoreTable
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph
from veritype.thresholds import Thresholds
from veritype.views import ViewResult

VIEWS = ("numeric", "lexical", "nli", "align")
COSTS = (0.5, 0.2, 5.0, 5.0)


def _table(verdicts: np.ndarray, scores: np.ndarray | None = None) -> ScoreTable:
    rows = len(verdicts)
    scores = scores if scores is not None else np.where(verdicts == ENTAILED, 0.9, 0.1)
    return ScoreTable(VIEWS, ("lexical", "nli", "align"), scores, np.zeros_like(scores),
                      verdicts.astype(np.int8), [[() for _ in VIEWS] for _ in range(rows)],
                      rows, costs=COSTS)


def test_vote_mass_skips_abstentions_and_contradiction_zeroes_the_score() -> None:
    verdicts = np.array([
        [ABSTAINED, ENTAILED, ENTAILED, 2],
        [ENTAILED, ENTAILED, ENTAILED, ENTAILED],
        [ABSTAINED, CONTRADICTED, ENTAILED, ENTAILED],
        [ABSTAINED, ABSTAINED, ABSTAINED, ABSTAINED],
    ])
    table = _table(verdicts)
    np.testing.assert_allclose(vote_mass(table, VIEWS), [2 / 3, 1.0, 2 / 3, 0.0])
    np.testing.assert_allclose(vote_score(table, VIEWS), [2 / 3, 1.0, 0.0, 0.0])
    # numeric is not strong here: its contradiction does not zero the score.
    verdicts[1, 0] = CONTRADICTED
    assert vote_score(_table(verdicts), VIEWS)[1] == pytest.approx(0.75)


class _Replay:
    """A view that answers with the verdicts recorded in a table column."""

    def __init__(self, table: ScoreTable, column: int) -> None:
        self.name, self.cost = VIEWS[column], COSTS[column]
        self.strong = self.name in table.strong
        self._table, self._column = table, column

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
        return self.verify_batch([claim], [evidence])[0]

    def verify_batch(self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
                     ) -> list[ViewResult]:
        out = []
        for claim in claims:
            row = int(claim.claim_id[1:])
            verdict = VERDICTS[int(self._table.verdict[row, self._column])]
            out.append(ViewResult(self.name, verdict, float(self._table.score[row, self._column])))
        return out


@pytest.mark.parametrize(("tau", "tau_low"), [(0.8, 0.3), (0.5, 0.25), (1.0, 0.3)])
def test_early_stop_calls_match_the_budget_allocator(tau: float, tau_low: float) -> None:
    rng = np.random.default_rng(7)
    verdicts = rng.choice([ENTAILED, CONTRADICTED, 2, ABSTAINED], size=(300, 4),
                          p=[0.5, 0.05, 0.3, 0.15])
    table = _table(verdicts)
    accounted = early_stop_calls(table, tau, tau_low)
    claims = [Claim(f"c{i}", f"claim {i}") for i in range(len(verdicts))]
    graph = BeliefGraph.from_claims(claims)
    pack = EvidencePack.from_texts(["evidence"])
    spend = run_views(graph, {c.claim_id: pack for c in claims},
                      [_Replay(table, k) for k in range(4)],
                      aggregator=VoteAggregator(strong=table.strong),
                      thresholds=Thresholds(tau, tau_low))
    assert accounted["calls"] == spend.calls
    assert accounted["cost"] == pytest.approx(spend.spent)
    assert 0 < accounted["calls"] < accounted["calls_without_early_stop"]


def test_learned_fit_separates_and_round_trips() -> None:
    rng = np.random.default_rng(0)
    truth = rng.random(400) < 0.5
    scores = np.clip(np.where(truth[:, None], 0.7, 0.3) + rng.normal(0, 0.2, (400, 4)), 0, 1)
    verdicts = np.where(scores > 0.5, ENTAILED, 2)
    table = _table(verdicts, scores)
    fit = fit_learned(table, truth, [f"g{i // 2}" for i in range(400)], VIEWS,
                      contradiction_features=True)
    predicted = fit.scores(table)
    assert np.mean((predicted >= 0.5) == truth) > 0.85
    assert len(fit.model.view_names) == 8
    assert fit.l2 in (1e-4, 1e-3, 1e-2, 1e-1)
