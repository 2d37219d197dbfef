"""SciFact end to end: retrieve from the abstract corpus, verify each dev claim, cite.

The corpus is ingested once into a SQLite store under the cache directory and reused. Each
claim is checked against its top retrieved chunks; SUPPORT = Verified, CONTRADICT = a
strong view found it contradicted, NEI otherwise. Thresholds and the learned aggregator
are fitted on SciFact *train* claims. Rendered (Verified) claims are then judged for
ALCE-style citation recall and precision by the strongest verifier configuration.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from veritype.evaluation import plots
from veritype.evaluation.binary import best_accuracy_threshold
from veritype.evaluation.configurations import (
    contradicted,
    fit_learned,
    single_view_score,
    view_accepts,
    vote_score,
)
from veritype.evaluation.data import Example, SciFactClaim, read_jsonl, scifact_claims
from veritype.evaluation.engine import ENTAILED, ScoreTable
from veritype.evaluation.metrics import Bootstrap
from veritype.evaluation.report import RunResult, Table
from veritype.evaluation.runner import EvalSettings, register_benchmark, score

TOP_K = 3
# Train claims used to fit thresholds and the learned aggregator (the first ones in the file).
CALIBRATION_CLAIMS = 300
LABELS = ("SUPPORT", "CONTRADICT", "NEI")
JUDGE = "nli and align cross-encoders both give entailment ≥ 0.5"
JUDGE_MODELS = ("nli", "align")


def _corpus_rows(data_dir: Path, claims: Sequence[SciFactClaim], limit: int | None
                 ) -> list[dict[str, Any]]:
    """The whole corpus, or with ``limit`` the abstracts the claims cite plus distractors."""
    rows = list(read_jsonl(data_dir / "scifact" / "corpus.jsonl"))
    if limit is None:
        return rows
    wanted = {doc for claim in claims for doc in (*claim.cited_docs, *claim.evidence_docs)}
    distractors = {str(row["doc_id"]) for row in rows[: 10 * limit]}
    return [row for row in rows if str(row["doc_id"]) in wanted | distractors]


def open_corpus(settings: EvalSettings, rows: Sequence[dict[str, Any]]) -> Any:
    """A corpus store holding ``rows``, ingested on first use and reused afterwards."""
    from veritype.ingest.corpus import Corpus
    from veritype.ingest.readers import RecordFields

    cache = settings.cache_dir or Path("eval-runs") / "cache"
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
        corpus.ingest([source], fields=RecordFields(text="text", title="title",
                                                    identifier="doc_id"),
                      console=settings.console)
    return corpus


def _retrieve(corpus: Any, claims: Sequence[SciFactClaim]) -> tuple[list[Example], list[list[str]]]:
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


def _weighted_mean(values: np.ndarray, weights: np.ndarray) -> float:
    return float(np.sum(weights * values) / max(float(np.sum(weights)), 1.0))


def _predict(scores: np.ndarray, against: np.ndarray, threshold: float) -> np.ndarray:
    return np.where(against, "CONTRADICT", np.where(scores >= threshold, "SUPPORT", "NEI"))


def _configurations(
    table: ScoreTable, train: ScoreTable, train_claims: Sequence[SciFactClaim],
    settings: EvalSettings,
) -> dict[str, tuple[np.ndarray, np.ndarray, float]]:
    """name → (dev scores, train scores, threshold) of each configuration; thresholds are
    fitted on the train claims."""
    views = list(table.views)
    supported_train = np.array([c.label == "SUPPORT" for c in train_claims])
    out: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}

    def add(name: str, dev: np.ndarray, trained: np.ndarray, threshold: float | None) -> None:
        if threshold is None:
            threshold = best_accuracy_threshold(trained, supported_train)
        out[name] = (dev, trained, threshold)

    for view in views:
        add(f"view:{view}", view_accepts(table, view).astype(float),
            view_accepts(train, view).astype(float), 1.0)
        add(f"view:{view} (cal)", single_view_score(table, view),
            single_view_score(train, view), None)
    for tau in settings.taus:
        add(f"vote τ={tau:g}", vote_score(table, views), vote_score(train, views), tau)
    if supported_train.any() and not supported_train.all():
        fit = fit_learned(train, supported_train, [str(c.claim_id) for c in train_claims], views)
        add("learned", fit.scores(table), fit.scores(train), None)
    return out


def _citation_quality(
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


@register_benchmark("scifact")
def run(settings: EvalSettings) -> RunResult:
    started = time.perf_counter()
    dev = scifact_claims(settings.data_dir, "dev", settings.limit)
    train_claims = scifact_claims(
        settings.data_dir, "train", min(settings.limit or CALIBRATION_CLAIMS, CALIBRATION_CLAIMS)
    )
    corpus = open_corpus(settings, _corpus_rows(settings.data_dir, [*dev, *train_claims],
                                                settings.limit))
    ingested = time.perf_counter()
    try:
        examples, sources = _retrieve(corpus, dev)
        train_examples, _ = _retrieve(corpus, train_claims)
    finally:
        corpus.close()
    retrieved = time.perf_counter()
    table = score(settings, [*examples, *train_examples], "scifact: verifying")
    dev_table = table.select(np.arange(len(examples)))
    train_table = table.select(np.arange(len(examples), len(examples) + len(train_examples)))
    configs = _configurations(dev_table, train_table, train_claims, settings)
    views = list(table.views)
    gold = np.array([c.label for c in dev])
    train_gold = np.array([c.label for c in train_claims])
    dev_against = contradicted(dev_table, views)
    train_against = contradicted(train_table, views)
    bootstrap = Bootstrap.draw([str(c.claim_id) for c in dev], settings.resamples, settings.seed)
    results: dict[str, Any] = {}
    train_accuracy: dict[str, float] = {}
    for name, (values, train_values, threshold) in configs.items():
        predicted = _predict(values, dev_against, threshold)
        correct = predicted == gold
        low, high = bootstrap.interval_of(partial(_weighted_mean, correct))
        train_accuracy[name] = float(np.mean(
            _predict(train_values, train_against, threshold) == train_gold
        ))
        results[name] = {
            "threshold": threshold,
            "label_accuracy": float(np.mean(correct)),
            "ci95": [low, high],
            "per_label_recall": {
                label: float(np.mean(predicted[gold == label] == label))
                if np.any(gold == label) else None for label in LABELS
            },
        }
    chosen = max(train_accuracy, key=lambda name: train_accuracy[name])
    accepted = (configs[chosen][0] >= configs[chosen][2]) & ~dev_against
    with_evidence = [i for i, c in enumerate(dev) if c.evidence_docs]
    retrieved_recall = float(np.mean([
        bool(set(sources[i]) & set(dev[i].evidence_docs)) for i in with_evidence
    ])) if with_evidence else 0.0
    cited_recall = []
    for i in with_evidence:
        cited_docs = {
            sources[i][span[0]] for column in range(len(views))
            if dev_table.verdict[i, column] == ENTAILED for span in dev_table.spans[i][column]
        } if accepted[i] else set()
        cited_recall.append(bool(cited_docs & set(dev[i].evidence_docs)))
    citations = _citation_quality(dev_table, examples, accepted)
    judged = time.perf_counter()
    best = results[chosen]
    headline: dict[str, float | int | str] = {
        "claims": len(dev),
        "configuration": chosen,
        "label_accuracy": best["label_accuracy"],
        "label_accuracy_ci_low": best["ci95"][0],
        "label_accuracy_ci_high": best["ci95"][1],
        f"evidence_recall_at_{TOP_K}": retrieved_recall,
        "cited_evidence_recall": float(np.mean(cited_recall)) if cited_recall else 0.0,
        "citation_recall": citations["citation_recall"],
        "citation_precision": citations["citation_precision"],
        "rendered_claims": citations["rendered_claims"],
        "seconds": round(time.perf_counter() - started, 2),
    }
    tables = [Table(
        "SciFact dev, end to end (retrieve top 3 chunks, verify): label accuracy; "
        "thresholds fitted on train claims",
        ("configuration", "threshold", "accuracy", "95% CI", "SUPPORT rec.", "CONTRADICT rec.",
         "NEI rec.", "train acc."),
        [(name, r["threshold"], r["label_accuracy"], f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]",
          r["per_label_recall"]["SUPPORT"], r["per_label_recall"]["CONTRADICT"],
          r["per_label_recall"]["NEI"], train_accuracy[name]) for name, r in results.items()],
    ), Table(
        "SciFact evidence and citations of the chosen configuration",
        ("measure", "value"),
        [(f"gold abstract among top {TOP_K} chunks", retrieved_recall),
         ("gold abstract among citations", headline["cited_evidence_recall"]),
         ("rendered (Verified) claims", citations["rendered_claims"]),
         ("ALCE citation recall", citations["citation_recall"]),
         ("ALCE citation precision", citations["citation_precision"])],
        note=f"Judge: {JUDGE}.",
    )]
    result = RunResult(
        benchmark="scifact",
        config={"views": list(views), "taus": list(settings.taus), "top_k": TOP_K,
                "retriever": "hybrid", "limit": settings.limit, "engine": settings.engine,
                "calibration": f"first {len(train_claims)} SciFact train claims",
                "data_dir": str(settings.data_dir)},
        headline=headline,
        sections={"configurations": results, "train_accuracy": train_accuracy,
                  "chosen": chosen, "citations": citations,
                  "evidence_recall": {"retrieved": retrieved_recall,
                                      "cited": headline["cited_evidence_recall"]}},
        tables=tables,
        timings={"corpus": ingested - started, "retrieve": retrieved - ingested,
                 **table.timings, "citations": judged - retrieved - table.timings["score_total"]},
    )
    bars = {"dev": {name: r["label_accuracy"] for name, r in results.items()}}
    result.plots = {"accuracy": lambda path: plots.accuracy_bars(path, bars, "label accuracy")}
    result.examples = [
        {"id": e.example_id, "group": e.group, "claim": e.claim, "evidence": list(e.evidence),
         "label": e.label, "sources": sources[i], "verified": bool(accepted[i])}
        for i, e in enumerate(examples)
    ]
    return result
