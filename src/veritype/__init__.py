"""veritype: evidence types for language-model answers.

Every claim of an answer is typed Verified, Uncertain or Unsupported by independent
verification views against evidence; only Verified claims are rendered, each cited.

This module exports what a user of the library imports; the rest is reachable from its
subpackage (``veritype.aggregate``, ``veritype.retrieval``, ``veritype.errors``, ...).
"""

from veritype.answer import Citation, ClaimReport, Confidence, GroundedAnswer, Reference
from veritype.checking import CheckResult, check
from veritype.claims import Claim, decompose
from veritype.engine import Engine, EngineConfig
from veritype.errors import ConfigurationError, InputError, VeritypeError
from veritype.evidence import Document, EvidencePack, Span
from veritype.graph import EvidenceType
from veritype.ingest import Corpus, IngestReport
from veritype.store import Chunking, IndexSpec, open_store
from veritype.thresholds import Thresholds
from veritype.verdicts import Verdict, VerificationView, ViewResult
from veritype.verification import VerificationReport, verify_answer
from veritype.views import available_views, create_view, register_view

__version__ = "0.1.0"

__all__ = [
    "CheckResult",
    "Chunking",
    "Citation",
    "Claim",
    "ClaimReport",
    "Confidence",
    "ConfigurationError",
    "Corpus",
    "Document",
    "Engine",
    "EngineConfig",
    "EvidencePack",
    "EvidenceType",
    "GroundedAnswer",
    "IndexSpec",
    "IngestReport",
    "InputError",
    "Reference",
    "Span",
    "Thresholds",
    "Verdict",
    "VerificationReport",
    "VerificationView",
    "VeritypeError",
    "ViewResult",
    "__version__",
    "available_views",
    "check",
    "create_view",
    "decompose",
    "open_store",
    "register_view",
    "verify_answer",
]
