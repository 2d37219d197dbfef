"""The judge contract: a Protocol, the prompt, the reading of P(yes) and a registry."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Protocol, TypedDict, runtime_checkable

from veritype._registry import Registry
from veritype.errors import ConfigurationError, GenerationError

JUDGE_PROMPT = (
    "Document:\n{evidence}\n\nClaim: {claim}\n\n"
    "Is the claim fully supported by the document? Answer yes or no."
)
# Evidence beyond this many characters is cut: short evidence keeps a small model fast.
JUDGE_EVIDENCE_CHARS = 3000
_SYSTEM = "You check claims against documents. You answer only yes or no."
_YES = frozenset({"yes", "y"})
_NO = frozenset({"no", "n"})


@runtime_checkable
class Judge(Protocol):
    """Asks a language model whether ``evidence`` supports ``claim``; returns P(yes) in [0, 1]."""

    name: str

    def judge(self, claim: str, evidence: str) -> float: ...

    def judge_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) for each ``(claim, evidence)`` pair, in order."""
        ...


class JudgePrompting(TypedDict, total=False):
    """The options every judge takes for what it asks: ``evidence_chars`` (evidence cut to
    this length) and ``prompt`` (with ``{evidence}`` and ``{claim}``)."""

    evidence_chars: int
    prompt: str


class PromptedJudge:
    """``judge`` as a batch of one and the messages asked, for judges that put a claim and
    its evidence into ``prompt``; subclasses give ``name`` and ``judge_batch``."""

    name: str

    def __init__(
        self, *, evidence_chars: int = JUDGE_EVIDENCE_CHARS, prompt: str = JUDGE_PROMPT
    ) -> None:
        if evidence_chars < 1:
            raise ConfigurationError(f"evidence_chars must be positive, got {evidence_chars}")
        self.evidence_chars = evidence_chars
        self.prompt = prompt

    def judge(self, claim: str, evidence: str) -> float:
        return self.judge_batch([(claim, evidence)])[0]

    def judge_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        raise NotImplementedError

    def messages(self, claim: str, evidence: str) -> list[dict[str, str]]:
        """The chat messages asking about ``claim`` against the start of ``evidence``."""
        return judge_messages(claim, evidence[: self.evidence_chars], self.prompt)


def judge_messages(claim: str, evidence: str, prompt: str = JUDGE_PROMPT) -> list[dict[str, str]]:
    """The chat messages a judge sends: the document first, so that claims judged against the
    same evidence share the model's evaluated prefix."""
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": prompt.format(evidence=evidence, claim=claim)},
    ]


def support_from_top_tokens(top: Mapping[str, float]) -> float | None:
    """P(yes) / (P(yes) + P(no)) from the first answer token's log-probabilities (token text
    to log-probability), or ``None`` when neither a yes nor a no is among them."""
    yes = no = 0.0
    for token, logprob in top.items():
        word = token.strip().lower()
        if word in _YES:
            yes += math.exp(logprob)
        elif word in _NO:
            no += math.exp(logprob)
    if yes + no == 0.0:
        return None
    return yes / (yes + no)


def support_from_text(text: str) -> float:
    """The answer's text read as a verdict, for a server that returns no log-probabilities."""
    words = text.strip().lower().split()
    first = words[0].strip(".,!:;\"'") if words else ""
    if first in _YES:
        return 1.0
    if first in _NO:
        return 0.0
    raise GenerationError(f"the judge answered neither yes nor no: {text[:80]!r}")


_REGISTRY = Registry[Judge]("judge", extra="judge", lazy={
    "local": "veritype.judges.local:LocalJudge",
    "openai": "veritype.judges.remote:OpenAIJudge",
})
register_judge = _REGISTRY.register
available_judges = _REGISTRY.names
create_judge = _REGISTRY.create
