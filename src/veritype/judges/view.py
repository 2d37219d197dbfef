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
from veritype.judges._base import Judge, create_judge
from veritype.models.encoder_views import NO_EVIDENCE, EvidenceWindow, WindowedView
from veritype.verdicts import Verdict, ViewResult, check_fraction


class JudgeView(WindowedView):
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
        check_fraction("threshold", threshold)
        super().__init__(window_sizes, max_windows, cost)
        self.judge = judge
        self.threshold = threshold
        self.borderline_only = borderline_only

    def _read(
        self, claims: Sequence[Claim], all_windows: Sequence[list[EvidenceWindow]]
    ) -> list[ViewResult]:
        chosen = [self._closest(claim, windows)
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
                results.append(ViewResult.unknown(self.name, NO_EVIDENCE))
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
