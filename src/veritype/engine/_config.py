"""What the engine is made of: components by registry name, thresholds, budget, retrieval."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from veritype.aggregate import DEFAULT_VIEWS
from veritype.answers.scoring import DEFAULT_ANSWER_SCORER
from veritype.errors import ConfigurationError
from veritype.settings import Settings, check_view_options


class EngineConfig(Settings):
    """What the engine is made of. Components are chosen by their registry names.

    ``EngineConfig.load(path)``: defaults < TOML file < ``VERITYPE_*`` environment variables
    (every field but the option tables) < overrides."""

    env_fields: ClassVar[tuple[str, ...]] = (
        "store", "generator", "views", "aggregator", "aggregator_file", "tau", "tau_low",
        "budget", "k", "claim_k", "contradicted", "refine_depth", "mode", "max_tokens",
        "relevance", "relevance_floor", "answer_model", "demo", "trace_ttl", "max_traces",
    )

    store: str | None = None
    generator: str = "extractive"
    generator_options: dict[str, Any] = Field(default_factory=dict)
    views: list[str] = Field(default_factory=lambda: list(DEFAULT_VIEWS))
    # Options of each view by name, e.g. {"judge": {"judge": "openai", "base_url": ...}}.
    view_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    aggregator: str = "default"
    aggregator_file: Path | None = None
    # None: the thresholds the aggregator was calibrated for (0.8 / 0.3 for the vote).
    tau: float | None = None
    tau_low: float | None = None
    budget: float | None = None
    k: int = Field(default=3, ge=1, le=100)
    claim_k: int = Field(default=3, ge=1, le=50)
    contradicted: Literal["drop", "flag", "correct"] = "drop"
    refine_depth: int = Field(default=1, ge=0, le=4)
    mode: Literal["brief", "detailed"] = "brief"
    max_tokens: int = Field(default=96, ge=1, le=4096)
    relevance: bool = True
    relevance_floor: float = Field(default=0.35, ge=0.0, le=1.0)
    # The answer scorer (``veritype.answers.scoring``) by name or model directory: the extractive
    # drafter ranks sentences by it, and a claim answers the question by it or by the rules.
    # "none": the rules alone.
    answer_model: str = DEFAULT_ANSWER_SCORER
    demo: bool = False
    # Trace retention, applied after each saved trace; None keeps every trace.
    trace_ttl: float | None = Field(default=None, gt=0, description="Seconds a trace is kept.")
    max_traces: int | None = Field(default=None, ge=0, description="Newest traces kept.")

    @field_validator("views")
    @classmethod
    def _some_views(cls, views: list[str]) -> list[str]:
        if not views or len(set(views)) != len(views):
            raise ConfigurationError("give one or more distinct view names")
        return views

    @model_validator(mode="after")
    def _options_of_configured_views(self) -> EngineConfig:
        check_view_options(self.view_options, self.views)
        return self


