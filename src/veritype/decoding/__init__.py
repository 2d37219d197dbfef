"""Truth-aware decoding: guards that keep a local generator's tokens consistent with a
knowledge base, with arithmetic and with the evidence and the answer itself.

Guards (``kb``, ``arithmetic``, ``context``) follow the ``Guard`` protocol and are created
by name with ``create_guard``; ``guarded_generate`` decodes a ``llama_cpp.Llama`` under
them and reports every intervention, the safe mass and the tokens per second.
"""

from veritype._llama import default_model_path, load_llama
from veritype.decoding._base import (
    END_OF_TEXT,
    Guard,
    available_guards,
    create_guard,
    register_guard,
)
from veritype.decoding._decision import BlockedToken, Choice, Intervention, TruthAwareDecoder
from veritype.decoding.arithmetic import ArithmeticGuard, arithmetic_guard, evaluate
from veritype.decoding.decoder import GuardedDraft, TruthAwareLogitsProcessor, guarded_generate
from veritype.decoding.kb import (
    KnowledgeBase,
    KnowledgeBaseGuard,
    Triple,
    extract_triples,
    kb_guard,
)
from veritype.errors import DecodingError

__all__ = [
    "END_OF_TEXT",
    "ArithmeticGuard",
    "BlockedToken",
    "Choice",
    "DecodingError",
    "Guard",
    "GuardedDraft",
    "Intervention",
    "KnowledgeBase",
    "KnowledgeBaseGuard",
    "Triple",
    "TruthAwareDecoder",
    "TruthAwareLogitsProcessor",
    "arithmetic_guard",
    "available_guards",
    "create_guard",
    "default_model_path",
    "evaluate",
    "extract_triples",
    "guarded_generate",
    "kb_guard",
    "load_llama",
    "register_guard",
]
