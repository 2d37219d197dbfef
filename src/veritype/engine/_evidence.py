"""Where each claim's evidence comes from: retrieval per claim (query + claim), its parents'
evidence, filters on the stored documents; and what an abstaining answer points to."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from veritype._text import ANAPHORIC_LEAD, content_words, sentence_spans
from veritype.answer import Reference
from veritype.answers.question import Question
from veritype.answers.reader import Candidate
from veritype.clauses import describes_another, heading_text, names_its_subject
from veritype.engine._inputs import passes_filters
from veritype.evidence import Chunk, Document, EvidencePack
from veritype.graph import BeliefGraph, Node
from veritype.ingest import Corpus
from veritype.retrieval import ScoredChunk


class EvidenceFinder:
    """Retrieves evidence from a corpus, ``k`` chunks per claim, under optional filters."""

    def __init__(self, corpus: Corpus, claim_k: int) -> None:
        self.corpus = corpus
        self.claim_k = claim_k

    def retrieve(
        self, text: str, k: int, filters: Mapping[str, str] | None
    ) -> list[ScoredChunk]:
        if not filters:
            return self.corpus.retrieve(text, k)
        # Filters drop hits after retrieval, so look deeper than k.
        hits = self.corpus.retrieve(text, k * 5)
        store = self.corpus.store
        return [hit for hit in hits
                if passes_filters(store.document(hit.chunk.doc_id), filters)][:k]

    def packs(
        self,
        graph: BeliefGraph,
        nodes: Sequence[Node],
        query: str | None,
        context: Sequence[Chunk],
        filters: Mapping[str, str] | None,
    ) -> dict[str, EvidencePack]:
        """One evidence pack per claim: its own retrieval plus its parents' evidence."""
        wanted = {node.claim.claim_id for node in nodes}
        if not wanted:
            return {}
        order = [claim_id for claim_id in graph.topological_order() if claim_id in wanted]
        texts = [
            f"{query} {graph.node(claim_id).claim.text}" if query else
            graph.node(claim_id).claim.text
            for claim_id in order
        ]
        if filters:
            found = [self.retrieve(text, self.claim_k, filters) for text in texts]
        else:
            found = self.corpus.retrieve_batch(texts, self.claim_k)
        packs: dict[str, EvidencePack] = {}
        for claim_id, hits in zip(order, found, strict=True):
            chunks = {hit.chunk.chunk_id: hit.chunk for hit in hits}
            for parent in graph.parents(claim_id):
                if parent in packs:
                    chunks.update({chunk.chunk_id: chunk for chunk in packs[parent]})
            if not chunks:
                chunks = {chunk.chunk_id: chunk for chunk in context}
            packs[claim_id] = self.pack(list(chunks.values()))
        return packs

    def pack(self, chunks: Sequence[Chunk]) -> EvidencePack:
        """The chunks with their documents; a chunk that opens with a pronoun reaches back to
        the sentence naming its referent, so the views read what "it" is."""
        documents = self._documents(chunk.doc_id for chunk in chunks)
        return EvidencePack(
            chunks=[with_referent(chunk, documents[chunk.doc_id].text)
                    if chunk.doc_id in documents else chunk for chunk in chunks],
            documents=documents)

    def _documents(self, doc_ids: Iterable[str]) -> dict[str, Document]:
        documents: dict[str, Document] = {}
        for doc_id in doc_ids:
            if doc_id not in documents:
                record = self.corpus.store.document(doc_id)
                if record is not None:
                    documents[doc_id] = record.document
        return documents


def top_references(chunks: Sequence[Chunk], pack: EvidencePack, limit: int = 3) -> list[Reference]:
    """Where a reader could look next when the answer abstains: the opening sentence of the
    best-ranked chunk of up to ``limit`` documents."""
    references: list[Reference] = []
    seen: set[str] = set()
    for chunk in chunks:
        sentences = chunk.sentences()
        if chunk.doc_id in seen or not sentences or not pack.has_chunk(chunk.chunk_id):
            continue
        seen.add(chunk.doc_id)
        span = sentences[0]
        references.append(Reference(
            ref=len(references) + 1, doc_id=span.doc_id, chunk_id=span.chunk_id,
            title=pack.title(span.doc_id), start=span.start, end=span.end,
            quote=pack.quote(span),
        ))
        if len(references) == limit:
            break
    return references


def chunk_entry(chunk: Chunk, pack: EvidencePack) -> dict[str, Any]:
    """A chunk as the trace records it."""
    return {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "title": pack.title(chunk.doc_id),
        "start": chunk.start,
        "end": chunk.end,
        "text": chunk.text,
    }


# How far back a chunk that opens with a pronoun looks for the sentence naming its referent.
_REFERENT_SENTENCES = 3
_REFERENT_CHARS = 1500


def with_referent(chunk: Chunk, text: str) -> Chunk:
    """``chunk`` of the document ``text``, reaching back to the sentence that names what its
    opening pronoun refers to ("The Ponte Vecchio is ... | It was rebuilt in 1345."), within
    ``_REFERENT_SENTENCES`` sentences (a heading counts); unchanged when it opens otherwise or
    no such sentence is near."""
    if not _opens_with_pronoun(chunk):
        return chunk
    low = max(0, chunk.start - _REFERENT_CHARS)
    before = text[low:chunk.start]
    spans = sentence_spans(before)
    # The first span may begin mid-sentence unless the window reaches the document's start.
    usable = spans if low == 0 else spans[1:]
    # Read forwards as the drafter reads a passage: the last sentence that names a subject,
    # or describes another thing than the one named before, is what "it" stands for.
    found: int | None = None
    referent: str | None = None
    for start, end in usable[-_REFERENT_SENTENCES:]:
        sentence = before[start:end]
        if (heading_text(sentence) is not None or names_its_subject(sentence)
                or describes_another(sentence, referent)):
            found, referent = start, sentence
    if found is None:
        return chunk
    return replace(chunk, start=low + found, text=text[low + found:chunk.end])


def _opens_with_pronoun(chunk: Chunk) -> bool:
    return chunk.start > 0 and ANAPHORIC_LEAD.match(chunk.text.lstrip()) is not None


def drafting_pool(chunks: Sequence[Chunk], question: Question) -> list[Candidate]:
    """Every sentence of the evidence an answer was drafted from, as the answer reader reads
    it (with its heading and the sentence "it" leads back to): the pool the reader was
    fitted on."""
    from veritype.generation.extractive import candidate_sentences

    return [candidate.as_read() for candidate in candidate_sentences(chunks, question)]


def claim_candidate(text: str, pool: Sequence[Candidate]) -> Candidate:
    """A claim as the answer reader reads it: with the context of the pool's sentence that
    shares most of its words (the sentence it was drawn from, for an extractive draft)."""
    words = set(content_words(text))
    shared, source = max(((len(words & set(content_words(c.text))), c) for c in pool),
                         key=lambda pair: pair[0], default=(0, None))
    return Candidate(text, source.context if source is not None and shared else "")
