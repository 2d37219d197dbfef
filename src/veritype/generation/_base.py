"""The generator contract: drafts with token metadata, a Protocol and a registry by name.

A generator turns a question plus its evidence into a *draft*: the answer text and, where
the backend exposes them, per-token log-probabilities and entropies. Drafts are what the
engine decomposes into claims; the token metadata feeds the uncertainty views.
"""

from __future__ import annotations

import math
from collections import abc
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from veritype._registry import Registry
from veritype.errors import ConfigurationError, InputError
from veritype.evidence import Chunk


@dataclass(frozen=True, slots=True)
class GenerationParams:
    """Decoding settings; ``temperature`` 0 means greedy decoding."""

    max_tokens: int = 160
    temperature: float = 0.0
    top_p: float = 0.95
    seed: int = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.max_tokens < 1:
            raise ConfigurationError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if not 0.0 <= self.temperature <= 5.0:
            raise ConfigurationError(f"temperature must lie in [0, 5], got {self.temperature}")
        if not 0.0 < self.top_p <= 1.0:
            raise ConfigurationError(f"top_p must lie in (0, 1], got {self.top_p}")


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """One generated token: its text, its character offset in ``Draft.text``, and (when the
    backend gives them) its log-probability and the entropy in nats of the distribution it
    was drawn from."""

    text: str
    start: int
    logprob: float | None = None
    entropy: float | None = None

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True, slots=True)
class Draft:
    """A generated answer. Every token lies in the text: ``text[t.start:t.end] == t.text``."""

    text: str
    tokens: tuple[TokenInfo, ...]
    generator: str
    model: str
    elapsed_s: float
    declined: str = ""  # why the generator wrote nothing, when it chose to

    def __post_init__(self) -> None:
        for token in self.tokens:
            if self.text[token.start : token.end] != token.text:
                raise InputError(
                    f"token {token.text!r} at {token.start} does not match the draft text "
                    f"{self.text[token.start : token.end]!r}"
                )

    def mean_entropy(self, start: int, end: int) -> float | None:
        """Mean token entropy over the tokens overlapping ``[start, end)``; ``None`` when no
        overlapping token carries an entropy."""
        values = [
            token.entropy
            for token in self.tokens
            if token.entropy is not None and token.start < end and token.end > start
        ]
        return math.fsum(values) / len(values) if values else None

    @property
    def tokens_per_second(self) -> float:
        return len(self.tokens) / self.elapsed_s if self.elapsed_s > 0 else 0.0


@runtime_checkable
class Generator(Protocol):
    """Writes a draft answer to ``prompt`` (the user's question) from ``evidence``."""

    name: str

    def generate(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Draft: ...

    def generate_batch(
        self,
        prompts: Sequence[str],
        evidence: Sequence[Sequence[Chunk]],
        params: GenerationParams | None = None,
    ) -> list[Draft]: ...

    def stream(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Iterator[TokenInfo]: ...


# Generators whose module needs a runtime the core does without (llama.cpp, an HTTP client):
# registered by "module:attribute" and imported only when first created.
_REGISTRY = Registry[Generator]("generator", extra="llm", lazy={
    "local": "veritype.generation.local:LocalGenerator",
    "openai": "veritype.generation.openai:OpenAIGenerator",
})
register_generator = _REGISTRY.register
available_generators = _REGISTRY.names
create_generator = _REGISTRY.create


# A generated token as (text, logprob, entropy), before its offset in the draft is known.
Piece = tuple[str, float | None, float | None]
# Pieces as a closable generator, so an abandoned stream releases what it holds at once.
PieceStream = abc.Generator[Piece, None, None]


class BaseGenerator:
    """``generate_batch`` and ``stream`` for generators that draft one prompt at a time;
    subclasses give ``name`` and ``generate``."""

    name: str

    def generate(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Draft:
        raise NotImplementedError

    def generate_batch(
        self,
        prompts: Sequence[str],
        evidence: Sequence[Sequence[Chunk]],
        params: GenerationParams | None = None,
    ) -> list[Draft]:
        """One draft per prompt, in turn."""
        if len(prompts) != len(evidence):
            raise InputError(
                f"generate_batch needs one evidence list per prompt: {len(prompts)} prompts, "
                f"{len(evidence)} evidence lists"
            )
        return [self.generate(p, e, params) for p, e in zip(prompts, evidence, strict=True)]

    def stream(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Iterator[TokenInfo]:
        """The draft's tokens, once it is written."""
        yield from self.generate(prompt, evidence, params).tokens


class StreamingGenerator(BaseGenerator):
    """A generator that writes token by token: ``stream`` yields each token as its
    subclass's ``_pieces`` produces it."""

    def _pieces(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams
    ) -> PieceStream:
        """The draft's pieces, already cut at the first stop string."""
        raise NotImplementedError

    def stream(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Iterator[TokenInfo]:
        offset = 0
        with closing(self._pieces(prompt, evidence, params or GenerationParams())) as pieces:
            for text, logprob, entropy in pieces:
                yield TokenInfo(text, offset, logprob, entropy)
                offset += len(text)


def draft_from_pieces(
    pieces: Sequence[Piece],
    *,
    generator: str,
    model: str,
    elapsed_s: float,
) -> Draft:
    """A draft whose text is the concatenation of token pieces ``(text, logprob, entropy)``."""
    tokens: list[TokenInfo] = []
    offset = 0
    for text, logprob, entropy in pieces:
        tokens.append(TokenInfo(text, offset, logprob, entropy))
        offset += len(text)
    return Draft("".join(piece[0] for piece in pieces), tuple(tokens), generator, model,
                 elapsed_s)


def cut_at_stop(text: str, stop: Sequence[str]) -> int | None:
    """The offset of the earliest stop string in ``text``, or ``None``."""
    found = [index for index in (text.find(s) for s in stop if s) if index >= 0]
    return min(found) if found else None


def until_stop(pieces: Iterator[Piece], stop: Sequence[str]) -> PieceStream:
    """``pieces`` up to (not including) the first stop string.

    Pieces that might begin a stop string are held back until the next piece decides, so a
    stop split across two tokens is never emitted. The source is closed when a stop is hit.
    """
    stop = [s for s in stop if s]
    if not stop:
        yield from pieces
        return
    held: list[Piece] = []
    try:
        for piece in pieces:
            held.append(piece)
            pending = "".join(text for text, _, _ in held)
            cut = cut_at_stop(pending, stop)
            if cut is not None:
                offset = 0
                for text, logprob, entropy in held:
                    if offset + len(text) > cut:
                        if cut > offset:
                            yield text[: cut - offset], logprob, entropy
                        return
                    yield text, logprob, entropy
                    offset += len(text)
                return
            if not any(pending.endswith(s[:size]) for s in stop for size in range(1, len(s))):
                yield from held
                held = []
        yield from held
    finally:
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
