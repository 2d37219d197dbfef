"""Statistics against reference implementations (scipy) and hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from veritype.evaluation.metrics import (
    Bootstrap,
    agreement,
    binary_metrics,
    confusion,
    fleiss_kappa,
    mcnemar,
    precision_recall_curve,
    threshold_for_f1,
    threshold_for_precision,
)


def test_confusion_and_rates_by_hand() -> None:
    accepted = np.array([True, True, True, False, False, False])
    truth = np.array([True, True, False, True, False, False])
    assert confusion(accepted, truth) == {"tp": 2, "fp": 1, "fn": 1, "tn": 2}
    metrics = binary_metrics(accepted, truth)
    assert metrics["precision"] == pytest.approx(2 / 3)
    assert metrics["recall"] == pytest.approx(2 / 3)
    assert metrics["fpr"] == pytest.approx(1 / 3)
    assert metrics["hallucination_rate"] == pytest.approx(1 / 3)
    assert metrics["accuracy"] == pytest.approx(4 / 6)


@pytest.mark.parametrize(("b", "c"), [(0, 5), (3, 9), (10, 11), (40, 17), (1, 0), (120, 80)])
def test_mcnemar_matches_scipy(b: int, c: int) -> None:
    both_right = 7
    a = np.array([True] * b + [False] * c + [True] * both_right)
    other = np.array([False] * b + [True] * c + [True] * both_right)
    result = mcnemar(a, other)
    assert (result["b"], result["c"]) == (b, c)
    exact = stats.binomtest(min(b, c), b + c, 0.5).pvalue
    assert result["p_exact"] == pytest.approx(exact, rel=1e-9)
    chi2 = (abs(b - c) - 1) ** 2 / (b + c)
    assert result["chi2"] == pytest.approx(chi2)
    assert result["p_chi2"] == pytest.approx(stats.chi2.sf(chi2, 1), rel=1e-9)


def test_mcnemar_without_discordant_pairs() -> None:
    same = np.array([True, False, True])
    assert mcnemar(same, same)["p_exact"] == 1.0


def test_fleiss_kappa_hand_computed() -> None:
    # Item 1: all three raters chose A; item 2: one A, two B.
    # P1 = 1, P2 = 1/3, mean 2/3; category shares 4/6 and 2/6, Pe = 5/9; κ = (2/3-5/9)/(4/9).
    assert fleiss_kappa(np.array([[3, 0], [1, 2]])) == pytest.approx(0.25)


def test_fleiss_kappa_published_example() -> None:
    # The 10-item, 14-rater, 5-category example of Fleiss (1971) as usually reproduced: κ ≈ 0.210.
    table = np.array([
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ])
    assert fleiss_kappa(table) == pytest.approx(0.2099, abs=1e-4)


def test_fleiss_kappa_rejects_uneven_ratings() -> None:
    with pytest.raises(ValueError, match="same number of ratings"):
        fleiss_kappa(np.array([[2, 0], [1, 2]]))


def test_bootstrap_interval_contains_estimate_and_is_reproducible() -> None:
    rng = np.random.default_rng(1)
    truth = rng.random(400) < 0.5
    accepted = np.where(rng.random(400) < 0.8, truth, ~truth)
    groups = [f"g{i // 4}" for i in range(400)]
    first = Bootstrap.draw(groups, 300, seed=3).intervals(accepted, truth)
    again = Bootstrap.draw(groups, 300, seed=3).intervals(accepted, truth)
    assert first == again
    point = binary_metrics(accepted, truth)
    for name in ("precision", "recall", "accuracy"):
        low, high = first[name]
        assert low <= point[name] <= high
        assert high - low < 0.2


def test_bootstrap_resamples_whole_groups() -> None:
    weights = Bootstrap.draw(["a", "a", "b", "c", "c", "c"], 50, seed=0).weights
    # Rows of one group are always drawn together, and each resample draws 3 groups.
    assert np.all(weights[:, 0] == weights[:, 1])
    assert np.all(weights[:, 3] == weights[:, 5])
    assert np.all(weights[:, [0, 2, 3]].sum(axis=1) == 3)


def test_precision_recall_curve_and_thresholds() -> None:
    scores = np.array([0.9, 0.8, 0.8, 0.4, 0.2])
    truth = np.array([True, True, False, True, False])
    curve = precision_recall_curve(scores, truth)
    assert curve["threshold"] == [0.9, 0.8, 0.4, 0.2]
    assert curve["precision"] == pytest.approx([1.0, 2 / 3, 3 / 4, 3 / 5])
    assert curve["recall"] == pytest.approx([1 / 3, 2 / 3, 1.0, 1.0])
    assert threshold_for_precision(scores, truth, 0.7) == 0.4
    assert threshold_for_precision(scores, truth, 1.01) is None
    assert threshold_for_f1(scores, truth) == 0.4


def test_agreement_and_cohen_kappa() -> None:
    a = np.array([True, True, False, False])
    b = np.array([True, False, False, False])
    result = agreement(a, b)
    assert result["agreement"] == 0.75
    # Chance agreement 0.5*0.25 + 0.5*0.75 = 0.5, so κ = (0.75 - 0.5) / 0.5.
    assert result["cohen_kappa"] == pytest.approx(0.5)


def test_roc_auc_counts_ties_as_half() -> None:
    from veritype.evaluation.metrics import roc_auc

    truth = np.array([True, True, False, False])
    assert roc_auc(np.array([0.9, 0.8, 0.3, 0.1]), truth) == 1.0
    assert roc_auc(np.array([0.1, 0.2, 0.8, 0.9]), truth) == 0.0
    assert roc_auc(np.array([0.5, 0.5, 0.5, 0.5]), truth) == 0.5


def test_roc_auc_is_the_share_of_positive_negative_pairs_ranked_right() -> None:
    from veritype.evaluation.metrics import roc_auc

    rng = np.random.default_rng(7)
    for _ in range(20):
        scores = np.round(rng.random(300), 1)  # many ties
        truth = rng.random(300) < scores
        positive, negative = scores[truth], scores[~truth]
        above = (positive[:, None] > negative[None, :]).sum()
        tied = (positive[:, None] == negative[None, :]).sum()
        expected = (above + tied / 2) / (len(positive) * len(negative))
        assert roc_auc(scores, truth) == pytest.approx(expected)
