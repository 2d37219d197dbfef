"""Verification views: the Protocol, the registry, and the built-in views that need no model."""

from veritype.views._base import (
    Verdict,
    VerificationView,
    ViewRegistryError,
    ViewResult,
    available_views,
    clear_model_caches,
    create_view,
    register_view,
    view_takes,
)
from veritype.views.lexical import LexicalSupportView
from veritype.views.numeric import NumericConsistencyView

__all__ = [
    "LexicalSupportView",
    "NumericConsistencyView",
    "Verdict",
    "VerificationView",
    "ViewRegistryError",
    "ViewResult",
    "available_views",
    "clear_model_caches",
    "create_view",
    "register_view",
    "view_takes",
]
