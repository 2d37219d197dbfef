"""The trace of one run: everything the engine did, saved under the answer's id."""

from __future__ import annotations

import time
from typing import Any

from veritype.answer import GroundedAnswer
from veritype.graph import BeliefGraph
from veritype.store import Store


def save_trace(
    store: Store,
    kind: str,
    grounded: GroundedAnswer,
    *,
    query: str | None,
    draft: str,
    generator: str | None,
    ttl: float | None,
    keep: int | None,
    **details: Any,
) -> None:
    """Save the run's trace; ``details`` fill in what the run did (nothing, for an answer
    that abstained before drafting). ``ttl`` and ``keep`` prune older traces afterwards."""
    trace: dict[str, Any] = {
        "trace_id": grounded.trace_id,
        "kind": kind,
        "query": query,
        "draft": draft,
        "created_at": time.time(),
        "grounded": grounded.model_dump(mode="json"),
        "timings": grounded.timings,
        "generator": generator,
        "graph": BeliefGraph().to_dict(),
        "evidence": [],
        "views": [],
        "budget": {},
        "refinements": [],
        "corrections": [],
        "folded": [],
        "off_question": [],
    }
    trace.update(details)
    store.save_trace(grounded.trace_id, kind, trace)
    if ttl is not None or keep is not None:
        store.prune_traces(older_than=ttl, keep=keep)
