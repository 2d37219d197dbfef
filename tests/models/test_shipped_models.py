from pathlib import Path

import pytest

from veritype.models.cross_encoder import SHIPPED_MODELS, CrossEncoder, shipped_model_dir
from veritype.train.card import accuracy, load_eval_set, read_floor


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_shipped_model_meets_the_floor_in_its_card(name: str, data_dir: Path) -> None:
    directory = shipped_model_dir(name)
    assert (directory / "model.onnx").stat().st_size <= 30 * 1024 * 1024
    eval_set, count, floor = read_floor(directory / "model_card.md")
    pairs = load_eval_set(data_dir, eval_set, count)
    assert len(pairs) == count
    scores = CrossEncoder(directory).predict([(p.premise, p.hypothesis) for p in pairs])
    assert accuracy(scores, [p.label for p in pairs]) >= floor


def test_core_import_and_model_views_load_without_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, veritype; from veritype.views import create_view; "
        "create_view('nli'); create_view('align'); print('torch' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
