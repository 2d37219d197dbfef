"""Human evaluation: export shuffled claims with their evidence for annotators, and read
their returned labels back into Fleiss' κ."""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veritype.errors import DataError
from veritype.evaluation.metrics import fleiss_kappa

ANNOTATION_LABELS = ("supported", "unsupported", "unsure")
EXPORT_FIELDS = ("item_id", "question", "claim", "evidence", "label")
GUIDE = (
    "For each item, read the evidence and write in 'label' one of: supported (the evidence "
    "states or directly implies the claim), unsupported (it does not, or contradicts it), "
    "unsure."
)


def load_run_examples(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "examples.jsonl"
    if not path.is_file():
        raise DataError(
            f"{run_dir}: no examples.jsonl (is it a veritype eval run directory?)"
        )
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def export_for_annotation(
    run_dir: Path, output: Path, *, count: int | None = None, seed: int = 0
) -> tuple[Path, Path]:
    """Write ``count`` shuffled examples of a run for annotators (CSV or JSONL by the output's
    suffix) without gold labels or verdicts; those go to a ``.key.jsonl`` file beside it."""
    examples = load_run_examples(run_dir)
    if count is not None and count < 1:
        raise DataError(f"count must be >= 1, got {count}")
    if output.suffix not in (".csv", ".jsonl"):
        raise DataError(f"{output}: the export must end in .csv or .jsonl")
    chosen = list(examples)
    random.Random(seed).shuffle(chosen)
    chosen = chosen[:count] if count is not None else chosen
    rows = [
        {
            "item_id": f"item-{i:05d}",
            "question": example.get("question", ""),
            "claim": example["claim"],
            "evidence": "\n\n".join(example.get("evidence", [])),
            "label": "",
        }
        for i, example in enumerate(chosen)
    ]
    output.parent.mkdir(parents=True, exist_ok=True)
    if output.suffix == ".csv":
        with output.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=EXPORT_FIELDS)
            writer.writeheader()
            writer.writerows(rows)
    else:
        with output.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    key = output.with_suffix(".key.jsonl")
    with key.open("w", encoding="utf-8") as handle:
        for row, example in zip(rows, chosen, strict=True):
            handle.write(json.dumps({"item_id": row["item_id"], "example_id": example["id"],
                                     "gold": example.get("label"),
                                     "verified": example.get("verified")}) + "\n")
    (output.parent / f"{output.stem}.README.txt").write_text(GUIDE + "\n", encoding="utf-8")
    return output, key


def read_annotations(path: Path) -> dict[str, str]:
    """item_id → label from one annotator's returned CSV or JSONL."""
    if not path.is_file():
        raise DataError(f"annotation file not found: {path}")
    if path.suffix == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.DictReader(handle))
    else:
        rows = []
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError:
                        raise DataError(f"{path}:{number}: invalid JSON") from None
    labels: dict[str, str] = {}
    for number, row in enumerate(rows, 1):
        if "item_id" not in row or "label" not in row:
            raise DataError(f"{path}: row {number} needs item_id and label")
        label = str(row["label"]).strip().lower()
        if not label:
            continue
        if label not in ANNOTATION_LABELS:
            raise DataError(
                f"{path}: row {number} has label {label!r}; use {', '.join(ANNOTATION_LABELS)}"
            )
        labels[str(row["item_id"])] = label
    return labels


def kappa_from_files(paths: Sequence[Path]) -> dict[str, Any]:
    """Fleiss' κ over the items every annotator labelled."""
    if len(paths) < 2:
        raise DataError("Fleiss' kappa needs the files of at least two annotators")
    annotations = [read_annotations(path) for path in paths]
    common = sorted(set.intersection(*(set(a) for a in annotations)))
    if not common:
        raise DataError("no item was labelled by every annotator")
    counts = np.zeros((len(common), len(ANNOTATION_LABELS)), dtype=np.int64)
    for row, item in enumerate(common):
        for annotation in annotations:
            counts[row, ANNOTATION_LABELS.index(annotation[item])] += 1
    return {
        "fleiss_kappa": fleiss_kappa(counts),
        "items": len(common),
        "annotators": len(paths),
        "label_counts": dict(zip(ANNOTATION_LABELS, counts.sum(axis=0).tolist(), strict=True)),
    }
