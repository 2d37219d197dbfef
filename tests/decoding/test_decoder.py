"""The decoder on the real SmolLM2-135M-Instruct GGUF model through llama.cpp.

Which tokens SmolLM2 picks can differ from one CPU to another (the floating-point kernels
llama.cpp uses differ), and with them where a token limit cuts an answer. So every guarded
outcome is asserted for every token limit from 1 to the answer's end, not at one limit that
happens to cut in one place. What the unguarded model writes (not 888, "Rio", "Elizabeth
Bennet") is each test's premise, asserted first, so that a model that answers otherwise fails
as a broken premise rather than as a guard that failed.
"""

import json
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from veritype.decoding import (
    ABSTAINED,
    END_OF_TEXT,
    GUARDED,
    LOOKAHEAD_TOKENS,
    UNVERIFIED,
    ArithmeticGuard,
    Guard,
    GuardedDraft,
    KnowledgeBase,
    KnowledgeBaseGuard,
    Triple,
    TruthAwareDecoder,
    TruthAwareLogitsProcessor,
    available_guards,
    create_guard,
    guarded_generate,
    load_llama,
)
from veritype.decoding.context import ContextGuard

pytestmark = pytest.mark.needs_llama

ARITHMETIC = "What is 37 × 24? Answer: 37 × 24 ="
TRIAL = ("At the second screen, 19 579 women in the intervention group and 19,731 in the "
         "control group were eligible.")
BERLIN = "Q: Where is the Eiffel Tower?\nA: The Eiffel Tower is in Berlin"
AUSTEN = "Pride and Prejudice was written by Jane Austen."
PRIDE = "Q: Who is the author of Pride and Prejudice?\nA: The author of Pride and Prejudice is"
RETRY = ("Q: Where is the Eiffel Tower?\nEvidence: The Eiffel Tower is in Paris, France.\n"
         "A: The Eiffel Tower is in")


@pytest.fixture(scope="module")
def llama() -> Iterator[object]:
    model = load_llama()
    yield model
    model.close()


@pytest.mark.slow
def test_arithmetic_guard_corrects_a_wrong_answer(llama: object) -> None:
    unguarded = guarded_generate(llama, ARITHMETIC, [], max_tokens=6, stop=["\n"])
    assert "888" not in unguarded.text and not unguarded.interventions
    guarded = guarded_generate(llama, ARITHMETIC, [ArithmeticGuard()], max_tokens=6,
                               stop=["\n"])
    assert guarded.text.strip().startswith("888") and not guarded.abstained
    assert guarded.status == GUARDED and guarded.key_clause.checked_by == ("arithmetic",)
    steered = [step for step in guarded.interventions if step.action == "steer"]
    assert steered and all(step.guards == ("arithmetic",) for step in steered)
    for step in guarded.interventions:
        assert 0.0 <= step.safe_mass <= 1.0
        assert step.blocked and all(token.text for token in step.blocked)
        assert step.chosen_id not in {token.token_id for token in step.blocked}
    assert 0.0 <= guarded.mean_safe_mass <= 1.0 and guarded.tokens_per_s > 0
    json.dumps(guarded.to_dict())
    for max_tokens in range(1, 7):
        cut = guarded_generate(llama, ARITHMETIC, [ArithmeticGuard()], max_tokens=max_tokens,
                               stop=["\n"])
        assert_cut_literal(cut, ("888",), max_tokens)


@pytest.mark.slow
def test_switching_a_guard_off_removes_its_interventions(llama: object) -> None:
    unguarded = guarded_generate(llama, ARITHMETIC, [], max_tokens=6, stop=["\n"])
    off = guarded_generate(llama, ARITHMETIC, [ArithmeticGuard(enabled=False)], max_tokens=6,
                           stop=["\n"])
    assert off.text == unguarded.text and off.interventions == []


def assert_cut_literal(draft: GuardedDraft, answers: tuple[str, ...], max_tokens: int) -> None:
    """Wherever the token limit cut a constrained answer, what it wrote is the start of an
    allowed answer, and the draft is guarded exactly when the answer is whole."""
    text = draft.text.strip()
    whole = text.startswith(answers)
    assert whole or any(answer.startswith(text) for answer in answers), (max_tokens, text)
    assert (draft.status == GUARDED) == whole and not draft.abstained, (max_tokens, draft)


@pytest.mark.slow
def test_kb_guard_steers_to_the_known_object(llama: object) -> None:
    knowledge = KnowledgeBase()
    knowledge.add(Triple("Brazil", "capital", "Brasília"))
    knowledge.add(Triple("Brazil", "capital", "Brasilia"))
    knowledge.add_relation_alias("capital", "the capital of {subject} is")
    prompt = "Q: What is the capital of Brazil?\nA: The capital of Brazil is"
    unguarded = guarded_generate(llama, prompt, [], max_tokens=8, stop=["\n"])
    guarded = guarded_generate(llama, prompt, [KnowledgeBaseGuard(knowledge),
                                               ArithmeticGuard()], max_tokens=8, stop=["\n"])
    assert "Rio" in unguarded.text
    assert guarded.text.strip().startswith(("Brasília", "Brasilia")) and not guarded.abstained
    assert any(step.guards == ("kb",) for step in guarded.interventions)
    for max_tokens in range(1, 9):
        cut = guarded_generate(llama, prompt, [KnowledgeBaseGuard(knowledge), ArithmeticGuard()],
                               max_tokens=max_tokens, stop=["\n"])
        assert_cut_literal(cut, ("Brasília", "Brasilia"), max_tokens)


@pytest.mark.slow
def test_context_monitor_backs_off_then_retries(llama: object) -> None:
    context = ContextGuard(["The Eiffel Tower is in Paris, France."])
    prompts: list[str] = []

    def more_evidence() -> str:
        prompts.append(RETRY)
        return prompts[-1]

    for max_tokens in range(1, 9):
        abstained = guarded_generate(llama, BERLIN, [context], max_tokens=max_tokens,
                                     stop=["\n"])
        assert abstained.abstained and "context" in abstained.abstention_reason, max_tokens
        assert abstained.interventions[-1].action == "abstain"
        prompts.clear()
        retried = guarded_generate(llama, BERLIN, [context], max_tokens=max_tokens,
                                   retry=more_evidence, stop=["\n"])
        assert len(prompts) == 1 and retried.retried
        assert any(step.action == "retry" for step in retried.interventions)
        assert "Paris" in retried.text and retried.status == GUARDED, max_tokens


@pytest.mark.slow
def test_a_refuted_clause_cannot_be_written_around(llama: object) -> None:
    # Unguarded, SmolLM2 names the novel's heroine. The context monitor used to refuse only
    # the "." after her name, and the decoder went on with ", a young, ambitious, ...".
    unguarded = guarded_generate(llama, PRIDE, [], max_tokens=12, stop=["\n"])
    assert unguarded.text.startswith(" Elizabeth Bennet") and unguarded.status == UNVERIFIED
    context = ContextGuard([AUSTEN])
    # Wherever the token limit cuts the clause ("Elizabeth", "Elizabeth Benn", ...), what
    # it wrote is the start of the refuted clause, and the decoder abstains.
    for max_tokens in range(1, 13):
        draft = guarded_generate(llama, PRIDE, [context], max_tokens=max_tokens, stop=["\n"])
        assert draft.status == ABSTAINED and draft.abstained, (max_tokens, draft.text)
        assert "Elizabeth" not in draft.text and draft.dropped_clause.startswith("Elizabeth")
        assert "context" in draft.abstention_reason
    assert draft.dropped_clause.startswith("Elizabeth Bennet")
    assert "Elizabeth Bennet" in draft.abstention_reason
    # With the evidence in the prompt the answer is right and the evidence checks it.
    retried = guarded_generate(llama, PRIDE, [context], max_tokens=12, stop=["\n"],
                               retry=lambda: PRIDE.replace("\nA:", f"\nEvidence: {AUSTEN}\nA:"))
    assert retried.retried and retried.text.startswith(" Jane Austen")
    assert retried.status == GUARDED and retried.key_clause.checked_by == ("context",)


@pytest.mark.slow
def test_an_answer_no_guard_could_check_is_unverified_or_abstains(llama: object) -> None:
    prompt = "Q: What is the capital of Peru?\nA: The capital of Peru is"
    knowledge = KnowledgeBase([Triple("Brazil", "capital", "Brasília")],
                              relation_aliases={"capital": {"the capital of {subject} is"}})
    guards = [KnowledgeBaseGuard(knowledge), ArithmeticGuard()]
    for max_tokens in range(1, 7):
        draft = guarded_generate(llama, prompt, guards, max_tokens=max_tokens, stop=["\n"])
        assert draft.status == UNVERIFIED and not draft.abstained and draft.text.strip()
        assert draft.unverified_clause.startswith("A: The capital of Peru is")
        assert [c.guard for c in draft.key_clause.coverage] == ["kb", "arithmetic"]
        assert not any(c.checked for c in draft.key_clause.coverage)
    refused = guarded_generate(llama, prompt, guards, max_tokens=6, stop=["\n"],
                               unchecked="abstain")
    assert refused.status == ABSTAINED and refused.abstained
    assert "no guard could check" in refused.abstention_reason
    assert refused.to_dict()["status"] == ABSTAINED
    with pytest.raises(ValueError, match="unchecked"):
        guarded_generate(llama, prompt, guards, max_tokens=6, unchecked="ignore")  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_retry_rereads_only_what_follows_the_prefix_it_shares(
    llama: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    context = ContextGuard(["The Eiffel Tower is in Paris, France."])
    llama.reset()
    cold = guarded_generate(llama, RETRY, [context], max_tokens=8, stop=["\n"])
    evaluated: list[int] = []
    evaluate = llama.eval

    def counting(tokens: list[int]) -> None:
        evaluated.append(len(tokens))
        evaluate(tokens)

    monkeypatch.setattr(llama, "eval", counting)
    llama.reset()
    retried = guarded_generate(llama, BERLIN, [context], max_tokens=8,
                               retry=lambda: RETRY, stop=["\n"])
    assert retried.retried and retried.text == cold.text
    first_prompt = len(llama.tokenize(BERLIN.encode(), add_bos=True, special=True))
    retry_prompt = len(llama.tokenize(RETRY.encode(), add_bos=True, special=True))
    prompt_reads = [count for count in evaluated if count > 1]
    assert prompt_reads[0] == first_prompt
    # "Q: Where is the Eiffel Tower?\n" stays in the model's memory.
    assert 1 < prompt_reads[1] < retry_prompt - 8


@pytest.mark.slow
def test_logits_processor_with_create_completion(llama: object) -> None:
    from llama_cpp import LogitsProcessorList

    for max_tokens in range(1, 5):
        processor = TruthAwareLogitsProcessor(llama, [ArithmeticGuard()], ARITHMETIC)
        completion = llama.create_completion(
            ARITHMETIC, max_tokens=max_tokens, temperature=0.0,
            logits_processor=LogitsProcessorList([processor]),
        )
        text = completion["choices"][0]["text"].strip()
        assert text.startswith("888") or "888".startswith(text), (max_tokens, text)
    # Four tokens hold the whole number however the model spaces it: digits are tokens.
    assert text.startswith("888") and processor.decoder.interventions


@pytest.mark.slow
def test_arithmetic_is_not_refuted_by_evidence_about_something_else(llama: object) -> None:
    # The trial's "19 579 women" share a number with the sum, not a topic.
    prompt = "What is 23 * 19? Answer: 23 * 19 ="
    guards = [ArithmeticGuard(), ContextGuard([TRIAL])]
    for max_tokens in range(1, 7):
        cut = guarded_generate(llama, prompt, guards, max_tokens=max_tokens, stop=["\n"])
        assert_cut_literal(cut, ("437",), max_tokens)


def vocabulary_decoder(guards: list[Guard], texts: dict[int, bytes]) -> TruthAwareDecoder:
    """A decoder over a vocabulary of a few tokens, which the tests give logits directly."""
    return TruthAwareDecoder(guards, token_bytes=texts.__getitem__,
                             is_end=lambda token: token not in texts, top_k=len(texts) + 1)


def logits(count: int, favoured: int) -> npt.NDArray[np.float32]:
    scores = np.zeros(count, dtype=np.float32)
    scores[favoured] = 5.0
    return scores


def test_a_context_block_gives_way_to_a_guard_that_checks_the_clause() -> None:
    # Evidence that states another result: the NLI model finds the right sum contradicted.
    context = ContextGuard(["The answer is 400."])
    texts = {0: b" 437", 1: b" 400"}
    decoder = vocabulary_decoder([ArithmeticGuard(), context], texts)
    decoder.start("The answer is 23 * 19 =")
    assert decoder.choose(logits(3, favoured=1)).token_id == 0
    decoder.accept(0)
    # The end of "The answer is 23 * 19 = 437": the arithmetic guard checks it.
    assert context.safe(decoder.guarded_text, [END_OF_TEXT]) == [False]
    assert decoder.choose(logits(3, favoured=2)).token_id == 2 and not decoder.halted
    decoder.finish()
    assert not decoder.halted
    # Without a guard that checks it, the block stands and the decoder backs off.
    alone = vocabulary_decoder([context], texts)
    alone.start("The answer is 23 * 19 = 437")
    assert alone.choose(logits(3, favoured=2)).token_id is None and alone.halted
    assert "context" in alone.halt_reason


def test_a_clause_cut_by_the_token_limit_stands_only_if_it_ends_unrefuted() -> None:
    texts = {0: b" Paris", 1: b" Berlin", 2: b".", 3: b" very"}
    context = ContextGuard(["The Eiffel Tower is in Paris, France."])
    lead = "A: The Eiffel Tower is in"
    fed: list[int] = []

    def model(favoured: int) -> Callable[[int], npt.NDArray[np.float32]]:
        """A model that favours ``favoured`` after any token; the tokens fed are in ``fed``."""
        def logits_after(token: int) -> npt.NDArray[np.float32]:
            fed.append(token)
            return logits(5, favoured)
        return logits_after

    def cut_after(token: int, then: int, room: int = 100) -> TruthAwareDecoder:
        """The answer ``token`` cut by the limit, looked past while the model favours
        ``then``."""
        decoder = vocabulary_decoder([context], texts)
        decoder.start(lead)
        decoder.accept(token)
        fed.clear()
        decoder.look_past_limit(model(then), token, room)
        return decoder

    ends = cut_after(0, then=2)
    assert fed == [0] and not ends.halted and ends.text == " Paris" and not ends.interventions
    refuted = cut_after(1, then=2)
    assert refuted.halted and refuted.text == " Berlin" and refuted.refuted_from == 0
    assert refuted.halt_reason.startswith(f"the token limit cut clause '{lead} Berlin'")
    assert "context blocked the end of clause" in refuted.halt_reason
    assert refuted.interventions[-1].action == "abstain"
    endless = cut_after(0, then=3)
    assert endless.halted and endless.text == " Paris" and endless.refuted_from == 0
    assert len(fed) == LOOKAHEAD_TOKENS and "does not end within" in endless.halt_reason
    full = cut_after(0, then=3, room=2)
    assert full.halted and len(fed) == 2
    # Nothing to look past: a clause that ended, no guard that judges clause ends, or a
    # clause an exact guard checks as it stands.
    closed = vocabulary_decoder([context], texts)
    closed.start(lead)
    closed.accept(0)
    closed.accept(2)
    exact = vocabulary_decoder([ArithmeticGuard()], texts)
    exact.start(lead)
    exact.accept(1)
    checked = vocabulary_decoder([ArithmeticGuard(), context], {0: b" 437", 1: b" very"})
    checked.start("The answer is 23 * 19 =")
    checked.accept(0)
    fed.clear()
    for decoder in (closed, exact, checked):
        decoder.look_past_limit(model(3), 0, 100)
        assert not decoder.halted
    assert fed == []


def test_decoder_backs_off_when_no_candidate_is_safe() -> None:
    texts = {0: b" 7", 1: b" 9", 2: b"!"}
    decoder = TruthAwareDecoder([ArithmeticGuard()], token_bytes=texts.__getitem__,
                                is_end=lambda token: False, top_k=2)
    decoder.start("2 + 2 =")
    choice = decoder.choose(np.array([2.0, 1.0, -5.0], dtype=np.float32))
    assert choice.token_id is None and decoder.halted
    assert "arithmetic" in decoder.halt_reason and 0.0 <= choice.safe_mass < 0.01


def test_registry_and_argument_errors() -> None:
    assert available_guards() == ["arithmetic", "context", "kb"]
    with pytest.raises(KeyError, match="known guards: arithmetic, context, kb"):
        create_guard("oracle")
    with pytest.raises(ValueError, match="guard names must be unique"):
        TruthAwareDecoder([ArithmeticGuard(), ArithmeticGuard()], token_bytes=bytes,
                          is_end=bool)
    with pytest.raises(ValueError, match="top_k"):
        TruthAwareDecoder([], token_bytes=bytes, is_end=bool, top_k=0)
