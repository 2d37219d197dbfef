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
from typing import Any, Unpack

from veritype.errors import ConfigurationError, GenerationError
from veritype.evidence import Chunk
from veritype.generation._base import (
    Draft,
    GenerationParams,
    Piece,
    PieceStream,
    StreamingGenerator,
    draft_from_pieces,
    until_stop,
)
from veritype.generation._chat_client import ChatClient, Endpoint
from veritype.generation._prompt import DEFAULT_EVIDENCE_CHARS, chat_messages


class OpenAIGenerator(StreamingGenerator, ChatClient):
    """Generates through an OpenAI-compatible ``/chat/completions`` endpoint.

    Options: those of the endpoint (``base_url``, ``model``, ``api_key``, ``timeout``,
    ``retries``, ``backoff``: see :class:`~veritype.generation._chat_client.Endpoint`),
    ``top_logprobs`` alternatives per token for the entropy, ``evidence_chars``.
    """

    name = "openai"

    def __init__(
        self,
        *,
        top_logprobs: int = 5,
        evidence_chars: int = DEFAULT_EVIDENCE_CHARS,
        **endpoint: Unpack[Endpoint],
    ) -> None:
        if not 0 <= top_logprobs <= 20:
            raise ConfigurationError(f"top_logprobs must lie in [0, 20], got {top_logprobs}")
        ChatClient.__init__(self, **endpoint)
        self.top_logprobs = top_logprobs
        self.evidence_chars = evidence_chars

    def generate(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Draft:
        params = params or GenerationParams()
        started = time.perf_counter()
        body = self._body(prompt, evidence, params, stream=False)
        choice = self.post_chat(body).json()["choices"][0]
        content = (choice.get("message") or {}).get("content") or ""
        pieces = _pieces_from_logprobs(content, choice.get("logprobs"))
        cut = list(until_stop(iter(pieces), params.stop))
        return draft_from_pieces(
            cut, generator=self.name, model=self.model,
            elapsed_s=time.perf_counter() - started,
        )

    def _pieces(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams
    ) -> PieceStream:
        """Tokens as the server sends them (server-sent events)."""
        return until_stop(self._stream_pieces(prompt, evidence, params), params.stop)

    def _stream_pieces(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams
    ) -> Iterator[Piece]:
        body = self._body(prompt, evidence, params, stream=True)
        with self.open_stream(body) as response:
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
        if self.logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = self.top_logprobs
        return body


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
