"""Truth-aware decoding: hallucinations, arithmetic and speed with the guards off and on.

Three prompt sets on SmolLM2-135M-Instruct (llama.cpp, greedy):
  * general facts: a curated knowledge base (benchmarks/data/tad_facts.csv: capitals,
    currencies, symbols, authors, years, and US presidents with validity dates), one
    question per triple whose answer the prompt begins ("A: The capital of Canada is");
  * SciFact facts: triples extracted from the bundled demo corpus, prompts that state the
    subject and relation and ask for the object;
  * arithmetic: 50 prompts "What is a op b? Answer: a op b =" (× + − ÷, decimals,
    thousands separators, units).
Configurations: off (the same greedy loop with no guard), on (kb + arithmetic +
context), on without the retry back-off (abstain instead), and each guard ablated. A
wrong answer is a hallucination; an abstention is not. Guarded runs may back off once to
a prompt that carries the evidence sentence before the answer's lead. Tokens/s off and on
are measured on the same prompts in one run, interleaved, each from a cold cache: end to
end (prompt evaluation and retries included) and per decoded token after the first.

    python benchmarks/tad.py [--limit 10] [--out benchmarks/results/tad.json]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from veritype._text import sentence_spans
from veritype.decoding import (
    ArithmeticGuard,
    Guard,
    KnowledgeBase,
    KnowledgeBaseGuard,
    extract_triples,
    guarded_generate,
    load_llama,
)
from veritype.decoding.context import ContextGuard
from veritype.decoding.kb import normalise
from veritype.ingest.corpus import demo_corpus_path

ROOT = Path(__file__).resolve().parents[1]
FACTS = ROOT / "benchmarks" / "data" / "tad_facts.csv"
QUESTIONS = {
    "capital": "What is the capital of {subject}?",
    "currency": "What is the currency of {subject}?",
    "chemical symbol": "What is the chemical symbol for {subject}?",
    "author": "Who wrote {subject}?",
    "year of birth": "In which year was {subject} born?",
    "year of fall": "In which year did {subject} fall?",
}
PRESIDENT_YEARS = (2005, 2012, 2019, 2023)
COPULAS = frozenset({"is", "are", "was", "were", "has", "have", "contains", "causes"})
CONFIGS = ("off", "on", "on_no_retry", "no_kb", "no_arithmetic", "no_context")


@dataclass(frozen=True)
class Case:
    """One prompt, what a correct answer must contain, and the evidence behind it."""

    kind: str
    prompt: str
    expected: str
    evidence: str
    # Other spellings the knowledge base lists for the same fact ("Brasilia", "Brasília").
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
        return any(normalise(answer) in normalise(first)
                   for answer in (self.expected, *self.alternatives))


def general_cases(knowledge: KnowledgeBase) -> list[Case]:
    cases: list[Case] = []
    objects: dict[tuple[str, str], list[str]] = {}
    for triple in knowledge.triples:
        objects.setdefault((triple.subject, triple.relation), []).append(triple.object)
    seen: set[tuple[str, str]] = set()
    for triple in knowledge.triples:
        if triple.relation == "president" or (triple.subject, triple.relation) in seen:
            continue
        seen.add((triple.subject, triple.relation))
        surface = sorted(knowledge.relation_aliases[normalise(triple.relation)])[0]
        lead = surface.replace("{subject}", triple.subject)
        lead = lead[0].upper() + lead[1:]
        question = QUESTIONS[triple.relation].format(subject=triple.subject)
        others = tuple(o for o in objects[(triple.subject, triple.relation)] if o != triple.object)
        cases.append(Case("general", f"Q: {question}\nA: {lead}", triple.object,
                          f"{lead} {triple.object}.", others))
    for year in PRESIDENT_YEARS:
        holder = next(t for t in knowledge.triples if t.relation == "president"
                      and t.valid_from and t.valid_to
                      and t.valid_from.year < year <= t.valid_to.year)
        lead = f"In {year}, the president of the United States was"
        cases.append(Case("general", f"Q: Who was the president of the United States in "
                                     f"{year}?\nA: {lead}", holder.object,
                          f"{lead} {holder.object}."))
    return cases


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


def guards_for(config: str, kb: KnowledgeBaseGuard, arithmetic: ArithmeticGuard,
               context: ContextGuard) -> list[Guard]:
    return [guard for guard in (kb, arithmetic, context)
            if config not in ("off", f"no_{guard.name}")]


def retry_for(config: str, case: Case) -> Callable[[], str] | None:
    """Back off to a prompt that carries the evidence sentence (retrieval), except in
    ``off`` and ``on_no_retry``, which abstain instead. The evidence goes before the
    prompt's last line (the answer's lead), as retrieved passages join a prompt's context:
    the lines before it stay a prefix the model has already read."""
    if config in ("off", "on_no_retry"):
        return None
    head, _, lead = case.prompt.rpartition("\n")
    context = f"{head}\n" if head else ""
    return lambda: f"{context}Evidence: {case.evidence}\n{lead}"


def run(args: argparse.Namespace) -> dict[str, Any]:
    general_knowledge = KnowledgeBase.from_file(FACTS)
    scifact, scifact_knowledge = scifact_cases(args.limit or 40)
    cases = general_cases(general_knowledge) + scifact + arithmetic_cases(args.limit or 50)
    if args.limit:
        by_kind: dict[str, list[Case]] = {}
        for case in cases:
            by_kind.setdefault(case.kind, []).append(case)
        cases = [c for group in by_kind.values() for c in group[: args.limit]]
    knowledge = KnowledgeBase()
    knowledge.merge(general_knowledge)
    knowledge.merge(scifact_knowledge)
    kb = KnowledgeBaseGuard(knowledge)
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
            for config in configs:
                llama.reset()  # every run evaluates its prompt from a cold cache
                cpu, wall = time.process_time(), time.perf_counter()
                guards = guards_for(config, kb, arithmetic, context.with_evidence(
                    [case.evidence] if case.kind != "arithmetic" else []))
                draft = guarded_generate(
                    llama, case.prompt, guards, max_tokens=args.max_tokens,
                    top_k=args.top_k, tau_safe=args.tau_safe, stop=stop,
                    retry=retry_for(config, case),
                )
                text, tokens, abstained = draft.text, draft.tokens, draft.abstained
                retried, mass, reason = draft.retried, draft.mean_safe_mass, \
                    draft.abstention_reason
                interventions = sum(i.action == "steer" for i in draft.interventions)
                decode_tokens = max(0, tokens - (2 if retried else 1))
                decode_seconds = (decode_tokens / draft.decode_tokens_per_s
                                  if draft.decode_tokens_per_s else 0.0)
                rows[config].append({
                    "kind": case.kind, "prompt": case.prompt, "expected": case.expected,
                    "text": text, "tokens": tokens, "abstained": abstained,
                    "abstention_reason": reason, "retried": retried,
                    "correct": not abstained and case.correct(text),
                    "steered_steps": interventions, "mean_safe_mass": mass,
                    "seconds": time.perf_counter() - wall, "cpu_seconds": time.process_time() - cpu,
                    "decode_tokens": decode_tokens, "decode_seconds": decode_seconds,
                })
                progress.advance(task)
    return summarise(rows, args)


def summarise(rows: dict[str, list[dict[str, Any]]], args: argparse.Namespace) -> dict[str, Any]:
    kinds = sorted({row["kind"] for row in rows["off"]})
    table: dict[str, Any] = {}
    for config, results in rows.items():
        table[config] = {}
        for kind in [*kinds, "all"]:
            chosen = [r for r in results if kind in ("all", r["kind"])]
            n = len(chosen)
            wrong = sum(not r["correct"] and not r["abstained"] for r in chosen)
            tokens = sum(r["tokens"] for r in chosen)
            table[config][kind] = {
                "prompts": n,
                "accuracy": sum(r["correct"] for r in chosen) / n,
                "hallucination_rate": wrong / n,
                "abstention_rate": sum(r["abstained"] for r in chosen) / n,
                "retried": sum(r["retried"] for r in chosen),
                "steered_steps": sum(r["steered_steps"] for r in chosen),
                "mean_safe_mass": sum(r["mean_safe_mass"] for r in chosen) / n,
                "seconds_per_prompt": sum(r["seconds"] for r in chosen) / n,
                "tokens_per_s": tokens / sum(r["seconds"] for r in chosen),
                "tokens_per_cpu_s": tokens / sum(r["cpu_seconds"] for r in chosen),
                "decode_tokens_per_s": sum(r["decode_tokens"] for r in chosen)
                / max(1e-9, sum(r["decode_seconds"] for r in chosen)),
            }
    off, on = table["off"]["all"], table["on"]["all"]
    fact_kinds = [k for k in kinds if k != "arithmetic"]
    fact_off = sum(table["off"][k]["hallucination_rate"] * table["off"][k]["prompts"]
                   for k in fact_kinds)
    fact_on = sum(table["on"][k]["hallucination_rate"] * table["on"][k]["prompts"]
                  for k in fact_kinds)
    headline = {
        "fact_hallucination_reduction": 1 - fact_on / fact_off if fact_off else 0.0,
        "arithmetic_accuracy_on": table["on"].get("arithmetic", {}).get("accuracy"),
        "decode_tokens_per_s_overhead": 1 - on["decode_tokens_per_s"] / off["decode_tokens_per_s"],
        "end_to_end_tokens_per_s_overhead": 1 - on["tokens_per_s"] / off["tokens_per_s"],
        "seconds_per_prompt_overhead": on["seconds_per_prompt"] / off["seconds_per_prompt"] - 1,
        "tokens_per_cpu_s_overhead": 1 - on["tokens_per_cpu_s"] / off["tokens_per_cpu_s"],
        "mean_safe_mass_on": on["mean_safe_mass"],
    }
    return {
        "model": "SmolLM2-135M-Instruct Q4_1 (llama.cpp, greedy)",
        "settings": {"top_k": args.top_k, "tau_safe": args.tau_safe,
                     "max_tokens": args.max_tokens, "threads": args.threads},
        "targets": {"fact_hallucination_reduction": ">= 0.60", "arithmetic_accuracy_on": ">= 0.95",
                    "decode_tokens_per_s_overhead": "<= 0.25"},
        "notes": "End-to-end tokens/s also falls when guarded answers are shorter (a corrected "
                 "sum ends sooner) at the same prompt cost; seconds per prompt is the wall "
                 "time a user waits for an answer.",
        "headline": headline,
        "table": table,
        "examples": {config: results[:: max(1, len(results) // 12)]
                     for config, results in rows.items() if config in ("off", "on")},
    }


def print_report(report: dict[str, Any]) -> None:
    print(f"{'config':<14}{'set':<12}{'n':>4}{'acc':>7}{'halluc':>8}{'abst':>7}{'retry':>6}"
          f"{'π mean':>8}{'s/prompt':>9}{'tok/s':>8}{'tok/cpu-s':>10}{'decode tok/s':>13}")
    for config, kinds in report["table"].items():
        for kind, m in kinds.items():
            print(f"{config:<14}{kind:<12}{m['prompts']:>4}{m['accuracy']:>7.2f}"
                  f"{m['hallucination_rate']:>8.2f}{m['abstention_rate']:>7.2f}{m['retried']:>6}"
                  f"{m['mean_safe_mass']:>8.2f}{m['seconds_per_prompt']:>9.3f}"
                  f"{m['tokens_per_s']:>8.1f}"
                  f"{m['tokens_per_cpu_s']:>10.1f}{m['decode_tokens_per_s']:>13.1f}")
    print(json.dumps(report["headline"], indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="prompts per set (0: all)")
    parser.add_argument("--max-tokens", type=int, default=12)
    parser.add_argument("--top-k", type=int, default=40)
    parser.add_argument("--tau-safe", type=float, default=0.2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "tad.json")
    args = parser.parse_args()
    if args.limit < 0 or args.max_tokens < 1:
        parser.error("--limit must be >= 0 and --max-tokens >= 1")
    report = run(args)
    print_report(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
