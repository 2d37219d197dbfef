"""Judges: a language model asked whether evidence supports a claim, read as P(yes).

Two come with veritype: ``local`` (a GGUF model through llama.cpp; by default
Qwen2.5-Coder-1.5B-Instruct, assembled from the ``veritype[judge]`` wheels) and ``openai``
(any OpenAI-compatible endpoint: vLLM, the llama.cpp server, Ollama, a hosted API). The
``judge`` verification view asks one of them about the claims the encoder views leave
unsettled.
"""

from veritype.errors import GenerationError
from veritype.judges._base import (
    JUDGE_PROMPT,
    Judge,
    available_judges,
    create_judge,
    judge_messages,
    register_judge,
    support_from_top_tokens,
)

__all__ = [
    "JUDGE_PROMPT",
    "GenerationError",
    "Judge",
    "available_judges",
    "create_judge",
    "judge_messages",
    "register_judge",
    "support_from_top_tokens",
]
