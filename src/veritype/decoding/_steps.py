"""What the truth-aware decoder records of its steps: the tokens guards refused, the steps
at which they changed what the model could say, its pick at each step, and which guards
could check a clause of the answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veritype.decoding._base import Coverage


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
    ``filter`` (only lower-ranked tokens were blocked), ``retry`` (the decoder backed off
    and the prompt was replaced through the ``retry`` callback) or ``abstain`` (backed off).
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


@dataclass(frozen=True, slots=True)
class ClauseCheck:
    """Which enabled guards could check one clause of an answer, and why."""

    clause: str
    coverage: tuple[Coverage, ...] = ()

    @property
    def checked(self) -> bool:
        return any(item.checked for item in self.coverage)

    @property
    def checked_by(self) -> tuple[str, ...]:
        return tuple(item.guard for item in self.coverage if item.checked)

    def to_dict(self) -> dict[str, Any]:
        return {"clause": self.clause, "checked": self.checked,
                "coverage": [item.to_dict() for item in self.coverage]}


@dataclass(frozen=True, slots=True)
class Choice:
    """The decoder's pick for one step: a token, or None when it must back off."""

    token_id: int | None
    safe_mass: float
