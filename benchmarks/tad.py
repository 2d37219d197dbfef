"""Truth-aware decoding, open world first: hallucinations among the answers presented as
guarded, the share left unverified or abstained, and the speed, guards off and on.

Prompt sets on SmolLM2-135M-Instruct (llama.cpp, greedy). Open world (what a deployed
guard meets; the headline):
  * absent: questions in the knowledge base's own wording about subjects it does not hold
    (benchmarks/data/tad_open_facts.csv: gold answers with the reference each comes from),
    with no evidence, so no guard can check the answer;
  * paraphrase: the facts of the general set asked with relations the knowledge base has
    no surface for (benchmarks/data/tad_paraphrases.csv: "Canada's seat of government is"
    instead of "The capital of Canada is"), which the kb guard must recognise by meaning;
    the knowledge base's own sentence for the fact is the evidence, as retrieval would
    find it;
  * retrieved: facts of the bundled demo corpus (SciFact abstracts) that no hand-made
    knowledge base holds: the kb guard compiles triples from the passages BM25 retrieves
    for the prompt from the corpus. The prompts are built from triples the same extractor
    reads from the same abstracts, so a guard that retrieves the right abstract knows the
    answer: this set measures retrieval and coverage, not open-ended extraction.
In every open-world set the kb guard holds the general knowledge base plus the triples of
the passages retrieved for the prompt. Closed world (a labelled sanity check, never a
headline: the guard's knowledge base holds every fact asked, in the prompt's words):
  * general: one question per fact of benchmarks/data/tad_facts.csv;
  * scifact: the retrieved set's prompts with every demo-corpus triple in the knowledge base.
Plus arithmetic: 50 prompts "What is a op b? Answer: a op b =".

Scoring is against gold answers only, never by veritype: an answer is correct when its
first clause names the gold answer (or a listed spelling) as whole words,
case-insensitively; wrong (a hallucination) when it answers without it; abstained when the
decoder gave no answer. Each guarded answer also carries its status: guarded (a guard
checked its key clause), unverified (none could) or abstained. Every rate has a Wilson 95%
interval; hallucination is reported among all prompts and among the answers presented as
guarded.

Configurations: off (the same greedy loop with no guard), on (kb + arithmetic + context,
unchecked answers returned as unverified), on without the retry back-off, and each guard
ablated. ``unchecked="abstain"`` decodes the same tokens and only relabels unverified
answers as abstentions, so its shares are reported from the ``on`` run. Guarded runs may
back off once to a prompt that carries the evidence sentence before the answer's lead; a
prompt without evidence abstains or cuts the refuted clause instead. Speed off and on is
measured on the same prompts in one run, interleaved, each from a cold cache, with paired
bootstrap 95% intervals on the overheads.

    python benchmarks/tad.py [--limit 10] [--sets absent,paraphrase]
                             [--out benchmarks/results/tad.json]
"""

from __future__ import annotations

import argparse
import csv
import importlib.metadata
import json
import math
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from veritype._text import sentence_spans
from veritype.decoding import (
    GUARDED,
    UNVERIFIED,
    ArithmeticGuard,
    Guard,
    KnowledgeBase,
    KnowledgeBaseGuard,
    RelationMatcher,
    default_model_path,
    extract_triples,
    guarded_generate,
    load_llama,
)
from veritype.decoding.context import ContextGuard
from veritype.decoding.kb import normalise
from veritype.evaluation.machine import machine
from veritype.ingest.corpus import Corpus, demo_corpus_path
from veritype.retrieval import Retriever
from veritype.store import Chunking, IndexSpec

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
FACTS = DATA / "tad_facts.csv"
OPEN_FACTS = DATA / "tad_open_facts.csv"
PARAPHRASES = DATA / "tad_paraphrases.csv"
QUESTIONS = {
    "capital": "What is the capital of {subject}?",
    "currency": "What is the currency of {subject}?",
    "chemical symbol": "What is the chemical symbol for {subject}?",
    "author": "Who wrote {subject}?",
    "year of birth": "In which year was {subject} born?",
    "year of fall": "In which year did {subject} fall?",
}
PRESIDENT = ("Who was the president of the United States in {year}?",
             "In {year}, the president of the United States was")
PRESIDENT_YEARS = (2005, 2012, 2019, 2023)
COPULAS = frozenset({"is", "are", "was", "were", "has", "have", "contains", "causes"})
CONFIGS = ("off", "on", "on_no_retry", "no_kb", "no_arithmetic", "no_context")
SETS = ("absent", "paraphrase", "retrieved", "general", "scifact", "arithmetic")
# Which sets ask facts the guard's hand-made knowledge base holds in the words it knows
# them by (closed), and which it must recognise, retrieve or report it cannot check (open).
WORLD = {"general": "closed", "scifact": "closed", "absent": "open", "paraphrase": "open",
         "retrieved": "open"}
GROUPS = {"open_world_facts": ("absent", "paraphrase", "retrieved"),
          "closed_world_facts": ("general", "scifact")}
# Passages retrieved per prompt for the kb guard in the open world.
RETRIEVED_PASSAGES = 3
Z95 = 1.959963984540054
RESAMPLES = 2000


@dataclass(frozen=True)
class Case:
    """One prompt, what a correct answer must contain, and the evidence behind it (empty
    when the knowledge base has nothing to retrieve)."""

    kind: str
    prompt: str
    expected: str
    evidence: str
    # Other spellings of the same answer ("Brasilia", "Brasília").
    alternatives: tuple[str, ...] = ()

    def correct(self, text: str) -> bool:
        stripped = text.strip()
        spans = sentence_spans(stripped)
        first = stripped[: spans[0][1]] if spans else stripped
        if self.kind == "arithmetic":
            number = re.search(r"-?\d[\d,]*(?:\.\d+)?", first)
            return number is not None and Fraction(number.group(0).replace(",", "")) == Fraction(
                self.expected
            )
        # Only the first clause answers: "Donald Trump, who ... Barack Obama" names a wrong
        # president first. A comma before a word ends it; a date's ", 1809" does not.
        first = re.split(r",\s+(?=[^\W\d_])", first, maxsplit=1)[0]
        # Whole words: "K" must not count inside "Kr", nor "Au" inside "Australia".
        return any(re.search(rf"(?<!\w){re.escape(normalise(answer))}(?!\w)", normalise(first))
                   for answer in (self.expected, *self.alternatives))


@dataclass(frozen=True)
class Fact:
    """A fact of the general knowledge base as the closed-world set asks it."""

    subject: str
    relation: str
    answer: str
    alternatives: tuple[str, ...]
    lead: str
    year: int | None = None

    @property
    def evidence(self) -> str:
        return f"{self.lead} {self.answer}."


def _sentence_start(text: str) -> str:
    return text[0].upper() + text[1:]


def kb_lead(knowledge: KnowledgeBase, relation: str, subject: str) -> str:
    """The answer's lead in the knowledge base's own words for ``relation``."""
    surface = sorted(knowledge.relation_aliases[normalise(relation)])[0]
    return _sentence_start(surface.replace("{subject}", subject))


def general_facts(knowledge: KnowledgeBase) -> list[Fact]:
    objects: dict[tuple[str, str], list[str]] = {}
    for triple in knowledge.triples:
        objects.setdefault((triple.subject, triple.relation), []).append(triple.object)
    facts: list[Fact] = []
    seen: set[tuple[str, str]] = set()
    for triple in knowledge.triples:
        if triple.relation == "president" or (triple.subject, triple.relation) in seen:
            continue
        seen.add((triple.subject, triple.relation))
        others = tuple(o for o in objects[(triple.subject, triple.relation)] if o != triple.object)
        facts.append(Fact(triple.subject, triple.relation, triple.object, others,
                          kb_lead(knowledge, triple.relation, triple.subject)))
    for year in PRESIDENT_YEARS:
        holder = next(t for t in knowledge.triples if t.relation == "president"
                      and t.valid_from and t.valid_to
                      and t.valid_from.year < year <= t.valid_to.year)
        facts.append(Fact(holder.subject, "president", holder.object, (),
                          PRESIDENT[1].format(year=year), year))
    return facts


def general_cases(facts: Sequence[Fact]) -> list[Case]:
    cases: list[Case] = []
    for fact in facts:
        question = (PRESIDENT[0].format(year=fact.year) if fact.year is not None
                    else QUESTIONS[fact.relation].format(subject=fact.subject))
        cases.append(Case("general", f"Q: {question}\nA: {fact.lead}", fact.answer,
                          fact.evidence, fact.alternatives))
    return cases


def paraphrase_cases(facts: Sequence[Fact], path: Path = PARAPHRASES) -> list[Case]:
    """The general set's facts asked in words the knowledge base has no alias for, each
    relation's phrasings taken in turn; the evidence stays the knowledge base's sentence."""
    with path.open(newline="", encoding="utf-8") as handle:
        phrasings: dict[str, list[dict[str, str]]] = {}
        for row in csv.DictReader(handle):
            phrasings.setdefault(row["relation"], []).append(row)
    used: dict[str, int] = {}
    cases: list[Case] = []
    for fact in facts:
        turn = used.get(fact.relation, 0)
        used[fact.relation] = turn + 1
        row = phrasings[fact.relation][turn % len(phrasings[fact.relation])]
        fields = {"subject": fact.subject, "year": fact.year}
        question = row["question"].format(**fields)
        lead = _sentence_start(row["lead"].format(**fields))
        cases.append(Case("paraphrase", f"Q: {question}\nA: {lead}", fact.answer,
                          fact.evidence, fact.alternatives))
    return cases


def absent_cases(knowledge: KnowledgeBase, path: Path = OPEN_FACTS) -> list[Case]:
    """Questions in the knowledge base's words about subjects it does not hold, with gold
    answers from ``path``; there is no evidence to retrieve for them."""
    known = known_subjects(knowledge)
    cases: list[Case] = []
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            subject, relation = row["subject"], row["relation"]
            if _bare(normalise(subject)) in known:
                raise ValueError(f"{path}: {subject!r} is a subject of the knowledge base")
            if not row["source"].strip():
                raise ValueError(f"{path}: {subject!r} {relation!r} names no source")
            lead = kb_lead(knowledge, relation, subject)
            question = QUESTIONS[relation].format(subject=subject)
            alternatives = tuple(a.strip() for a in row["alternatives"].split("|") if a.strip())
            cases.append(Case("absent", f"Q: {question}\nA: {lead}", row["answer"], "",
                              alternatives))
    return cases


def _bare(subject: str) -> str:
    for article in ("the ", "a ", "an "):
        if subject.startswith(article):
            return subject[len(article):]
    return subject


def known_subjects(knowledge: KnowledgeBase) -> set[str]:
    """Every subject name and alias of ``knowledge``, normalised, without a leading article."""
    names = {normalise(triple.subject) for triple in knowledge.triples}
    for subject, aliases in knowledge.subject_aliases.items():
        names |= {subject, *aliases}
    return {_bare(name) for name in names}


def check_open_world(cases: Sequence[Case], guard: KnowledgeBaseGuard) -> None:
    """An open-world lead the guard recognises would make the set closed after all."""
    for case in cases:
        lead = case.prompt.rpartition("\n")[2]
        if WORLD.get(case.kind) == "open" and guard.compiled.lookup(lead, date.today()):
            raise ValueError(f"the knowledge base knows the lead {lead!r} of a {case.kind} prompt")


def scifact_cases(limit: int) -> tuple[list[Case], KnowledgeBase]:
    """Facts of the demo corpus as triples: the knowledge base of every extracted triple,
    and prompts for triples whose lead names exactly one object."""
    records = [json.loads(line) for line in demo_corpus_path().open(encoding="utf-8")]
    knowledge = KnowledgeBase()
    by_lead: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
    for record in records:
        for triple in extract_triples(record["text"], source=record["doc_id"]):
            knowledge.add(triple)
            by_lead.setdefault(normalise(f"{triple.subject} {triple.relation}"), []).append(
                (triple, record)
            )
    cases: list[Case] = []
    used_documents: set[str] = set()
    for entries in by_lead.values():
        triple, record = entries[0]
        if (len(entries) > 1 or triple.relation not in COPULAS
                or record["doc_id"] in used_documents
                or not 1 <= len(triple.object.split()) <= 4
                or not 1 <= len(triple.subject.split()) <= 5):
            continue
        used_documents.add(record["doc_id"])
        lead = f"{triple.subject} {triple.relation}"
        text = record["text"]
        evidence = next((text[s:e] for s, e in sentence_spans(text) if lead in text[s:e]),
                        f"{lead} {triple.object}.")
        prompt = f'A fact from the abstract "{record["title"]}":\n{lead}'
        cases.append(Case("scifact", prompt, triple.object, evidence))
        if len(cases) >= limit:
            break
    return cases, knowledge


def arithmetic_cases(count: int, seed: int = 7) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    shapes: list[Callable[[], tuple[str, Fraction]]] = [
        lambda: _binary(rng, "×", rng.randint(12, 99), rng.randint(12, 99)),
        lambda: _binary(rng, "+", rng.randint(100, 999), rng.randint(100, 999)),
        lambda: _binary(rng, "−", rng.randint(500, 999), rng.randint(100, 499)),
        lambda: _division(rng),
        lambda: _binary(rng, "+", rng.randint(1000, 9999), rng.randint(1000, 9999),
                        separators=True),
        lambda: _decimal(rng),
        lambda: _units(rng),
        lambda: _binary(rng, "*", rng.randint(101, 999), rng.randint(3, 9)),
    ]
    for index in range(count):
        expression, value = shapes[index % len(shapes)]()
        cases.append(Case("arithmetic", f"What is {expression}? Answer: {expression} =",
                          str(value.numerator / value.denominator if value.denominator != 1
                              else value.numerator), f"{expression} = {_format(value)}."))
    return cases


def _binary(rng: random.Random, operator: str, a: int, b: int, *,
            separators: bool = False) -> tuple[str, Fraction]:
    value = {"×": a * b, "*": a * b, "+": a + b, "−": a - b}[operator]
    left, right = (f"{a:,}", f"{b:,}") if separators else (str(a), str(b))
    return f"{left} {operator} {right}", Fraction(value)


def _division(rng: random.Random) -> tuple[str, Fraction]:
    quotient, divisor = rng.randint(12, 99), rng.randint(3, 19)
    return f"{quotient * divisor} ÷ {divisor}", Fraction(quotient)


def _decimal(rng: random.Random) -> tuple[str, Fraction]:
    a, b = Fraction(rng.randint(11, 999), 10), Fraction(rng.randint(11, 999), 100)
    return f"{_format(a)} + {_format(b)}", a + b


def _units(rng: random.Random) -> tuple[str, Fraction]:
    a, b = rng.randint(12, 480), rng.randint(12, 480)
    unit = rng.choice(["km", "kg", "%"])
    space = "" if unit == "%" else " "
    return f"{a}{space}{unit} + {b}{space}{unit}", Fraction(a + b)


def _format(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.2f}".rstrip("0").rstrip(".")


@dataclass(frozen=True)
class KnowledgeGuards:
    """The kb guards of a run: the closed world's, whose knowledge base holds every fact of
    the closed-world sets, and the open world's (the general knowledge base alone), which
    adds the triples of the passages ``retriever`` finds for each prompt."""

    closed: KnowledgeBaseGuard
    open: KnowledgeBaseGuard
    retriever: Retriever | None = None

    def for_case(self, case: Case) -> KnowledgeBaseGuard:
        if WORLD.get(case.kind) != "open":
            return self.closed
        if self.retriever is None:
            return self.open
        return self.open.with_knowledge(
            KnowledgeBase.from_retrieval(self.retriever, case.prompt, k=RETRIEVED_PASSAGES))


def build_cases(sets: Sequence[str], limit: int,
                retriever: Retriever | None = None) -> tuple[list[Case], KnowledgeGuards]:
    """The prompts of ``sets`` (at most ``limit`` per set when > 0) and the kb guards, both
    recognising relations by meaning; ``retriever`` serves the open world's passages."""
    general_knowledge = KnowledgeBase.from_file(FACTS)
    facts = general_facts(general_knowledge)
    scifact, scifact_knowledge = scifact_cases(limit or 40)
    by_set = {
        "general": general_cases(facts),
        "scifact": scifact,
        "retrieved": [replace(case, kind="retrieved") for case in scifact],
        "arithmetic": arithmetic_cases(limit or 50),
        "absent": absent_cases(general_knowledge),
        "paraphrase": paraphrase_cases(facts),
    }
    relations = RelationMatcher()
    closed = KnowledgeBase()
    closed.merge(general_knowledge)
    closed.merge(scifact_knowledge)
    guards = KnowledgeGuards(KnowledgeBaseGuard(closed, relations=relations),
                             KnowledgeBaseGuard(general_knowledge, relations=relations),
                             retriever)
    cases = [case for name in sets for case in (by_set[name][:limit] if limit else by_set[name])]
    check_open_world(cases, guards.open)
    return cases, guards


def demo_retriever(folder: Path) -> tuple[Corpus, Retriever]:
    """A BM25 retriever over the demo corpus, ingested into a store under ``folder``."""
    corpus = Corpus.open(f"sqlite:///{folder / 'demo.sqlite'}",
                         indexes=[IndexSpec("bm25", "bm25", Chunking(max_chars=1200))])
    corpus.ensure_demo()
    return corpus, corpus.retriever("bm25")


def guards_for(config: str, kb: KnowledgeBaseGuard, arithmetic: ArithmeticGuard,
               context: ContextGuard) -> list[Guard]:
    return [guard for guard in (kb, arithmetic, context)
            if config not in ("off", f"no_{guard.name}")]


def retry_for(config: str, case: Case) -> Callable[[], str] | None:
    """Back off to a prompt that carries the evidence sentence (retrieval), except in
    ``off`` and ``on_no_retry``, and when there is no evidence, which abstain or cut the
    refuted clause instead. The evidence goes before the prompt's last line (the answer's
    lead), as retrieved passages join a prompt's context: the lines before it stay a prefix
    the model has already read."""
    if config in ("off", "on_no_retry") or not case.evidence:
        return None
    head, _, lead = case.prompt.rpartition("\n")
    context = f"{head}\n" if head else ""
    return lambda: f"{context}Evidence: {case.evidence}\n{lead}"


def decode(cases: Sequence[Case], guards: KnowledgeGuards,
           args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    """Every case under every configuration, the configurations interleaved per case (off
    first on even cases, on first on odd ones) so that speed drifts hit both alike."""
    arithmetic = ArithmeticGuard()
    context = ContextGuard()
    llama = load_llama(threads=args.threads)
    stop = ("\n",)
    rows: dict[str, list[dict[str, Any]]] = {config: [] for config in CONFIGS}
    progress = Progress(TextColumn("{task.description}"), BarColumn(),
                        TextColumn("{task.completed}/{task.total}"), TimeRemainingColumn())
    with progress:
        task = progress.add_task("decoding", total=len(cases) * len(CONFIGS))
        for number, case in enumerate(cases):
            configs = list(CONFIGS) if number % 2 == 0 else ["on", "off", *CONFIGS[2:]]
            evidence = [case.evidence] if case.evidence and case.kind != "arithmetic" else []
            for config in configs:
                llama.reset()  # every run evaluates its prompt from a cold cache
                cpu, wall = time.process_time(), time.perf_counter()
                # Retrieval and compiling its triples are part of a guarded answer's cost.
                kb = guards.for_case(case) if config != "off" else guards.closed
                chosen = guards_for(config, kb, arithmetic, context.with_evidence(evidence))
                draft = guarded_generate(
                    llama, case.prompt, chosen, max_tokens=args.max_tokens,
                    top_k=args.top_k, stop=stop, retry=retry_for(config, case),
                )
                seconds, cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
                decode_tokens = max(0, draft.tokens - (2 if draft.retried else 1))
                rows[config].append({
                    "kind": case.kind, "prompt": case.prompt, "expected": case.expected,
                    "text": draft.text, "tokens": draft.tokens, "abstained": draft.abstained,
                    "abstention_reason": draft.abstention_reason, "retried": draft.retried,
                    "status": draft.status, "checked_by": list(draft.key_clause.checked_by),
                    "unverified_clause": draft.unverified_clause,
                    "dropped_clause": draft.dropped_clause,
                    "correct": not draft.abstained and case.correct(draft.text),
                    "steered_steps": sum(i.action == "steer" for i in draft.interventions),
                    "mean_safe_mass": draft.mean_safe_mass,
                    "seconds": seconds, "cpu_seconds": cpu_seconds,
                    "decode_tokens": decode_tokens,
                    "decode_seconds": (decode_tokens / draft.decode_tokens_per_s
                                       if draft.decode_tokens_per_s else 0.0),
                })
                progress.advance(task)
    return rows


def wilson(successes: int, trials: int) -> list[float] | None:
    """The Wilson score 95% interval of a proportion (None without trials)."""
    if trials == 0:
        return None
    p = successes / trials
    denominator = 1 + Z95**2 / trials
    centre = (p + Z95**2 / (2 * trials)) / denominator
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / denominator
    return [max(0.0, centre - half), min(1.0, centre + half)]


def _members(group: str) -> tuple[str, ...]:
    return GROUPS.get(group, (group,))


def metrics(chosen: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(chosen)
    correct = sum(r["correct"] for r in chosen)
    abstained = sum(r["abstained"] for r in chosen)
    wrong = n - correct - abstained
    answered = n - abstained
    seconds = sum(r["seconds"] for r in chosen)
    tokens = sum(r["tokens"] for r in chosen)
    guarded = [r for r in chosen if r["status"] == GUARDED]
    wrong_guarded = sum(not r["correct"] for r in guarded)
    unverified = sum(r["status"] == UNVERIFIED for r in chosen)
    return {
        "prompts": n,
        "correct": correct, "wrong": wrong, "abstained": abstained,
        "guarded": len(guarded), "unverified": unverified,
        "guarded_rate": len(guarded) / n, "guarded_rate_ci95": wilson(len(guarded), n),
        "unverified_rate": unverified / n, "unverified_rate_ci95": wilson(unverified, n),
        # Among the answers presented as guarded, how many name a wrong object.
        "hallucination_among_guarded": wrong_guarded / len(guarded) if guarded else None,
        "hallucination_among_guarded_ci95": wilson(wrong_guarded, len(guarded)),
        # With unchecked="abstain" the same tokens are decoded and every unverified answer
        # is an abstention instead.
        "abstention_rate_if_unchecked_abstain": (abstained + unverified) / n,
        "abstention_rate_if_unchecked_abstain_ci95": wilson(abstained + unverified, n),
        "accuracy": correct / n, "accuracy_ci95": wilson(correct, n),
        "hallucination_rate": wrong / n, "hallucination_rate_ci95": wilson(wrong, n),
        "abstention_rate": abstained / n, "abstention_rate_ci95": wilson(abstained, n),
        "accuracy_among_answered": correct / answered if answered else None,
        "accuracy_among_answered_ci95": wilson(correct, answered),
        "retried": sum(r["retried"] for r in chosen),
        "steered_steps": sum(r["steered_steps"] for r in chosen),
        "mean_safe_mass": sum(r["mean_safe_mass"] for r in chosen) / n,
        "seconds_per_prompt": seconds / n,
        "tokens_per_s": tokens / max(1e-9, seconds),
        "tokens_per_cpu_s": tokens / max(1e-9, sum(r["cpu_seconds"] for r in chosen)),
        "decode_tokens_per_s": sum(r["decode_tokens"] for r in chosen)
        / max(1e-9, sum(r["decode_seconds"] for r in chosen)),
    }


def speed_overheads(off: Sequence[dict[str, Any]], other: Sequence[dict[str, Any]],
                    seed: int = 0) -> dict[str, Any]:
    """Wall time per prompt and per decoded token of ``other`` against ``off`` on the same
    prompts, with paired bootstrap 95% intervals (prompts resampled, both runs together)."""
    columns = ("seconds", "decode_tokens", "decode_seconds", "tokens")
    values = np.array([[row[c] for c in columns] + [twin[c] for c in columns]
                       for row, twin in zip(off, other, strict=True)], dtype=float)

    def ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.asarray(a / np.maximum(b, 1e-9))

    def overheads(sums: np.ndarray) -> dict[str, np.ndarray]:
        s_off, dt_off, ds_off, t_off, s_on, dt_on, ds_on, t_on = np.moveaxis(sums, -1, 0)
        return {
            "seconds_per_prompt_overhead": ratio(s_on, s_off) - 1,
            "decode_tokens_per_s_overhead": 1 - ratio(ratio(dt_on, ds_on), ratio(dt_off, ds_off)),
            "end_to_end_tokens_per_s_overhead": 1 - ratio(ratio(t_on, s_on), ratio(t_off, s_off)),
        }

    point = overheads(values.sum(axis=0))
    rows = np.random.default_rng(seed).integers(0, len(values), (RESAMPLES, len(values)))
    resampled = overheads(values[rows].sum(axis=1))
    report: dict[str, Any] = {}
    for name, value in point.items():
        report[name] = float(value)
        report[f"{name}_ci95"] = [float(np.percentile(resampled[name], 2.5)),
                                  float(np.percentile(resampled[name], 97.5))]
    return report


def summarise(rows: dict[str, list[dict[str, Any]]], args: argparse.Namespace) -> dict[str, Any]:
    present = [name for name in SETS if any(r["kind"] == name for r in rows["off"])]
    groups = [*present,
              *(g for g, members in GROUPS.items() if set(members) & set(present)), "all"]
    table: dict[str, Any] = {}
    for config, results in rows.items():
        table[config] = {}
        for group in groups:
            chosen = [r for r in results if group == "all" or r["kind"] in _members(group)]
            table[config][group] = metrics(chosen)
            if config != "off":
                twins = [r for r in rows["off"] if group == "all" or r["kind"] in _members(group)]
                table[config][group]["vs_off"] = speed_overheads(twins, chosen)
    return {
        "model": {"name": "SmolLM2-135M-Instruct Q4_1 (llama.cpp, greedy)",
                  "file": default_model_path().name,
                  "llama_cpp_python": importlib.metadata.version("llama_cpp_python")},
        "machine": machine(),
        "settings": {"top_k": args.top_k, "max_tokens": args.max_tokens,
                     "threads": args.threads, "limit": args.limit, "sets": present,
                     "retrieved_passages": RETRIEVED_PASSAGES, "retriever": "bm25, demo corpus",
                     "relations_by_meaning": "MiniLM, threshold 0.7, margin 0.1"},
        "sets": {name: {"world": WORLD.get(name, "computed"),
                        "prompts": table["off"][name]["prompts"]} for name in present},
        "targets": {"open_world_hallucination_among_guarded": "<= 0.05",
                    "paraphrase_hallucination_on_vs_off": "<= 0.5",
                    "arithmetic_accuracy_on": ">= 0.95",
                    "decode_tokens_per_s_overhead": "<= 0.25"},
        "notes": "The open-world sets are the headline: the guard does not hold the facts "
                 "(absent), must recognise the relation by meaning (paraphrase) or must "
                 "retrieve the passage that states the fact (retrieved). Every guarded answer "
                 "is guarded (a guard checked its key clause), unverified or abstained; "
                 "hallucination among guarded answers counts wrong answers among those "
                 "presented as guarded. Closed-world sets ask facts the kb guard holds, in its "
                 "words: a labelled sanity check whose figures hold by construction. A wrong "
                 "answer is one whose first clause does not name the gold answer, so an "
                 "off-topic answer counts as wrong. The 'if unchecked abstain' shares relabel "
                 "the on run's unverified answers: that setting decodes the same tokens. "
                 "Speed is paired with the abstention rate of the same prompts: an "
                 "abstention ends early and costs little. End-to-end tokens/s also falls "
                 "when guarded answers are shorter at the same prompt cost; seconds per "
                 "prompt is the wall time a user waits for an answer.",
        "headline": headline(table, present),
        "table": table,
        "examples": {config: [r for name in present
                              for r in [x for x in results if x["kind"] == name][:3]]
                     for config, results in rows.items() if config in ("off", "on")},
        # Every open-world answer off and on, to audit the gold scoring by eye.
        "open_world_answers": [
            {"set": off["kind"], "lead": off["prompt"].rpartition("\n")[2],
             "expected": off["expected"], "off": off["text"], "off_correct": off["correct"],
             "on": "" if on["abstained"] else on["text"], "on_correct": on["correct"],
             "on_status": on["status"], "on_checked_by": on["checked_by"],
             "on_dropped_clause": on["dropped_clause"]}
            for off, on in zip(rows["off"], rows["on"], strict=True)
            if WORLD.get(off["kind"]) == "open"
        ],
    }


def headline(table: dict[str, Any], present: Sequence[str]) -> dict[str, Any]:
    """Hallucinations off → on per fact set, closed world beside open world, and every
    speed overhead beside the abstention rate and accuracy on the same prompts."""
    hallucination: dict[str, Any] = {}
    for group in [*(s for s in present if s in WORLD), *GROUPS]:
        if group not in table["off"]:
            continue
        off, on = table["off"][group], table["on"][group]
        hallucination[group] = {
            "world": WORLD.get(group, group.split("_")[0]),
            "prompts": off["prompts"],
            "off": off["hallucination_rate"], "off_ci95": off["hallucination_rate_ci95"],
            "on": on["hallucination_rate"], "on_ci95": on["hallucination_rate_ci95"],
            "reduction": (1 - on["hallucination_rate"] / off["hallucination_rate"]
                          if off["hallucination_rate"] else None),
            "accuracy_off": off["accuracy"], "accuracy_on": on["accuracy"],
            "abstention_on": on["abstention_rate"],
            "abstention_on_ci95": on["abstention_rate_ci95"],
            "guarded_on": on["guarded_rate"], "guarded_on_ci95": on["guarded_rate_ci95"],
            "unverified_on": on["unverified_rate"],
            "unverified_on_ci95": on["unverified_rate_ci95"],
            "hallucination_among_guarded_on": on["hallucination_among_guarded"],
            "hallucination_among_guarded_on_ci95": on["hallucination_among_guarded_ci95"],
            "abstention_on_if_unchecked_abstain": on["abstention_rate_if_unchecked_abstain"],
            "abstention_on_if_unchecked_abstain_ci95":
                on["abstention_rate_if_unchecked_abstain_ci95"],
        }
    speed = {config: {**table[config]["all"]["vs_off"],
                      "abstention_rate": table[config]["all"]["abstention_rate"],
                      "abstention_rate_ci95": table[config]["all"]["abstention_rate_ci95"],
                      "accuracy": table[config]["all"]["accuracy"],
                      "accuracy_among_answered": table[config]["all"]["accuracy_among_answered"]}
             for config in ("on", "on_no_retry")}
    open_world = hallucination.get("open_world_facts", {})
    paraphrase = hallucination.get("paraphrase", {})
    return {
        "open_world_hallucination_among_guarded": open_world.get("hallucination_among_guarded_on"),
        "open_world_hallucination_among_guarded_ci95":
            open_world.get("hallucination_among_guarded_on_ci95"),
        "open_world_guarded": open_world.get("guarded_on"),
        "open_world_unverified": open_world.get("unverified_on"),
        "open_world_abstained": open_world.get("abstention_on"),
        "paraphrase_hallucination_on_vs_off": (paraphrase["on"] / paraphrase["off"]
                                               if paraphrase.get("off") else None),
        "closed_world_sanity_hallucination_reduction":
            hallucination.get("closed_world_facts", {}).get("reduction"),
        "hallucination": hallucination,
        "arithmetic_accuracy_on": table["on"].get("arithmetic", {}).get("accuracy"),
        "speed": speed,
        "mean_safe_mass_on": table["on"]["all"]["mean_safe_mass"],
    }


def _ci(values: list[float] | None) -> str:
    return f"[{values[0]:.2f},{values[1]:.2f}]" if values else "[-]"


def _rate(m: dict[str, Any], key: str) -> str:
    value = m[key]
    return f"{'-' if value is None else f'{value:.2f}'} {_ci(m[f'{key}_ci95'])}"


def print_report(report: dict[str, Any]) -> None:
    print(f"{'config':<14}{'set':<20}{'n':>4}  {'accuracy':<17}{'hallucination':<17}"
          f"{'abstention':<17}{'acc | answered':<17}{'retry':>5}{'s/prompt':>9}"
          f"{'decode tok/s':>13}")
    for config, groups in report["table"].items():
        for group, m in groups.items():
            print(f"{config:<14}{group:<20}{m['prompts']:>4}  {_rate(m, 'accuracy'):<17}"
                  f"{_rate(m, 'hallucination_rate'):<17}{_rate(m, 'abstention_rate'):<17}"
                  f"{_rate(m, 'accuracy_among_answered'):<17}{m['retried']:>5}"
                  f"{m['seconds_per_prompt']:>9.3f}{m['decode_tokens_per_s']:>13.1f}")
    head = report["headline"]
    print("\nhallucination rate, guards off → on; on: hallucination among guarded answers, "
          "shares guarded / unverified / abstained:")
    for group, h in head["hallucination"].items():
        among = h["hallucination_among_guarded_on"]
        print(f"  {group:<20}{h['world']:<8}n={h['prompts']:<4}{h['off']:.2f} {_ci(h['off_ci95'])}"
              f" → {h['on']:.2f} {_ci(h['on_ci95'])}; among guarded "
              f"{'-' if among is None else f'{among:.2f}'} "
              f"{_ci(h['hallucination_among_guarded_on_ci95'])}; guarded {h['guarded_on']:.2f} "
              f"{_ci(h['guarded_on_ci95'])}, unverified {h['unverified_on']:.2f} "
              f"{_ci(h['unverified_on_ci95'])}, abstained {h['abstention_on']:.2f} "
              f"{_ci(h['abstention_on_ci95'])}")
    print("speed against off on the same prompts (all sets), beside the abstention rate:")
    for config, s in head["speed"].items():
        wall = s["seconds_per_prompt_overhead_ci95"]
        decode = s["decode_tokens_per_s_overhead_ci95"]
        print(f"  {config:<12} wall time per prompt {s['seconds_per_prompt_overhead']:+.0%} "
              f"[{wall[0]:+.0%}, {wall[1]:+.0%}], decode tokens/s "
              f"{-s['decode_tokens_per_s_overhead']:+.0%} [{-decode[1]:+.0%}, {-decode[0]:+.0%}]"
              f"; abstained {s['abstention_rate']:.1%} {_ci(s['abstention_rate_ci95'])}, "
              f"accuracy {s['accuracy']:.2f}")


def parse_sets(value: str) -> list[str]:
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = sorted(set(names) - set(SETS))
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"sets are a comma-separated subset of {', '.join(SETS)}")
    return [name for name in SETS if name in names]


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="prompts per set (0: all)")
    parser.add_argument("--sets", type=parse_sets, default=list(SETS),
                        help=f"comma-separated prompt sets (default: {','.join(SETS)})")
    parser.add_argument("--max-tokens", type=int, default=12)
    parser.add_argument("--top-k", type=int, default=40)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "tad.json")
    return parser


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        corpus, retriever = demo_retriever(Path(folder))
        with corpus:
            cases, guards = build_cases(args.sets, args.limit, retriever)
            return summarise(decode(cases, guards, args), args)


def main() -> None:
    arguments = parser()
    args = arguments.parse_args()
    if args.limit < 0 or args.max_tokens < 1:
        arguments.error("--limit must be >= 0 and --max-tokens >= 1")
    report = run(args)
    print_report(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
