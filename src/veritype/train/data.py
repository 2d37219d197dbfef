"""Training pairs for the verifier models, assembled from the datasets in the data directory.

Every loader yields ``Pair(premise, hypothesis, label, source)`` with ``label`` one of
entailment / neutral / contradiction (3-way) or not_entailment (2-way: neutral or
contradiction, trained with a loss on p_neutral + p_contradiction). Loaders refuse
evaluation-only data: the NLI pool's ``eval/`` split, HaluEval rows ≥ 8000 and
HaluEval general, TruthfulQA, and SciFact dev/test.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from veritype._text import sentence_spans
from veritype.errors import DataError
from veritype.views._values import ValueKind, extract_values

LABELS = ("entailment", "neutral", "contradiction")
TWO_WAY = "not_entailment"
ALL_LABELS = (*LABELS, TWO_WAY)
# HaluEval rows from this line on (0-based) are evaluation only.
HALUEVAL_TRAIN_ROWS = 8000


# A soft label: probabilities of entailment, neutral and contradiction, or of entailment
# alone (the rest not entailed, neither neutral nor contradiction in particular).
SOFT = "soft"


@dataclass(frozen=True, slots=True)
class Pair:
    """One training pair; ``label`` is a class, ``not_entailment``, or ``soft`` with the
    teacher's ``probabilities`` (three, or one: P(entailment))."""

    premise: str
    hypothesis: str
    label: str
    source: str
    probabilities: tuple[float, ...] = ()


def target_weights(pair: Pair) -> tuple[float, float, float, float]:
    """The weights of log p(entailment), log p(neutral), log p(contradiction) and
    log p(not entailed) in the pair's negative log-likelihood."""
    if pair.label == SOFT:
        if len(pair.probabilities) == 1:
            entailed = pair.probabilities[0]
            return (entailed, 0.0, 0.0, 1.0 - entailed)
        entailment, neutral, contradiction = pair.probabilities
        return (entailment, neutral, contradiction, 0.0)
    if pair.label == TWO_WAY:
        return (0.0, 0.0, 0.0, 1.0)
    weights = [0.0, 0.0, 0.0, 0.0]
    weights[LABELS.index(pair.label)] = 1.0
    return (weights[0], weights[1], weights[2], weights[3])


def _is_distribution(probabilities: tuple[float, ...]) -> bool:
    """One probability, or three that sum to 1."""
    if len(probabilities) not in (1, 3) or not all(0.0 <= p <= 1.0 for p in probabilities):
        return False
    return len(probabilities) == 1 or abs(sum(probabilities) - 1.0) <= 1e-3


def soft_labels(path: Path) -> list[Pair]:
    """Pairs labelled by a teacher (``veritype train label``): JSON lines with ``premise``,
    ``hypothesis``, ``source`` and ``probabilities`` (three, or one: P(entailment))."""
    if not path.is_file():
        raise DataError(f"{path}: soft-label file not found")
    pairs: list[Pair] = []
    for number, row in enumerate(_jsonl(path), start=1):
        given = row.get("probabilities")
        probabilities = tuple(float(p) for p in given) if isinstance(given, list) else ()
        if not _is_distribution(probabilities):
            raise DataError(f"{path}:{number}: probabilities must be P(entailment) or three "
                            f"probabilities summing to 1, got {row.get('probabilities')!r}")
        pairs.append(Pair(str(row["premise"]), str(row["hypothesis"]), SOFT,
                          f"{row['source']} (soft, {path.stem})", probabilities))
    return pairs


def _jsonl(path: Path, limit: int | None = None) -> Iterator[dict[str, object]]:
    if not path.is_file():
        raise DataError(f"{path}: training data file not found (is --data-dir right?)")
    with path.open(encoding="utf-8") as handle:
        for index, line in enumerate(handle):
            if limit is not None and index >= limit:
                return
            if line.strip():
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise DataError(f"{path}:{index + 1}: expected a JSON object")
                yield row


def nli_pool(data_dir: Path, files: list[str]) -> list[Pair]:
    """Pairs of the named files of ``nli/train`` (names without ``.jsonl``)."""
    pairs: list[Pair] = []
    for name in files:
        if "/" in name or name.startswith("eval"):
            raise DataError(f"NLI file {name!r}: only files of nli/train may be trained on")
        for row in _jsonl(data_dir / "nli" / "train" / f"{name}.jsonl"):
            label = str(row["label"])
            if label not in ALL_LABELS:
                raise DataError(f"nli/train/{name}.jsonl: unknown label {label!r}")
            pairs.append(Pair(str(row["premise"]), str(row["hypothesis"]), label, name))
    return pairs


def halueval(data_dir: Path, task: str, rows: int) -> list[Pair]:
    """Evidence against the right (entailment) and hallucinated (not_entailment) outputs."""
    if rows > HALUEVAL_TRAIN_ROWS:
        raise DataError(
            f"HaluEval rows >= {HALUEVAL_TRAIN_ROWS} are evaluation only; asked for {rows}"
        )
    fields = {
        "qa": ("knowledge", "right_answer", "hallucinated_answer"),
        "dialogue": ("knowledge", "right_response", "hallucinated_response"),
        "summarization": ("document", "right_summary", "hallucinated_summary"),
    }
    if task not in fields:
        raise DataError(f"HaluEval task {task!r}: use one of {', '.join(fields)}")
    evidence_key, right_key, wrong_key = fields[task]
    pairs: list[Pair] = []
    for row in _jsonl(data_dir / "halueval" / f"{task}_data.json", limit=rows):
        evidence = str(row[evidence_key])
        right, wrong = str(row[right_key]), str(row[wrong_key])
        if task == "qa":
            # A bare answer ("Arthur's Magazine") is no claim; the question makes it one.
            right = f"{row['question']} {right}"
            wrong = f"{row['question']} {wrong}"
        source = f"halueval_{task}"
        pairs.append(Pair(evidence, right, "entailment", source))
        pairs.append(Pair(evidence, wrong, TWO_WAY, source))
    return pairs


def _scifact_corpus(data_dir: Path) -> dict[int, list[str]]:
    return {
        int(str(row["doc_id"])): [str(s) for s in row["abstract"]]  # type: ignore[attr-defined]
        for row in _jsonl(data_dir / "scifact" / "corpus.jsonl")
    }


def scifact(data_dir: Path, rng: random.Random, neutral_per_claim: int = 1) -> list[Pair]:
    """SciFact train claims against their rationale sentences and other cited sentences."""
    corpus = _scifact_corpus(data_dir)
    pairs: list[Pair] = []
    for row in _jsonl(data_dir / "scifact" / "claims_train.jsonl"):
        claim = str(row["claim"])
        evidence = row["evidence"]
        assert isinstance(evidence, dict)
        cited = [int(str(d)) for d in row["cited_doc_ids"]]  # type: ignore[attr-defined]
        used: set[tuple[int, int]] = set()
        for doc_id, sets in evidence.items():
            sentences = corpus[int(doc_id)]
            for rationale in sets:
                label = {"SUPPORT": "entailment", "CONTRADICT": "contradiction"}[rationale["label"]]
                indices = rationale["sentences"]
                premise = " ".join(sentences[i] for i in indices)
                pairs.append(Pair(premise, claim, label, "scifact"))
                used.update((int(doc_id), i) for i in indices)
        others = [
            (d, i)
            for d in cited
            if d in corpus
            for i in range(len(corpus[d]))
            if (d, i) not in used
        ]
        for doc_id, index in rng.sample(others, min(neutral_per_claim, len(others))):
            pairs.append(Pair(corpus[doc_id][index], claim, "neutral", "scifact"))
    return pairs


_AUXILIARY = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|does|did|do)\b")
_NEGATED = re.compile(r"\b(is|are|was|were|has|have|had|can|could|will|would|does|did|do) not\b")


def _flip_polarity(sentence: str) -> str | None:
    if _NEGATED.search(sentence):
        return _NEGATED.sub(r"\1", sentence, count=1)
    if _AUXILIARY.search(sentence):
        return _AUXILIARY.sub(r"\1 not", sentence, count=1)
    return None


def _change_value(sentence: str, rng: random.Random, names: list[str]) -> str | None:
    """The sentence with one number, date or name replaced by a different one."""
    values = [
        v
        for v in extract_values(sentence)
        if v.kind
        in (
            ValueKind.NUMBER,
            ValueKind.PERCENT,
            ValueKind.QUANTITY,
            ValueKind.MONEY,
            ValueKind.DATE,
            ValueKind.ENTITY,
        )
    ]
    if not values:
        return None
    value = rng.choice(values)
    surface = sentence[value.start : value.end]
    if value.kind is ValueKind.ENTITY:
        candidates = [n for n in names if n.lower() != surface.lower()]
        if not candidates:
            return None
        replacement = rng.choice(candidates)
    else:
        digits = re.search(r"\d+", surface)
        if digits is None:
            return None
        number = int(digits.group(0))
        changed = number + rng.choice([-1, 1]) * max(1, round(number * rng.uniform(0.1, 0.6)))
        if changed == number or changed < 0:
            changed = number + 1
        replacement = surface[: digits.start()] + str(changed) + surface[digits.end() :]
    return sentence[: value.start] + replacement + sentence[value.end :]


def _clause(sentence: str) -> str | None:
    parts = re.split(r",\s*(?:and|but|while)\s+|;\s*", sentence)
    clause = parts[0].strip().rstrip(",;")
    if len(parts) < 2 or len(clause.split()) < 5:
        return None
    return clause + "."


_PLURAL_VERB = re.compile(r"\s+(are|were|have)\b")


def _pronoun_subject(sentence: str) -> str | None:
    """The sentence with its leading name ("The Eiffel Tower was ...") replaced by a pronoun
    ("It was ..."): what an evidence window that starts mid-paragraph reads like."""
    values = [v for v in extract_values(sentence) if v.kind is ValueKind.ENTITY]
    if not values or sentence[: values[0].start] not in ("", "The "):
        return None
    rest = sentence[values[0].end :]
    pronoun = "They" if _PLURAL_VERB.match(rest) else "It"
    return pronoun + rest


_QUANTIFIERS = re.compile(r"\b(some|several|many|most|often|sometimes|usually|may)\b",
                          re.IGNORECASE)
_STRONGER = {"some": "all", "several": "all", "many": "all", "most": "all",
             "often": "always", "sometimes": "always", "usually": "always", "may": "will"}


def _strengthen_quantifier(sentence: str) -> str | None:
    """The sentence with its first weak quantifier or modal made universal ("some" → "all",
    "often" → "always", "may" → "will"): more than the sentence says."""
    match = _QUANTIFIERS.search(sentence)
    if match is None:
        return None
    word = match.group(1)
    stronger = _STRONGER[word.lower()]
    if word[0].isupper():
        stronger = stronger.capitalize()
    return sentence[: match.start()] + stronger + sentence[match.end():]


_HEDGES = ("It is possible that", "Some have suggested that", "It is unclear whether")


def _hedged(sentence: str, rng: random.Random) -> str:
    """The sentence as a possibility, not a fact: evidence that does not establish it."""
    body = sentence[0].lower() + sentence[1:] if sentence[:2] != sentence[:2].upper() else sentence
    return f"{rng.choice(_HEDGES)} {body}"


# The kinds of synthetic pair, in the order they are drawn for each sampled sentence.
SYNTHETIC_KINDS = ("clause", "value", "negation", "quantifier", "hedge", "pronoun", "unrelated")
DEFAULT_SYNTHETIC_KINDS = ("clause", "value", "negation", "pronoun", "unrelated")


def synthetic(
    documents: list[str], rng: random.Random, per_document: int, source: str,
    kinds: tuple[str, ...] = DEFAULT_SYNTHETIC_KINDS,
) -> list[Pair]:
    """Perturbation pairs from real text, by kind: ``clause`` the sentence (or its first
    clause) itself → entailment; ``value`` a number, date or name swapped for one from another
    document → contradiction; ``negation`` the polarity flipped → contradiction;
    ``quantifier`` a weak quantifier made universal → neutral; ``hedge`` the sentence as a mere
    possibility, as premise of the sentence itself → neutral; ``pronoun`` the subject name
    turned into a pronoun, as premise of the sentence itself → neutral (a pronoun neither
    confirms nor denies whom it stands for); ``unrelated`` another sentence → neutral. Each
    pair's source is ``source`` and its kind, ``synthetic_scifact_value`` say."""
    unknown = sorted(set(kinds) - set(SYNTHETIC_KINDS))
    if unknown:
        raise DataError(f"unknown synthetic kinds {unknown}; known: {', '.join(SYNTHETIC_KINDS)}")
    names = [
        v.text
        for doc in documents[:2000]
        for v in extract_values(doc)
        if v.kind is ValueKind.ENTITY
    ]
    pairs: list[Pair] = []
    for document in documents:
        sentences = [document[s:e] for s, e in sentence_spans(document)]
        sentences = [s for s in sentences if 6 <= len(s.split()) <= 60]
        if len(sentences) < 2:
            continue
        for premise in rng.sample(sentences, min(per_document, len(sentences))):
            made: list[tuple[str, str, str | None, str]] = []
            for kind in SYNTHETIC_KINDS:
                if kind not in kinds:
                    continue
                if kind == "clause":
                    made.append((kind, premise, _clause(premise) or premise, "entailment"))
                elif kind == "value":
                    made.append((kind, premise, _change_value(premise, rng, names),
                                 "contradiction"))
                elif kind == "negation":
                    made.append((kind, premise, _flip_polarity(premise), "contradiction"))
                elif kind == "quantifier":
                    made.append((kind, premise, _strengthen_quantifier(premise), "neutral"))
                elif kind == "hedge":
                    made.append((kind, _hedged(premise, rng), premise, "neutral"))
                elif kind == "pronoun":
                    made.append((kind, _pronoun_subject(premise) or premise, premise, "neutral"))
                else:
                    other = rng.choice([s for s in sentences if s != premise] or [premise])
                    made.append((kind, premise, other, "neutral"))
            for kind, evidence, hypothesis, label in made:
                if hypothesis is not None and (hypothesis != evidence or label == "entailment"):
                    pairs.append(Pair(evidence, hypothesis, label, f"{source}_{kind}"))
    return pairs


def scifact_abstracts(data_dir: Path) -> list[str]:
    """Abstract texts of the SciFact corpus, for synthetic pairs."""
    return [" ".join(sentences) for sentences in _scifact_corpus(data_dir).values()]


def halueval_texts(data_dir: Path, rows: int) -> list[str]:
    """HaluEval QA knowledge and summarization documents of the training rows."""
    if rows > HALUEVAL_TRAIN_ROWS:
        raise DataError(f"HaluEval rows >= {HALUEVAL_TRAIN_ROWS} are evaluation only")
    qa = [str(r["knowledge"]) for r in _jsonl(data_dir / "halueval" / "qa_data.json", rows)]
    docs = [
        str(r["document"]) for r in _jsonl(data_dir / "halueval" / "summarization_data.json", rows)
    ]
    return qa + docs
