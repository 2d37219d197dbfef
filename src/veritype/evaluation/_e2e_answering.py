"""Asking the engine: every question of one source answered from a store of its evidence."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, ValidationInfo, field_validator

from veritype.claims import decompose
from veritype.evaluation._e2e_data import SOURCE_TITLES, Question
from veritype.evaluation.runner import ProgressFactory, at_least, no_progress
from veritype.settings import Settings

DEFAULT_QUESTIONS = 60
DEFAULT_SEED = 2024
DEFAULT_K = 3
DEFAULT_MAX_TOKENS = 96


class E2ESettings(Settings):
    """How to run an answering benchmark; ``limit`` is the sample size per source."""

    data_dir: Path
    generator: str = "local"
    generator_options: dict[str, Any] = Field(default_factory=dict)
    limit: int = DEFAULT_QUESTIONS
    seed: int = DEFAULT_SEED
    k: int = DEFAULT_K
    max_tokens: int = DEFAULT_MAX_TOKENS
    resamples: int = 1000
    distractors: int | None = None
    # The engine's answer scorer (EngineConfig.answer_model): a name, a directory or "none".
    answer_model: str = "answers"

    @field_validator("limit", "resamples", "distractors")
    @classmethod
    def _at_least(cls, value: int | None, info: ValidationInfo) -> int | None:
        name = str(info.field_name)
        return at_least(name, value, 0 if name == "distractors" else 1)


@dataclass(slots=True)
class Answered:
    """What the engine did with one question."""

    question: Question
    draft: str
    draft_claims: list[str]
    rendered_claims: list[tuple[str, list[str]]]  # (claim, quotes of its citations)
    abstained: bool
    abstention_reason: str | None
    gold_retrieved: bool  # the question's own evidence is among the drafting context
    seconds: float
    timings: dict[str, float]
    answer_text: str = ""  # the rendered answer, citation markers included ("" on abstention)
    confidence: str = ""  # the answer's confidence label
    # Mean support of the claims that count for confidence: the engine's score of the draft.
    support: float = 0.0
    # P(the shown answer is right) from the answer scorer's calibration (None without one).
    answer_probability: float | None = None
    cites_own: bool = False  # a citation quotes the question's own evidence
    # Cosine similarity of the best dense hit: a selection baseline that needs no verifier.
    retrieval_score: float = 0.0
    draft_supported: list[bool] = field(default_factory=list)
    rendered_supported: list[bool] = field(default_factory=list)
    # Entailed by the question's own evidence: true background the references do not state.
    draft_grounded: list[bool] = field(default_factory=list)
    rendered_grounded: list[bool] = field(default_factory=list)
    citation_recall: list[bool] = field(default_factory=list)
    citations_needed: list[bool] = field(default_factory=list)


def answer_all(
    settings: E2ESettings, source: str, evidence: Sequence[str], questions: Sequence[Question],
    store_dir: Path, progress: ProgressFactory = no_progress,
) -> tuple[list[Answered], float]:
    """Build the store of ``evidence`` and ask every question (``progress`` shows them);
    returns the answers and the ingestion time."""
    from veritype.engine import Engine, EngineConfig

    config = EngineConfig.load(
        env={},
        store=f"sqlite:///{store_dir / f'{source}.sqlite'}",
        generator=settings.generator,
        generator_options=settings.generator_options,
        k=settings.k,
        max_tokens=settings.max_tokens,
        answer_model=settings.answer_model,
    )
    answered: list[Answered] = []
    with Engine(config) as engine:
        started = time.perf_counter()
        unique = list(dict.fromkeys(text.strip() for text in evidence if text.strip()))
        engine.ingest_texts(unique, titles=[f"{SOURCE_TITLES[source]} evidence {i + 1}"
                                            for i in range(len(unique))])
        ingest_seconds = time.perf_counter() - started
        dense_index = next((spec.name for spec in engine.corpus.indexes if spec.kind == "dense"),
                           None)
        title = f"{SOURCE_TITLES[source]}: answering"
        with progress(title, len(questions)) as advance:
            for question in questions:
                asked = time.perf_counter()
                grounded = engine.ask(question.text)
                seconds = time.perf_counter() - asked
                trace = engine.trace(grounded.trace_id)
                # The same retrieval ask drafted from (deterministic, no filters).
                context = engine.corpus.retrieve(question.text, settings.k)
                dense = (engine.corpus.retrieve(question.text, 1, retriever=dense_index)
                         if dense_index else [])
                draft = str(trace.get("draft") or "") if trace is not None else ""
                counted = [claim.vote_share for claim in grounded.claims if claim.counted]
                rendered = [
                    (claim.text, [citation.quote for citation in claim.citations])
                    for claim in grounded.claims if claim.rendered
                ]
                answered.append(Answered(
                    question=question,
                    draft=draft,
                    draft_claims=[claim.text for claim in decompose(draft).claims],
                    rendered_claims=[] if grounded.abstained else rendered,
                    abstained=grounded.abstained,
                    abstention_reason=grounded.abstention_reason,
                    gold_retrieved=any(_overlaps(hit.chunk.text, question.gold_evidence)
                                       for hit in context),
                    seconds=seconds,
                    timings=dict(grounded.timings),
                    answer_text="" if grounded.abstained else grounded.answer,
                    confidence=grounded.confidence.value,
                    support=float(np.mean(counted)) if counted else 0.0,
                    answer_probability=grounded.answer_probability,
                    cites_own=any(_overlaps(reference.quote, question.gold_evidence)
                                  for reference in grounded.references),
                    retrieval_score=dense[0].score if dense else 0.0,
                ))
                advance(1)
    return answered, ingest_seconds


def _overlaps(chunk: str, gold: str) -> bool:
    chunk, gold = chunk.strip(), gold.strip()
    return bool(chunk) and (chunk in gold or gold in chunk)
