"""The engine's orchestration: ask and verify, from retrieval to the rendered answer."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from veritype._closing import Closing
from veritype.aggregate import (
    Aggregator,
    LearnedAggregator,
    VoteAggregator,
    create_aggregator,
    default_for,
    recommended_thresholds,
)
from veritype.answer import ClaimReport, Confidence, GroundedAnswer
from veritype.answers.question import Question, analyse
from veritype.answers.reader import AnswerReader, Candidate, question_coverage, reader_of
from veritype.answers.relevance import Similarity, off_question_claims
from veritype.answers.rendering import render
from veritype.answers.scoring import (
    AnswerCalibration,
    AnswerScorer,
    answers_surely,
    load_answer_scorer,
)
from veritype.budget import Budget
from veritype.claims import decompose
from veritype.deadline import checkpoint
from veritype.engine._config import EngineConfig
from veritype.engine._evidence import (
    EvidenceFinder,
    chunk_entry,
    claim_candidate,
    drafting_pool,
    top_references,
)
from veritype.engine._inputs import (
    MAX_ANSWER_CHARS,
    VerificationRequest,
    check_filters,
    checked_mode,
    checked_query,
    checked_text,
    fixed_evidence,
)
from veritype.engine._refine import ClaimChecker, handle_contradictions, refine
from veritype.engine._traces import save_trace
from veritype.errors import (
    ConfigurationError,
    GenerationError,
)
from veritype.evidence import EvidencePack
from veritype.graph import BeliefGraph
from veritype.ingest import Corpus, IngestReport
from veritype.ingest.corpus import TextLabels
from veritype.progress import Progress
from veritype.thresholds import Thresholds
from veritype.verdicts import VerificationView
from veritype.verification import folded_by_whole, is_one_sentence, with_whole
from veritype.views import available_views, create_view

if TYPE_CHECKING:
    from veritype.generation import Generator


class Engine(Closing):
    """The whole pipeline behind one object; safe to share between threads."""

    def __init__(
        self,
        config: EngineConfig | None = None,
        *,
        progress: Progress | None = None,
        create_store: bool = True,
    ) -> None:
        """``progress`` hears how the demo corpus is ingested on first use;
        ``create_store=False`` refuses a store that does not exist yet (for readers)."""
        self.config = config if config is not None else EngineConfig()
        self._draft_view_names()  # refuse unknown view names before any work is done
        self.aggregator = self._make_aggregator()
        tau, tau_low = recommended_thresholds(self.aggregator)
        self.thresholds = Thresholds(
            tau if self.config.tau is None else self.config.tau,
            tau_low if self.config.tau_low is None else self.config.tau_low,
        )
        self.corpus = Corpus.open(self.config.store, create=create_store or self.config.demo)
        # Whether this engine filled an empty store with the bundled demo corpus, so that a
        # command can say its answers come from that corpus and not the user's documents.
        self.demo_ingested = bool(self.config.demo) and self.corpus.ensure_demo(
            progress=progress) is not None
        self._lock = threading.RLock()
        self._views: list[VerificationView] | None = None
        self._generator: Generator | None = None
        self._answer_scorer: AnswerScorer | None = None

    @property
    def _evidence(self) -> EvidenceFinder:
        # Built on use: ``corpus`` is a public attribute a caller may replace.
        return EvidenceFinder(self.corpus, self.config.claim_k)

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
            return _load_aggregator(config.aggregator_file)
        return create_aggregator(config.aggregator)

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

    def answer_scorer(self) -> AnswerScorer | None:
        """The configured answer scorer, built on first use; None when it is "none"."""
        if self._answer_scorer is None:
            self._answer_scorer = load_answer_scorer(self.config.answer_model)
        return self._answer_scorer

    def generator(self) -> Generator:
        if self._generator is None:
            from veritype.generation import create_generator

            options = dict(self.config.generator_options)
            if self.config.generator == "extractive":
                options.setdefault("answer_scorer", self.answer_scorer())
                options.setdefault("document_title", self._document_title)
            try:
                self._generator = create_generator(self.config.generator, **options)
            except (KeyError, GenerationError, TypeError) as error:
                raise ConfigurationError(
                    f"generator {self.config.generator!r}: {error}"
                ) from None
        return self._generator

    def _document_title(self, doc_id: str) -> str:
        record = self.corpus.store.document(doc_id)
        return record.document.title if record is not None else ""

    # --- corpus -------------------------------------------------------------------------

    def ingest(self, paths: Sequence[Path | str]) -> IngestReport:
        with self._lock:
            return self.corpus.ingest(paths)

    def ingest_texts(self, texts: Sequence[str], **labels: Unpack[TextLabels]) -> IngestReport:
        with self._lock:
            return self.corpus.ingest_texts(texts, **labels)

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
        mode = checked_mode(mode or self.config.mode)
        check_filters(filters or {})
        with self._lock:
            started = time.perf_counter()
            hits = self._evidence.retrieve(query, self.config.k, filters)
            question = analyse(query)
            # A comparison needs both sides in the evidence, whichever the query favours.
            for side in question.sides:
                side_query = " ".join([*sorted(side), *sorted(question.focus)])
                seen = {hit.chunk.chunk_id for hit in hits}
                hits += [hit for hit in self._evidence.retrieve(side_query, 1, filters)
                         if hit.chunk.chunk_id not in seen]
            retrieved = time.perf_counter()
            timings = {"retrieve_s": retrieved - started}
            if not hits:
                return self._abstain(
                    query, "No document in the store matches the query.", timings, on_claim
                )
            from veritype.generation import GenerationParams

            checkpoint("generation")
            generator = self.generator()
            try:
                draft = generator.generate(
                    query,
                    # Packed, a chunk opening with "it" reaches back to what "it" is.
                    self._evidence.pack([hit.chunk for hit in hits]).chunks,
                    GenerationParams(max_tokens=self.config.max_tokens),
                )
            except GenerationError as error:
                raise GenerationError(f"the generator failed: {error}") from None
            timings["generate_s"] = time.perf_counter() - retrieved
            if not draft.text.strip():
                return self._abstain(query, draft.declined or "The generator produced no "
                                     "answer.", timings, on_claim)
            return self._verify_text(VerificationRequest(
                kind="ask", text=draft.text, mode=mode, query=query,
                context=[hit.chunk for hit in hits], filters=filters, timings=timings,
                on_claim=on_claim, draft=draft,
            ))

    def verify(
        self,
        answer: str,
        evidence: Sequence[str] | None = None,
        *,
        on_claim: Callable[[ClaimReport], None] | None = None,
    ) -> GroundedAnswer:
        """Type every claim of ``answer`` against ``evidence`` texts, or the corpus if None."""
        answer = checked_text("answer", answer, MAX_ANSWER_CHARS)
        fixed = None if evidence is None else fixed_evidence(evidence)
        with self._lock:
            return self._verify_text(VerificationRequest(
                kind="verify", text=answer, mode=self.config.mode, fixed=fixed,
                on_claim=on_claim,
            ))

    # --- the verification core ----------------------------------------------------------

    def _verify_text(self, request: VerificationRequest) -> GroundedAnswer:
        timings = request.timings
        started = time.perf_counter()
        decomposition = decompose(request.text)
        if request.kind == "verify" and is_one_sentence(request.text, decomposition):
            decomposition = with_whole(request.text, decomposition)
        graph = BeliefGraph.from_claims(decomposition.claims, decomposition.edges)
        timings["decompose_s"] = time.perf_counter() - started
        checkpoint("claim retrieval")

        mark = time.perf_counter()
        packs = self._packs(graph, request)
        timings["claim_retrieve_s"] = time.perf_counter() - mark

        mark = time.perf_counter()
        views = self._all_views(request)
        checker = ClaimChecker(views, self.aggregator, self.thresholds)
        spend = checker.check(graph, packs, Budget(limit=self.config.budget))
        timings["verify_s"] = time.perf_counter() - mark

        mark = time.perf_counter()
        checkpoint("refinement")
        refinements, folded, spend = refine(
            graph, packs, checker, spend, depth=self.config.refine_depth,
            find_packs=lambda subgraph: self._packs(subgraph, request, own_only=True),
            fixed=request.fixed is not None,
        )
        folded |= folded_by_whole(graph)
        notes, corrections = handle_contradictions(graph, packs, checker,
                                                   self.config.contradicted)
        timings["refine_s"] = time.perf_counter() - mark

        checkpoint("rendering")
        evidence = EvidencePack.merge(packs.values())
        off_question: set[str] = set()
        question: Question | None = None
        calibration: AnswerCalibration | None = None
        reader: AnswerReader | None = None
        reader_scores: dict[str, float] = {}
        answer_scores: dict[str, float] = {}
        side_scores: list[dict[str, float]] = []
        coverage: Callable[[Collection[str]], float] | None = None
        if request.query is not None and self.config.relevance:
            question = analyse(request.query)
            scorer = self.answer_scorer()
            if scorer is not None:
                calibration = scorer.calibration
                nodes = list(graph)
                ids = [node.claim.claim_id for node in nodes]
                texts = [node.claim.text for node in nodes]
                scores = scorer.score_batch(request.query, texts)
                answer_scores = dict(zip(ids, scores, strict=True))
                # Each side of a comparison asked alone, as the answer model reads a question.
                side_scores = [
                    dict(zip(ids, scorer.score_batch(question.side_question(index), texts),
                             strict=True))
                    for index in range(len(question.sides))]
                reader = reader_of(scorer)
                if reader is not None:
                    pool = drafting_pool(self._evidence.pack(request.context).chunks,
                                         question)
                    candidates = dict(zip(ids, (claim_candidate(text, pool) for text in texts),
                                          strict=True))
                    reader_scores = dict(zip(
                        ids, reader.probabilities(question, list(candidates.values()),
                                                  scores, pool=pool),
                        strict=True))
                    coverage = partial(_coverage, question, candidates, pool)
            off_question = off_question_claims(
                graph, request.query, similarity=self._similarity(),
                floor=self.config.relevance_floor, evidence=evidence,
                subjects=question.sides or None,
                answering={node.claim.claim_id for node in graph
                           if answers_surely(question, node.claim.text,
                                             answer_scores.get(node.claim.claim_id),
                                             calibration)
                           or (reader is not None and reader.calibration.reads_as_answer(
                               question, reader_scores[node.claim.claim_id]))},
                answer_scores=answer_scores if calibration is not None else None,
            )
        grounded = render(
            graph,
            evidence,
            min_confidence=Confidence.INSUFFICIENT_EVIDENCE,
            answer_scores=answer_scores,
            answer_calibration=calibration,
            reader_scores=reader_scores,
            reader_calibration=reader.calibration if reader is not None else None,
            side_scores=side_scores,
            coverage=coverage,
            timings={**timings, "total_s": sum(timings.values())},
            folded=folded,
            notes=notes,
            off_question=off_question,
            question=question,
        )
        if grounded.abstained:
            references = top_references(list(request.context) or list(evidence), evidence)
            grounded = grounded.model_copy(update={"references": references})
        if request.mode == "brief" and not grounded.abstained:
            grounded = grounded.model_copy(update={"limitations": grounded.limitations[:5]})
        if request.on_claim is not None:
            for claim in grounded.claims:
                request.on_claim(claim)
        self._save_trace(
            request.kind, grounded, query=request.query, draft=request.text,
            generator=None if request.draft is None else request.draft.generator,
            graph=graph.to_dict(),
            evidence=[chunk_entry(chunk, evidence) for chunk in evidence],
            views=[view.name for view in views],
            budget=spend.to_dict(),
            refinements=refinements,
            corrections=corrections,
            folded=sorted(folded),
            off_question=sorted(off_question),
        )
        return grounded

    def _packs(self, graph: BeliefGraph, request: VerificationRequest,
               own_only: bool = False) -> dict[str, EvidencePack]:
        """Each claim's evidence: the fixed pack, or retrieval with the draft's context as
        fallback (``own_only``: refined parts, whose fallback is their compound's pack)."""
        if request.fixed is not None:
            return {node.claim.claim_id: request.fixed for node in graph}
        context = () if own_only else request.context
        return self._evidence.packs(graph, list(graph), request.query, context,
                                    request.filters)

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

    def _all_views(self, request: VerificationRequest) -> list[VerificationView]:
        views = list(self.views())
        wanted = self._draft_view_names()
        if wanted and request.draft is not None and request.query is not None:
            from veritype.generation.draft_views import draft_views

            views.extend(draft_views(wanted, draft=request.draft, generator=self.generator(),
                                     prompt=request.query, evidence=request.context))
        return views

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

    def _save_trace(self, kind: str, grounded: GroundedAnswer, *, query: str | None,
                    draft: str, generator: str | None, **details: Any) -> None:
        save_trace(self.corpus.store, kind, grounded, query=query, draft=draft,
                   generator=generator, ttl=self.config.trace_ttl,
                   keep=self.config.max_traces, **details)

    def close(self) -> None:
        self.corpus.close()


def _load_aggregator(path: Path) -> Aggregator:
    try:
        return LearnedAggregator.load(path)
    except (OSError, ValueError, KeyError) as error:
        raise ConfigurationError(f"cannot load aggregator {path}: {error}") from None


def _coverage(question: Question, candidates: Mapping[str, Candidate],
              pool: Sequence[Candidate], claim_ids: Collection[str]) -> float:
    """The share of what ``question`` asks about that the claims ``claim_ids`` speak of, each
    read as the answer reader reads it (``candidates``) within its ``pool``."""
    return question_coverage(question, [candidates[i] for i in claim_ids if i in candidates],
                             pool)
