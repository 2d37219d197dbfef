"""Verification views backed by an NLI cross-encoder: ``nli`` and ``align``.

Evidence longer than the model's window is scored as overlapping sentence windows; the
view keeps the window with the best entailment and the one with the strongest
contradiction, and cites whichever decided the verdict. A claim that a window states word
for word, with nothing around the copy that qualifies it, is entailed without the model.
Only the windows that share the
most content words with the claim are scored (``max_windows``): a window without the
claim's words can neither entail nor contradict it, and the model is the costly part.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from veritype._text import ANAPHORIC_LEAD, content_words, quoted_in
from veritype.claims import Claim
from veritype.evidence import EvidencePack, Span
from veritype.models.cross_encoder import CrossEncoder, model_directory
from veritype.views._base import Verdict, ViewResult, check_batch, once_per_pack

_ENTAILMENT, _CONTRADICTION = 0, 2


@dataclass(frozen=True, slots=True)
class _Window:
    span: Span
    text: str
    words: frozenset[str]


# Besides a pronoun, a definite description with a common noun ("The bridge ...") usually
# points back to a name given earlier.
_DEFINITE_DESCRIPTION = re.compile(r"The\s+[a-z]")


def evidence_windows(pack: EvidencePack, sentences_per_window: int) -> list[_Window]:
    """Overlapping windows of consecutive sentences within each chunk (stride one sentence).

    A window whose first sentence opens with a pronoun or a definite description also takes
    the sentence before it: "It was completed in 1889." or "The bridge opened in 1937." alone
    cannot say what "it" or "the bridge" is, and a model reads the missing name as a different
    one."""
    windows: list[_Window] = []
    for chunk in pack:
        sentences = chunk.sentences()
        count = max(1, len(sentences) - sentences_per_window + 1)
        for first in range(count):
            group = sentences[first : first + sentences_per_window]
            if not group:
                continue
            opening = group[0]
            if first > 0 and _leans_back(chunk.slice(opening.start, opening.end)):
                group = [sentences[first - 1], *group]
            span = Span(chunk.doc_id, chunk.chunk_id, group[0].start, group[-1].end)
            text = chunk.slice(span.start, span.end)
            windows.append(_Window(span, text, frozenset(content_words(text))))
    return windows


def _leans_back(sentence: str) -> bool:
    return bool(ANAPHORIC_LEAD.match(sentence) or _DEFINITE_DESCRIPTION.match(sentence))


def _quoting(claim: Claim, windows: list[_Window]) -> _Window | None:
    """The first window that states the claim word for word (see :func:`veritype._text.quoted_in`):
    entailed without asking the model, since models trained on perturbed copies of sentences
    can doubt even an exact copy. A copy with qualifying words around it is left to the model."""
    if len(claim.text.split()) < 3:
        return None
    return next((window for window in windows if quoted_in(claim.text, window.text)), None)


class CrossEncoderView:
    """A verification view that asks an NLI cross-encoder whether evidence entails a claim."""

    def __init__(
        self,
        name: str,
        encoder: CrossEncoder,
        *,
        entail_threshold: float = 0.5,
        contradiction_threshold: float = 0.6,
        sentences_per_window: int = 2,
        max_windows: int | None = 6,
        cost: float = 5.0,
        strong: bool = True,
    ) -> None:
        for label, value in (
            ("entail_threshold", entail_threshold),
            ("contradiction_threshold", contradiction_threshold),
        ):
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{label} must lie in (0, 1], got {value}")
        if sentences_per_window < 1:
            raise ValueError(f"sentences_per_window must be >= 1, got {sentences_per_window}")
        if max_windows is not None and max_windows < 1:
            raise ValueError(f"max_windows must be >= 1 or None, got {max_windows}")
        self.name = name
        self.encoder = encoder
        self.entail_threshold = entail_threshold
        self.contradiction_threshold = contradiction_threshold
        self.sentences_per_window = sentences_per_window
        self.max_windows = max_windows
        self.cost = cost
        self.strong = strong

    def verify(self, claim: Claim, evidence: EvidencePack) -> ViewResult:
        return self.verify_batch([claim], [evidence])[0]

    def verify_batch(
        self, claims: Sequence[Claim], evidence: Sequence[EvidencePack]
    ) -> list[ViewResult]:
        check_batch(claims, evidence)
        all_windows = once_per_pack(evidence, self._windows)
        quoted = [_quoting(claim, windows) for claim, windows in zip(claims, all_windows,
                                                                     strict=True)]
        windows = [
            [] if quote is not None else self._closest(claim, pack_windows)
            for claim, pack_windows, quote in zip(claims, all_windows, quoted, strict=True)
        ]
        pairs: list[tuple[str, str]] = []
        offsets: list[tuple[int, int]] = []
        for claim, claim_windows in zip(claims, windows, strict=True):
            offsets.append((len(pairs), len(pairs) + len(claim_windows)))
            pairs.extend((window.text, claim.text) for window in claim_windows)
        scores = self.encoder.predict(pairs) if pairs else np.zeros((0, 3), dtype=np.float32)
        return [
            ViewResult(self.name, Verdict.ENTAILED, 1.0, spans=(quote.span,),
                       detail="the evidence states the claim verbatim")
            if quote is not None
            else self._decide(claim_windows, scores[start:end])
            for claim_windows, (start, end), quote in zip(windows, offsets, quoted, strict=True)
        ]

    def _windows(self, pack: EvidencePack) -> list[_Window]:
        return evidence_windows(pack, self.sentences_per_window)

    def _closest(self, claim: Claim, windows: list[_Window]) -> list[_Window]:
        """The ``max_windows`` windows sharing most content words with the claim, in
        evidence order (ties keep the earlier window)."""
        if self.max_windows is None or len(windows) <= self.max_windows:
            return windows
        words = frozenset(content_words(claim.text))
        ranked = sorted(range(len(windows)), key=lambda i: (-len(words & windows[i].words), i))
        return [windows[i] for i in sorted(ranked[: self.max_windows])]

    def _decide(self, windows: list[_Window], scores: np.ndarray) -> ViewResult:
        if not windows:
            return ViewResult(self.name, Verdict.UNKNOWN, 0.0, detail="no evidence to read")
        best = int(np.argmax(scores[:, _ENTAILMENT]))
        worst = int(np.argmax(scores[:, _CONTRADICTION]))
        entailment = float(scores[best, _ENTAILMENT])
        contradiction = float(scores[worst, _CONTRADICTION])
        if contradiction >= self.contradiction_threshold and contradiction > entailment:
            return ViewResult(
                self.name,
                Verdict.CONTRADICTED,
                entailment,
                contradiction,
                spans=(windows[worst].span,),
                detail=f"contradiction {contradiction:.2f}",
            )
        if entailment >= self.entail_threshold:
            return ViewResult(
                self.name,
                Verdict.ENTAILED,
                entailment,
                contradiction,
                spans=(windows[best].span,),
                detail=f"entailment {entailment:.2f}",
            )
        return ViewResult(
            self.name,
            Verdict.UNKNOWN,
            entailment,
            contradiction,
            spans=(windows[best].span,),
            detail=f"best entailment {entailment:.2f}",
        )


def nli_view(*, model: str | None = None, threads: int = 2, **settings: Any) -> CrossEncoderView:
    """The ``nli`` view on the shipped NLI model (trained on the NLI pool), or on ``model``."""
    encoder = CrossEncoder(model_directory(model or "nli"), threads=threads)
    return CrossEncoderView("nli", encoder, **settings)


def align_view(*, model: str | None = None, threads: int = 2, **settings: Any) -> CrossEncoderView:
    """The ``align`` view on the shipped alignment model (claim-vs-evidence data), or ``model``."""
    encoder = CrossEncoder(model_directory(model or "align"), threads=threads)
    return CrossEncoderView("align", encoder, **settings)
