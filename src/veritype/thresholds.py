"""Evidence typing: from an aggregate score and a contradiction flag to a claim's type.

Verified if score ≥ τ; Uncertain if τ' < score < τ; Unsupported if score ≤ τ'.
A contradiction found by a strong view makes the claim Unsupported, whatever its score.
"""

from __future__ import annotations

from dataclasses import dataclass

from veritype.errors import ConfigurationError, InputError
from veritype.graph import EvidenceType, Status


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The typing thresholds: ``tau`` (τ) for Verified, ``tau_low`` (τ') for Unsupported."""

    tau: float = 0.8
    tau_low: float = 0.3

    def __post_init__(self) -> None:
        if not 0.0 < self.tau <= 1.0:
            raise ConfigurationError(f"tau must satisfy 0 < tau <= 1, got tau={self.tau}")
        if not 0.0 <= self.tau_low < self.tau:
            raise ConfigurationError(
                f"tau_low must satisfy 0 <= tau_low < tau, got tau_low={self.tau_low}, "
                f"tau={self.tau}"
            )

    def band(self, score: float) -> EvidenceType:
        """The type a score alone earns."""
        if score >= self.tau:
            return EvidenceType.VERIFIED
        if score > self.tau_low:
            return EvidenceType.UNCERTAIN
        return EvidenceType.UNSUPPORTED


def type_claim(score: float, *, contradicted: bool, thresholds: Thresholds) -> EvidenceType:
    """The evidence type of a claim; contradiction overrides the score."""
    if not 0.0 <= score <= 1.0:
        raise InputError(f"score must lie in [0, 1], got {score}")
    if contradicted:
        return EvidenceType.UNSUPPORTED
    return thresholds.band(score)


def status_of(score: float, *, contradicted: bool, thresholds: Thresholds) -> Status:
    """z(v): entailed when the claim reaches τ, contradicted when a strong view says so."""
    if contradicted:
        return Status.CONTRADICTED
    if score >= thresholds.tau:
        return Status.ENTAILED
    return Status.UNKNOWN
