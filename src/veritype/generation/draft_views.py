"""Verification views that read the generator rather than the evidence.

- ``entropy``: how unsure the generator was while writing the claim. The mean token
  entropy H (nats) over the claim's span in the draft maps to a score exp(-H / scale):
  H = 0 gives 1, H = scale·ln 2 (0.69 nats by default) gives 0.5, two nats give 0.14. A
  score of at least ``threshold`` votes entailed, anything less unknown; the view never
  claims a contradiction, and abstains when the draft carries no entropies (the
  ``extractive`` generator) or the claim's span holds no token.
- ``selfcheck``: SelfCheck-style consistency. K more drafts are sampled at a temperature
  above zero; the ``nli`` cross-encoder reads each sample as the premise of the claim. The
  support is the fraction of samples that entail the claim; it votes entailed at
  ``threshold`` or more, contradicted when most samples contradict it, else unknown. The
  samples are not evidence, so the view cites no span. A deterministic generator (such as
  ``extractive``) repeats its draft, so its samples carry no information.

Both are weak views: their contradictions never override the support mass. They need the
draft, so they are built per answer by ``draft_views``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from veritype.claims import Claim
from veritype.errors import ConfigurationError
from veritype.evidence import Chunk, EvidencePack
from veritype.generation._base import Draft, GenerationParams, Generator
from veritype.verdicts import Verdict, VerificationView, ViewResult, check_batch, check_fraction
from veritype.views._base import BatchedView, create_view

DRAFT_VIEWS = frozenset({"entropy", "selfcheck"})


class EntropyView:
    """Token-level uncertainty of the generator over the claim's span in the draft."""

    name = "entropy"
    cost = 0.1
    strong = False

    def __init__(self, draft: Draft, *, scale: float = 1.0, threshold: float = 0.5) -> None:
        if scale <= 0:
            raise ConfigurationError(f"scale must be positive, got {scale}")
        check_fraction("threshold", threshold)
        self.draft = draft
        self.scale = scale
        self.threshold = threshold

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
        entropy = self.draft.mean_entropy(claim.start, claim.end)
        if entropy is None:
            return ViewResult.abstained(self.name, "no token entropies over the claim's span")
        score = math.exp(-entropy / self.scale)
        verdict = Verdict.ENTAILED if score >= self.threshold else Verdict.UNKNOWN
        return ViewResult(self.name, verdict, score,
                          detail=f"mean token entropy {entropy:.2f} nats")

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        check_batch(claims, evidence)
        return [self.verify(claim, pack) for claim, pack in zip(claims, evidence, strict=True)]


class SelfCheckView(BatchedView):
    """Agreement of the claim with K extra drafts sampled from the same generator."""

    name = "selfcheck"
    cost = 6.0
    strong = False

    def __init__(
        self,
        generator: Generator,
        prompt: str,
        evidence: Sequence[Chunk],
        *,
        samples: int = 3,
        temperature: float = 0.8,
        max_tokens: int = 160,
        seed: int = 0,
        threshold: float = 0.5,
        judge: VerificationView | None = None,
    ) -> None:
        if samples < 1:
            raise ConfigurationError(f"samples must be at least 1, got {samples}")
        if temperature <= 0:
            raise ConfigurationError(
                f"temperature must be above 0 for sampling, got {temperature}"
            )
        check_fraction("threshold", threshold)
        self.generator = generator
        self.prompt = prompt
        self.evidence = list(evidence)
        self.samples = samples
        self.params = GenerationParams(max_tokens=max_tokens, temperature=temperature, seed=seed)
        self.threshold = threshold
        self._judge = judge
        self._packs: list[EvidencePack] | None = None

    @property
    def sample_packs(self) -> list[EvidencePack]:
        """The sampled drafts as evidence packs for the judge, drawn once on first use."""
        if self._packs is None:
            params = [replace(self.params, seed=self.params.seed + 1 + i)
                      for i in range(self.samples)]
            drafts = [self.generator.generate(self.prompt, self.evidence, p) for p in params]
            self._packs = [
                EvidencePack.from_texts([draft.text]) if draft.text.strip() else EvidencePack()
                for draft in drafts
            ]
        return self._packs

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        check_batch(claims, evidence)
        if not claims:
            return []
        if self._judge is None:
            self._judge = create_view("nli")
        packs = self.sample_packs
        pairs_claims = [claim for claim in claims for _ in packs]
        pairs_packs = [pack for _ in claims for pack in packs]
        judged = self._judge.verify_batch(pairs_claims, pairs_packs)
        results: list[ViewResult] = []
        for index in range(len(claims)):
            verdicts = judged[index * len(packs) : (index + 1) * len(packs)]
            support = sum(v.verdict is Verdict.ENTAILED for v in verdicts) / len(packs)
            against = sum(v.verdict is Verdict.CONTRADICTED for v in verdicts) / len(packs)
            if support >= self.threshold:
                verdict = Verdict.ENTAILED
            elif against > 0.5:
                verdict = Verdict.CONTRADICTED
            else:
                verdict = Verdict.UNKNOWN
            results.append(ViewResult(
                self.name, verdict, support, against,
                detail=f"entailed by {support * len(packs):.0f} of {len(packs)} samples, "
                       f"contradicted by {against * len(packs):.0f}",
            ))
        return results


def draft_views(
    names: Sequence[str],
    *,
    draft: Draft,
    generator: Generator,
    prompt: str,
    evidence: Sequence[Chunk],
    samples: int = 3,
) -> list[VerificationView]:
    """The views named in ``names`` (each one of ``DRAFT_VIEWS``) for one answer's draft.

    Claims checked by them must carry spans into ``draft.text``.
    """
    unknown = [name for name in names if name not in DRAFT_VIEWS]
    if unknown:
        raise ConfigurationError(
            f"unknown draft view {', '.join(map(repr, unknown))}; draft views: "
            f"{', '.join(sorted(DRAFT_VIEWS))}"
        )
    views: list[VerificationView] = []
    for name in names:
        if name == "entropy":
            views.append(EntropyView(draft))
        else:
            views.append(SelfCheckView(generator, prompt, evidence, samples=samples))
    return views
