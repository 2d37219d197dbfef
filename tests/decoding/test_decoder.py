"""The decoder on the real SmolLM2-135M-Instruct GGUF model through llama.cpp."""

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from veritype.decoding import (
    ABSTAINED,
    GUARDED,
    UNVERIFIED,
    ArithmeticGuard,
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


@pytest.mark.slow
def test_switching_a_guard_off_removes_its_interventions(llama: object) -> None:
    unguarded = guarded_generate(llama, ARITHMETIC, [], max_tokens=6, stop=["\n"])
    off = guarded_generate(llama, ARITHMETIC, [ArithmeticGuard(enabled=False)], max_tokens=6,
                           stop=["\n"])
    assert off.text == unguarded.text and off.interventions == []


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


@pytest.mark.slow
def test_context_monitor_backs_off_then_retries(llama: object) -> None:
    context = ContextGuard(["The Eiffel Tower is in Paris, France."])
    abstained = guarded_generate(llama, BERLIN, [context], max_tokens=8,
                                 stop=["\n"])
    assert abstained.abstained and "context" in abstained.abstention_reason
    assert abstained.interventions[-1].action == "abstain"
    prompts: list[str] = []

    def more_evidence() -> str:
        prompts.append(RETRY)
        return prompts[-1]

    retried = guarded_generate(llama, BERLIN, [context], max_tokens=8,
                               retry=more_evidence, stop=["\n"])
    assert len(prompts) == 1 and retried.retried
    assert any(step.action == "retry" for step in retried.interventions)
    assert "Paris" in retried.text and not retried.abstained


@pytest.mark.slow
def test_a_refuted_clause_cannot_be_written_around(llama: object) -> None:
    # Unguarded, SmolLM2 names the novel's heroine. The context monitor used to refuse only
    # the "." after her name, and the decoder went on with ", a young, ambitious, ...".
    unguarded = guarded_generate(llama, PRIDE, [], max_tokens=12, stop=["\n"])
    assert unguarded.text.startswith(" Elizabeth Bennet") and unguarded.status == UNVERIFIED
    context = ContextGuard([AUSTEN])
    draft = guarded_generate(llama, PRIDE, [context], max_tokens=12, stop=["\n"])
    assert "Elizabeth" not in draft.text and draft.status == ABSTAINED and draft.abstained
    assert draft.dropped_clause.startswith("Elizabeth Bennet")
    assert "context" in draft.abstention_reason and "Elizabeth Bennet" in draft.abstention_reason
    # Stopped by the token limit inside the clause, the clause is still checked.
    cut = guarded_generate(llama, PRIDE, [context], max_tokens=2, stop=["\n"])
    assert cut.status == ABSTAINED and "Elizabeth" not in cut.text
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
    draft = guarded_generate(llama, prompt, guards, max_tokens=6, stop=["\n"])
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

    processor = TruthAwareLogitsProcessor(llama, [ArithmeticGuard()], ARITHMETIC)
    completion = llama.create_completion(
        ARITHMETIC, max_tokens=4, temperature=0.0,
        logits_processor=LogitsProcessorList([processor]),
    )
    assert completion["choices"][0]["text"].strip().startswith("888")
    assert processor.decoder.interventions


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
