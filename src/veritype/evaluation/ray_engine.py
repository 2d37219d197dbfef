"""The Ray engine: the same blocks as the local engine, spread over a Ray cluster.

Each Ray Data row is one block; a pool of actors loads the views once each and scores
whole blocks, so the results are those of the local engine, bit for bit.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Sequence
from typing import Any

import numpy as np

from veritype._ray import RAY_WORKERS, connect
from veritype.errors import ConfigurationError
from veritype.evaluation.scoring import (
    BlockScores,
    OnBlock,
    Pair,
    make_views,
    score_block,
)


class _BlockWorker:
    """A Ray actor: the views, loaded once, applied to one block per call."""

    def __init__(self, views: list[str], view_options: dict[str, dict[str, Any]]) -> None:
        self._views = make_views(views, view_options)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        payloads = []
        for text in batch["block"]:
            block: list[Pair] = [(tuple(evidence), claim) for evidence, claim in json.loads(text)]
            payloads.append(pickle.dumps(score_block(self._views, block)))
        return {"index": batch["index"], "scores": np.array(payloads, dtype=object)}


class RayEngine:
    """Scores blocks on a Ray cluster: ``address`` None starts a local one."""

    def __init__(
        self,
        views: Sequence[str],
        *,
        view_options: dict[str, dict[str, Any]] | None = None,
        address: str | None = None,
        workers: int = RAY_WORKERS,
        cpus_per_worker: float = 1.0,
    ) -> None:
        connect(address, workers, cpus_per_worker, ConfigurationError)
        # Views are built here too: a bad name fails now, not inside a worker.
        local = make_views(list(views), view_options)
        self.views = tuple(view.name for view in local)
        self.strong = tuple(view.name for view in local if view.strong)
        self.costs = tuple(float(view.cost) for view in local)
        self._view_options = dict(view_options or {})
        self._workers = workers
        self._cpus = cpus_per_worker

    def run_block(self, block: Sequence[Pair]) -> BlockScores:
        return self.run_blocks([block])[0]

    def run_blocks(
        self, blocks: Sequence[Sequence[Pair]], on_block: OnBlock | None = None
    ) -> list[BlockScores]:
        import ray.data

        if not blocks:
            return []
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        rows = [
            {"index": i, "block": json.dumps([[list(e), c] for e, c in block])}
            for i, block in enumerate(blocks)
        ]
        dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
            _BlockWorker,
            fn_constructor_kwargs={"views": list(self.views), "view_options": self._view_options},
            batch_size=1,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=min(self._workers, len(rows))),
            num_cpus=self._cpus,
        )
        done: dict[int, BlockScores] = {}
        for row in dataset.iter_rows():
            index = int(row["index"])
            done[index] = pickle.loads(row["scores"])
            if on_block is not None:
                on_block(len(blocks[index]))
        return [done[i] for i in range(len(blocks))]
