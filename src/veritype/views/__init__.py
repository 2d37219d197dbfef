"""Verification views: the contract (from ``veritype.verdicts``), the registry, and the
built-in views that need no model."""

from veritype.verdicts import (
    Verdict,
    VerificationView,
    ViewResult,
    check_batch,
    check_fraction,
)
from veritype.views._base import (
    BatchedView,
    PackAnalysingView,
    available_views,
    clear_model_caches,
    create_view,
    once_per_pack,
    register_view,
    view_takes,
    with_threads,
)
from veritype.views.lexical import LexicalSupportView
from veritype.views.numeric import NumericConsistencyView

__all__ = [
    "BatchedView",
    "LexicalSupportView",
    "NumericConsistencyView",
    "PackAnalysingView",
    "Verdict",
    "VerificationView",
    "ViewResult",
    "available_views",
    "check_batch",
    "check_fraction",
    "clear_model_caches",
    "create_view",
    "once_per_pack",
    "register_view",
    "view_takes",
    "with_threads",
]
