"""Truth-aware decoding for ``transformers`` models: a ``LogitsProcessor`` over the guards.

Use it with greedy ``generate``; each row of the batch has its own decoder, so a batch of
prompts is guarded independently. A row whose decoder backs off is ended (forced to the
end-of-sequence token); its ``halt_reason`` says why. ``max_new_tokens`` ends a row where it
falls: only ``guarded_generate`` looks past the token limit to check the clause it cuts.

    processor = TransformersGuardProcessor(tokenizer, guards, prompts)
    model.generate(**inputs, do_sample=False, logits_processor=LogitsProcessorList([processor]))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import LogitsProcessor, PreTrainedTokenizerBase

from veritype.decoding._base import Guard
from veritype.decoding._decision import TruthAwareDecoder, answer_context
from veritype.errors import DecodingError


class TransformersGuardProcessor(LogitsProcessor):
    """Leaves, in every row, only the token that row's ``TruthAwareDecoder`` chose."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        guards: Sequence[Guard],
        prompts: Sequence[str],
        *,
        top_k: int = 40,
    ) -> None:
        if tokenizer.eos_token_id is None:
            raise DecodingError("the tokenizer has no end-of-sequence token to end a row with")
        self.end_token = int(tokenizer.eos_token_id)
        self.decoders = [
            TruthAwareDecoder(
                guards,
                token_bytes=lambda token: str(
                    tokenizer.decode([token], clean_up_tokenization_spaces=False)
                ).encode("utf-8"),
                is_end=lambda token: token == self.end_token,
                top_k=top_k,
            )
            for _ in prompts
        ]
        for decoder, prompt in zip(self.decoders, prompts, strict=True):
            decoder.start(answer_context(prompt))
        self._prompt_length: int | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> Any:
        if input_ids.shape[0] != len(self.decoders):
            raise DecodingError(
                f"the processor was built for {len(self.decoders)} prompts, "
                f"got a batch of {input_ids.shape[0]}"
            )
        if self._prompt_length is None:
            self._prompt_length = int(input_ids.shape[1])
        masked = torch.full_like(scores, -float("inf"))
        rows = scores.detach().float().cpu().numpy()
        for row, decoder in enumerate(self.decoders):
            for token in input_ids[row, self._prompt_length + decoder.step :].tolist():
                decoder.accept(int(token))
            if decoder.halted:
                masked[row, self.end_token] = 0.0
                continue
            choice = decoder.choose(rows[row])
            masked[row, self.end_token if choice.token_id is None else choice.token_id] = 0.0
        return masked
