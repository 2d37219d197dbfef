"""The view registry by name, and the bases views share (the contract is in ``verdicts``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from veritype._registry import Registry
from veritype.claims import Claim
from veritype.deadline import checked, checkpoint
from veritype.evidence import EvidencePack
from veritype.verdicts import VerificationView, ViewResult, check_batch

Prepared = TypeVar("Prepared")


# Views whose module needs a runtime the core does without (onnxruntime, an HTTP client):
# registered by "module:attribute" and imported only when first created.
_REGISTRY = Registry[VerificationView](
    "view",
    lazy={
        "nli": "veritype.models.encoder_views:nli_view",
        "align": "veritype.models.encoder_views:align_view",
        "paraphrase": "veritype.models.paraphrase_view:paraphrase_view",
        "judge": "veritype.judges.view:judge_view",
    },
)
register_view = _REGISTRY.register
available_views = _REGISTRY.names


create_view = _REGISTRY.create


def view_takes(name: str, option: str) -> bool:
    """Whether the view registered as ``name`` takes the option ``option`` (``threads``)."""
    factory = _REGISTRY.find(name)
    return factory is not None and option in inspect.signature(factory).parameters


def with_threads(names: Sequence[str], options: Mapping[str, Mapping[str, Any]] | None,
                 threads: int) -> dict[str, dict[str, Any]]:
    """The options of the views ``names`` where each view that takes ``threads`` gets
    ``threads`` (unless ``options`` set it): the options of a worker process given that many
    CPUs, so that workers do not fight over cores."""
    given = options or {}
    return {name: {**({"threads": threads} if view_takes(name, "threads") else {}),
                   **given.get(name, {})} for name in names}


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
    shared by many claims (the usual case) is analysed once. A cancelled deadline stops it
    before the next pack it would analyse.
    """
    cache: dict[int, Prepared] = {}
    prepared: list[Prepared] = []
    for pack in evidence:
        if id(pack) not in cache:
            checkpoint("the next evidence pack")
            cache[id(pack)] = prepare(pack)
        prepared.append(cache[id(pack)])
    return prepared


class BatchedView:
    """``verify`` as a batch of one, for views whose work is naturally batched."""

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
        return self.verify_batch([claim], [evidence])[0]

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        raise NotImplementedError


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
        return [self._check(c, p)
                for c, p in checked(zip(claims, prepared, strict=True), "the next claim")]
