"""The ``paraphrase`` view: how close a claim's meaning lies to its nearest evidence sentence, as
the cosine of their sentence embeddings (the shipped retrieval embedder by default).

A paraphrase ("Work on the tower ended in 1889" for "The tower was finished in 1889") shares
few words and a small NLI model often reads it as neutral, yet its embedding sits next to the
sentence it restates. Closeness is not entailment: a changed number, name or negation sits
just as close. So the view never contradicts, calls a claim entailed only at a cosine of
``threshold`` or more, and what its score is worth beside the views that read numbers, names
and negations is for the fitted aggregator to say (``veritype train aggregator``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from veritype.claims import Claim
from veritype.evidence import EvidencePack, Span
from veritype.retrieval.embedding import DEFAULT_EMBEDDER, Embedder, create_embedder
from veritype.verdicts import Verdict, ViewResult, check_cost, check_fraction
from veritype.views._base import PackAnalysingView


@dataclass(frozen=True, slots=True)
class _Sentences:
    """The evidence sentences of one pack and their unit vectors, one row each."""

    spans: tuple[Span, ...]
    vectors: np.ndarray


class ParaphraseView(PackAnalysingView[_Sentences]):
    """Support = the cosine of the claim to its closest evidence sentence (0 below 0)."""

    name: str
    cost: float
    strong: bool

    def __init__(self, embedder: Embedder, *, threshold: float = 0.9, cost: float = 0.3
                 ) -> None:
        check_fraction("threshold", threshold)
        check_cost(cost)
        self.name = "paraphrase"
        self.embedder = embedder
        self.threshold = threshold
        self.cost = cost
        self.strong = False

    def _prepare(self, evidence: EvidencePack) -> _Sentences:
        spans = tuple(evidence.sentences())
        texts = [" ".join(evidence.quote(span).split()) for span in spans]
        vectors = (self.embedder.embed_batch(texts) if texts
                   else np.zeros((0, 1), dtype=np.float32))
        return _Sentences(spans, np.asarray(vectors, dtype=np.float32))

    def _check(self, claim: Claim, sentences: _Sentences) -> ViewResult:
        if not sentences.spans:
            return ViewResult(self.name, Verdict.ABSTAINED, 0.0,
                              detail="no evidence sentence to compare")
        closeness = sentences.vectors @ np.asarray(self.embedder.embed(claim.text),
                                                   dtype=np.float32)
        best = int(np.argmax(closeness))
        score = float(min(max(closeness[best], 0.0), 1.0))
        verdict = Verdict.ENTAILED if score >= self.threshold else Verdict.UNKNOWN
        return ViewResult(self.name, verdict, score, spans=(sentences.spans[best],),
                          detail=f"closest sentence at cosine {score:.2f}")


def paraphrase_view(embedder: str = DEFAULT_EMBEDDER, *, threads: int | None = None,
                    **settings: Any) -> ParaphraseView:
    """The ``paraphrase`` view over the embedder registered as ``embedder``."""
    options: dict[str, Any] = {} if threads is None else {"threads": threads}
    return ParaphraseView(create_embedder(embedder, **options), **settings)
