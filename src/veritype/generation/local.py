"""The ``local`` generator: a GGUF model run in-process by llama.cpp (the ``llm`` extra).

The decoding loop is veritype's own: after each step it reads the full next-token logits,
so every token carries its exact log-probability and the entropy (in nats) of the whole
distribution it was drawn from, not an estimate from a few top alternatives.
"""

from __future__ import annotations

import codecs
import math
import time
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import Unpack

import numpy as np

from veritype._cpus import default_threads
from veritype._llama import (
    DEFAULT_MODEL_FILE,
    DEFAULT_MODEL_PACKAGE,
    LoadedModel,
    RuntimeOptions,
    chat_template,
    default_model_path,
    is_end_of_generation,
    last_logits,
    locate_model,
    runtime_installed,
    shared_model,
)
from veritype.deadline import checkpoint
from veritype.errors import GenerationError, ModelError
from veritype.evidence import Chunk
from veritype.generation._base import (
    Draft,
    GenerationParams,
    PieceStream,
    StreamingGenerator,
    draft_from_pieces,
    until_stop,
)
from veritype.generation._prompt import DEFAULT_EVIDENCE_CHARS, SYSTEM_PROMPT, user_message

# Sampling draws from the most likely tokens only; for small models these hold nearly all
# the mass, and a partial sort of 64 is far cheaper than sorting a 50k-262k vocabulary.
_CANDIDATES = 64

# A base model without a chat template continues the plain prompt's pattern with another
# evidence block or question; its answer ends where such a section would begin.
_PLAIN_STOPS = ("\nQuestion:", "\nEvidence:")

__all__ = [
    "DEFAULT_MODEL_FILE",
    "DEFAULT_MODEL_PACKAGE",
    "LocalGenerator",
    "default_model_path",
    "default_threads",
]


class LocalGenerator(StreamingGenerator):
    """Generates with a GGUF model through llama.cpp; SmolLM2-135M-Instruct by default.

    Options: ``model_path`` (any GGUF), ``evidence_chars`` (evidence cut to this length),
    ``n_threads`` (default: the CPUs available), ``n_ctx`` (context window in tokens).
    """

    name = "local"

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        evidence_chars: int = DEFAULT_EVIDENCE_CHARS,
        **runtime: Unpack[RuntimeOptions],
    ) -> None:
        self.evidence_chars = evidence_chars
        self.model_path, self._model = load_generation_model(model_path, "the local generator",
                                                             **runtime)
        self.model = self.model_path.name
        self._template = chat_template(self._model.llama)

    def generate(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Draft:
        started = time.perf_counter()
        pieces = []
        with closing(self._pieces(prompt, evidence, params or GenerationParams())) as stream:
            for piece in stream:
                checkpoint("the next generated token")
                pieces.append(piece)
        return draft_from_pieces(
            pieces, generator=self.name, model=self.model,
            elapsed_s=time.perf_counter() - started,
        )

    def prompt_text(self, question: str, evidence: Sequence[Chunk]) -> str:
        """The full prompt, rendered with the model's chat template when it has one."""
        content = user_message(question, evidence, self.evidence_chars)
        if self._template is None:
            return f"{SYSTEM_PROMPT}\n\n{content}\nAnswer:"
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": content},
        ]
        return self._template(messages)

    def _pieces(
        self, question: str, evidence: Sequence[Chunk], params: GenerationParams
    ) -> PieceStream:
        text = self.prompt_text(question, evidence)
        stop = params.stop if self._template is not None else (*params.stop, *_PLAIN_STOPS)
        return until_stop(self._decode(text, params), stop)

    def _decode(self, prompt: str, params: GenerationParams) -> PieceStream:
        loaded = self._model
        llama = loaded.llama
        tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        room = llama.n_ctx() - len(tokens)
        if room < 1:
            raise GenerationError(
                f"the prompt has {len(tokens)} tokens but the context holds {llama.n_ctx()}; "
                "pass less evidence or a larger n_ctx"
            )
        is_end = is_end_of_generation(llama)
        rng = np.random.default_rng(params.seed)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        with loaded.lock:
            logits = loaded.evaluate_prompt(tokens)
            for _ in range(min(params.max_tokens, room)):
                token = _choose(logits, params, rng)
                if is_end(token):
                    break
                log_partition, entropy = _log_partition_and_entropy(logits)
                piece = decoder.decode(llama.detokenize([token]))
                yield piece, float(logits[token]) - log_partition, entropy
                llama.eval([token])
                loaded.evaluated.append(token)
                logits = last_logits(llama)
            tail = decoder.decode(b"", final=True)
            if tail:
                yield tail, None, None


def load_generation_model(model_path: str | Path | None, user: str,
                          **runtime: Unpack[RuntimeOptions]) -> tuple[Path, LoadedModel]:
    """The GGUF at ``model_path`` (the default model's when None) and the model loaded from
    it once for the process. A part that cannot load its model failed to generate, as its
    callers expect: a GenerationError that names ``user``."""
    if not runtime_installed():
        raise GenerationError(f'{user} needs the llm extra: pip install "veritype[llm]"')
    try:
        path = locate_model(model_path)
        return path, shared_model(path, **runtime)
    except ModelError as error:
        raise GenerationError(str(error)) from None


def _log_partition_and_entropy(logits: np.ndarray) -> tuple[float, float]:
    """log Σ exp(logits) and the entropy (nats) of their softmax, with one exp pass.

    In float32 over the whole vocabulary: at ~100 tokens/s, a float64 log-softmax plus a
    second exp for the entropy cost a third of each step's time. Elementwise, not np.dot:
    a BLAS call may wake its own thread pool, which competes with llama.cpp's threads.
    """
    peak = float(logits.max())
    shifted = logits - peak
    weights = np.exp(shifted)
    total = float(weights.sum())
    log_total = math.log(total)
    return peak + log_total, log_total - float((weights * shifted).sum()) / total


def _choose(logits: np.ndarray, params: GenerationParams, rng: np.random.Generator) -> int:
    """Greedy at temperature 0; otherwise top-p sampling at the given temperature."""
    if params.temperature == 0.0:
        return int(np.argmax(logits))
    candidates = np.argpartition(logits, -_CANDIDATES)[-_CANDIDATES:]
    candidates = candidates[np.argsort(-logits[candidates])]
    scaled = logits[candidates].astype(np.float64) / params.temperature
    weights = np.exp(scaled - scaled.max())
    weights /= weights.sum()
    keep = min(len(weights), int(np.searchsorted(np.cumsum(weights), params.top_p)) + 1)
    weights = weights[:keep] / weights[:keep].sum()
    return int(candidates[rng.choice(keep, p=weights)])
