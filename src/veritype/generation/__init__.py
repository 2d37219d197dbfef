"""Generation: draft answers from evidence, by extraction, a local model or an HTTP endpoint.

``create_generator(name)`` builds a registered generator (``extractive``, ``local``,
``openai``); model generators load their runtime only when first created.
``decompose(generator, draft)`` is model-assisted claim decomposition, validated against
the draft so that it can never add a claim the draft did not make.
"""

from veritype.errors import GenerationError
from veritype.generation._base import (
    Draft,
    GenerationParams,
    Generator,
    TokenInfo,
    available_generators,
    create_generator,
    register_generator,
)
from veritype.generation._decompose import decompose
from veritype.generation.extractive import ExtractiveGenerator

__all__ = [
    "Draft",
    "ExtractiveGenerator",
    "GenerationError",
    "GenerationParams",
    "Generator",
    "TokenInfo",
    "available_generators",
    "create_generator",
    "decompose",
    "register_generator",
]
