"""veritype: evidence types for language-model answers.

Every claim of an answer is typed Verified, Uncertain or Unsupported by independent
verification views against evidence; only Verified claims are rendered, each cited.
"""

from veritype.aggregate import (
    Aggregate,
    Aggregator,
    LearnedAggregator,
    RuleAggregator,
    RuleThresholds,
    VoteAggregator,
    create_aggregator,
    evidence_union,
    support_mass,
)
from veritype.answer import (
    Citation,
    ClaimReport,
    Confidence,
    GroundedAnswer,
    Reference,
    citation_problems,
    confabulation_problems,
    grounded_answer_schema,
    render,
)
from veritype.bounds import BoundRow, binomial_tail, kl_bound, kl_divergence, scaling_table
from veritype.budget import Budget, Spend, run_views
from veritype.checking import CheckResult, check
from veritype.claims import Claim, ClaimClass, Decomposition, decompose
from veritype.engine import Engine, EngineConfig, EngineError
from veritype.evidence import Chunk, Document, EvidenceError, EvidencePack, Span, chunk_document
from veritype.graph import BeliefGraph, CycleError, EvidenceType, GraphError, Status
from veritype.ingest import Corpus, IngestReport
from veritype.pipeline import VerificationReport, type_graph, verify_answer
from veritype.retrieval import (
    HybridRetriever,
    Reranker,
    Retriever,
    ScoredChunk,
    create_retriever,
    register_retriever,
)
from veritype.store import Chunking, IndexSpec, Store, open_store
from veritype.typing import ThresholdError, Thresholds, type_claim
from veritype.views import (
    LexicalSupportView,
    NumericConsistencyView,
    Verdict,
    VerificationView,
    ViewResult,
    available_views,
    create_view,
    register_view,
)

__version__ = "0.1.0"

__all__ = [
    "Aggregate",
    "Aggregator",
    "BeliefGraph",
    "BoundRow",
    "Budget",
    "CheckResult",
    "Chunk",
    "Chunking",
    "Citation",
    "Claim",
    "ClaimClass",
    "ClaimReport",
    "Confidence",
    "Corpus",
    "CycleError",
    "Decomposition",
    "Document",
    "Engine",
    "EngineConfig",
    "EngineError",
    "EvidenceError",
    "EvidencePack",
    "EvidenceType",
    "GraphError",
    "GroundedAnswer",
    "HybridRetriever",
    "IndexSpec",
    "IngestReport",
    "LearnedAggregator",
    "LexicalSupportView",
    "NumericConsistencyView",
    "Reference",
    "Reranker",
    "Retriever",
    "RuleAggregator",
    "RuleThresholds",
    "ScoredChunk",
    "Span",
    "Spend",
    "Status",
    "Store",
    "ThresholdError",
    "Thresholds",
    "Verdict",
    "VerificationReport",
    "VerificationView",
    "ViewResult",
    "VoteAggregator",
    "__version__",
    "available_views",
    "binomial_tail",
    "check",
    "chunk_document",
    "citation_problems",
    "confabulation_problems",
    "create_aggregator",
    "create_retriever",
    "create_view",
    "decompose",
    "evidence_union",
    "grounded_answer_schema",
    "kl_bound",
    "kl_divergence",
    "open_store",
    "register_retriever",
    "register_view",
    "render",
    "run_views",
    "scaling_table",
    "support_mass",
    "type_claim",
    "type_graph",
    "verify_answer",
]
