"""Soft labels from a teacher, for distillation: ``veritype train label``.

A recipe's training pairs (assembled exactly as ``veritype train verifier`` would, so only
training-side data) are scored by a teacher, an exported verifier model (its three class
probabilities) or the ``judge`` (P(yes), read as P(entailment)), and written as JSON lines
that a later recipe names in ``soft_label_files``. Rows are written as they are scored; a
killed run continues where its file ends.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from veritype.errors import ConfigurationError, DataError
from veritype.progress import Progress
from veritype.train.config import TrainConfig
from veritype.train.data import SOFT, Pair
from veritype.train.trainer import assemble

JUDGE_TEACHER = "judge"
Teacher = Callable[[Sequence[Pair]], list[tuple[float, ...]]]


def make_teacher(name: str, *, threads: int = 2, **options: Any) -> Teacher:
    """``judge`` (options go to the judge), or a verifier model by shipped name, exported
    folder or hub id."""
    if name == JUDGE_TEACHER:
        from veritype.judges import create_judge

        judge = create_judge(options.pop("judge", "local"), **options)
        return lambda pairs: [(p,) for p in judge.judge_batch(
            [(pair.hypothesis, pair.premise) for pair in pairs])]
    if options:
        raise ConfigurationError(f"options {sorted(options)} are for the judge teacher only")
    from veritype.models.cross_encoder import CrossEncoder, model_directory

    encoder = CrossEncoder(model_directory(name), threads=threads, cache_size=0)
    return lambda pairs: [tuple(float(p) for p in row) for row in encoder.predict(
        [(pair.premise, pair.hypothesis) for pair in pairs])]


def _already_labelled(out: Path, pairs: Sequence[Pair]) -> int:
    """How many of ``pairs`` ``out`` already holds, checking they are the same pairs."""
    if not out.is_file():
        return 0
    done = 0
    with out.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if done >= len(pairs) or (row["premise"], row["hypothesis"]) != (
                    pairs[done].premise, pairs[done].hypothesis):
                raise DataError(f"{out}:{number} is not the recipe's pair {done + 1}: the file "
                                "was labelled from another recipe; write to a new file")
            done += 1
    return done


def label_pairs(config: TrainConfig, data_dir: Path, teacher: Teacher, out: Path, *,
                batch_size: int = 32, progress: Progress | None = None) -> int:
    """Label the recipe's pairs (those not soft-labelled already) into ``out``; returns how
    many the file holds."""
    pairs = [pair for pair in assemble(config, data_dir) if pair.label != SOFT]
    done = _already_labelled(out, pairs)
    task = 0
    if progress is not None:
        task = progress.start(f"labelling {config.name}", len(pairs), completed=done)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as handle:
        for start in range(done, len(pairs), batch_size):
            chunk = pairs[start:start + batch_size]
            for pair, probabilities in zip(chunk, teacher(chunk), strict=True):
                handle.write(json.dumps({
                    "premise": pair.premise, "hypothesis": pair.hypothesis,
                    "source": pair.source, "label": pair.label,
                    "probabilities": [round(p, 5) for p in probabilities],
                }) + "\n")
            handle.flush()
            if progress is not None:
                progress.advance(task, len(chunk))
    return len(pairs)
