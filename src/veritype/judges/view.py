"""The ``judge`` verification view: a language model asked whether the evidence windows
closest to a claim support it.

Evidence of at most ``whole_chars`` characters is read whole, the same text for every claim
on it: the judge's prompt puts the evidence first, so the model evaluates it once and reads
only each claim after it. Longer evidence is cut to the ``max_windows`` evidence windows
(``window_sizes`` consecutive sentences) that hold the most of each claim's words, as the
``nli`` view does, which keeps a 1.5B model at a few seconds per claim on a CPU. P(yes) is
the view's score; at ``threshold`` or more it votes entailed and cites the closest windows,
else unknown. A yes/no judge cannot tell a refuted claim from an unstated one, so it never
votes contradicted; a fitted aggregator reads a low P(yes) as support unlikely.

It is the most expensive view (``cost`` 50 against the encoders' 5), so the budget
allocator runs it last, and by default (``borderline_only``) only on the claims the views
before it leave unsettled: Uncertain, or inside the aggregator's ask band where it has one
(the default's, the claims not typed at 95% precision either way).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from veritype.claims import Claim
from veritype.errors import ConfigurationError
from veritype.evidence import EvidencePack
from veritype.judges._base import Judge, create_judge
from veritype.models.encoder_views import (
    NO_EVIDENCE,
    EvidenceWindow,
    WindowedView,
    evidence_windows,
)
from veritype.verdicts import Verdict, ViewResult, check_batch, check_fraction
from veritype.views._base import once_per_pack

# Evidence up to this many characters is read whole (about 400 tokens).
WHOLE_CHARS = 1500


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
        whole_chars: int = WHOLE_CHARS,
    ) -> None:
        check_fraction("threshold", threshold)
        if whole_chars < 0:
            raise ConfigurationError(f"whole_chars must be >= 0, got {whole_chars}")
        super().__init__(window_sizes, max_windows, cost)
        self.judge = judge
        self.threshold = threshold
        self.borderline_only = borderline_only
        self.whole_chars = whole_chars

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        check_batch(claims, evidence)
        prepared = once_per_pack(evidence, lambda pack: (
            evidence_windows(pack, self.window_sizes), self._whole(pack)))
        return self._ask(claims, [windows for windows, _ in prepared],
                         [whole for _, whole in prepared])

    def _whole(self, pack: EvidencePack) -> str | None:
        text = "\n\n".join(chunk.text.strip() for chunk in pack)
        return text if text and len(text) <= self.whole_chars else None

    def _read(
        self, claims: Sequence[Claim], all_windows: Sequence[list[EvidenceWindow]]
    ) -> list[ViewResult]:
        return self._ask(claims, all_windows, [None] * len(claims))

    def _ask(
        self, claims: Sequence[Claim], all_windows: Sequence[list[EvidenceWindow]],
        wholes: Sequence[str | None],
    ) -> list[ViewResult]:
        chosen = [self._closest(claim, windows)
                  for claim, windows in zip(claims, all_windows, strict=True)]
        asked = [(claim, windows, whole) for claim, windows, whole
                 in zip(claims, chosen, wholes, strict=True) if windows]
        supports = iter(self.judge.judge_batch(
            [(claim.text, whole if whole is not None
              else "\n".join(window.text for window in windows))
             for claim, windows, whole in asked]
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
               borderline_only: bool = True, whole_chars: int = WHOLE_CHARS,
               **judge_options: Any) -> JudgeView:
    """The ``judge`` view on the judge registered as ``judge`` (``local`` or ``openai``);
    other options go to the judge (``model_path``, ``base_url``, ``model``, ``prompt``, ...)."""
    return JudgeView(create_judge(judge, **judge_options), threshold=threshold,
                     window_sizes=window_sizes, max_windows=max_windows, cost=cost,
                     borderline_only=borderline_only, whole_chars=whole_chars)
