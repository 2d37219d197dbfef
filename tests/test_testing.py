"""``assert_faithful`` in a test suite: passes on a faithful answer, fails listing the
claims that are not Verified and why."""

from __future__ import annotations

import pytest

from veritype.errors import InputError
from veritype.testing import assert_faithful

CONTEXT = "The Eiffel Tower is in Paris. The tower is 330 metres tall. It opened in 1889."


def test_a_faithful_answer_passes_and_returns_its_row() -> None:
    row = assert_faithful("How tall is the Eiffel Tower?", "The Eiffel Tower is 330 metres tall.",
                          [CONTEXT])
    assert row.faithfulness == 1.0


def test_an_unfaithful_answer_fails_naming_the_claim_its_span_and_why() -> None:
    answer = "The Eiffel Tower is in Paris. It is 300 metres tall."
    with pytest.raises(AssertionError) as failed:
        assert_faithful(None, answer, [CONTEXT])
    message = str(failed.value)
    assert message.startswith("faithfulness 0.50 is below 1 (1 of 2 claims not Verified):")
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
