"""Evaluation examples: one claim, the evidence it is checked against, and its gold label.

Each loader reads one public benchmark from the datasets folder (``--data-dir``) and keeps
to the rows the data's README marks as evaluation (HaluEval rows 0–7999 are training rows:
the HaluEval benchmark calibrates only on those no shipped model was trained on).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from veritype._text import json_object
from veritype.errors import DataError

SUPPORTED = "supported"
UNSUPPORTED = "unsupported"

TRUTHFULQA_FILES = {
    "2021": "TruthfulQA_v2021_817.csv",
    "2025": "TruthfulQA.csv",
}
HALUEVAL_TASKS = ("qa", "dialogue", "summarization", "general")
HALUEVAL_EVAL_START = 8000
HALUEVAL_CALIBRATION_START = 7000
NLI_EVAL_SETS = (
    "mnli_dev_matched_3k",
    "snli_test_2k",
    "sick_test",
    "cad_snli_test",
    "conjnli_dev",
    "rte_dev_2way",
    "anli_r1_dev",
    "anli_r2_dev",
    "anli_r3_dev",
)


@dataclass(frozen=True, slots=True)
class Example:
    """One claim to verify against ``evidence`` (texts), with its gold ``label``.

    ``group`` ties examples that share a source (a TruthfulQA question, a HaluEval row):
    splits and the bootstrap resample whole groups.
    """

    example_id: str
    group: str
    evidence: tuple[str, ...]
    claim: str
    label: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def supported(self) -> bool:
        return self.label in (SUPPORTED, "entailment", "SUPPORT")


def is_verbatim(example: Example) -> bool:
    """Whether the claim is a substring of its evidence (case and spacing aside): the
    verbatim-substring baseline every headline reports beside its own figure."""
    def flat(text: str) -> str:
        return " ".join(text.lower().split())

    return flat(example.claim).rstrip(".") in flat(" ".join(example.evidence))


def require_file(path: Path) -> Path:
    if not path.is_file():
        raise DataError(f"dataset file not found: {path} (check --data-dir)")
    return path


def require_dir(path: Path) -> Path:
    if not path.is_dir():
        raise DataError(f"data directory not found: {path}")
    return path


def require_fields(rows: Sequence[Mapping[str, Any]], fields: Sequence[str], missing: str
                   ) -> None:
    """``DataError`` with ``missing`` (formatted with ``field``) unless the first row has
    every one of ``fields``."""
    for name in fields:
        if rows and name not in rows[0]:
            raise DataError(missing.format(field=repr(name)))


def read_jsonl(path: Path, start: int = 0, stop: int | None = None) -> Iterator[dict[str, Any]]:
    """Rows ``start`` ≤ i < ``stop`` (0-based line numbers) of a JSON Lines file."""
    with require_file(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if stop is not None and number >= stop:
                return
            if number < start or not line.strip():
                continue
            yield json_object(line, f"{path}:{number + 1}", DataError)


def _truthfulqa_claims(path: Path, id_prefix: str, evidence_of: Callable[[dict[str, str]], str],
                       min_chars: int) -> tuple[int, list[Example]]:
    """Every ';' piece of at least ``min_chars`` characters (after stripping) of each
    question's Correct Answers (supported) and Incorrect Answers (unsupported), against
    ``evidence_of(row)``; one group per question, ``q<row>``. Returns the question count too."""
    examples: list[Example] = []
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for question, row in enumerate(rows):
        try:
            evidence = evidence_of(row)
            columns = ((row["Correct Answers"], SUPPORTED), (row["Incorrect Answers"], UNSUPPORTED))
            meta = {"question": row["Question"], "category": row["Category"]}
        except KeyError as error:
            raise DataError(f"{path}: missing column {error}") from None
        for text, label in columns:
            for answer in (part.strip() for part in text.split(";")):
                if len(answer) >= min_chars:
                    examples.append(
                        Example(
                            example_id=f"{id_prefix}-{len(examples)}",
                            group=f"q{question}",
                            evidence=(evidence,),
                            claim=answer,
                            label=label,
                            meta=meta,
                        )
                    )
    return len(rows), examples


def truthfulqa_examples(data_dir: Path, release: str = "2021") -> list[Example]:
    """The claim-verification protocol: evidence = Best Answer; claims = every Correct Answer
    (supported) and Incorrect Answer (unsupported), split on ';'; one group per question."""
    if release not in TRUTHFULQA_FILES:
        raise DataError(f"unknown TruthfulQA release {release!r}; known: 2021, 2025")
    path = require_file(data_dir / "truthfulqa" / TRUTHFULQA_FILES[release])
    return _truthfulqa_claims(path, f"tqa{release}", lambda row: row["Best Answer"].strip(),
                              min_chars=1)[1]


TRUTHFULQA_REFERENCE_FILE = "TruthfulQA_v2021_013686a.csv"
TRUTHFULQA_REFERENCE_QUESTIONS = 817
TRUTHFULQA_REFERENCE_CLAIMS = 5865
TRUTHFULQA_REFERENCE_MIN_CHARS = 3


def truthfulqa_reference_examples(data_dir: Path) -> list[Example]:
    """The ETG reference's claim-verification protocol: the 2021-09-10 file;
    claims = every ';' piece of the Correct Answers (supported) and Incorrect Answers
    (unsupported) of at least 3 characters after stripping; evidence = the question and the
    Best Answer as one text, ``f"{question} {best}"`` (the protocol names no separator);
    one group per question, ``q<row>``. The file must give the reference's 817 questions
    and 5,865 claims: another revision raises ``DataError``."""
    path = require_file(data_dir / "truthfulqa" / TRUTHFULQA_REFERENCE_FILE)
    questions, examples = _truthfulqa_claims(
        path, "tqaref", lambda row: f"{row['Question'].strip()} {row['Best Answer'].strip()}",
        min_chars=TRUTHFULQA_REFERENCE_MIN_CHARS)
    if (questions, len(examples)) != (TRUTHFULQA_REFERENCE_QUESTIONS, TRUTHFULQA_REFERENCE_CLAIMS):
        raise DataError(
            f"{path}: {questions} questions and {len(examples):,} claims; the reference "
            f"protocol needs {TRUTHFULQA_REFERENCE_QUESTIONS} and "
            f"{TRUTHFULQA_REFERENCE_CLAIMS:,} (the 2021-09-10 revision, upstream commit 013686a)"
        )
    return examples


_HALUEVAL_KEYS = {
    "qa": ("knowledge", "right_answer", "hallucinated_answer"),
    "dialogue": ("knowledge", "right_response", "hallucinated_response"),
    "summarization": ("document", "right_summary", "hallucinated_summary"),
}


def halueval_examples(
    data_dir: Path, task: str, start: int, stop: int | None
) -> list[Example]:
    """HaluEval rows ``start`` ≤ i < ``stop``: for qa, dialogue and summarization each row
    gives its right (supported) and hallucinated (unsupported) output against the knowledge
    or document; for general, the ChatGPT response against the user query, labelled by the
    human ``hallucination`` field. ``meta`` holds the row number and the bare ``output``
    (the answer without its question, the response or the summary)."""
    if task not in HALUEVAL_TASKS:
        raise DataError(f"unknown HaluEval task {task!r}; known: {', '.join(HALUEVAL_TASKS)}")
    path = data_dir / "halueval" / f"{task}_data.json"
    examples: list[Example] = []
    for offset, row in enumerate(read_jsonl(path, start, stop)):
        number = start + offset
        if task == "general":
            examples.append(
                Example(
                    example_id=f"general-{number}",
                    group=f"row{number}",
                    evidence=(str(row["user_query"]),),
                    claim=str(row["chatgpt_response"]),
                    label=UNSUPPORTED if row["hallucination"] == "yes" else SUPPORTED,
                    meta={"row": number, "output": str(row["chatgpt_response"])},
                )
            )
            continue
        source, right, wrong = _HALUEVAL_KEYS[task]
        prefix = f"{row['question']} " if task == "qa" else ""
        for key, label in ((right, SUPPORTED), (wrong, UNSUPPORTED)):
            examples.append(
                Example(
                    example_id=f"{task}-{number}-{label}",
                    group=f"row{number}",
                    evidence=(str(row[source]),),
                    claim=prefix + str(row[key]),
                    label=label,
                    meta={"row": number, "output": str(row[key])},
                )
            )
    return examples


def nli_examples(data_dir: Path, name: str, limit: int | None = None) -> list[Example]:
    """The pairs of ``nli/eval/{name}.jsonl``: premise as evidence, hypothesis as claim."""
    path = data_dir / "nli" / "eval" / f"{name}.jsonl"
    return [
        Example(
            example_id=f"{name}-{number}",
            group=f"{name}-{number}",
            evidence=(str(row["premise"]),),
            claim=str(row["hypothesis"]),
            label=str(row["label"]),
        )
        for number, row in enumerate(read_jsonl(path, 0, limit))
    ]


def nli_eval_sets(data_dir: Path) -> list[str]:
    """Every set in ``nli/eval`` (the known ones first, in their usual order)."""
    folder = data_dir / "nli" / "eval"
    if not folder.is_dir():
        raise DataError(f"NLI eval folder not found: {folder} (check --data-dir)")
    present = sorted(path.stem for path in folder.glob("*.jsonl"))
    return [name for name in NLI_EVAL_SETS if name in present] + [
        name for name in present if name not in NLI_EVAL_SETS
    ]


@dataclass(frozen=True, slots=True)
class SciFactClaim:
    """A SciFact claim with its gold label and the abstracts (with sentences) that decide it."""

    claim_id: int
    claim: str
    label: str
    evidence_docs: dict[str, list[int]]
    cited_docs: tuple[str, ...]


def scifact_claims(
    data_dir: Path, split: str = "dev", limit: int | None = None
) -> list[SciFactClaim]:
    """SciFact claims; the label is SUPPORT / CONTRADICT when any rationale says so, else NEI."""
    claims: list[SciFactClaim] = []
    for row in read_jsonl(data_dir / "scifact" / f"claims_{split}.jsonl", 0, limit):
        evidence: dict[str, list[dict[str, Any]]] = row.get("evidence") or {}
        labels = {rationale["label"] for sets in evidence.values() for rationale in sets}
        label = "SUPPORT" if "SUPPORT" in labels else "CONTRADICT" if labels else "NEI"
        claims.append(
            SciFactClaim(
                claim_id=int(row["id"]),
                claim=str(row["claim"]),
                label=label,
                evidence_docs={
                    doc: sorted({i for rationale in sets for i in rationale["sentences"]})
                    for doc, sets in evidence.items()
                },
                cited_docs=tuple(str(doc) for doc in row.get("cited_doc_ids", [])),
            )
        )
    return claims
