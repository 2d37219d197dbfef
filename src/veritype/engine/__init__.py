"""The engine: one object that ingests, retrieves, drafts, verifies, types and renders.

``Engine.ask(query)`` runs the whole pipeline of the design: retrieve → generate →
decompose → ESBG → per claim, retrieve (query + claim, plus the evidence of the claims it
depends on) → views under the budget allocator → aggregate → type → refine uncertain
compound claims → render only Verified claims with citations → save the trace.
``Engine.verify(answer, evidence)`` does the same for a given answer.

Inside: ``_config`` (what the engine is made of), ``_inputs`` (request checks and the typed
request), ``_evidence`` (per-claim retrieval), ``_refine`` (refinement and the contradiction
policy), ``_traces`` (what is saved), ``_engine`` (the orchestration).
"""

from veritype.engine._config import EngineConfig
from veritype.engine._engine import Engine
from veritype.engine._inputs import checked_query
from veritype.engine._refine import split_compound

__all__ = ["Engine", "EngineConfig", "checked_query", "split_compound"]
