"""The engine: one object that ingests, retrieves, drafts, verifies, types and renders.

``Engine.ask(query)`` runs the whole pipeline of the design: retrieve → generate →
decompose → ESBG → per claim, retrieve (query + claim, plus the evidence of the claims it
depends on) → views under the budget allocator → aggregate → type → refine uncertain
compound claims → render only Verified claims with citations → save the trace.
``Engine.verify(answer, evidence)`` does the same for a given answer.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator
from rich.console import Console

from veritype._closing import Closing
from veritype.aggregate import (
    Aggregator,
    LearnedAggregator,
    VoteAggregator,
    create_aggregator,
    default_for,
    recommended_thresholds,
)
from veritype.answer import ClaimReport, Confidence, GroundedAnswer, Reference, render
from veritype.budget import Budget, Spend, run_views
from veritype.claims import Claim, decompose
from veritype.deadline import checkpoint
from veritype.errors import ConfigurationError, InputError
from veritype.evidence import Chunk, Document, EvidencePack
from veritype.graph import BeliefGraph, EvidenceType, Node, Status
from veritype.ingest import Corpus, IngestReport
from veritype.relevance import Similarity, off_question_claims
from veritype.retrieval import ScoredChunk
from veritype.settings import Settings
from veritype.thresholds import Thresholds
from veritype.verification import (
    WHOLE,
    citing_views,
    folded_by_whole,
    is_one_sentence,
    type_graph,
    with_whole,
)
from veritype.views import Verdict, VerificationView, available_views, create_view

ENV_PREFIX = "VERITYPE_"
MAX_QUERY_CHARS = 2000
MAX_ANSWER_CHARS = 20000
_QUOTE_CHARS = 300


class EngineConfig(Settings):
    """What the engine is made of. Components are chosen by their registry names.

    ``EngineConfig.load(path)``: defaults < TOML file < ``VERITYPE_*`` environment variables
    (every field but the option tables) < overrides."""

    env_fields: ClassVar[tuple[str, ...]] = (
        "store", "generator", "views", "aggregator", "aggregator_file", "tau", "tau_low",
        "budget", "k", "claim_k", "contradicted", "refine_depth", "mode", "max_tokens",
        "relevance", "relevance_floor", "demo", "trace_ttl", "max_traces",
    )

    store: str | None = None
    generator: str = "extractive"
    generator_options: dict[str, Any] = Field(default_factory=dict)
    views: list[str] = Field(default_factory=lambda: ["numeric", "lexical", "nli", "align"])
    # Options of each view by name, e.g. {"judge": {"judge": "openai", "base_url": ...}}.
    view_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    aggregator: str = "default"
    aggregator_file: Path | None = None
    # None: the thresholds the aggregator was calibrated for (0.8 / 0.3 for the vote).
    tau: float | None = None
    tau_low: float | None = None
    budget: float | None = None
    k: int = Field(default=3, ge=1, le=100)
    claim_k: int = Field(default=3, ge=1, le=50)
    contradicted: Literal["drop", "flag", "correct"] = "drop"
    refine_depth: int = Field(default=1, ge=0, le=4)
    mode: Literal["brief", "detailed"] = "brief"
    max_tokens: int = Field(default=96, ge=1, le=4096)
    relevance: bool = True
    relevance_floor: float = Field(default=0.35, ge=0.0, le=1.0)
    demo: bool = False
    # Trace retention, applied after each saved trace; None keeps every trace.
    trace_ttl: float | None = Field(default=None, gt=0, description="Seconds a trace is kept.")
    max_traces: int | None = Field(default=None, ge=0, description="Newest traces kept.")

    @field_validator("views")
    @classmethod
    def _some_views(cls, views: list[str]) -> list[str]:
        if not views or len(set(views)) != len(views):
            raise ValueError("give one or more distinct view names")
        return views

    @model_validator(mode="after")
    def _options_of_configured_views(self) -> EngineConfig:
        stray = sorted(set(self.view_options) - set(self.views))
        if stray:
            raise ValueError(f"view_options names views that are not configured: "
                             f"{', '.join(stray)} (views: {', '.join(self.views)})")
        return self


class Engine(Closing):
    """The whole pipeline behind one object; safe to share between threads."""

    def __init__(
        self,
        config: EngineConfig | None = None,
        *,
        console: Console | None = None,
        create_store: bool = True,
    ) -> None:
        """``console`` shows progress when the demo corpus is ingested on first use;
        ``create_store=False`` refuses a store that does not exist yet (for readers)."""
        self.config = config if config is not None else EngineConfig()
        self._draft_view_names()  # refuse unknown view names before any work is done
        self.aggregator = self._make_aggregator()
        tau, tau_low = recommended_thresholds(self.aggregator)
        try:
            self.thresholds = Thresholds(
                tau if self.config.tau is None else self.config.tau,
                tau_low if self.config.tau_low is None else self.config.tau_low,
            )
        except ConfigurationError as error:
            raise ConfigurationError(str(error)) from None
        self.corpus = Corpus.open(self.config.store, create=create_store or self.config.demo)
        if self.config.demo:
            self.corpus.ensure_demo(console=console)
        self._lock = threading.RLock()
        self._views: list[VerificationView] | None = None
        self._generator: Any = None

    def _make_aggregator(self) -> Aggregator:
        config = self.config
        if config.aggregator == "default":
            # Which views are strong is known once they are built (see ``views``).
            return default_for(config.views, None)
        if config.aggregator == "learned":
            if config.aggregator_file is None:
                raise ConfigurationError(
                    "the learned aggregator needs aggregator_file (a fitted JSON)"
                )
            try:
                return LearnedAggregator.load(config.aggregator_file)
            except (OSError, ValueError, KeyError) as error:
                raise ConfigurationError(
                    f"cannot load aggregator {config.aggregator_file}: {error}"
                ) from None
        try:
            return create_aggregator(config.aggregator)
        except ValueError as error:
            raise ConfigurationError(str(error)) from None

    def views(self) -> list[VerificationView]:
        """The configured evidence views (draft views are built per answer)."""
        if self._views is None:
            known = set(available_views())
            draft = self._draft_view_names()
            self._views = [self._create_view(name) for name in self.config.views
                           if name in known]
            strong = [view.name for view in self._views if view.strong]
            if isinstance(self.aggregator, VoteAggregator):
                self.aggregator = VoteAggregator(strong=strong)
            elif self.config.aggregator == "default" and isinstance(self.aggregator,
                                                                    LearnedAggregator):
                self.aggregator = self.aggregator.with_settings(strong=strong)
            if not self._views and not draft:
                raise ConfigurationError("views: at least one evidence view is needed")
        return self._views

    def _create_view(self, name: str) -> VerificationView:
        options = self.config.view_options.get(name, {})
        try:
            return create_view(name, **options)
        except (TypeError, ValueError, RuntimeError) as error:
            # A view's factory names its own problem: a bad option, a missing model.
            raise ConfigurationError(f"view {name!r}: {error}") from None

    def _draft_view_names(self) -> list[str]:
        """Configured views that need the draft (uncertainty, self-consistency)."""
        known = set(available_views())
        names = [name for name in self.config.views if name not in known]
        if not names:
            return []
        from veritype.generation.draft_views import DRAFT_VIEWS

        unknown = [name for name in names if name not in DRAFT_VIEWS]
        if unknown:
            raise ConfigurationError(
                f"views: unknown view {unknown[0]!r}; known views: "
                f"{', '.join(sorted(known | DRAFT_VIEWS))}"
            )
        return names

    def generator(self) -> Any:
        if self._generator is None:
            from veritype.generation import GenerationError, create_generator

            try:
                self._generator = create_generator(
                    self.config.generator, **self.config.generator_options
                )
            except (KeyError, GenerationError, TypeError) as error:
                raise ConfigurationError(f"generator {self.config.generator!r}: {error}") from None
        return self._generator

    # --- corpus -------------------------------------------------------------------------

    def ingest(self, paths: Sequence[Path | str]) -> IngestReport:
        with self._lock:
            return self.corpus.ingest(paths)

    def ingest_texts(
        self,
        texts: Sequence[str],
        *,
        titles: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
    ) -> IngestReport:
        with self._lock:
            return self.corpus.ingest_texts(texts, titles=titles, sources=sources)

    def trace(self, trace_id: str) -> dict[str, Any] | None:
        with self._lock:
            return self.corpus.store.trace(trace_id)

    # --- ask and verify -----------------------------------------------------------------

    def ask(
        self,
        query: str,
        *,
        filters: Mapping[str, str] | None = None,
        mode: str | None = None,
        on_claim: Callable[[ClaimReport], None] | None = None,
    ) -> GroundedAnswer:
        """Answer ``query`` from the corpus with only Verified, cited claims (or abstain)."""
        query = checked_query(query)
        mode = _checked_mode(mode or self.config.mode)
        _check_filters(filters or {})
        with self._lock:
            started = time.perf_counter()
            hits = self._retrieve(query, self.config.k, filters)
            retrieved = time.perf_counter()
            timings = {"retrieve_s": retrieved - started}
            if not hits:
                return self._abstain(
                    query, "No document in the store matches the query.", timings, on_claim
                )
            from veritype.generation import GenerationError, GenerationParams

            checkpoint("generation")
            generator = self.generator()
            try:
                draft = generator.generate(
                    query,
                    [hit.chunk for hit in hits],
                    GenerationParams(max_tokens=self.config.max_tokens),
                )
            except GenerationError as error:
                raise GenerationError(f"the generator failed: {error}") from None
            timings["generate_s"] = time.perf_counter() - retrieved
            if not draft.text.strip():
                return self._abstain(query, "The generator produced no answer.", timings,
                                     on_claim)
            return self._verify_text(
                kind="ask",
                query=query,
                text=draft.text,
                fixed=None,
                context=[hit.chunk for hit in hits],
                filters=filters,
                mode=mode,
                timings=timings,
                on_claim=on_claim,
                draft=draft,
            )

    def verify(
        self,
        answer: str,
        evidence: Sequence[str] | None = None,
        *,
        on_claim: Callable[[ClaimReport], None] | None = None,
    ) -> GroundedAnswer:
        """Type every claim of ``answer`` against ``evidence`` texts, or the corpus if None."""
        answer = _checked_text("answer", answer, MAX_ANSWER_CHARS)
        fixed: EvidencePack | None = None
        if evidence is not None:
            for index, text in enumerate(evidence):
                _check_no_nul(f"evidence.{index}", text)
            texts = [text for text in evidence if text.strip()]
            if not texts:
                raise InputError("evidence: give at least one non-empty evidence text")
            fixed = EvidencePack.from_documents(
                [
                    Document(doc_id=f"evidence-{i + 1}", text=text, title=f"evidence {i + 1}")
                    for i, text in enumerate(texts)
                ]
            )
        with self._lock:
            return self._verify_text(
                kind="verify", query=None, text=answer, fixed=fixed, context=[], filters=None,
                mode=self.config.mode, timings={}, on_claim=on_claim, draft=None,
            )

    # --- the verification core ----------------------------------------------------------

    def _verify_text(
        self,
        *,
        kind: str,
        query: str | None,
        text: str,
        fixed: EvidencePack | None,
        context: Sequence[Chunk],
        filters: Mapping[str, str] | None,
        mode: str,
        timings: dict[str, float],
        on_claim: Callable[[ClaimReport], None] | None,
        draft: Any,
    ) -> GroundedAnswer:
        started = time.perf_counter()
        decomposition = decompose(text)
        if kind == "verify" and is_one_sentence(text, decomposition):
            decomposition = with_whole(text, decomposition)
        graph = BeliefGraph.from_claims(decomposition.claims, decomposition.edges)
        timings["decompose_s"] = time.perf_counter() - started
        checkpoint("claim retrieval")

        mark = time.perf_counter()
        packs = self._packs(graph, list(graph), query, fixed, context, filters)
        timings["claim_retrieve_s"] = time.perf_counter() - mark

        mark = time.perf_counter()
        views = self._all_views(draft, query, context)
        budget = Budget(limit=self.config.budget)
        spend = run_views(graph, packs, views, aggregator=self.aggregator,
                          thresholds=self.thresholds, budget=budget)
        type_graph(graph, self.aggregator, self.thresholds, citing_views(views))
        timings["verify_s"] = time.perf_counter() - mark

        mark = time.perf_counter()
        checkpoint("refinement")
        refinements, folded, spend = self._refine(graph, packs, views, spend, query, fixed,
                                                  filters)
        folded |= folded_by_whole(graph)
        notes, corrections = self._handle_contradictions(graph, packs, views)
        timings["refine_s"] = time.perf_counter() - mark

        checkpoint("rendering")
        evidence = EvidencePack.merge(packs.values())
        off_question: set[str] = set()
        if query is not None and self.config.relevance:
            off_question = off_question_claims(graph, query, similarity=self._similarity(),
                                               floor=self.config.relevance_floor,
                                               evidence=evidence)
        grounded = render(
            graph,
            evidence,
            min_confidence=Confidence.INSUFFICIENT_EVIDENCE,
            timings={**timings, "total_s": sum(timings.values())},
            folded=folded,
            notes=notes,
            off_question=off_question,
        )
        if grounded.abstained:
            grounded = grounded.model_copy(
                update={"references": _top_references(list(context) or list(evidence), evidence)}
            )
        if mode == "brief" and not grounded.abstained:
            grounded = grounded.model_copy(update={"limitations": grounded.limitations[:5]})
        if on_claim is not None:
            for claim in grounded.claims:
                on_claim(claim)
        self._save_trace(
            kind, grounded, query=query, draft=text,
            generator=None if draft is None else draft.generator,
            graph=graph.to_dict(),
            evidence=[_chunk_entry(chunk, evidence) for chunk in evidence],
            views=[view.name for view in views],
            budget=spend.to_dict(),
            refinements=refinements,
            corrections=corrections,
            folded=sorted(folded),
            off_question=sorted(off_question),
        )
        return grounded

    def _similarity(self) -> Similarity | None:
        """Cosine similarity in the corpus's dense embedding space, if it has one."""
        dense = next((spec for spec in self.corpus.indexes if spec.kind == "dense"), None)
        if dense is None:
            return None
        from veritype.retrieval.embedding import create_embedder

        embedder = create_embedder(dense.model, max_tokens=dense.max_tokens)

        def cosine(question: str, texts: Sequence[str]) -> list[float]:
            vectors = embedder.embed_batch([question, *texts])
            return [float(score) for score in vectors[1:] @ vectors[0]]

        return cosine

    def _all_views(
        self, draft: Any, query: str | None, context: Sequence[Chunk]
    ) -> list[VerificationView]:
        views = list(self.views())
        wanted = self._draft_view_names()
        if wanted and draft is not None and query is not None:
            from veritype.generation.draft_views import draft_views

            views.extend(draft_views(wanted, draft=draft, generator=self.generator(),
                                     prompt=query, evidence=context))
        return views

    def _retrieve(
        self, text: str, k: int, filters: Mapping[str, str] | None
    ) -> list[ScoredChunk]:
        if not filters:
            return self.corpus.retrieve(text, k)
        hits = self.corpus.retrieve(text, k * 5)
        return [hit for hit in hits if self._passes(hit, filters)][:k]

    def _passes(self, hit: ScoredChunk, filters: Mapping[str, str]) -> bool:
        record = self.corpus.store.document(hit.chunk.doc_id)
        if record is None:
            return False
        for key, wanted in filters.items():
            if key == "source" and wanted.lower() not in record.source.lower():
                return False
            if key == "title" and wanted.lower() not in record.document.title.lower():
                return False
            if key in ("added_after", "added_before"):
                limit = _timestamp(key, wanted)
                if (key == "added_after") != (record.added_at >= limit):
                    return False
        return True

    def _packs(
        self,
        graph: BeliefGraph,
        nodes: Sequence[Node],
        query: str | None,
        fixed: EvidencePack | None,
        context: Sequence[Chunk],
        filters: Mapping[str, str] | None,
        inherited: Mapping[str, EvidencePack] | None = None,
    ) -> dict[str, EvidencePack]:
        """One evidence pack per claim: its own retrieval plus its parents' evidence."""
        if fixed is not None:
            return {node.claim.claim_id: fixed for node in nodes}
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
            found = [self._retrieve(text, self.config.claim_k, filters) for text in texts]
        else:
            found = self.corpus.retrieve_batch(texts, self.config.claim_k)
        packs: dict[str, EvidencePack] = dict(inherited or {})
        for claim_id, hits in zip(order, found, strict=True):
            chunks = {hit.chunk.chunk_id: hit.chunk for hit in hits}
            for parent in graph.parents(claim_id):
                if parent in packs:
                    chunks.update({chunk.chunk_id: chunk for chunk in packs[parent]})
            if not chunks:
                chunks = {chunk.chunk_id: chunk for chunk in context}
            packs[claim_id] = self._pack(list(chunks.values()))
        return {claim_id: packs[claim_id] for claim_id in order}

    def _pack(self, chunks: Sequence[Chunk]) -> EvidencePack:
        documents: dict[str, Document] = {}
        for chunk in chunks:
            if chunk.doc_id not in documents:
                record = self.corpus.store.document(chunk.doc_id)
                if record is not None:
                    documents[chunk.doc_id] = record.document
        return EvidencePack(chunks=list(chunks), documents=documents)

    def _refine(
        self,
        graph: BeliefGraph,
        packs: dict[str, EvidencePack],
        views: Sequence[VerificationView],
        spend: Spend,
        query: str | None,
        fixed: EvidencePack | None,
        filters: Mapping[str, str] | None,
    ) -> tuple[list[dict[str, Any]], set[str], Spend]:
        """Split Uncertain compound claims into parts, verify the parts, and let the
        compound stand Verified only when every part is (depth-bounded, within budget)."""
        refinements: list[dict[str, Any]] = []
        folded: set[str] = set()
        # The whole of a one-sentence answer is already judged beside its parts.
        pending = [node for node in graph if node.evidence_type is EvidenceType.UNCERTAIN
                   and node.claim.claim_id != WHOLE]
        for depth in range(1, self.config.refine_depth + 1):
            if not pending:
                break
            subgraph = BeliefGraph()
            parts_of: dict[str, list[str]] = {}
            for node in pending:
                pieces = split_compound(node.claim.text)
                if len(pieces) < 2:
                    continue
                ids = []
                for index, piece in enumerate(pieces, start=1):
                    part = Claim(f"{node.claim.claim_id}.{index}", piece,
                                 node.claim.claim_class, node.claim.start, node.claim.end)
                    subgraph.add_claim(part)
                    ids.append(part.claim_id)
                parts_of[node.claim.claim_id] = ids
            if not parts_of:
                break
            remaining = None if spend.limit is None else max(spend.limit - spend.spent, 0.0)
            if remaining is not None and remaining <= 0:
                break
            sub_packs = self._sub_packs(subgraph, parts_of, packs, query, fixed, filters)
            sub_spend = run_views(subgraph, sub_packs, views, aggregator=self.aggregator,
                                  thresholds=self.thresholds, budget=Budget(limit=remaining))
            type_graph(subgraph, self.aggregator, self.thresholds, citing_views(views))
            spend = _add_spend(spend, sub_spend)
            next_pending: list[Node] = []
            for compound_id, ids in parts_of.items():
                compound = graph.node(compound_id)
                for part_id in ids:
                    graph.add_claim(subgraph.node(part_id).claim)
                    _copy_node(subgraph.node(part_id), graph.node(part_id))
                    packs[part_id] = sub_packs[part_id]
                    for parent in graph.parents(compound_id):
                        if parent not in ids:
                            graph.add_edge(parent, part_id)
                    graph.add_edge(part_id, compound_id)
                parts = [graph.node(part_id) for part_id in ids]
                verified = all(p.evidence_type is EvidenceType.VERIFIED for p in parts)
                if verified:
                    compound.evidence_type = EvidenceType.VERIFIED
                    compound.status = Status.ENTAILED
                    compound.mass = min(p.mass for p in parts)
                    compound.evidence = sorted({s for p in parts for s in p.evidence})
                    folded.update(ids)
                else:
                    next_pending.extend(
                        p for p in parts if p.evidence_type is EvidenceType.UNCERTAIN
                    )
                refinements.append({
                    "claim": compound_id,
                    "depth": depth,
                    "parts": [{"id": p.claim.claim_id, "text": p.claim.text,
                               "type": p.evidence_type.value if p.evidence_type else None,
                               "mass": p.mass} for p in parts],
                    "verified": verified,
                })
            pending = next_pending
        return refinements, folded, spend

    def _sub_packs(
        self,
        subgraph: BeliefGraph,
        parts_of: Mapping[str, list[str]],
        packs: Mapping[str, EvidencePack],
        query: str | None,
        fixed: EvidencePack | None,
        filters: Mapping[str, str] | None,
    ) -> dict[str, EvidencePack]:
        own = self._packs(subgraph, list(subgraph), query, fixed, [], filters)
        if fixed is not None:
            return own
        merged: dict[str, EvidencePack] = {}
        for compound_id, ids in parts_of.items():
            for part_id in ids:
                merged[part_id] = EvidencePack.merge([own[part_id], packs[compound_id]])
        return merged

    def _handle_contradictions(
        self,
        graph: BeliefGraph,
        packs: dict[str, EvidencePack],
        views: Sequence[VerificationView],
    ) -> tuple[dict[str, str], list[dict[str, Any]]]:
        """Apply the ``contradicted`` setting: drop (default wording), flag (quote the
        contradicting evidence) or correct (state the contradicting sentence instead, when it
        speaks of the same slot, verified like any other claim)."""
        policy = self.config.contradicted
        notes: dict[str, str] = {}
        corrections: list[dict[str, Any]] = []
        if policy == "drop":
            return notes, corrections
        fixes = BeliefGraph()
        fixed_from: dict[str, str] = {}
        for node in list(graph):
            if node.status is not Status.CONTRADICTED:
                continue
            found = _contradicting_sentence(node, packs[node.claim.claim_id])
            if found is None:
                continue
            sentence, view_name = found
            notes[node.claim.claim_id] = (
                f"Contradicted by the evidence: \u201c{node.claim.text}\u201d \u2014 the "
                f"evidence says \u201c{sentence[:_QUOTE_CHARS]}\u201d"
            )
            if policy == "correct" and _same_slot(node.claim.text, sentence, view_name):
                fix = Claim(f"{node.claim.claim_id}.fix", sentence, node.claim.claim_class,
                            node.claim.start, node.claim.end)
                fixes.add_claim(fix)
                fixed_from[fix.claim_id] = node.claim.claim_id
        if len(fixes):
            fix_packs = {fid: packs[origin] for fid, origin in fixed_from.items()}
            run_views(fixes, fix_packs, views, aggregator=self.aggregator,
                      thresholds=self.thresholds)
            type_graph(fixes, self.aggregator, self.thresholds, citing_views(views))
            for fix_node in fixes:
                fid, origin = fix_node.claim.claim_id, fixed_from[fix_node.claim.claim_id]
                graph.add_claim(fix_node.claim)
                _copy_node(fix_node, graph.node(fid))
                packs[fid] = fix_packs[fid]
                for parent in graph.parents(origin):
                    graph.add_edge(parent, fid)
                ok = fix_node.evidence_type is EvidenceType.VERIFIED
                if ok:
                    notes[origin] = (
                        f"Corrected: \u201c{graph.node(origin).claim.text}\u201d is contradicted "
                        f"by the evidence; stated instead: \u201c{fix_node.claim.text}\u201d"
                    )
                corrections.append({"claim": origin, "correction": fid,
                                    "text": fix_node.claim.text, "verified": ok})
        return notes, corrections

    def _abstain(
        self,
        query: str,
        reason: str,
        timings: dict[str, float],
        on_claim: Callable[[ClaimReport], None] | None,
    ) -> GroundedAnswer:
        grounded = GroundedAnswer(
            answer="",
            claims=[],
            references=[],
            confidence=Confidence.INSUFFICIENT_EVIDENCE,
            limitations=[],
            query_refinements=[query] if len(query.split()) > 1 else [],
            abstained=True,
            abstention_reason=reason,
            trace_id=uuid.uuid4().hex,
            timings={**timings, "total_s": sum(timings.values())},
        )
        self._save_trace("ask", grounded, query=query, draft="", generator=self.config.generator)
        return grounded

    def _save_trace(
        self,
        kind: str,
        grounded: GroundedAnswer,
        *,
        query: str | None,
        draft: str,
        generator: str | None,
        **details: Any,
    ) -> None:
        """Save the run's trace under the answer's id; ``details`` fill in what the run did
        (nothing, for an answer that abstained before drafting)."""
        trace: dict[str, Any] = {
            "trace_id": grounded.trace_id,
            "kind": kind,
            "query": query,
            "draft": draft,
            "created_at": time.time(),
            "grounded": grounded.model_dump(mode="json"),
            "timings": grounded.timings,
            "generator": generator,
            "graph": BeliefGraph().to_dict(),
            "evidence": [],
            "views": [],
            "budget": {},
            "refinements": [],
            "corrections": [],
            "folded": [],
            "off_question": [],
        }
        trace.update(details)
        store = self.corpus.store
        store.save_trace(grounded.trace_id, kind, trace)
        if self.config.trace_ttl is not None or self.config.max_traces is not None:
            store.prune_traces(older_than=self.config.trace_ttl, keep=self.config.max_traces)

    def close(self) -> None:
        self.corpus.close()



# Only connectives whose parts stand alone: splitting "because" would drop the causal
# link the claim asserts, so causal clauses are never refined into parts.
_COMPOUND_SPLIT = re.compile(
    r"\s*;\s*|,\s+(?:while|whereas|although|though)\s+|\s+(?:although|whereas)\s+",
    re.IGNORECASE,
)


def split_compound(text: str) -> list[str]:
    """Finer parts of a compound claim (subordinate and relative clauses, semicolons);
    a single part when there is nothing to split."""
    pieces = [piece.strip(" ,.") for piece in _COMPOUND_SPLIT.split(text)]
    pieces = [piece for piece in pieces if len(piece.split()) >= 3]
    if len(pieces) < 2:
        return [text]
    return [piece[0].upper() + piece[1:] + "." for piece in pieces]


def _contradicting_sentence(node: Node, pack: EvidencePack) -> tuple[str, str] | None:
    for result in node.results:
        if result.verdict is not Verdict.CONTRADICTED:
            continue
        for span in result.spans:
            if pack.resolves(span):
                return pack.quote(span).strip(), result.view
    return None


def _same_slot(claim: str, sentence: str, view_name: str) -> bool:
    """A correction replaces a claim only with a sentence about the same thing: the numeric
    view contradicts per slot by construction; otherwise most of the claim's words recur."""
    if view_name == "numeric":
        return True
    from veritype._text import content_words

    claim_words = set(content_words(claim))
    if not claim_words:
        return False
    return len(claim_words & set(content_words(sentence))) / len(claim_words) >= 0.6


def _copy_node(source: Node, target: Node) -> None:
    target.evidence = list(source.evidence)
    target.mass = source.mass
    target.probability = source.probability
    target.status = source.status
    target.evidence_type = source.evidence_type
    target.results = list(source.results)


def _add_spend(first: Spend, second: Spend) -> Spend:
    return Spend(
        limit=first.limit,
        spent=first.spent + second.spent,
        calls=first.calls + second.calls,
        saved_by_early_stop=first.saved_by_early_stop + second.saved_by_early_stop,
        cut_by_budget=first.cut_by_budget + second.cut_by_budget,
    )


def _top_references(chunks: Sequence[Chunk], pack: EvidencePack, limit: int = 3) -> list[Reference]:
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


def _chunk_entry(chunk: Chunk, pack: EvidencePack) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "title": pack.title(chunk.doc_id),
        "start": chunk.start,
        "end": chunk.end,
        "text": chunk.text,
    }


def checked_query(query: object) -> str:
    """``query`` stripped; :class:`InputError` when it is not text, empty or too long."""
    return _checked_text("query", query, MAX_QUERY_CHARS)


def _checked_text(field: str, text: object, limit: int) -> str:
    if not isinstance(text, str):
        raise InputError(f"{field}: expected text, got {type(text).__name__}")
    if not text.strip():
        raise InputError(f"{field}: must not be empty")
    if len(text) > limit:
        raise InputError(f"{field}: {len(text)} characters, more than the limit of {limit}")
    _check_no_nul(field, text)
    return text.strip()


def _check_no_nul(field: str, text: str) -> None:
    position = text.find("\0")
    if position >= 0:
        raise InputError(f"{field}: contains a NUL character at position {position}")


def _checked_mode(mode: str) -> str:
    if mode not in ("brief", "detailed"):
        raise InputError(f"mode: must be 'brief' or 'detailed', got {mode!r}")
    return mode


_FILTERS = ("source", "title", "added_after", "added_before")


def _check_filters(filters: Mapping[str, str]) -> None:
    for key, value in filters.items():
        _check_no_nul("filters", key)
        _check_no_nul(f"filters.{key}", value)
        if key not in _FILTERS:
            raise InputError(f"filters: unknown filter {key!r}; known: {', '.join(_FILTERS)}")
        if key in ("added_after", "added_before"):
            _timestamp(key, value)


def _timestamp(key: str, value: str) -> float:
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(
            f"filters: {key} must be an ISO date like 2026-01-31, got {value!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


__all__ = ["Engine", "EngineConfig", "split_compound"]
