"""The model card names a licence for every training source and the sets never trained on."""

from pathlib import Path

import pytest

from veritype.errors import DataError
from veritype.train.card import licence_of


def test_every_file_of_the_training_pool_has_a_licence_entry(data_dir: Path) -> None:
    sources = sorted(path.name.removesuffix(".jsonl")
                     for path in (data_dir / "nli" / "train").glob("*.jsonl"))
    assert len(sources) >= 20
    for source in sources:
        assert licence_of(source)


def test_the_most_specific_entry_names_a_source() -> None:
    assert "CC BY-NC 2.0" in licence_of("scifact_train_2way")
    assert "CC BY 4.0" in licence_of("scifact_corpus")


def test_a_source_without_a_licence_entry_is_refused() -> None:
    with pytest.raises(DataError, match="'wanli_train' has no licence entry"):
        licence_of("wanli_train")
