"""A judge behind any OpenAI-compatible ``/chat/completions`` endpoint: vLLM, the llama.cpp
server, Ollama or a hosted API.

P(yes) comes from the first answer token's top log-probabilities; a server that gives
none is read from the answer's text (yes: 1, no: 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

from veritype.deadline import checkpoint
from veritype.errors import GenerationError
from veritype.generation._chat_client import ChatClient, Endpoint
from veritype.judges._base import (
    JUDGE_EVIDENCE_CHARS,
    JUDGE_PROMPT,
    PromptedJudge,
    support_from_text,
    support_from_top_tokens,
)

_TOP_LOGPROBS = 20


class OpenAIJudge(PromptedJudge, ChatClient):
    """A judge on an OpenAI-compatible endpoint.

    Options: those of the endpoint (``base_url``, ``model``, ``api_key``, ``timeout``,
    ``retries``, ``backoff``: see :class:`~veritype.generation._chat_client.Endpoint`),
    ``evidence_chars`` (evidence cut to this length), ``prompt`` (with ``{evidence}`` and
    ``{claim}``).
    """

    name = "openai"

    def __init__(
        self,
        *,
        evidence_chars: int = JUDGE_EVIDENCE_CHARS,
        prompt: str = JUDGE_PROMPT,
        **endpoint: Unpack[Endpoint],
    ) -> None:
        PromptedJudge.__init__(self, evidence_chars=evidence_chars, prompt=prompt)
        ChatClient.__init__(self, **endpoint)

    def judge_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        supports: list[float] = []
        for claim, evidence in pairs:
            checkpoint("the next judged claim")
            body: dict[str, Any] = {
                "messages": self.messages(claim, evidence),
                "max_tokens": 1,
                "temperature": 0.0,
                "logprobs": True,
                "top_logprobs": _TOP_LOGPROBS,
            }
            try:
                body["model"] = self.model
                choice = self.post_chat(body).json()["choices"][0]
            except (KeyError, IndexError, ValueError) as error:
                raise GenerationError(f"the server at {self.base_url} sent no chat completion "
                                      f"({type(error).__name__}: {error})") from None
            top = _first_token_alternatives(choice.get("logprobs"))
            support = support_from_top_tokens(top) if top else None
            if support is None:
                support = support_from_text((choice.get("message") or {}).get("content") or "")
            supports.append(support)
        return supports

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
