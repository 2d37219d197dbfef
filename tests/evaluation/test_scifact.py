"""SciFact: rows that compute what their names say, claim groups, trivial baselines, and a
selection that held-out labels cannot move."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from veritype.evaluation.configurations import fit_learned
from veritype.evaluation.data import Example, SciFactClaim, read_jsonl, scifact_claims
from veritype.evaluation.runner import EvalSettings, score, split_by_group
from veritype.evaluation.scifact import (
    CALIBRATION_SHARE,
    baselines,
    best_label_threshold,
    claim_groups,
    configurations,
    select,
)
from veritype.evaluation.scoring import ABSTAINED, CONTRADICTED, ENTAILED, UNKNOWN, ScoreTable

VIEWS = ("numeric", "lexical", "nli", "align")


def _claim(claim_id: int, cited: tuple[str, ...], evidence: tuple[str, ...] = ()
           ) -> SciFactClaim:
    return SciFactClaim(claim_id, f"claim {claim_id}", "NEI", {d: [0] for d in evidence}, cited)


def test_claims_sharing_an_abstract_form_one_group() -> None:
    claims = [_claim(1, ("a",)), _claim(2, ("b",)), _claim(3, ("b", "c")),
              _claim(4, ("d",), ("c",)), _claim(5, ())]
    groups = claim_groups(claims)
    assert groups[1] == groups[2] == groups[3]
    assert len({groups[0], groups[1], groups[4]}) == 3


def _table(verdicts: list[list[int]], scores: list[list[float]]) -> ScoreTable:
    rows = len(verdicts)
    return ScoreTable(VIEWS, VIEWS, np.array(scores), np.zeros((rows, len(VIEWS))),
                      np.array(verdicts, dtype=np.int8), [[() for _ in VIEWS] for _ in range(rows)],
                      rows)


def test_each_view_row_takes_contradict_from_its_own_view_only() -> None:
    table = _table(
        [[ABSTAINED, CONTRADICTED, ENTAILED, ENTAILED],
         [ABSTAINED, ENTAILED, CONTRADICTED, UNKNOWN],
         [ABSTAINED, ENTAILED, ENTAILED, ENTAILED]],
        [[0.0, 0.1, 0.9, 0.8], [0.0, 0.9, 0.1, 0.5], [0.0, 0.9, 0.9, 0.9]],
    )
    configs = configurations(table, (0.5,))
    assert configs["view:lexical"].against.tolist() == [True, False, False]
    assert configs["view:nli"].against.tolist() == [False, True, False]
    assert configs["view:align"].against.tolist() == [False, False, False]
    assert configs["view:nli (cal)"].against.tolist() == [False, True, False]
    assert configs["vote τ=0.5"].against.tolist() == [True, True, False]
    assert "lexical alone" in configs["view:lexical"].rule
    assert "any strong view" in configs["vote τ=0.5"].rule


def test_label_threshold_maximises_three_way_accuracy() -> None:
    scores = np.array([0.9, 0.8, 0.4, 0.2, 0.7])
    against = np.array([False, False, False, False, True])
    gold = np.array(["SUPPORT", "SUPPORT", "NEI", "NEI", "CONTRADICT"])
    assert best_label_threshold(scores, against, gold) == 0.8
    assert best_label_threshold(np.zeros(0), np.zeros(0, bool), np.zeros(0, str)) == 0.5


def test_baselines_take_the_majority_from_calibration_claims() -> None:
    examples = [Example(f"s{i}", f"g{i}", ("Aspirin lowers fever.",), claim, label)
                for i, (claim, label) in enumerate([("Aspirin lowers fever", "SUPPORT"),
                                                    ("x", "NEI"), ("y", "NEI"),
                                                    ("z", "CONTRADICT")])]
    gold = np.array([e.label for e in examples])
    predictions, majority = baselines(examples, gold, np.array([False, False, False, True]))
    assert majority == "CONTRADICT"
    assert predictions["majority class (CONTRADICT)"].tolist() == ["CONTRADICT"] * 4
    assert predictions["verbatim substring"].tolist() == ["SUPPORT", "NEI", "NEI", "NEI"]


def _examples(data_dir: Path, count: int) -> tuple[list[SciFactClaim], list[Example]]:
    """Dev claims against the opening sentences of their cited abstracts (label-blind, and
    short enough to score quickly)."""
    claims = scifact_claims(data_dir, "dev", count)
    wanted = {doc for claim in claims for doc in claim.cited_docs}
    opening = {str(row["doc_id"]): " ".join([str(row["title"]), *row["abstract"][:3]])
               for row in read_jsonl(data_dir / "scifact" / "corpus.jsonl")
               if str(row["doc_id"]) in wanted}
    examples = [Example(f"scifact-{c.claim_id}", str(c.claim_id),
                        tuple(opening[d] for d in c.cited_docs), c.claim, c.label)
                for c in claims]
    return claims, examples


@pytest.mark.slow
def test_selection_ignores_held_out_labels(data_dir: Path) -> None:
    claims, examples = _examples(data_dir, 40)
    table = score(EvalSettings(data_dir=data_dir), examples, "scifact")
    groups = claim_groups(claims)
    calibration = split_by_group(groups, 2024, CALIBRATION_SHARE)
    gold = np.array([c.label for c in claims])
    held = np.nonzero(~calibration)[0]
    permuted = gold.copy()
    permuted[held] = gold[held][np.random.default_rng(3).permutation(len(held))]
    assert not np.array_equal(permuted, gold)
    assert np.array_equal(permuted[calibration], gold[calibration])
    taus = (0.2, 0.6, 1.0)
    first = select(table, gold, calibration, groups, taus)
    second = select(table, permuted, calibration, groups, taus)
    assert first.learned is not None and second.learned is not None
    assert second.thresholds == first.thresholds
    assert second.learned.model.to_json() == first.learned.model.to_json()
    assert second.chosen == first.chosen
    assert second.calibration_accuracy == first.calibration_accuracy
    assert baselines(examples, permuted, calibration)[1] == baselines(examples, gold,
                                                                      calibration)[1]
    # The permutation reaches what is measured, and a fit on the held-out claims would move.
    predicted = first.predictions[first.chosen][held]
    assert np.mean(predicted == gold[held]) != np.mean(predicted == permuted[held])
    fits = [fit_learned(table.select(held), labels[held] == "SUPPORT",
                        [groups[i] for i in held], table.views).model.to_json()
            for labels in (gold, permuted)]
    assert fits[0] != fits[1]


def test_the_shipped_default_is_a_configuration_when_its_views_are_scored() -> None:
    table = _table(
        [[ABSTAINED, ENTAILED, ENTAILED, ENTAILED], [CONTRADICTED, UNKNOWN, UNKNOWN, UNKNOWN]],
        [[0.0, 0.9, 0.95, 0.9], [0.0, 0.1, 0.1, 0.1]],
    )
    configs = configurations(table, (0.5,))
    default, calibrated = configs["default"], configs["default (cal)"]
    assert default.threshold is not None and 0.0 < default.threshold < 1.0
    assert calibrated.threshold is None
    assert default.scores[0] > default.scores[1]
    assert "shipped default aggregator" in default.rule
