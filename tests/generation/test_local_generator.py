import math
from pathlib import Path

import numpy as np
import pytest

from veritype.errors import GenerationError
from veritype.evidence import Chunk
from veritype.generation import Draft, GenerationParams, create_generator
from veritype.generation.local import LocalGenerator, _log_partition_and_entropy

pytestmark = [pytest.mark.slow, pytest.mark.needs_llama]
QUESTION = "How tall is the Eiffel Tower?"
SHORT = GenerationParams(max_tokens=16)


@pytest.fixture(scope="module")
def local(smollm2_path: Path) -> LocalGenerator:
    generator = create_generator("local", model_path=smollm2_path)
    assert isinstance(generator, LocalGenerator)
    return generator


def check_tokens(draft: Draft, vocabulary: int) -> None:
    assert draft.text == "".join(token.text for token in draft.tokens)
    offset = 0
    for token in draft.tokens:
        assert token.start == offset
        offset += len(token.text)
        if token.logprob is None:
            continue
        assert token.entropy is not None
        assert token.logprob <= 0.0
        assert 0.0 <= token.entropy <= math.log(vocabulary) + 1e-6


def test_a_short_greedy_draft_has_exact_token_metadata(
    local: LocalGenerator, eiffel: list[Chunk]
) -> None:
    draft = local.generate(QUESTION, eiffel, SHORT)
    assert draft.text.strip()
    assert 1 <= len(draft.tokens) <= 16
    assert draft.generator == "local" and draft.model == "SmolLM2-135M-Instruct.Q4_1.gguf"
    vocabulary = local._model.llama.n_vocab()
    check_tokens(draft, vocabulary)
    for token in draft.tokens:
        if token.logprob is not None and token.entropy is not None:
            # Greedy picks the most likely token, and the most likely token's surprisal
            # (the min-entropy) never exceeds the Shannon entropy.
            assert -token.logprob <= token.entropy + 1e-6
    assert draft.mean_entropy(0, len(draft.text)) is not None


def test_greedy_is_deterministic_and_stream_matches_generate(
    local: LocalGenerator, eiffel: list[Chunk]
) -> None:
    first = local.generate(QUESTION, eiffel, SHORT)
    again = local.generate(QUESTION, eiffel, SHORT)
    assert again.text == first.text
    streamed = list(local.stream(QUESTION, eiffel, SHORT))
    assert "".join(token.text for token in streamed) == first.text
    assert [t.logprob for t in streamed] == pytest.approx([t.logprob for t in first.tokens],
                                                         abs=1e-3)


def test_sampling_follows_the_seed(local: LocalGenerator, eiffel: list[Chunk]) -> None:
    params = GenerationParams(max_tokens=16, temperature=1.0, seed=7)
    first, second = local.generate_batch([QUESTION, QUESTION], [eiffel, eiffel], params)
    assert first.text == second.text
    check_tokens(first, local._model.llama.n_vocab())
    seeds = {local.generate(QUESTION, eiffel, GenerationParams(max_tokens=16, temperature=1.5,
                                                               seed=seed)).text
             for seed in range(4)}
    assert len(seeds) > 1


def test_a_stop_string_ends_the_draft(local: LocalGenerator, eiffel: list[Chunk]) -> None:
    full = local.generate(QUESTION, eiffel, SHORT)
    words = full.text.split()
    assert len(words) >= 2
    stopped = local.generate(QUESTION, eiffel,
                             GenerationParams(max_tokens=16, stop=(f" {words[1]}",)))
    assert stopped.text == full.text[: full.text.index(f" {words[1]}")]


def test_the_prompt_uses_the_chat_template_with_the_evidence(
    local: LocalGenerator, eiffel: list[Chunk]
) -> None:
    prompt = local.prompt_text(QUESTION, eiffel)
    assert "<|im_start|>system" in prompt and prompt.rstrip().endswith("assistant")
    assert "[1] The Eiffel Tower in Paris" in prompt and f"Question: {QUESTION}" in prompt


def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.gguf"
    with pytest.raises(GenerationError, match=r"model file not found: .*nowhere\.gguf"):
        LocalGenerator(model_path=missing)
    with pytest.raises(ValueError, match="n_threads"):
        LocalGenerator(n_threads=0)


def test_log_partition_and_entropy_match_a_float64_reference() -> None:
    logits = np.random.default_rng(3).normal(0.0, 4.0, 49_152).astype(np.float32)
    reference = logits.astype(np.float64)
    log_partition = float(np.log(np.exp(reference - reference.max()).sum()) + reference.max())
    probabilities = np.exp(reference - log_partition)
    entropy = float(-(probabilities * (reference - log_partition)).sum())
    measured_partition, measured_entropy = _log_partition_and_entropy(logits)
    assert measured_partition == pytest.approx(log_partition, abs=1e-4)
    assert measured_entropy == pytest.approx(entropy, abs=1e-4)


def test_ask_drafts_with_the_model_given_by_model_path(smollm2_path: Path,
                                                       tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    evidence = Path(__file__).resolve().parents[2] / "examples" / "eiffel" / "evidence.txt"

    def veritype(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "veritype", *args], capture_output=True,
                              text=True, timeout=300)

    assert veritype("ingest", str(evidence), "--store", store).returncode == 0
    result = veritype("ask", QUESTION, "--store", store, "--model-path", str(smollm2_path),
                      "--json")
    assert result.returncode == 0, result.stderr
    grounded = json.loads(result.stdout)
    from veritype.engine import Engine, EngineConfig

    with Engine(EngineConfig(store=store)) as engine:
        trace = engine.trace(grounded["trace_id"])
    assert trace is not None and trace["generator"] == "local"
    assert trace["draft"].strip()


@pytest.mark.needs_serve
@pytest.mark.slow
def test_serve_drafts_every_request_with_the_model_given_by_model_path(
        smollm2_path: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    import httpx
    from llama_support import free_port
    from serve_support import wait_until_healthy

    port = free_port()
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "veritype", "serve", "--port", str(port), "--store", store,
             "--model-path", str(smollm2_path)],
            stdout=subprocess.DEVNULL, stderr=log, cwd=tmp_path)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(process, url, log_path)
        evidence = Path(__file__).resolve().parents[2] / "examples" / "eiffel" / "evidence.txt"
        added = httpx.post(url + "/documents", timeout=60, json={"documents": [
            {"text": evidence.read_text(), "title": "Eiffel Tower"}]})
        assert added.status_code == 201
        for _ in range(2):
            answer = httpx.post(url + "/qa", timeout=120, json={"query": QUESTION}).json()
            trace = httpx.get(url + f"/traces/{answer['trace_id']}", timeout=30).json()
            assert trace["generator"] == "local" and trace["draft"].strip()
    finally:
        process.terminate()
        process.wait(timeout=30)
