"""A resumable cache of view scores: scoring is the long part of a fit, so a rerun that
changes only the choices, or adds data, scores only what is new. Entries are keyed by the
pair's content (evidence and claim), so a pair whose text changed is scored afresh."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from veritype.errors import DataError
from veritype.evaluation.data import Example
from veritype.evaluation.scoring import ScoreTable


def pair_key(example: Example) -> str:
    """The cache key of an example: a digest of its evidence and claim."""
    digest = hashlib.sha256()
    for text in (*example.evidence, example.claim):
        digest.update(text.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def cached_scores(
    path: Path, examples: Sequence[Example], compute: Callable[[list[Example]], ScoreTable]
) -> ScoreTable:
    """The views' scores of ``examples``: those an earlier run wrote to ``path`` are read
    back (scoring is the long part: a rerun that changes only the choices, or adds data,
    scores only what is new), the rest computed; the union is written back."""
    known: dict[str, int] = {}
    saved: Any = None
    if path.exists():
        saved = np.load(path, allow_pickle=False)
        if len(saved["ids"]) != len(saved["score"]) or len(set(saved["ids"].tolist())) != len(
                saved["ids"]):
            raise DataError(f"{path}: the cached scores do not line up with their keys; "
                            "delete the file to score afresh")
        known = {str(example_id): row for row, example_id in enumerate(saved["ids"])}
    # Two examples with the same evidence and claim are one pair: scored and stored once,
    # so every stored row keeps its own key.
    missing = list({key: example for example in examples
                    if (key := pair_key(example)) not in known}.values())
    stored: list[tuple[Any, ...]] = []
    if saved is not None:
        stored.append((saved["views"], saved["strong"], saved["score"], saved["contradiction"],
                       saved["verdict"]))
    if missing:
        new = compute(missing)
        stored.append((new.views, new.strong, new.score, new.contradiction, new.verdict))
    views = tuple(str(view) for view in stored[0][0])
    strong = tuple(str(view) for view in stored[0][1])
    score, contradiction, verdict = (np.concatenate([part[i] for part in stored])
                                     for i in (2, 3, 4))
    ids = [*known, *(pair_key(example) for example in missing)]
    if missing:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, ids=np.array(ids), views=np.array(views), strong=np.array(strong),
                 score=score, contradiction=contradiction, verdict=verdict)
    row = {example_id: index for index, example_id in enumerate(ids)}
    order = np.array([row[pair_key(example)] for example in examples], dtype=np.intp)
    return ScoreTable(views, strong, score[order], contradiction[order],
                      verdict[order].astype(np.int8),
                      [[() for _ in views] for _ in examples], len(examples), {})
