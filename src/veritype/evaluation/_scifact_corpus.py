"""SciFact's corpus store, the retrieval of each claim's evidence, and the citation judge."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from veritype.evaluation.data import Example, SciFactClaim, read_jsonl
from veritype.evaluation.scoring import ENTAILED, ScoreTable

if TYPE_CHECKING:
    from veritype.evaluation.runner import IngestProgressFactory
    from veritype.ingest.corpus import Corpus

TOP_K = 3
JUDGE = "nli and align cross-encoders both give entailment ≥ 0.5"
JUDGE_MODELS = ("nli", "align")


def corpus_rows(data_dir: Path, claims: Sequence[SciFactClaim], limit: int | None
                 ) -> list[dict[str, Any]]:
    """The whole corpus, or with ``limit`` the abstracts the claims cite plus distractors."""
    rows = list(read_jsonl(data_dir / "scifact" / "corpus.jsonl"))
    if limit is None:
        return rows
    wanted = {doc for claim in claims for doc in (*claim.cited_docs, *claim.evidence_docs)}
    distractors = {str(row["doc_id"]) for row in rows[: 10 * limit]}
    return [row for row in rows if str(row["doc_id"]) in wanted | distractors]


def open_corpus(cache_dir: Path | None, rows: Sequence[dict[str, Any]],
                ingest_progress: IngestProgressFactory = nullcontext) -> Corpus:
    """A corpus store holding ``rows`` under ``cache_dir``, ingested (its progress shown by
    ``ingest_progress``) on first use and reused afterwards."""
    from veritype.ingest.corpus import Corpus
    from veritype.ingest.readers import RecordFields

    cache = cache_dir or Path("eval-runs") / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    ids = ",".join(str(row["doc_id"]) for row in rows)
    digest = hashlib.sha256(ids.encode()).hexdigest()[:12]
    source = cache / f"scifact-corpus-{len(rows)}-{digest}.jsonl"
    if not source.is_file():
        with source.open("w", encoding="utf-8") as handle:
            for row in rows:
                text = " ".join(row["abstract"]) if isinstance(row["abstract"], list) \
                    else str(row["abstract"])
                handle.write(json.dumps({"doc_id": str(row["doc_id"]), "title": row["title"],
                                         "text": text}) + "\n")
    corpus = Corpus.open(f"sqlite:///{cache / (source.stem + '.sqlite')}")
    if corpus.store.count_documents() != len(rows):
        with ingest_progress() as progress:
            corpus.ingest([source], fields=RecordFields(text="text", title="title",
                                                        identifier="doc_id"),
                          progress=progress)
    return corpus


def retrieve(corpus: Corpus, claims: Sequence[SciFactClaim]
             ) -> tuple[list[Example], list[list[str]]]:
    """One example per claim (its top chunks as evidence) and the SciFact id of each chunk."""
    scifact_id: dict[str, str] = {}
    offset = 0
    while True:
        records = corpus.store.documents(limit=1000, offset=offset)
        if not records:
            break
        for record in records:
            scifact_id[record.doc_id] = record.source.rsplit("#", 1)[1]
        offset += len(records)
    hits = corpus.retrieve_batch([c.claim for c in claims], TOP_K)
    examples, sources = [], []
    for claim, found in zip(claims, hits, strict=True):
        examples.append(Example(
            example_id=f"scifact-{claim.claim_id}", group=str(claim.claim_id),
            evidence=tuple(hit.chunk.text for hit in found), claim=claim.claim, label=claim.label,
        ))
        sources.append([scifact_id[hit.chunk.doc_id] for hit in found])
    return examples, sources


def citation_quality(
    table: ScoreTable, examples: Sequence[Example], accepted: np.ndarray
) -> dict[str, Any]:
    """ALCE citation recall (the cited spans together entail the claim) and precision (a
    citation is irrelevant when it alone does not entail the claim and removing it leaves
    the rest's support unchanged), judged by ``JUDGE``."""
    from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir

    judges = [CrossEncoder(shipped_model_dir(name)) for name in JUDGE_MODELS]

    def entails(pairs: list[tuple[str, str]]) -> np.ndarray:
        if not pairs:
            return np.zeros(0, dtype=bool)
        result: np.ndarray = np.min([judge.predict(pairs)[:, 0] for judge in judges], axis=0) >= 0.5
        return result

    claims: list[tuple[str, list[str]]] = []
    for i in np.nonzero(accepted)[0].tolist():
        cited = sorted({
            span for column in range(len(table.views))
            if table.verdict[i, column] == ENTAILED for span in table.spans[i][column]
        })
        texts = [examples[i].evidence[doc][start:end] for doc, start, end in cited]
        claims.append((examples[i].claim, texts))
    together = entails([(" ".join(texts), claim) for claim, texts in claims])
    alone_pairs = [(text, claim) for claim, texts in claims for text in texts]
    alone = entails(alone_pairs)
    without_pairs = [
        (" ".join(texts[:k] + texts[k + 1 :]), claim)
        for claim, texts in claims for k in range(len(texts)) if len(texts) > 1
    ]
    without = iter(entails(without_pairs).tolist())
    relevant, total, position = 0, 0, 0
    for (_, texts), supported in zip(claims, together, strict=True):
        for _ in texts:
            helps_alone = bool(alone[position])
            rest_supports = bool(next(without)) if len(texts) > 1 else False
            # ALCE: irrelevant when it does not support alone and the rest still stands.
            relevant += helps_alone or (supported and not rest_supports)
            total += 1
            position += 1
    return {
        "judge": JUDGE,
        "rendered_claims": len(claims),
        "citations": total,
        "citation_recall": float(np.mean(together)) if len(claims) else 0.0,
        "citation_precision": relevant / total if total else 0.0,
    }
