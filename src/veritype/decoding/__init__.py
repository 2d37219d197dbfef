"""Truth-aware decoding: guards that keep a local generator's tokens consistent with a
knowledge base, with arithmetic and with the evidence and the answer itself.

Guards (``kb``, ``arithmetic``, ``context``) follow the ``Guard`` protocol and are created
by name with ``create_guard``; each reports through ``coverage`` whether it could check a
clause. ``guarded_generate`` decodes a ``llama_cpp.Llama`` under them and reports every
intervention, the safe mass, the tokens per second, and whether the answer is guarded,
unverified or abstained.
"""

from veritype._llama import default_model_path, load_llama
from veritype.decoding._base import (
    END_OF_TEXT,
    Coverage,
    Guard,
    available_guards,
    create_guard,
    register_guard,
)
from veritype.decoding._decision import LOOKAHEAD_TOKENS, TruthAwareDecoder
from veritype.decoding._relation_matcher import RelationMatcher
from veritype.decoding._steps import BlockedToken, Choice, ClauseCheck, Intervention
from veritype.decoding.arithmetic import ArithmeticGuard, arithmetic_guard, evaluate
from veritype.decoding.decoder import (
    ABSTAINED,
    GUARDED,
    UNVERIFIED,
    GuardedDraft,
    TruthAwareLogitsProcessor,
    Unchecked,
    guarded_generate,
)
from veritype.decoding.kb import (
    KnowledgeBase,
    KnowledgeBaseGuard,
    Triple,
    extract_triples,
    kb_guard,
)
from veritype.errors import DecodingError

__all__ = [
    "ABSTAINED",
    "END_OF_TEXT",
    "GUARDED",
    "LOOKAHEAD_TOKENS",
    "UNVERIFIED",
    "ArithmeticGuard",
    "BlockedToken",
    "Choice",
    "ClauseCheck",
    "Coverage",
    "DecodingError",
    "Guard",
    "GuardedDraft",
    "Intervention",
    "KnowledgeBase",
    "KnowledgeBaseGuard",
    "RelationMatcher",
    "Triple",
    "TruthAwareDecoder",
    "TruthAwareLogitsProcessor",
    "Unchecked",
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
