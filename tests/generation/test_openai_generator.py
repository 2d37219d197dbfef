import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

pytest.importorskip("httpx")

from veritype.errors import GenerationError
from veritype.evidence import Chunk
from veritype.generation import GenerationParams, create_generator
from veritype.generation.openai import OpenAIGenerator

pytestmark = pytest.mark.needs_httpx

QUESTION = "How tall is the Eiffel Tower?"
SHORT = GenerationParams(max_tokens=16)


@pytest.fixture(scope="module")
def served(llama_server: str) -> OpenAIGenerator:
    generator = create_generator("openai", base_url=llama_server)
    assert isinstance(generator, OpenAIGenerator)
    return generator


@pytest.mark.slow
def test_a_draft_from_a_real_llama_cpp_server_carries_logprobs(
    served: OpenAIGenerator, eiffel: list[Chunk]
) -> None:
    assert served.model.endswith("SmolLM2-135M-Instruct.Q4_1.gguf")  # listed by the server
    draft = served.generate(QUESTION, eiffel, SHORT)
    assert draft.text.strip() and draft.generator == "openai"
    assert draft.text == "".join(token.text for token in draft.tokens)
    assert 1 <= len(draft.tokens) <= 16
    assert all(t.logprob is not None and t.logprob <= 0 for t in draft.tokens)
    assert all(t.entropy is not None and t.entropy >= 0 for t in draft.tokens)


@pytest.mark.slow
def test_the_streamed_draft_equals_the_generated_one(
    served: OpenAIGenerator, eiffel: list[Chunk]
) -> None:
    draft = served.generate(QUESTION, eiffel, SHORT)
    streamed = list(served.stream(QUESTION, eiffel, SHORT))
    assert "".join(token.text for token in streamed) == draft.text
    for token in streamed:
        assert draft.text[token.start : token.end] == token.text


@pytest.mark.slow
def test_the_local_and_served_models_agree_on_the_greedy_draft(
    served: OpenAIGenerator, eiffel: list[Chunk], smollm2_path: object
) -> None:
    local = create_generator("local", model_path=smollm2_path)
    assert served.generate(QUESTION, eiffel, SHORT).text == local.generate(
        QUESTION, eiffel, SHORT
    ).text


def test_an_unreachable_server_is_a_clear_error_naming_its_url(
    eiffel: list[Chunk], closed_port: int
) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    generator = OpenAIGenerator(base_url=url, model="m", retries=2, backoff=0.01)
    started = time.perf_counter()
    with pytest.raises(GenerationError, match=rf"cannot reach .* at {url}/chat/completions "
                                             r"after 3 attempts"):
        generator.generate(QUESTION, eiffel, SHORT)
    assert time.perf_counter() - started < 5
    with pytest.raises(GenerationError, match=f"{url}/chat/completions"):
        list(generator.stream(QUESTION, eiffel, SHORT))


class FlakyServer(BaseHTTPRequestHandler):
    """A real HTTP server that fails the first requests (503), refuses logprobs (400),
    then answers like an OpenAI endpoint without logprobs."""

    failures: ClassVar[int] = 0
    bodies: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        if type(self).failures < 2:
            type(self).failures += 1
            self._send(503, {"error": "busy"})
        elif body.get("logprobs"):
            self._send(400, {"error": "logprobs are not supported by this model"})
        else:
            self._send(200, {"choices": [{"message": {"content": "Paris is in France."}}]})

    def _send(self, status: int, payload: dict[str, object]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def flaky() -> Iterator[str]:
    FlakyServer.failures = 0
    FlakyServer.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FlakyServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_busy_answers_are_retried_and_a_refused_logprobs_field_is_dropped(
    flaky: str, eiffel: list[Chunk]
) -> None:
    generator = OpenAIGenerator(base_url=flaky, model="m", retries=3, backoff=0.01,
                                api_key="secret")
    draft = generator.generate(QUESTION, eiffel, SHORT)
    assert draft.text == "Paris is in France."
    assert [t.logprob for t in draft.tokens] == [None]
    assert len(FlakyServer.bodies) == 4  # two 503s, one refusal, one answer
    assert "logprobs" not in FlakyServer.bodies[-1]
    assert FlakyServer.bodies[0]["model"] == "m" and FlakyServer.bodies[0]["max_tokens"] == 16


def test_a_server_that_stays_busy_fails_with_its_status(flaky: str, eiffel: list[Chunk]) -> None:
    generator = OpenAIGenerator(base_url=flaky, model="m", retries=1, backoff=0.01)
    with pytest.raises(GenerationError, match="HTTP 503"):
        generator.generate(QUESTION, eiffel, SHORT)


def test_environment_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VERITYPE_OPENAI_BASE_URL", "http://example.invalid:9/v1/")
    monkeypatch.setenv("VERITYPE_OPENAI_MODEL", "tiny")
    generator = OpenAIGenerator()
    assert generator.base_url == "http://example.invalid:9/v1" and generator.model == "tiny"
    with pytest.raises(ValueError, match="retries"):
        OpenAIGenerator(retries=-1)
