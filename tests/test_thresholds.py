import pytest
from hypothesis import given
from hypothesis import strategies as st

from veritype.errors import ConfigurationError
from veritype.graph import EvidenceType, Status
from veritype.thresholds import Thresholds, status_of, type_claim


@pytest.mark.parametrize(
    ("tau", "tau_low"), [(0.0, 0.0), (1.2, 0.3), (0.5, 0.5), (0.5, 0.7), (0.8, -0.1)]
)
def test_invalid_thresholds_are_refused(tau: float, tau_low: float) -> None:
    with pytest.raises(ConfigurationError, match="tau"):
        Thresholds(tau=tau, tau_low=tau_low)


def test_bands() -> None:
    thresholds = Thresholds(tau=0.8, tau_low=0.3)
    assert type_claim(0.8, contradicted=False, thresholds=thresholds) is EvidenceType.VERIFIED
    assert type_claim(0.79, contradicted=False, thresholds=thresholds) is EvidenceType.UNCERTAIN
    assert type_claim(0.31, contradicted=False, thresholds=thresholds) is EvidenceType.UNCERTAIN
    assert type_claim(0.3, contradicted=False, thresholds=thresholds) is EvidenceType.UNSUPPORTED
    assert type_claim(0.0, contradicted=False, thresholds=Thresholds(0.5, 0.0)) is (
        EvidenceType.UNSUPPORTED
    )


@given(st.floats(0, 1))
def test_contradiction_overrides_any_score(score: float) -> None:
    thresholds = Thresholds()
    assert type_claim(score, contradicted=True, thresholds=thresholds) is EvidenceType.UNSUPPORTED
    assert status_of(score, contradicted=True, thresholds=thresholds) is Status.CONTRADICTED


@given(st.floats(0, 1), st.floats(0.01, 1))
def test_verified_iff_score_reaches_tau(score: float, tau: float) -> None:
    thresholds = Thresholds(tau=tau, tau_low=0.0)
    typed = type_claim(score, contradicted=False, thresholds=thresholds)
    assert (typed is EvidenceType.VERIFIED) == (score >= tau)
    assert (status_of(score, contradicted=False, thresholds=thresholds) is Status.ENTAILED) == (
        score >= tau
    )


def test_score_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="score"):
        type_claim(1.5, contradicted=False, thresholds=Thresholds())
