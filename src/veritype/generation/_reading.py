"""A GGUF chat model as the extractive drafter's reader: shown a question and the sentences the
drafter ranks highest, it says which one states the answer, or that none does (the ``llm``
extra). Its "none" is what the answer model cannot say: "What's the mileage rate if I use my
motorbike?" against "If you use your own car, you can claim 45p per mile" is a sentence about
the asked attribute, of another vehicle.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Unpack

import numpy as np

from veritype._llama import RuntimeOptions, chat_template
from veritype.errors import GenerationError
from veritype.generation.local import load_generation_model

# Numbers from 1 to this are answers; 0 says that none of the sentences states the answer.
MAX_SENTENCES = 9

_SYSTEM = ("You are a careful reader. You say which sentence answers a question, and 0 when "
           "none of them states the answer.")


class SentenceReader:
    """Which of a few numbered sentences states the answer to a question, by a chat model
    whose answer is read from its first token, among the digits it may give."""

    def __init__(self, model_path: str | Path, **runtime: Unpack[RuntimeOptions]) -> None:
        self.model_path, self._model = load_generation_model(model_path, "the sentence reader",
                                                             **runtime)
        template = chat_template(self._model.llama)
        if template is None:
            raise GenerationError(f"the sentence reader needs a chat model: "
                                  f"{self.model_path.name} has no chat template")
        self._template = template
        llama = self._model.llama
        self._digits = [llama.tokenize(str(number).encode(), add_bos=False, special=False)
                        for number in range(MAX_SENTENCES + 1)]
        if any(len(tokens) != 1 for tokens in self._digits):
            raise GenerationError(f"the sentence reader needs a model that writes each digit "
                                  f"as one token, which {self.model_path.name} does not")

    def prompt(self, question: str, sentences: Sequence[str]) -> str:
        listing = "\n".join(f"{number}. {sentence}"
                            for number, sentence in enumerate(sentences, start=1))
        return self._template([
            {"role": "system", "content": _SYSTEM},
            {"role": "user", "content": (
                f"Question: {question.strip()}\n\nSentences:\n{listing}\n\nWhich sentence "
                "states the answer to the question? If no sentence states it, reply 0. Reply "
                "with the number only.")},
        ])

    def choose(self, question: str, sentences: Sequence[str]) -> int | None:
        """The index of the sentence that states the answer, or None when none does."""
        if not sentences:
            return None
        if len(sentences) > MAX_SENTENCES:
            raise GenerationError(f"the sentence reader reads at most {MAX_SENTENCES} "
                                  f"sentences, got {len(sentences)}")
        llama = self._model.llama
        tokens = llama.tokenize(self.prompt(question, sentences).encode("utf-8"),
                                add_bos=True, special=True)
        if len(tokens) >= llama.n_ctx():
            raise GenerationError(f"the reader's prompt has {len(tokens)} tokens but the "
                                  f"context holds {llama.n_ctx()}: pass a larger n_ctx")
        with self._model.lock:
            logits = self._model.evaluate_prompt(tokens)
        allowed = [self._digits[number][0] for number in range(len(sentences) + 1)]
        chosen = int(np.argmax(logits[allowed]))
        return None if chosen == 0 else chosen - 1
