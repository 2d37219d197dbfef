"""The transformers backend on SmolLM2-135M-Instruct, read from the same GGUF file."""

import pytest

from veritype.decoding import ArithmeticGuard, default_model_path

# The SmolLM2 GGUF comes with the llm extra.
pytestmark = [pytest.mark.needs_torch, pytest.mark.needs_llama]

ARITHMETIC = "What is 37 × 24? Answer: 37 × 24 ="


@pytest.fixture(scope="module")
def model_and_tokenizer() -> tuple[object, object]:
    import transformers

    path = default_model_path()
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        str(path.parent), gguf_file=path.name
    )
    return model.eval(), tokenizer


@pytest.mark.slow
def test_processor_corrects_arithmetic_and_guards_rows_independently(
    model_and_tokenizer: tuple[object, object],
) -> None:
    import transformers

    from veritype.decoding.hf import TransformersGuardProcessor

    model, tokenizer = model_and_tokenizer
    prompts = [ARITHMETIC, "The capital of France is"]
    tokenizer.padding_side = "left"
    inputs = tokenizer(prompts, return_tensors="pt", padding=True)
    unguarded = model.generate(**inputs, max_new_tokens=4, do_sample=False)
    processor = TransformersGuardProcessor(tokenizer, [ArithmeticGuard()], prompts)
    guarded = model.generate(
        **inputs, max_new_tokens=4, do_sample=False,
        logits_processor=transformers.LogitsProcessorList([processor]),
    )
    width = inputs["input_ids"].shape[1]
    before = tokenizer.batch_decode(unguarded[:, width:], skip_special_tokens=True)
    after = tokenizer.batch_decode(guarded[:, width:], skip_special_tokens=True)
    assert "888" not in before[0] and after[0].strip().startswith("888")
    assert after[1] == before[1]  # nothing to guard in the second row
    assert processor.decoders[0].interventions and not processor.decoders[1].interventions
    with pytest.raises(ValueError, match="built for 2 prompts"):
        processor(guarded[:1], guarded[:1].float())
