from pathlib import Path

import pytest

from veritype.errors import ConfigurationError
from veritype.train.config import TrainConfig

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["nli", "align", "nli_large"])
def test_shipped_recipes_load(name: str) -> None:
    config = TrainConfig.load(ROOT / "configs" / f"{name}.toml")
    assert config.name == name
    assert config.eval_sets


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"\nbogus = 1\n', "unknown keys bogus"),
        ('name = "x"\n[data]\nhalueval = 3\n', r"\[data\]: unknown keys halueval"),
        ('name = "x"\nmax_length = 4\n', "max_length must lie in 16..512"),
        ('name = "x"\nlearning_rate = 2.0\n', "learning_rate"),
        ("name = [", "not valid TOML"),
    ],
)
def test_bad_configs_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigurationError, match=message):
        TrainConfig.load(path)


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot be read"):
        TrainConfig.load(tmp_path / "missing.toml")
