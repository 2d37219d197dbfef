"""The ``openai`` generator: any OpenAI-compatible chat endpoint over HTTP.

vLLM, the llama.cpp server, Ollama and hosted APIs all speak ``POST /chat/completions``.
Connection errors, 5xx and 429 answers are retried with exponential backoff; a server that
stays unreachable is a ``GenerationError`` naming its URL. Token log-probabilities are asked
for and used when the server returns them; a server that refuses them is asked again
without.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import httpx

from veritype.errors import GenerationError
from veritype.evidence import Chunk
from veritype.generation._base import (
    Draft,
    GenerationParams,
    Piece,
    TokenInfo,
    draft_from_pieces,
    generate_each,
    until_stop,
)
from veritype.generation._prompt import DEFAULT_EVIDENCE_CHARS, chat_messages
from veritype.settings import env

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class OpenAIGenerator:
    """Generates through an OpenAI-compatible ``/chat/completions`` endpoint.

    Options: ``base_url`` (default ``$VERITYPE_OPENAI_BASE_URL``, else a server on
    127.0.0.1:8000), ``model`` (default ``$VERITYPE_OPENAI_MODEL``, else the first model the
    server lists), ``api_key`` (default ``$VERITYPE_OPENAI_API_KEY``), ``timeout`` seconds
    per request, ``retries`` after the first attempt, ``backoff`` seconds before the first
    retry (doubling each time), ``top_logprobs`` alternatives per token for the entropy.
    """

    name = "openai"

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
        top_logprobs: int = 5,
        evidence_chars: int = DEFAULT_EVIDENCE_CHARS,
    ) -> None:
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        if timeout <= 0 or backoff < 0:
            raise ValueError("timeout must be positive and backoff non-negative")
        if not 0 <= top_logprobs <= 20:
            raise ValueError(f"top_logprobs must lie in [0, 20], got {top_logprobs}")
        self.base_url = (
            base_url or env("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        self._model = model or env("OPENAI_MODEL")
        key = api_key or env("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.retries = retries
        self.backoff = backoff
        self.top_logprobs = top_logprobs
        self.evidence_chars = evidence_chars
        self._logprobs = True
        self._client = httpx.Client(
            base_url=self.base_url, headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        )

    @property
    def model(self) -> str:
        """The model name sent with each request; asked of the server when not given."""
        if self._model is None:
            listed = self._request("GET", "/models").json().get("data") or []
            if not listed:
                raise GenerationError(
                    f"the server at {self.base_url} lists no model; pass model= / --model"
                )
            self._model = str(listed[0]["id"])
        return self._model

    def generate(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Draft:
        params = params or GenerationParams()
        started = time.perf_counter()
        body = self._body(prompt, evidence, params, stream=False)
        response = self.post_chat(body)
        choice = response.json()["choices"][0]
        content = (choice.get("message") or {}).get("content") or ""
        pieces = _pieces_from_logprobs(content, choice.get("logprobs"))
        cut = list(until_stop(iter(pieces), params.stop))
        return draft_from_pieces(
            cut, generator=self.name, model=self.model,
            elapsed_s=time.perf_counter() - started,
        )

    def generate_batch(
        self,
        prompts: Sequence[str],
        evidence: Sequence[Sequence[Chunk]],
        params: GenerationParams | None = None,
    ) -> list[Draft]:
        return generate_each(self, prompts, evidence, params)

    def stream(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Iterator[TokenInfo]:
        """Tokens as the server sends them (server-sent events)."""
        params = params or GenerationParams()
        offset = 0
        pieces = until_stop(self._stream_pieces(prompt, evidence, params), params.stop)
        for text, logprob, entropy in pieces:
            yield TokenInfo(text, offset, logprob, entropy)
            offset += len(text)

    def close(self) -> None:
        self._client.close()

    def _stream_pieces(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams
    ) -> Iterator[Piece]:
        body = self._body(prompt, evidence, params, stream=True)
        with self._open_stream(body) as response:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                payload = line[len("data:") :].strip()
                if payload == "[DONE]":
                    return
                event = json.loads(payload)
                if "error" in event:
                    raise GenerationError(f"{self.base_url} failed mid-stream: {event['error']}")
                for choice in event.get("choices") or []:
                    content = (choice.get("delta") or {}).get("content") or ""
                    if content:
                        yield from _pieces_from_logprobs(content, choice.get("logprobs"))

    def _body(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams, *, stream: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(prompt, evidence, self.evidence_chars),
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "seed": params.seed,
            "stream": stream,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if self._logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = self.top_logprobs
        return body

    def post_chat(self, body: dict[str, Any]) -> httpx.Response:
        """POST a chat body with the retry policy; a server that refuses ``logprobs`` gets
        the body again without them (and never again with them)."""
        try:
            return self._request("POST", "/chat/completions", json=body)
        except _LogprobsRefusedError:
            self._logprobs = False
            body = {k: v for k, v in body.items() if k not in ("logprobs", "top_logprobs")}
            return self._request("POST", "/chat/completions", json=body)

    def _open_stream(self, body: dict[str, Any]) -> _Stream:
        return _Stream(self, body)

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send with retries; a refused ``logprobs`` request raises ``_LogprobsRefusedError``."""
        url = f"{self.base_url}{path}"
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._client.request(method, path, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as error:
                if last:
                    raise GenerationError(
                        f"cannot reach the OpenAI-compatible server at {url} after "
                        f"{attempt + 1} attempts ({error.__class__.__name__}: {error}); start "
                        "it, or point --base-url / VERITYPE_OPENAI_BASE_URL at a running one"
                    ) from None
            except httpx.TimeoutException:
                raise GenerationError(
                    f"the server at {url} did not answer within the timeout; raise timeout="
                ) from None
            else:
                if response.is_success:
                    return response
                if _refuses_logprobs(response, kwargs.get("json")):
                    raise _LogprobsRefusedError
                if response.status_code not in _RETRY_STATUS or last:
                    raise GenerationError(
                        f"{method} {url} failed with HTTP {response.status_code}: "
                        f"{response.text[:300]}"
                    )
            time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")


class _LogprobsRefusedError(Exception):
    """The server answered an error that blames the ``logprobs`` request field."""


class _Stream:
    """An SSE response opened with the generator's retry policy and closed on exit."""

    def __init__(self, generator: OpenAIGenerator, body: dict[str, Any]) -> None:
        self._generator = generator
        self._body = body
        self._response: httpx.Response | None = None

    def __enter__(self) -> httpx.Response:
        generator = self._generator
        for attempt in range(generator.retries + 1):
            try:
                request = generator._client.build_request(
                    "POST", "/chat/completions", json=self._body
                )
                response = generator._client.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                if attempt == generator.retries:
                    raise GenerationError(
                        f"cannot reach the OpenAI-compatible server at "
                        f"{generator.base_url}/chat/completions after {attempt + 1} attempts "
                        f"({error.__class__.__name__}: {error}); start it, or point "
                        "--base-url / VERITYPE_OPENAI_BASE_URL at a running one"
                    ) from None
            else:
                if response.is_success:
                    self._response = response
                    return response
                response.read()
                response.close()
                if _refuses_logprobs(response, self._body):
                    generator._logprobs = False
                    self._body = {
                        k: v for k, v in self._body.items()
                        if k not in ("logprobs", "top_logprobs")
                    }
                    continue
                if response.status_code not in _RETRY_STATUS or attempt == generator.retries:
                    raise GenerationError(
                        f"POST {generator.base_url}/chat/completions failed with HTTP "
                        f"{response.status_code}: {response.text[:300]}"
                    )
            time.sleep(generator.backoff * 2**attempt)
        raise GenerationError(f"the server at {generator.base_url} refused the stream request")

    def __exit__(self, *exc: object) -> None:
        if self._response is not None:
            self._response.close()


def _refuses_logprobs(response: httpx.Response, body: object) -> bool:
    return (
        isinstance(body, dict)
        and "logprobs" in body
        and response.status_code in (400, 422, 500)
        and "logprob" in response.text.lower()
    )


def _pieces_from_logprobs(content: str, logprobs: Any) -> list[Piece]:
    """The content as token pieces with log-probabilities when the server sent them.

    The entropy comes from the top alternatives: -Σ p log p over them plus the leftover
    mass as one more outcome, a lower bound on the full distribution's entropy. Tokens that
    do not spell out the content exactly are not trusted; the content is then one piece.
    """
    entries = (logprobs or {}).get("content") if isinstance(logprobs, dict) else None
    if not entries:
        return [(content, None, None)] if content else []
    pieces: list[Piece] = []
    for entry in entries:
        token = str(entry.get("token", ""))
        logprob = entry.get("logprob")
        pieces.append((token, float(logprob) if logprob is not None else None,
                       _entropy_from_top(entry.get("top_logprobs") or [])))
    if "".join(text for text, _, _ in pieces) != content:
        return [(content, None, None)] if content else []
    return pieces


def _entropy_from_top(alternatives: Sequence[dict[str, Any]]) -> float | None:
    probabilities = [
        math.exp(float(item["logprob"])) for item in alternatives
        if item.get("logprob") is not None and math.isfinite(float(item["logprob"]))
    ]
    if not probabilities:
        return None
    total = min(1.0, math.fsum(probabilities))
    leftover = 1.0 - total
    entropy = -math.fsum(p * math.log(p) for p in probabilities if p > 0)
    if leftover > 1e-12:
        entropy -= leftover * math.log(leftover)
    return max(0.0, entropy)
