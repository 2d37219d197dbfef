"""The ``judge`` verification view: a language model asked whether the evidence windows
closest to a claim support it.

For each claim the view picks the ``max_windows`` evidence windows (``window_sizes``
consecutive sentences) that hold the most of the claim's words, as the ``nli`` view does,
and asks the judge about them together: short evidence keeps a 1.5B model at a few
seconds per claim on a CPU. P(yes) is the view's score; at ``threshold`` or more it votes
entailed and cites the windows, else unknown. A yes/no judge cannot tell a refuted claim
from an unstated one, so it never votes contradicted, and it is a weak view.

It is the most expensive view (``cost`` 50 against the encoders' 5), so the budget
allocator runs it last, and by default (``borderline_only``) only on the claims the views
before it leave Uncertain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veritype.claims import Claim
from veritype.evidence import EvidencePack
from veritype.judges._base import Judge, create_judge
from veritype.models.encoder_views import check_windows, closest_windows, evidence_windows
from veritype.verdicts import Verdict, ViewResult, check_batch
from veritype.views._base import once_per_pack


class JudgeView:
    """Asks a :class:`~veritype.judges.Judge` about each claim's closest evidence windows."""

    name = "judge"
    strong = False
    cites_entailment = True

    def __init__(
        self,
        judge: Judge,
        *,
        threshold: float = 0.5,
        window_sizes: Sequence[int] = (2,),
        max_windows: int = 3,
        cost: float = 50.0,
        borderline_only: bool = True,
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must lie in (0, 1], got {threshold}")
        check_windows(window_sizes, max_windows)
        self.judge = judge
        self.threshold = threshold
        self.window_sizes = tuple(window_sizes)
        self.max_windows = max_windows
        self.cost = cost
        self.borderline_only = borderline_only

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
        return self.verify_batch([claim], [evidence])[0]

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        check_batch(claims, evidence)
        all_windows = once_per_pack(evidence,
                                    lambda pack: evidence_windows(pack, self.window_sizes))
        chosen = [closest_windows(claim, windows, self.max_windows)
                  for claim, windows in zip(claims, all_windows, strict=True)]
        asked = [(claim, windows) for claim, windows in zip(claims, chosen, strict=True)
                 if windows]
        supports = iter(self.judge.judge_batch(
            [(claim.text, "\n".join(window.text for window in windows))
             for claim, windows in asked]
        ))
        results: list[ViewResult] = []
        for windows in chosen:
            if not windows:
                results.append(ViewResult(self.name, Verdict.UNKNOWN, 0.0,
                                          detail="no evidence to read"))
                continue
            support = min(max(next(supports), 0.0), 1.0)
            verdict = Verdict.ENTAILED if support >= self.threshold else Verdict.UNKNOWN
            results.append(ViewResult(
                self.name, verdict, support,
                spans=tuple(window.span for window in windows),
                detail=f"{self.judge.name} judge: P(yes) {support:.2f}",
            ))
        return results


def judge_view(*, judge: str = "local", cost: float = 50.0, threshold: float = 0.5,
               window_sizes: Sequence[int] = (2,), max_windows: int = 3,
               borderline_only: bool = True, **judge_options: Any) -> JudgeView:
    """The ``judge`` view on the judge registered as ``judge`` (``local`` or ``openai``);
    other options go to the judge (``model_path``, ``base_url``, ``model``, ``prompt``, ...)."""
    return JudgeView(create_judge(judge, **judge_options), threshold=threshold,
                     window_sizes=window_sizes, max_windows=max_windows, cost=cost,
                     borderline_only=borderline_only)
