"""One verifier model on its own: HaluEval thresholds come from rows no shipped model read."""

from __future__ import annotations

from pathlib import Path

import pytest

from veritype.evaluation import model_quality
from veritype.evaluation.halueval import TRAINED_ROWS
from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir


@pytest.mark.slow
def test_halueval_thresholds_come_from_rows_no_model_was_trained_on(data_dir: Path) -> None:
    encoder = CrossEncoder(shipped_model_dir("nli"))
    result = model_quality.halueval(encoder.predict, data_dir, 10)
    assert set(result) == {"qa", "dialogue", "summarization"}
    # align read qa rows 0–7999, so qa calibrates on a split of the evaluation rows.
    assert TRAINED_ROWS["qa"]["align"] == (0, 8000)
    assert "rows 8000–9999" in result["qa"]["calibration"]
    for task in ("dialogue", "summarization"):
        assert result[task]["calibration"].startswith("rows 7000–7999")
    for figures in result.values():
        assert 0.0 <= figures["accuracy"] <= 1.0 and figures["examples"] > 0
