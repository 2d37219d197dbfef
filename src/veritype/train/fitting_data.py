"""The default aggregator's fitting data: claim–evidence pairs from several training-side
sources, each pair labelled supported, contradicted or unsupported (not stated either way,
or, where a source does not say which, simply not supported).

The sources, and why each is clean for the views the default may use:

- ``dialogue`` (not in the default fit): HaluEval dialogue rows 4000–5499, a whole response
  against its knowledge (``align`` read rows 0–3999; rows 7000 and above calibrate and
  evaluate elsewhere). Like a whole summary, a response of several sentences typed as one
  claim does not look like use, and its label says whether the response was written to
  hallucinate, not whether its knowledge states it: every view is near chance there.
- ``summarization`` (not in the default fit): HaluEval summarization rows 4000–4599, a whole
  summary against its document (``align`` read rows 0–1999). veritype checks a summary claim
  by claim, so a summary typed as one claim does not look like use.
- ``covidfact``: COVID-Fact claims against their evidence (the NLI pool's train file); its
  false claims are counter-claims made by changing a true one, so they are contradicted.
  Neither shipped verifier read it.
- ``mrpc`` (not in the default fit): MRPC sentence pairs (the NLI pool's train file): a
  paraphrase is supported, any other sentence is not, although many are still entailed.
- ``truthfulqa_cal``: TruthfulQA's calibration questions of the reference protocol (the first
  245 of ``numpy.random.permutation(817)`` with seed 42); the evaluation questions stay unseen.
- ``perturbed``: sentences of HaluEval summarization documents of rows 2000–3199, checked
  against their whole document as they are, shortened, with a number, date or name changed,
  with a name swapped for another name of the same document, negated, or replaced by a
  sentence of another document (unmentioned).

- ``fever``: FEVER claims against their Wikipedia sentence (the NLI pool's FEVER-NLI file,
  its first 600 premises): supported or not.
- ``scifact``: SciFact train claims against abstract sentences (the NLI pool's SciFact RTE
  file): supported or not.
- ``halueval_qa``: HaluEval QA rows 6000–6749, the question with its right (supported) or
  hallucinated (unsupported) answer against the knowledge paragraph.

These three are the natural claim–evidence sources: their true claims restate their evidence
in other words, which no perturbation does. ``align`` read all three in training (and ``nli``
none), so a candidate with ``align`` reads them as seen data: ``READ_BY`` says which view read
which source, and the fit judges such a candidate only where its views read nothing.

Every pair's ``meta["source"]`` names its source; a group never spans two sources, so a
leave-one-source-out split keeps each held-out source wholly unseen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from veritype._text import sentence_spans
from veritype.errors import DataError
from veritype.evaluation._truthfulqa_selection import REFERENCE_SEED, reference_split
from veritype.evaluation.data import (
    SUPPORTED,
    UNSUPPORTED,
    Example,
    halueval_examples,
    read_jsonl,
    require_file,
    truthfulqa_reference_examples,
)
from veritype.train.data import _change_value, _clause, _flip_polarity
from veritype.views._values import ValueKind, extract_values

CONTRADICTED = "contradicted"
SOURCES = ("covidfact", "truthfulqa_cal", "perturbed", "fever", "scifact", "halueval_qa")
# The fitting sources each shipped verifier read in training.
READ_BY = {"align": frozenset({"fever", "scifact", "halueval_qa"})}
# Sources measured but left out of the default's fit: whole summaries and dialogue responses
# typed as one claim are not how veritype is used (it checks them claim by claim), and MRPC's
# "not a paraphrase" is no evidence label (such a sentence is often still entailed).
EXTRA_SOURCES = ("dialogue", "summarization", "mrpc")
DIALOGUE_ROWS = (4000, 5500)
SUMMARIZATION_ROWS = (4000, 4600)
PERTURBED_ROWS = (2000, 3200)
QA_ROWS = (6000, 6750)
FEVER_PREMISES = 600
COVIDFACT_FILE = "covidfact_train_2way.jsonl"
FEVER_FILE = "fever_nli_binary_dev_2way.jsonl"
SCIFACT_FILE = "scifact_train_2way.jsonl"
MRPC_FILE = "mrpc_train_2way.jsonl"


def _tagged(examples: Sequence[Example], source: str) -> list[Example]:
    return [Example(f"{source}:{e.example_id}", f"{source}:{e.group}", e.evidence, e.claim,
                    e.label, {**e.meta, "source": source}) for e in examples]


def _pool_pairs(data_dir: Path, name: str, negative: str,
                max_premises: int | None = None) -> list[Example]:
    """A 2-way file of the NLI pool: entailment → supported, the rest → ``negative``; one
    group per premise (the pairs of the first ``max_premises`` premises, when given)."""
    path = require_file(data_dir / "nli" / "train" / name)
    premises: dict[str, int] = {}
    examples = []
    for number, row in enumerate(read_jsonl(path)):
        premise = str(row["premise"])
        if max_premises is not None and premise not in premises \
                and len(premises) >= max_premises:
            continue
        group = premises.setdefault(premise, len(premises))
        label = SUPPORTED if row["label"] == "entailment" else negative
        examples.append(Example(f"{number}", f"p{group}", (premise,), str(row["hypothesis"]),
                                label))
    return examples


def _truthfulqa_calibration(data_dir: Path) -> list[Example]:
    examples = truthfulqa_reference_examples(data_dir)
    keep = reference_split([example.group for example in examples], REFERENCE_SEED)
    return [example for example, kept in zip(examples, keep, strict=True) if kept]


def perturbed_examples(documents: Sequence[str], seed: int) -> list[Example]:
    """For one sentence of each document (6–40 words), against the whole document: the
    sentence itself and its first clause (supported), a number, date or name changed, a
    name swapped for another name the same document holds, and the polarity flipped
    (contradicted), and a sentence of the next document (unsupported)."""
    rng = random.Random(seed)
    sentences_of = [[doc[s:e] for s, e in sentence_spans(doc)] for doc in documents]
    names = [name for doc in documents[:400] for name in _names(doc)]
    examples: list[Example] = []
    for index, (document, sentences) in enumerate(zip(documents, sentences_of, strict=True)):
        usable = [s for s in sentences if 6 <= len(s.split()) <= 40]
        following = [s for s in sentences_of[(index + 1) % len(documents)]
                     if 6 <= len(s.split()) <= 40 and s not in document]
        if not usable:
            continue
        sentence = rng.choice(usable)
        made = [("copy", sentence, SUPPORTED), ("clause", _clause(sentence), SUPPORTED),
                ("value", _change_value(sentence, rng, names), CONTRADICTED),
                ("swap", _swap_name(sentence, _names(document), rng), CONTRADICTED),
                ("negation", _flip_polarity(sentence), CONTRADICTED),
                ("unmentioned", rng.choice(following) if following else None, UNSUPPORTED)]
        for kind, claim, label in made:
            if claim is not None and (claim != sentence or kind == "copy"):
                examples.append(Example(f"{index}-{kind}", f"doc{index}", (document,), claim,
                                        label, {"kind": kind}))
    return examples


def _swap_name(sentence: str, names: Sequence[str], rng: random.Random) -> str | None:
    """The sentence with one of its names replaced by another name of its own document: the
    fact of one entity told of its neighbour, which every word of the document seems to
    back."""
    present = [v for v in extract_values(sentence) if v.kind is ValueKind.ENTITY]
    if not present:
        return None
    value = rng.choice(present)
    surface = sentence[value.start:value.end].lower()
    others = sorted({name for name in names if name.lower() not in surface
                     and surface not in name.lower() and name not in sentence})
    if not others:
        return None
    return sentence[:value.start] + rng.choice(others) + sentence[value.end:]


def _names(document: str) -> list[str]:
    return [v.text for v in extract_values(document) if v.kind is ValueKind.ENTITY]


def _summarization_documents(data_dir: Path, start: int, stop: int) -> list[str]:
    path = require_file(data_dir / "halueval" / "summarization_data.json")
    return [str(row["document"]) for row in read_jsonl(path, start, stop)]


def fitting_examples(data_dir: Path, *, seed: int = 0,
                     sources: Sequence[str] = SOURCES) -> list[Example]:
    """The labelled pairs of ``sources``, each tagged with its source."""
    known = (*SOURCES, *EXTRA_SOURCES)
    if unknown := sorted(set(sources) - set(known)):
        raise DataError(f"unknown fitting sources {unknown}; known: {', '.join(known)}")
    examples: list[Example] = []
    for source in sources:
        if source == "dialogue":
            part = halueval_examples(data_dir, "dialogue", *DIALOGUE_ROWS)
        elif source == "summarization":
            part = halueval_examples(data_dir, "summarization", *SUMMARIZATION_ROWS)
        elif source == "covidfact":
            part = _pool_pairs(data_dir, COVIDFACT_FILE, CONTRADICTED)
        elif source == "fever":
            part = _pool_pairs(data_dir, FEVER_FILE, UNSUPPORTED, FEVER_PREMISES)
        elif source == "scifact":
            part = _pool_pairs(data_dir, SCIFACT_FILE, UNSUPPORTED)
        elif source == "halueval_qa":
            part = halueval_examples(data_dir, "qa", *QA_ROWS)
        elif source == "mrpc":
            part = _pool_pairs(data_dir, MRPC_FILE, UNSUPPORTED)
        elif source == "truthfulqa_cal":
            part = _truthfulqa_calibration(data_dir)
        else:
            part = perturbed_examples(_summarization_documents(data_dir, *PERTURBED_ROWS), seed)
        examples.extend(_tagged(part, source))
    return examples


def sample_per_source(examples: Sequence[Example], per_source: int, seed: int = 7
                      ) -> list[Example]:
    """At most ``per_source`` examples of each source, drawn with ``seed``, in their order:
    a fit in a fraction of the scoring time, every source weighing as it does in the fit."""
    by_source: dict[str, list[int]] = {}
    for index, example in enumerate(examples):
        by_source.setdefault(str(example.meta["source"]), []).append(index)
    rng = random.Random(seed)
    kept: set[int] = set()
    for indices in by_source.values():
        kept.update(rng.sample(indices, min(per_source, len(indices))))
    return [example for index, example in enumerate(examples) if index in kept]


def label_arrays(examples: Sequence[Example]) -> tuple[list[bool], list[bool]]:
    """Per example: supported, and contradicted (only the sources that say so)."""
    return ([e.label == SUPPORTED for e in examples],
            [e.label == CONTRADICTED for e in examples])


__all__ = ["CONTRADICTED", "READ_BY", "SOURCES", "UNSUPPORTED", "fitting_examples", "label_arrays",
           "perturbed_examples"]
