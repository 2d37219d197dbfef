"""Checking one row: every claim of its answer typed against its contexts.

A row's result depends on the row alone: the model caches are cleared before each row and
its claims go to the views as one batch, so a row gives the same result in any order, in a
resumed run and on any Ray worker.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from veritype._finite_verbs import has_verb
from veritype._text import sentence_spans
from veritype.aggregate import (
    DEFAULT_VIEWS,
    Aggregator,
    create_aggregator,
    default_for,
    recommended_thresholds,
)
from veritype.answers.question import analyse
from veritype.answers.rendering import narrowest_spans
from veritype.answers.scoring import (
    DEFAULT_ANSWER_SCORER,
    AnswerScorer,
    load_answer_scorer,
)
from veritype.answers.statements import answered_statement
from veritype.budget import Budget, run_views
from veritype.checking._answered import AnswerReading, Reading, read_answer, unstated_values
from veritype.checking._relevance import AnswerRelevance
from veritype.checking._row_result import (
    CitedContext,
    ClaimResult,
    RowResult,
    verdict_of,
)
from veritype.checking._rows import CheckRow
from veritype.claims import Claim, classify, decompose, is_hedged
from veritype.errors import ConfigurationError, InputError, VeritypeError
from veritype.evidence import Document, EvidencePack, Span
from veritype.graph import BeliefGraph, EvidenceType, Node, Status
from veritype.settings import Settings
from veritype.thresholds import Thresholds
from veritype.verdicts import Verdict
from veritype.verification import (
    citing_views,
    claim_reason,
    folded_by_whole,
    is_one_sentence,
    type_graph,
    with_whole,
)
from veritype.views import VerificationView, clear_model_caches, create_view

# How much of a cited context a reason quotes.
QUOTE_CHARS = 120
# The scorer's reading of a bare answer, shown beside the views' results.
ANSWERS = "answers"


class CheckSettings(Settings):
    """What a check runs: views (by registry name, with options) and thresholds (``None``:
    those the default aggregator was calibrated for)."""

    views: tuple[str, ...] = DEFAULT_VIEWS
    view_options: dict[str, dict[str, Any]] | None = None
    tau: float | None = None
    tau_low: float | None = None
    aggregator: str = "default"
    aggregator_file: str | None = None
    relevance: bool = True
    answer_model: str = DEFAULT_ANSWER_SCORER

    def to_dict(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "views": list(self.views),
            "view_options": {k: dict(v) for k, v in (self.view_options or {}).items()},
            "tau": self.tau, "tau_low": self.tau_low,
        }
        # Left out at their defaults, so a run directory of an earlier check still continues.
        if self.aggregator != "default" or self.aggregator_file is not None:
            settings |= {"aggregator": self.aggregator, "aggregator_file": self.aggregator_file}
        if not self.relevance:
            settings["relevance"] = False
        if self.answer_model != DEFAULT_ANSWER_SCORER:
            settings["answer_model"] = self.answer_model
        return settings


class RowChecker:
    """The views, aggregator and thresholds of one check, built once and applied per row."""

    def __init__(self, settings: CheckSettings | None = None) -> None:
        self.settings = settings = settings or CheckSettings()
        if not settings.views or len(set(settings.views)) != len(settings.views):
            raise InputError("views: give one or more distinct view names")
        options = settings.view_options or {}
        stray = sorted(set(options) - set(settings.views))
        if stray:
            raise InputError(f"view options name views that are not checked: {', '.join(stray)}")
        self.views: list[VerificationView] = []
        for name in settings.views:
            # Views and their options are the user's input: whatever stops one being built
            # (an unknown name, a bad option, a missing extra, a model that will not load)
            # is reported as bad input.
            try:
                self.views.append(create_view(name, **options.get(name, {})))
            except (VeritypeError, TypeError, ValueError, RuntimeError, ImportError) as error:
                raise InputError(f"view {name!r}: {error}") from None
        names = [view.name for view in self.views]
        strong = [view.name for view in self.views if view.strong]
        self.aggregator = default_for(names, strong) if settings.aggregator == "default" else (
            _named_aggregator(settings, strong))
        tau, tau_low = recommended_thresholds(self.aggregator)
        try:
            self.thresholds = Thresholds(tau if settings.tau is None else settings.tau,
                                         tau_low if settings.tau_low is None else settings.tau_low)
        except ConfigurationError as error:
            raise InputError(str(error)) from None
        self._citing = citing_views(self.views)
        self.relevance = AnswerRelevance() if settings.relevance else None
        self._answer_scorer: AnswerScorer | None = None

    def answer_scorer(self) -> AnswerScorer | None:
        """The scorer that reads bare answers (built on first use); None when the settings
        name none."""
        if self._answer_scorer is None:
            try:
                self._answer_scorer = load_answer_scorer(self.settings.answer_model)
            except ConfigurationError as error:
                raise InputError(str(error)) from None
        return self._answer_scorer

    def warm(self) -> None:
        """Load now the models otherwise loaded on first use: the answer scorer and the
        relevance encoder."""
        self.answer_scorer()
        if self.relevance is not None:
            self.relevance.encoder  # noqa: B018 (loads it)

    def check(self, row: CheckRow) -> RowResult:
        started = time.perf_counter()
        clear_model_caches(self.views)
        pack, index_of = _pack(row.contexts)
        answer = row.answer.strip()
        offset = len(row.answer) - len(row.answer.lstrip())

        def cite(span: Span) -> str:
            quote = pack.quote(span)
            shown = quote if len(quote) <= QUOTE_CHARS else quote[:QUOTE_CHARS - 1] + "…"
            return f"context {index_of[span.doc_id]}: “{shown}”"

        graph = BeliefGraph.from_claims(*_claims(row))
        run_views(graph, {node.claim.claim_id: pack for node in graph}, self.views,
                  aggregator=self.aggregator, thresholds=self.thresholds, budget=Budget())
        type_graph(graph, self.aggregator, self.thresholds, self._citing)
        readings: dict[str, AnswerReading] = {}
        unstated: dict[str, tuple[str, ...]] = {}
        if row.question and (bare := _bare(graph, row.question, answer)) is not None:
            values = unstated_values(row.question, answer, pack)
            if values:
                _not_stated(bare, self.thresholds)
                unstated[bare.claim.claim_id] = values
            elif (reading := self._read_as_answer(bare, row.question, answer,
                                                  pack)) is not None:
                readings[bare.claim.claim_id] = reading
        folded = folded_by_whole(graph)
        claims: list[ClaimResult] = []
        for node in sorted(graph, key=lambda n: (n.claim.start, n.claim.claim_id)):
            if node.claim.claim_id in folded or node.evidence_type is None:
                continue
            citations = tuple(
                CitedContext(index_of[span.doc_id], span.start, span.end, pack.quote(span))
                for span in sorted(narrowest_spans(node.evidence),
                                   key=lambda s: (index_of[s.doc_id], s.start, s.end))
            )
            claims.append(ClaimResult(
                text=node.claim.text,
                written=node.claim.written or answer[node.claim.start:node.claim.end].strip()
                or node.claim.text,
                type=node.evidence_type,
                support=node.support,
                vote_share=node.mass,
                citations=citations,
                views=_view_results(node, readings.get(node.claim.claim_id)),
                reason=_reason(node, readings.get(node.claim.claim_id), cite,
                               unstated.get(node.claim.claim_id, ())),
                start=offset + node.claim.start,
                end=offset + node.claim.end,
            ))
        types = [claim.type for claim in claims]
        verified = sum(kind is EvidenceType.VERIFIED for kind in types)
        relevance = (self.relevance.score(row.question, answer)
                     if self.relevance is not None and row.question else None)
        return RowResult(row, tuple(claims), verified / len(types) if types else None,
                         verdict_of(types), time.perf_counter() - started, relevance)

    def _read_as_answer(self, node: Node, question: str, answer: str,
                        pack: EvidencePack) -> AnswerReading | None:
        """Retype a bare answer by how the contexts answer its question
        (:func:`~veritype.checking._answered.read_answer`): Verified when they state it and
        no view contradicts it, its support at least the scorer's P(the answer is right);
        Unsupported when they answer otherwise. The reading that changed the type, if any."""
        scorer = self.answer_scorer()
        if scorer is None:
            return None
        reading = read_answer(question, answer, pack, scorer)
        if reading is None:
            return None
        right = scorer.calibration.right(reading.probability, analyse(question).kind)
        if reading.reading is Reading.STATED:
            if (node.evidence_type is EvidenceType.VERIFIED
                    or node.status is Status.CONTRADICTED):
                return None
            node.status, node.evidence_type = Status.ENTAILED, EvidenceType.VERIFIED
            node.probability = max(node.support, right)
        else:
            if node.evidence_type is EvidenceType.UNSUPPORTED:
                return None
            node.status, node.evidence_type = Status.CONTRADICTED, EvidenceType.UNSUPPORTED
            node.probability = min(node.support, 1.0 - right)
        node.evidence = [reading.span]
        return reading


def _view_results(node: Node, reading: AnswerReading | None) -> dict[str, tuple[str, float]]:
    """Each view's verdict and score, and the answer scorer's reading where it retyped the
    claim: stated (entailed) or answered otherwise (contradicted), with the P(answers) of the
    sentence read."""
    results = {r.view: (r.verdict.value, float(r.score)) for r in node.results}
    if reading is not None:
        verdict = (Verdict.ENTAILED if reading.reading is Reading.STATED
                   else Verdict.CONTRADICTED)
        results[ANSWERS] = (verdict.value, reading.probability)
    return results


def _not_stated(node: Node, thresholds: Thresholds) -> None:
    """Type a bare answer that no context gives a value of (``unstated_values``)
    Unsupported: the question's names, which the contexts give, say nothing of it."""
    node.status, node.evidence_type = Status.UNKNOWN, EvidenceType.UNSUPPORTED
    node.probability = min(node.support, thresholds.tau_low)
    node.evidence = []


def _reason(node: Node, reading: AnswerReading | None, cite: Callable[[Span], str],
            unstated: tuple[str, ...] = ()) -> str:
    if unstated:
        return f"no context gives {', '.join(unstated)}"
    if reading is not None and reading.reading is Reading.OTHERWISE:
        return f"the contexts answer otherwise; {cite(reading.span)}"
    return claim_reason(node, cite)


def _bare(graph: BeliefGraph, question: str, answer: str) -> Node | None:
    """The node of a bare answer checked with its question (see :func:`_claims`); a claim
    resolved from a whole sentence ("It opened in 1883.") is none."""
    nodes = list(graph)
    if len(nodes) == 1 and nodes[0].claim.text == _with_question(question, answer):
        return nodes[0]
    return None


def _with_question(question: str, answer: str) -> str:
    """A bare answer read with its question: the statement the two make ("Is the Eiffel
    Tower in Paris? no": "The Eiffel Tower is not in Paris."), or, where no rule writes one,
    the two together."""
    return answered_statement(question, answer) or f"{question} {answer}"


def _named_aggregator(settings: CheckSettings, strong: list[str]) -> Aggregator:
    options: dict[str, Any] = {"strong": strong}
    if settings.aggregator_file is not None:
        options["path"] = settings.aggregator_file
    try:
        return create_aggregator(settings.aggregator, **options)
    except VeritypeError as error:
        raise InputError(f"aggregator {settings.aggregator!r}: {error}") from None


def _pack(contexts: Sequence[str]) -> tuple[EvidencePack, dict[str, int]]:
    """The contexts as one evidence pack; a context given twice is read once, under its
    first index."""
    documents: list[Document] = []
    index_of: dict[str, int] = {}
    seen: dict[str, str] = {}
    for index, text in enumerate(contexts):
        if text in seen:
            continue
        doc_id = f"context-{index}"
        seen[text] = doc_id
        index_of[doc_id] = index
        documents.append(Document(doc_id=doc_id, text=text, title=f"context {index}"))
    return EvidencePack.from_documents(documents), index_of


# An answer that declines to answer states nothing the contexts could fail to support.
_REFUSAL = re.compile(
    r"\s*(?:sorry,?\s*)?(?:i (?:do not|don't|cannot|can't|am unable to) "
    r"(?:know|answer|say|tell|find)|i have no comment|i'm not sure"
    r"|(?:there is )?(?:not enough|insufficient|no) "
    r"(?:information|context)|the (?:provided |given )?(?:context|contexts|documents?|sources?) "
    r"(?:do|does) not)",
    re.IGNORECASE,
)


def _claims(row: CheckRow) -> tuple[list[Claim], list[tuple[str, str]]]:
    """The claims of the row's answer. A bare phrase ("Delhi", "President Richard Nixon")
    states nothing alone: with a question it is checked as the question's answer, the
    question and the phrase read together. A statement is checked as it stands."""
    answer = row.answer.strip()
    if _REFUSAL.match(answer) and len(sentence_spans(answer)) == 1:
        return [], []
    decomposition = decompose(answer)
    if row.question and not any(has_verb(claim.text) for claim in decomposition.claims):
        text = _with_question(row.question, answer)
        claim = Claim("c1", text, classify(text), 0, len(answer), is_hedged(answer),
                      written=answer)
        return [claim], []
    if is_one_sentence(answer, decomposition):
        decomposition = with_whole(answer, decomposition)
    return list(decomposition.claims), list(decomposition.edges)
