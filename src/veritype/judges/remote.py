"""A judge behind any OpenAI-compatible ``/chat/completions`` endpoint: vLLM, the llama.cpp
server, Ollama or a hosted API.

P(yes) comes from the first answer token's top log-probabilities; a server that gives
none is read from the answer's text (yes: 1, no: 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veritype.deadline import checkpoint
from veritype.errors import GenerationError
from veritype.generation.openai import OpenAIGenerator
from veritype.judges._base import (
    JUDGE_PROMPT,
    judge_messages,
    support_from_text,
    support_from_top_tokens,
)

_TOP_LOGPROBS = 20


class OpenAIJudge:
    """A judge on an OpenAI-compatible endpoint.

    Options: ``base_url`` (default ``$VERITYPE_OPENAI_BASE_URL``), ``model`` (default
    ``$VERITYPE_OPENAI_MODEL``, else the first model the server lists), ``api_key`` (default
    ``$VERITYPE_OPENAI_API_KEY``), ``timeout`` seconds per request, ``retries``,
    ``evidence_chars`` (evidence cut to this length), ``prompt`` (with ``{evidence}`` and
    ``{claim}``).
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
        evidence_chars: int = 3000,
        prompt: str = JUDGE_PROMPT,
    ) -> None:
        if evidence_chars < 1:
            raise ValueError(f"evidence_chars must be positive, got {evidence_chars}")
        self._chat = OpenAIGenerator(base_url, model, api_key, timeout=timeout,
                                     retries=retries, top_logprobs=_TOP_LOGPROBS)
        self.evidence_chars = evidence_chars
        self.prompt = prompt

    @property
    def base_url(self) -> str:
        return self._chat.base_url

    def judge(self, claim: str, evidence: str) -> float:
        return self.judge_batch([(claim, evidence)])[0]

    def judge_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        supports: list[float] = []
        for claim, evidence in pairs:
            checkpoint("the next judged claim")
            body: dict[str, Any] = {
                "messages": judge_messages(claim, evidence[: self.evidence_chars], self.prompt),
                "max_tokens": 1,
                "temperature": 0.0,
                "logprobs": True,
                "top_logprobs": _TOP_LOGPROBS,
            }
            try:
                body["model"] = self._chat.model
                choice = self._chat.post_chat(body).json()["choices"][0]
            except GenerationError as error:
                raise GenerationError(str(error)) from None
            except (KeyError, IndexError, ValueError) as error:
                raise GenerationError(f"the server at {self.base_url} sent no chat completion "
                                 f"({type(error).__name__}: {error})") from None
            top = _first_token_alternatives(choice.get("logprobs"))
            support = support_from_top_tokens(top) if top else None
            if support is None:
                support = support_from_text((choice.get("message") or {}).get("content") or "")
            supports.append(support)
        return supports

    def close(self) -> None:
        self._chat.close()


def _first_token_alternatives(logprobs: Any) -> dict[str, float]:
    """Token text to log-probability for the first answer token, from a chat completion's
    ``logprobs`` (OpenAI's shape: ``content[0].top_logprobs``)."""
    content = (logprobs or {}).get("content") or []
    if not content:
        return {}
    first = content[0]
    top = {str(item["token"]): float(item["logprob"]) for item in first.get("top_logprobs") or []
           if item.get("logprob") is not None}
    if first.get("token") is not None and first.get("logprob") is not None:
        top.setdefault(str(first["token"]), float(first["logprob"]))
    return top
