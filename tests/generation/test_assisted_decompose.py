import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from veritype._text import content_words
from veritype.claims import decompose as rule_decompose
from veritype.errors import GenerationError
from veritype.evidence import Chunk
from veritype.generation import Draft, GenerationParams, decompose
from veritype.generation._base import BaseGenerator
from veritype.generation._decompose import INSTRUCTION, decompose_with_report

DRAFT = (
    "The Eiffel Tower opened in 1889 and it is 330 metres tall. It stands in Paris. "
    "Gustave Eiffel's company built it."
)


class Proposer(BaseGenerator):
    """A generator that proposes a fixed decomposition, whatever it is asked."""

    name = "proposer"

    def __init__(self, proposal: str, fail: bool = False) -> None:
        self.proposal = proposal
        self.fail = fail
        self.prompts: list[str] = []
        self.evidence: list[Sequence[Chunk]] = []

    def generate(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Draft:
        if self.fail:
            raise GenerationError("the server at http://127.0.0.1:9 is unreachable")
        self.prompts.append(prompt)
        self.evidence.append(evidence)
        return Draft(self.proposal, (), self.name, "", 0.0)


def test_valid_proposals_become_claims_spanning_their_draft_sentence() -> None:
    proposer = Proposer(
        "1. The Eiffel Tower opened in 1889.\n"
        "2. The Eiffel Tower is 330 metres tall.\n"
        "3. The Eiffel Tower stands in Paris.\n"
    )
    decomposition, report = decompose_with_report(proposer, DRAFT)
    assert proposer.prompts == [INSTRUCTION]
    assert proposer.evidence[0][0].text == DRAFT
    assert [p.accepted for p in report] == [True, True, True]
    texts = [claim.text for claim in decomposition.claims]
    assert texts == [
        "The Eiffel Tower opened in 1889.",
        "The Eiffel Tower is 330 metres tall.",
        "The Eiffel Tower stands in Paris.",  # the pronoun resolved from the sentence before
        "Gustave Eiffel's company built it.",  # no proposal: the rule claim stays
    ]
    first_sentence = DRAFT[: DRAFT.index(" It stands")]
    assert DRAFT[decomposition.claims[0].start : decomposition.claims[0].end] == first_sentence
    assert DRAFT[decomposition.claims[2].start : decomposition.claims[2].end] == (
        "It stands in Paris."
    )


def test_proposals_that_the_draft_does_not_make_are_rejected() -> None:
    proposer = Proposer(
        "The Eiffel Tower opened in 1889 in London.\n"  # a word the draft never uses
        "The Eiffel Tower is not 330 metres tall.\n"  # the opposite polarity
        "Gustave Eiffel's company built Paris.\n"  # words from two sentences
        "Tower.\n"  # too little to check
    )
    decomposition, report = decompose_with_report(proposer, DRAFT)
    assert not any(p.accepted for p in report)
    assert [p.reason.split(":")[0] for p in report] == [
        "words not in the draft",
        "negation differs from the draft",
        "combines words from different sentences",
        "states too little to check",
    ]
    assert decomposition == rule_decompose(DRAFT)


def test_a_failing_generator_falls_back_to_the_rule_decomposition() -> None:
    assert decompose(Proposer("", fail=True), DRAFT) == rule_decompose(DRAFT)
    assert decompose(Proposer("anything"), "") == rule_decompose("")


@pytest.mark.slow
def test_a_real_model_decomposition_never_adds_words_the_draft_lacks(smollm2_path: Path) -> None:
    from veritype.generation import create_generator

    local = create_generator("local", model_path=smollm2_path)
    started = time.perf_counter()
    decomposition, report = decompose_with_report(
        local, DRAFT, params=GenerationParams(max_tokens=64)
    )
    assert time.perf_counter() - started < 60
    draft_words = set(content_words(DRAFT))
    assert decomposition.claims
    for claim in decomposition.claims:
        assert set(content_words(claim.text)) <= draft_words
        assert 0 <= claim.start < claim.end <= len(DRAFT)
    for proposal in report:
        if not proposal.accepted:
            assert proposal.text not in [claim.text for claim in decomposition.claims]


def test_rule_claims_the_proposals_leave_out_are_kept() -> None:
    proposer = Proposer("The Eiffel Tower is 330 metres tall. Gustave Eiffel's company built it.")
    texts = [claim.text for claim in decompose(proposer, DRAFT).claims]
    assert texts == [
        "The Eiffel Tower is 330 metres tall.",
        "The Eiffel Tower opened in 1889.",  # no proposal states it: the rule claim stays
        "The Eiffel Tower stands in Paris.",  # resolved, as every rule claim is
        "Gustave Eiffel's company built it.",
    ]
