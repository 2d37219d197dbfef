"""``assert_faithful`` in a test suite: passes on a faithful answer, fails listing the
claims that are not Verified and why, Uncertain ones as needing review."""

from __future__ import annotations

import pytest

from veritype.checking import CheckSettings, RowVerdict
from veritype.errors import InputError
from veritype.testing import assert_faithful

CONTEXT = "The Eiffel Tower is in Paris. The tower is 330 metres tall. It opened in 1889."
# The vote of numeric and nli with τ 0.8 and τ' 0.3: numeric finds 1889 stated, nli does not
# find the visitors, so the claim's support is 1/2 and it is Uncertain. (The vote, not the
# fitted default, so that refitting the default cannot move it out of the band.)
BAND = CheckSettings(views=("numeric", "nli"), aggregator="vote", tau=0.8, tau_low=0.3)
UNCERTAIN = "The Eiffel Tower first welcomed visitors in 1889."


def test_a_faithful_answer_passes_and_returns_its_row() -> None:
    row = assert_faithful("How tall is the Eiffel Tower?", "The Eiffel Tower is 330 metres tall.",
                          [CONTEXT])
    assert row.faithfulness == 1.0


def test_an_unfaithful_answer_fails_naming_the_claim_its_span_and_why() -> None:
    answer = "The Eiffel Tower is in Paris. It is 300 metres tall."
    with pytest.raises(AssertionError) as failed:
        assert_faithful(None, answer, [CONTEXT])
    message = str(failed.value)
    assert message.startswith("faithfulness 0.50 is below 1 (2 claims: 1 Unsupported, "
                              "0 Uncertain):")
    assert "unsupported [30:52] 'It is 300 metres tall.'" in message
    assert "claim says 300 metres, evidence says 330 metres" in message
    assert answer[30:52] == "It is 300 metres tall."


def test_a_lower_bar_lets_a_partly_faithful_answer_pass() -> None:
    row = assert_faithful(None, "The Eiffel Tower is in Paris. It is 300 metres tall.", [CONTEXT],
                          min_faithfulness=0.5)
    assert row.faithfulness == 0.5


@pytest.mark.parametrize(("contexts", "bar", "words"), [
    ([CONTEXT], 1.5, "min_faithfulness must lie in"),
    (CONTEXT, 1.0, "a list of texts"),
    ([" "], 1.0, "no context has any text"),
])
def test_bad_arguments_are_input_errors(contexts: object, bar: float, words: str) -> None:
    with pytest.raises(InputError, match=words):
        assert_faithful(None, "The tower is tall.", contexts, min_faithfulness=bar)  # type: ignore[arg-type]


def test_an_uncertain_claim_fails_by_default_listed_as_needing_review() -> None:
    answer = f"The tower is 300 metres tall. {UNCERTAIN}"
    with pytest.raises(AssertionError) as failed:
        assert_faithful(None, answer, [CONTEXT], settings=BAND)
    lines = str(failed.value).splitlines()
    assert lines[0] == "faithfulness 0.00 is below 1 (2 claims: 1 Unsupported, 1 Uncertain):"
    assert lines[1].startswith("  unsupported [0:29] 'The tower is 300 metres tall.': numeric")
    assert lines[2].startswith(f"  uncertain, needs review [30:{len(answer)}] {UNCERTAIN!r}: ")
    assert len(lines) == 3


def test_uncertain_as_pass_lets_an_uncertain_claim_through_but_not_an_unsupported_one(
) -> None:
    answer = f"The Eiffel Tower is in Paris. {UNCERTAIN}"
    with pytest.raises(AssertionError, match=r"faithfulness 0.50 is below 1 .*1 Uncertain"):
        assert_faithful(None, answer, [CONTEXT], settings=BAND)
    row = assert_faithful(None, answer, [CONTEXT], settings=BAND, uncertain_as="pass")
    assert row.verdict is RowVerdict.UNCERTAIN and row.needs_review
    wrong = f"The tower is 300 metres tall. {UNCERTAIN}"
    with pytest.raises(AssertionError) as failed:
        assert_faithful(None, wrong, [CONTEXT], settings=BAND, uncertain_as="pass")
    lines = str(failed.value).splitlines()
    assert lines[0] == ("faithfulness 0.50 is below 1 (2 claims: 1 Unsupported; Uncertain "
                        "ones pass):")
    assert [line.split(" [")[0] for line in lines[1:]] == ["  unsupported"]


def test_an_unknown_uncertain_as_is_an_input_error() -> None:
    with pytest.raises(InputError, match="uncertain_as must be one of fail, pass"):
        assert_faithful(None, "The tower is tall.", [CONTEXT], uncertain_as="maybe")  # type: ignore[arg-type]
