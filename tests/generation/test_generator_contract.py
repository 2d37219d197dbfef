import math
import subprocess
import sys

import pytest

from veritype.errors import ConfigurationError, UnknownComponentError
from veritype.generation import (
    Draft,
    ExtractiveGenerator,
    GenerationParams,
    Generator,
    TokenInfo,
    available_generators,
    create_generator,
    register_generator,
)
from veritype.generation._base import draft_from_pieces, until_stop


def test_params_are_validated() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        GenerationParams(max_tokens=0)
    with pytest.raises(ValueError, match="temperature"):
        GenerationParams(temperature=-0.1)
    with pytest.raises(ValueError, match="top_p"):
        GenerationParams(top_p=0.0)


def test_a_token_must_lie_in_the_draft_text() -> None:
    with pytest.raises(ValueError, match="does not match"):
        Draft("Paris is big.", (TokenInfo("Rome", 0),), "x", "", 0.1)


def test_mean_entropy_averages_the_tokens_overlapping_the_span() -> None:
    draft = draft_from_pieces(
        [("The", -0.1, 1.0), (" sky", -0.2, 3.0), (" is", -0.3, None), (" blue", -0.4, 2.0)],
        generator="x", model="m", elapsed_s=2.0,
    )
    assert draft.text == "The sky is blue"
    assert draft.mean_entropy(0, 7) == pytest.approx(2.0)
    assert draft.mean_entropy(4, 5) == pytest.approx(3.0)  # inside " sky"
    assert draft.mean_entropy(8, 10) is None  # only " is", which has no entropy
    assert draft.mean_entropy(0, len(draft.text)) == pytest.approx(2.0)
    assert draft.tokens_per_second == pytest.approx(2.0)


def test_until_stop_never_emits_a_stop_split_across_tokens() -> None:
    pieces = [("Paris", None, None), (" is", None, None), (" big.\n", None, None),
              ("\nQ", None, None), (":", None, None), (" more", None, None)]
    emitted = list(until_stop(iter(pieces), ["\n\nQ:"]))
    assert "".join(text for text, _, _ in emitted) == "Paris is big."
    assert list(until_stop(iter(pieces), [])) == pieces


def test_registry_knows_the_three_generators_and_refuses_unknown_or_duplicate_names() -> None:
    assert {"extractive", "local", "openai"} <= set(available_generators())
    assert isinstance(create_generator("extractive"), ExtractiveGenerator)
    assert isinstance(create_generator("extractive"), Generator)
    with pytest.raises(UnknownComponentError, match="known generators: extractive"):
        create_generator("nonesuch")
    with pytest.raises(ConfigurationError, match="already registered"):
        register_generator("extractive")(lambda: None)


def test_importing_the_generation_package_loads_no_model_runtime() -> None:
    code = (
        "import sys, veritype, veritype.generation, veritype.generation.draft_views, "
        "veritype.generation.commands; "
        "print(sorted(m for m in ('llama_cpp', 'httpx', 'onnxruntime') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.needs_httpx
def test_entropy_of_token_distributions_is_in_nats() -> None:
    # A fair coin between two alternatives: ln 2.
    from veritype.generation.openai import _entropy_from_top

    entropy = _entropy_from_top([{"logprob": math.log(0.5)}, {"logprob": math.log(0.5)}])
    assert entropy == pytest.approx(math.log(2))
    # Leftover mass counts as one more outcome.
    assert _entropy_from_top([{"logprob": math.log(0.5)}]) == pytest.approx(math.log(2))
    assert _entropy_from_top([]) is None
