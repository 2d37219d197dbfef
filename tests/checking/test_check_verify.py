"""Checking rows with the shipped models: types, citations, verdicts and independence."""

from __future__ import annotations

import pytest
from check_support import (
    BAND_ROWS,
    BAND_SETTINGS,
    BAND_TAU,
    BAND_TAU_LOW,
    BROOKLYN,
    GOLDEN_GATE,
    IN_THE_BAND,
    ROWS,
)

from veritype import check
from veritype.aggregate import DEFAULT_VIEWS, default_for, recommended_thresholds
from veritype.checking import (
    CheckResult,
    CheckRow,
    CheckSettings,
    RowResult,
    RowVerdict,
    UncertainAs,
)
from veritype.errors import InputError
from veritype.graph import EvidenceType


@pytest.fixture(scope="module")
def checked() -> CheckResult:
    return check(ROWS)


def _row(result: CheckResult, row_id: str) -> RowResult:
    return next(row for row in result.rows if row.row.row_id == row_id)


def test_a_supported_answer_is_faithful_and_cites_the_exact_sentence(
        checked: CheckResult) -> None:
    row = _row(checked, "gg-right")
    assert row.verdict is RowVerdict.FAITHFUL and row.faithfulness == 1.0
    (claim,) = row.claims
    assert claim.type is EvidenceType.VERIFIED
    assert claim.citations, "a Verified claim cites its evidence"
    for cited in claim.citations:
        assert cited.context == 0
        assert GOLDEN_GATE[cited.start:cited.end] == cited.quote
        assert "1937" in cited.quote


def test_another_bridges_date_is_not_verified(checked: CheckResult) -> None:
    row = _row(checked, "gg-wrong-date")
    assert row.verdict is not RowVerdict.FAITHFUL
    assert all(claim.type is not EvidenceType.VERIFIED for claim in row.claims)


def test_a_bare_answer_is_checked_with_its_question(checked: CheckResult) -> None:
    row = _row(checked, "short")
    (claim,) = row.claims
    assert claim.written == "John A. Roebling"
    assert claim.text == "Who designed the Brooklyn Bridge? John A. Roebling"
    assert claim.type is EvidenceType.VERIFIED
    assert BROOKLYN[claim.citations[0].start:claim.citations[0].end] == claim.citations[0].quote


def test_a_refusal_has_no_claims_and_no_faithfulness(checked: CheckResult) -> None:
    row = _row(checked, "refusal")
    assert row.verdict is RowVerdict.NO_CLAIMS and row.faithfulness is None and not row.claims


def test_a_mixed_answer_scores_the_share_of_verified_claims(checked: CheckResult) -> None:
    row = _row(checked, "mixed")
    types = [claim.type for claim in row.claims]
    assert types[0] is EvidenceType.VERIFIED and types[1] is not EvidenceType.VERIFIED
    assert row.faithfulness == pytest.approx(0.5)
    assert row.verdict is not RowVerdict.FAITHFUL


def test_bad_rows_are_reported_not_raised(checked: CheckResult) -> None:
    assert [(bad.line, bad.problem) for bad in checked.bad_rows] == [
        (6, "answer: the answer is empty or not text")]
    assert checked.summary()["rows"] == len(ROWS)


def test_a_rows_result_does_not_depend_on_the_rows_around_it(checked: CheckResult) -> None:
    alone = check([CheckRow(1, ROWS[4]["answer"], tuple(ROWS[4]["contexts"]),
                            ROWS[4]["question"], "mixed")], block_rows=1)
    assert alone.rows[0].claims == _row(checked, "mixed").claims


def test_summary_counts_and_histogram_agree_with_the_rows(checked: CheckResult) -> None:
    summary = checked.summary()
    scored = [row for row in checked.rows if row.faithfulness is not None]
    assert sum(summary["histogram"]) == len(scored)
    assert summary["verdicts"]["no claims"] == 1
    assert summary["mean_faithfulness"] == pytest.approx(
        sum(row.faithfulness for row in scored) / len(scored), abs=1e-4)
    low, high = summary["mean_faithfulness_ci95"]
    assert low <= summary["mean_faithfulness"] <= high
    assert checked.worst(1)[0].faithfulness == 0.0


def test_unknown_views_and_bad_thresholds_are_refused() -> None:
    with pytest.raises(InputError, match="view 'oracle'"):
        check([], settings=CheckSettings(views=("numeric", "oracle")))
    with pytest.raises(InputError, match="tau"):
        check([], settings=CheckSettings(tau=0.2, tau_low=0.5))


BERLIN = ("The Berlin Wall divided the city from 1961. The Berlin Wall fell on 9 November "
          "1989, when the border crossings were opened.")


@pytest.mark.parametrize("question", [None, "When did the Berlin Wall fall?"])
def test_a_statement_with_an_irregular_verb_is_not_glued_to_its_question(
        question: str | None) -> None:
    row = {"answer": "The Berlin Wall fell on 9 November 1989.", "contexts": [BERLIN]}
    if question is not None:
        row["question"] = question
    (result,) = check([row]).rows
    assert [claim.text for claim in result.claims] == ["The Berlin Wall fell on 9 November 1989."]
    assert result.verdict is RowVerdict.FAITHFUL


def test_a_pronoun_after_a_quantified_subject_is_not_replaced_by_the_quantifier() -> None:
    answer = ("Most of the Great Wall that stands today was built during the Ming dynasty. "
              "It was built entirely in the Qin dynasty.")
    context = "Most of the Great Wall that stands today was built during the Ming dynasty."
    (result,) = check([{"question": "When was the Great Wall built?", "answer": answer,
                        "contexts": [context]}]).rows
    texts = [claim.text for claim in result.claims]
    assert "It was built entirely in the Qin dynasty." in texts
    assert not any(text.startswith("Most was") for text in texts)


@pytest.fixture(scope="module")
def banded() -> CheckResult:
    return check(BAND_ROWS, settings=BAND_SETTINGS)


def test_a_claim_inside_the_band_is_uncertain_and_its_row_needs_review(
        banded: CheckResult) -> None:
    row = _row(banded, "needs-review")
    assert [(claim.written, claim.type) for claim in row.claims] == [
        ("The Eiffel Tower is in Paris.", EvidenceType.VERIFIED),
        (IN_THE_BAND, EvidenceType.UNCERTAIN)]
    assert BAND_TAU_LOW < row.claims[1].support < BAND_TAU
    assert row.claims[1].reason, "an Uncertain claim says why it is not Verified"
    assert row.verdict is RowVerdict.UNCERTAIN and row.needs_review
    assert row.faithfulness == 0.5
    assert row.faithfulness_as(UncertainAs.FAIL) == 0.5
    assert row.faithfulness_as(UncertainAs.PASS) == 1.0
    assert not row.passes(UncertainAs.FAIL) and row.passes(UncertainAs.PASS)
    wrong = _row(banded, "wrong")
    assert wrong.verdict is RowVerdict.UNFAITHFUL and not wrong.needs_review
    assert not wrong.passes(UncertainAs.PASS), "pass lets Uncertain through, not Unsupported"


def test_the_result_states_the_thresholds_it_typed_by(banded: CheckResult) -> None:
    assert (banded.thresholds.tau, banded.thresholds.tau_low) == (BAND_TAU, BAND_TAU_LOW)
    default = check([]).thresholds
    assert (default.tau, default.tau_low) == recommended_thresholds(
        default_for(DEFAULT_VIEWS, ["numeric", "nli"]))
    # Below the claim's support, τ makes the same claim Verified.
    lowered = check(BAND_ROWS[:1], settings=BAND_SETTINGS.model_copy(update={"tau": 0.5}))
    assert lowered.rows[0].verdict is RowVerdict.FAITHFUL


def test_uncertain_as_sets_every_figure_of_the_result() -> None:
    failing = check(BAND_ROWS, settings=BAND_SETTINGS)
    passing = check(BAND_ROWS, settings=BAND_SETTINGS, uncertain_as="pass")
    assert failing.mean_faithfulness == pytest.approx(0.5)
    assert passing.mean_faithfulness == pytest.approx(2 / 3)
    assert [row.row.row_id for row in failing.failing_rows()] == ["needs-review", "wrong"]
    assert [row.row.row_id for row in passing.failing_rows()] == ["wrong"]
    for result, counted in [(failing, "fail"), (passing, "pass")]:
        summary = result.summary()
        assert summary["verdicts"] == {"faithful": 1, "unfaithful": 1, "uncertain": 1,
                                       "no claims": 0}
        assert summary["needs_review"] == 1 and summary["uncertain_as"] == counted
        assert (summary["tau"], summary["tau_low"]) == (BAND_TAU, BAND_TAU_LOW)
    assert failing.histogram()[5] == 1 and passing.histogram()[9] == 2
    with pytest.raises(InputError, match="uncertain_as must be one of fail, pass"):
        check(BAND_ROWS, uncertain_as="maybe")  # type: ignore[arg-type]
