"""Fine-tune a 3-way NLI cross-encoder, with checkpoints, resume and a progress ETA.

The head predicts entailment / neutral / contradiction. A 2-way ``not_entailment``
pair is trained on log(p_neutral + p_contradiction), so 2-way data teaches what is
not entailed without pretending to know which of the two it is.
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from veritype.errors import ConfigurationError, DataError
from veritype.progress import Progress
from veritype.train import data as datasets
from veritype.train.answer_data import (
    answer_sentence_pairs,
    sibling_question_pairs,
    squad2_answer_pairs,
)
from veritype.train.base_models import resolve_base_model
from veritype.train.config import TrainConfig
from veritype.train.data import LABELS, Pair

log = logging.getLogger("veritype.train")
CHECKPOINT = "checkpoint.pt"
FINAL = "final"
# Shuffled pairs are grouped by length within windows of this many batches: less padding,
# still random across windows.
_LENGTH_WINDOW = 50


def fresh_classifier(base: str) -> Any:
    """The base encoder with a new, untrained 3-way head labelled as veritype's models."""
    return AutoModelForSequenceClassification.from_pretrained(
        base,
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )


def assemble(config: TrainConfig, data_dir: Path) -> list[Pair]:
    """All training pairs of ``config``, shuffled with its seed and capped."""
    rng = random.Random(config.seed)
    spec = config.data
    pairs = datasets.nli_pool(data_dir, spec.nli_files)
    for task, rows in (
        ("qa", spec.halueval_qa),
        ("dialogue", spec.halueval_dialogue),
        ("summarization", spec.halueval_summarization),
    ):
        if rows:
            pairs += datasets.halueval(data_dir, task, rows)
    if spec.halueval_answers:
        pairs += answer_sentence_pairs(data_dir, spec.halueval_answers, rng)
    if spec.squad2_answers:
        pairs += squad2_answer_pairs(data_dir, rng) * spec.squad2_answers
    if spec.sibling_questions:
        pairs += sibling_question_pairs(data_dir, spec.sibling_questions, rng)
    if spec.scifact:
        pairs += datasets.scifact(data_dir, rng)
    if spec.synthetic_scifact_docs:
        documents = datasets.scifact_abstracts(data_dir)
        documents = rng.sample(documents, min(spec.synthetic_scifact_docs, len(documents)))
        pairs += datasets.synthetic(documents, rng, spec.synthetic_per_document,
                                    "synthetic_scifact", tuple(spec.synthetic_kinds))
    if spec.synthetic_halueval_rows:
        documents = datasets.halueval_texts(data_dir, spec.synthetic_halueval_rows)
        pairs += datasets.synthetic(documents, rng, spec.synthetic_per_document,
                                    "synthetic_halueval", tuple(spec.synthetic_kinds))
    for path in spec.soft_label_files:
        pairs += datasets.soft_labels(Path(path))
    if not pairs:
        raise DataError(f"training config {config.name!r} selects no data")
    rng.shuffle(pairs)
    if spec.max_pairs:
        pairs = pairs[: spec.max_pairs]
    return pairs


def _batches(lengths: Sequence[int], batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    order = list(range(len(lengths)))
    random.Random(seed * 1000 + epoch).shuffle(order)
    window = batch_size * _LENGTH_WINDOW
    batches: list[list[int]] = []
    for start in range(0, len(order), window):
        group = sorted(order[start : start + window], key=lengths.__getitem__)
        batches += [group[i : i + batch_size] for i in range(0, len(group), batch_size)]
    random.Random(seed * 1000 + epoch + 1).shuffle(batches)
    return batches


def pair_loss(logits: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Mean negative log-likelihood: ``weights`` (pairs × 4, from ``target_weights``) weigh
    log p(entailment), log p(neutral), log p(contradiction) and log p(not entailed). A class
    label is one weight of 1; a soft label spreads its teacher's probabilities."""
    log_probs = torch.log_softmax(logits, dim=-1)
    not_entailed = torch.logsumexp(log_probs[:, 1:], dim=-1)
    loss = -(weights[:, :3] * log_probs).sum(dim=-1) - weights[:, 3] * not_entailed
    return loss.mean()


class Trainer:
    """Runs one training config to a final checkpoint under ``config.run_dir``."""

    def __init__(self, config: TrainConfig, data_dir: Path) -> None:
        self.config = config
        self.data_dir = data_dir
        self.run_dir = config.run_dir
        torch.set_num_threads(config.threads)
        torch.manual_seed(config.seed)
        self.base = resolve_base_model(config.base_model)
        self.tokenizer: Any = AutoTokenizer.from_pretrained(self.base)

    def _encode(self, pairs: Sequence[Pair]) -> dict[str, list[list[int]]]:
        encoded = self.tokenizer(
            [p.premise for p in pairs],
            [p.hypothesis for p in pairs],
            truncation="longest_first",
            max_length=self.config.max_length,
        )
        # Some encoders (MPNet, RoBERTa) take no token type ids.
        return {key: list(encoded[key]) for key in ("input_ids", "token_type_ids")
                if key in encoded}

    def _collate(
        self, encoded: dict[str, list[list[int]]], batch: list[int]
    ) -> dict[str, torch.Tensor]:
        width = max(len(encoded["input_ids"][i]) for i in batch)
        ids = torch.full((len(batch), width), self.tokenizer.pad_token_id, dtype=torch.long)
        types = torch.zeros_like(ids)
        mask = torch.zeros_like(ids)
        for row, index in enumerate(batch):
            tokens = encoded["input_ids"][index]
            ids[row, : len(tokens)] = torch.tensor(tokens)
            if "token_type_ids" in encoded:
                types[row, : len(tokens)] = torch.tensor(encoded["token_type_ids"][index])
            mask[row, : len(tokens)] = 1
        inputs = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in encoded:
            inputs["token_type_ids"] = types
        return inputs

    def train(self, *, resume: bool = False, progress: Progress | None = None) -> Path:
        """Train to the end of the schedule (``progress`` hears of every step); returns the
        directory of the final model."""
        config = self.config
        self.run_dir.mkdir(parents=True, exist_ok=True)
        checkpoint_path = self.run_dir / CHECKPOINT
        if checkpoint_path.exists() and not resume:
            raise ConfigurationError(
                f"{checkpoint_path} exists: pass --resume to continue that run, or remove it"
            )
        pairs = assemble(config, self.data_dir)
        counts: dict[str, int] = {}
        for pair in pairs:
            counts[pair.source] = counts.get(pair.source, 0) + 1
        (self.run_dir / "data.json").write_text(
            json.dumps(
                {"pairs": len(pairs), "by_source": counts, "config": config.model_dump()}, indent=2
            )
        )
        log.info("assembled %d pairs: %s", len(pairs), counts)
        encoded = self._encode(pairs)
        targets = torch.tensor([datasets.target_weights(p) for p in pairs])
        lengths = [len(ids) for ids in encoded["input_ids"]]
        per_epoch = math.ceil(len(pairs) / config.batch_size)
        total_steps = max(1, math.ceil(per_epoch * config.epochs))

        model = fresh_classifier(self.base)
        if config.freeze_embeddings:
            for name, parameter in model.named_parameters():
                if ".embeddings." in name:
                    parameter.requires_grad_(False)
        trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
        no_decay = ("bias", "LayerNorm.weight")
        groups = [
            {
                "params": [p for n, p in trained if not n.endswith(no_decay)],
                "weight_decay": config.weight_decay,
            },
            {
                "params": [p for n, p in trained if n.endswith(no_decay)],
                "weight_decay": 0.0,
            },
        ]
        optimizer = torch.optim.AdamW(groups, lr=config.learning_rate)
        warmup = int(total_steps * config.warmup_ratio)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer,
            lambda step: min(
                (step + 1) / max(1, warmup),
                max(0.0, (total_steps - step) / max(1, total_steps - warmup)),
            ),
        )
        step = 0
        if resume and checkpoint_path.exists():
            state = torch.load(checkpoint_path, weights_only=False)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            scheduler.load_state_dict(state["scheduler"])
            step = int(state["step"])
            torch.set_rng_state(state["torch_rng"])
            log.info("resumed at step %d of %d", step, total_steps)

        model.train()
        started, started_step, running = time.monotonic(), step, 0.0
        task = progress.start(config.name, total_steps, completed=step) if progress else 0
        while step < total_steps:
            epoch, offset = divmod(step, per_epoch)
            batches = _batches(lengths, config.batch_size, config.seed, epoch)
            for batch in batches[offset:]:
                if step >= total_steps:
                    break
                inputs = self._collate(encoded, batch)
                loss = pair_loss(model(**inputs).logits, targets[batch])
                loss.backward()  # type: ignore[no-untyped-call]
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                step += 1
                running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
                if progress is not None:
                    progress.advance(task)
                    progress.describe(task, f"{config.name} loss {running:.3f}")
                if step % 50 == 0 or step == total_steps:
                    rate = (
                        (step - started_step) * config.batch_size / (time.monotonic() - started)
                    )
                    eta = (total_steps - step) * config.batch_size / max(rate, 1e-9)
                    log.info(
                        "step %d/%d loss %.4f %.1f pairs/s eta %.0f min",
                        step,
                        total_steps,
                        running,
                        rate,
                        eta / 60,
                    )
                if step % config.checkpoint_every == 0:
                    self._checkpoint(checkpoint_path, model, optimizer, scheduler, step)
        final = self.run_dir / FINAL
        model.save_pretrained(final)
        self.tokenizer.save_pretrained(final)
        self._checkpoint(checkpoint_path, model, optimizer, scheduler, step)
        log.info("saved final model to %s", final)
        return final

    @staticmethod
    def _checkpoint(
        path: Path,
        model: Any,
        optimizer: torch.optim.Optimizer,
        scheduler: torch.optim.lr_scheduler.LambdaLR,
        step: int,
    ) -> None:
        # Written beside and renamed, so a kill mid-write never leaves a torn checkpoint.
        partial = path.with_suffix(".partial")
        torch.save(
            {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(),
                "step": step,
                "torch_rng": torch.get_rng_state(),
            },
            partial,
        )
        partial.replace(path)
