"""The verification-view contract: a Protocol, its result type and a registry by name."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from veritype._registry import Registry
from veritype.claims import Claim
from veritype.evidence import EvidencePack, Span

Prepared = TypeVar("Prepared")


class Verdict(StrEnum):
    """What one view concluded about one claim.

    ``abstained`` means the view had nothing to check (a numeric view on a claim
    without numbers): it casts no vote and does not count towards N.
    """

    ENTAILED = "entailed"
    CONTRADICTED = "contradicted"
    UNKNOWN = "unknown"
    ABSTAINED = "abstained"


@dataclass(frozen=True, slots=True)
class ViewResult:
    """One view's answer for one claim: V_i(E, c) -> (z_i, S_i, score_i).

    ``score`` is the view's raw support score in [0, 1]; ``contradiction`` its raw
    contradiction score in [0, 1]; ``spans`` the evidence it relied on; ``detail`` a
    short human-readable reason for the trace.
    """

    view: str
    verdict: Verdict
    score: float
    contradiction: float = 0.0
    spans: tuple[Span, ...] = ()
    detail: str = ""

    def __post_init__(self) -> None:
        for label, value in (("score", self.score), ("contradiction", self.contradiction)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"view {self.view!r}: {label} must lie in [0, 1], got {value}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "view": self.view,
            "verdict": self.verdict.value,
            "score": self.score,
            "contradiction": self.contradiction,
            "spans": [span.to_dict() for span in self.spans],
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ViewResult:
        return cls(
            view=str(data["view"]),
            verdict=Verdict(data["verdict"]),
            score=float(data["score"]),
            contradiction=float(data["contradiction"]),
            spans=tuple(Span.from_dict(span) for span in data["spans"]),
            detail=str(data["detail"]),
        )


@runtime_checkable
class VerificationView(Protocol):
    """A verification view: one paradigm of checking a claim against evidence.

    ``cost`` orders views for the budget allocator (cheap first); ``strong`` says whether
    this view's contradiction verdict overrides the support mass.
    """

    name: str
    cost: float
    strong: bool

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult: ...

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]: ...


class ViewRegistryError(KeyError):
    """An unknown view name, or a name registered twice."""

    def __str__(self) -> str:
        return str(self.args[0])


ViewFactory = Callable[..., VerificationView]
# Views whose module needs a runtime the core does without (onnxruntime, an HTTP client):
# registered by "module:attribute" and imported only when first created.
_REGISTRY = Registry[ViewFactory](
    lambda name: ViewRegistryError(f"a view named {name!r} is already registered"),
    lazy={
        "nli": "veritype.models.views:nli_view",
        "align": "veritype.models.views:align_view",
        "judge": "veritype.judges.view:judge_view",
    },
)


def register_view(name: str) -> Callable[[ViewFactory], ViewFactory]:
    """Register a view factory under ``name`` so configurations can select it by name."""
    return _REGISTRY.register(name)



def create_view(name: str, **options: Any) -> VerificationView:
    """Build the view registered as ``name``; unknown names list the known ones."""
    factory = _REGISTRY.find(name)
    if factory is None:
        raise ViewRegistryError(
            f"unknown view {name!r}; known views: {', '.join(available_views())}"
        )
    return factory(**options)


def available_views() -> list[str]:
    return _REGISTRY.names()


def view_takes(name: str, option: str) -> bool:
    """Whether the view registered as ``name`` takes the option ``option`` (``threads``)."""
    factory = _REGISTRY.find(name)
    return factory is not None and option in inspect.signature(factory).parameters


def clear_model_caches(views: Sequence[VerificationView]) -> None:
    """Empty the score caches of the views' models. A score served from a cache filled by
    another batch depends on what ran before (the int8 models quantise each batch), so work
    that must give the same result wherever it runs clears them at its start."""
    for view in views:
        clear = getattr(getattr(view, "encoder", None), "clear_cache", None)
        if callable(clear):
            clear()


def once_per_pack(
    evidence: Sequence[EvidencePack], prepare: Callable[[EvidencePack], Prepared]
) -> list[Prepared]:
    """``prepare(pack)`` for every pack of a batch, computed once per distinct pack.

    Keyed by id(): the packs stay alive in ``evidence`` for the whole call, and a pack
    shared by many claims (the usual case) is analysed once.
    """
    cache: dict[int, Prepared] = {}
    prepared: list[Prepared] = []
    for pack in evidence:
        if id(pack) not in cache:
            cache[id(pack)] = prepare(pack)
        prepared.append(cache[id(pack)])
    return prepared


class PackAnalysingView(Generic[Prepared]):
    """``verify``/``verify_batch`` for views that analyse each evidence pack once, then
    check each claim against that analysis; subclasses give ``_prepare`` and ``_check``."""

    def _prepare(self, evidence: EvidencePack) -> Prepared:
        raise NotImplementedError

    def _check(self, claim: Claim, prepared: Prepared) -> ViewResult:
        raise NotImplementedError

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
        return self._check(claim, self._prepare(evidence))

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        check_batch(claims, evidence)
        prepared = once_per_pack(evidence, self._prepare)
        return [self._check(c, p) for c, p in zip(claims, prepared, strict=True)]


def check_batch(claims: Sequence[Claim], evidence: Sequence[EvidencePack]) -> None:
    """Raise if a batch does not pair each claim with one evidence pack."""
    if len(claims) != len(evidence):
        raise ValueError(
            f"verify_batch needs one evidence pack per claim: {len(claims)} claims, "
            f"{len(evidence)} packs"
        )

