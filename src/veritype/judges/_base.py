"""The judge contract: a Protocol, the prompt, the reading of P(yes) and a registry."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from veritype._registry import Registry
from veritype.errors import GenerationError

JUDGE_PROMPT = (
    "Document:\n{evidence}\n\nClaim: {claim}\n\n"
    "Is the claim fully supported by the document? Answer yes or no."
)
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


JudgeFactory = Callable[..., Judge]
_REGISTRY = Registry[JudgeFactory](
    "judge",
    lazy={
        "local": "veritype.judges.local:LocalJudge",
        "openai": "veritype.judges.remote:OpenAIJudge",
    },
)


register_judge = _REGISTRY.register
available_judges = _REGISTRY.names


def create_judge(name: str, **options: Any) -> Judge:
    """Build the judge registered as ``name``; unknown names list the known ones."""
    judge: Judge = _REGISTRY.create(name, **options)
    return judge
