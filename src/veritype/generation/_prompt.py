"""The prompt every model generator sends: the evidence in context, then the question."""

from __future__ import annotations

from collections.abc import Sequence

from veritype.evidence import Chunk

SYSTEM_PROMPT = (
    "You answer questions using only the evidence you are given. Write a few short, "
    "declarative sentences, each stating one fact taken from the evidence. Do not hedge, "
    "do not repeat yourself, and do not add facts that the evidence does not state."
)

# Small models have short context windows; beyond this the evidence is cut, best chunk first.
DEFAULT_EVIDENCE_CHARS = 4000


def evidence_block(evidence: Sequence[Chunk], max_chars: int = DEFAULT_EVIDENCE_CHARS) -> str:
    """The evidence as numbered passages, cut to ``max_chars`` characters in total."""
    passages: list[str] = []
    remaining = max_chars
    for number, chunk in enumerate(evidence, start=1):
        if remaining <= 0:
            break
        text = " ".join(chunk.text.split())[:remaining]
        passages.append(f"[{number}] {text}")
        remaining -= len(text)
    return "\n".join(passages)


def user_message(question: str, evidence: Sequence[Chunk], max_chars: int) -> str:
    block = evidence_block(evidence, max_chars)
    if not block:
        return f"Question: {question.strip()}"
    return f"Evidence:\n{block}\n\nQuestion: {question.strip()}"


def chat_messages(
    question: str, evidence: Sequence[Chunk], max_chars: int = DEFAULT_EVIDENCE_CHARS
) -> list[dict[str, str]]:
    """System and user messages in the OpenAI chat format."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user_message(question, evidence, max_chars)},
    ]
