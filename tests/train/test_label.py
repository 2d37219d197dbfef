"""Distillation: a teacher's soft labels are written, continued, checked and trained on."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veritype.cli import app
from veritype.errors import DataError
from veritype.train.data import SOFT, Pair, soft_labels, target_weights

runner = CliRunner()
RECIPE = 'name = "{name}"\nseed = 5\nmax_length = 64\nbatch_size = 8\n[data]\n{data}\n'


def _recipe(tmp_path: Path, name: str, data: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(RECIPE.format(name=name, data=data))
    return path


def test_a_soft_label_weighs_the_classes_by_the_teachers_probabilities() -> None:
    assert target_weights(Pair("p", "h", "neutral", "s")) == (0.0, 1.0, 0.0, 0.0)
    assert target_weights(Pair("p", "h", "not_entailment", "s")) == (0.0, 0.0, 0.0, 1.0)
    assert target_weights(Pair("p", "h", SOFT, "s", (0.7, 0.2, 0.1))) == (0.7, 0.2, 0.1, 0.0)
    assert target_weights(Pair("p", "h", SOFT, "s", (0.25,))) == (0.25, 0.0, 0.0, 0.75)


@pytest.mark.needs_torch
def test_the_loss_of_a_one_hot_soft_label_is_the_hard_labels() -> None:
    import torch

    from veritype.train.trainer import pair_loss

    logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.3, 0.2]])
    hard = torch.tensor([target_weights(Pair("p", "h", "entailment", "s")),
                         target_weights(Pair("p", "h", "not_entailment", "s"))])
    soft = torch.tensor([target_weights(Pair("p", "h", SOFT, "s", (1.0, 0.0, 0.0))),
                         target_weights(Pair("p", "h", SOFT, "s", (0.0,)))])
    assert torch.allclose(pair_loss(logits, hard), pair_loss(logits, soft))
    expected = -(torch.log_softmax(logits[0], 0)[0]
                 + torch.logsumexp(torch.log_softmax(logits[1], 0)[1:], 0)) / 2
    assert torch.allclose(pair_loss(logits, hard), expected)


def test_bad_soft_labels_are_refused_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    rows = [{"premise": "p", "hypothesis": "h", "source": "snli_dev", "probabilities": [0.9]},
            {"premise": "p", "hypothesis": "h", "source": "snli_dev",
             "probabilities": [0.5, 0.5, 0.5]}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(DataError, match=r"labels.jsonl:2: probabilities must be"):
        soft_labels(path)


@pytest.mark.needs_torch
def test_labels_are_continued_checked_and_trained_on(tmp_path: Path, data_dir: Path) -> None:
    recipe = _recipe(tmp_path, "teach", 'nli_files = ["fracas_dev"]\nmax_pairs = 30')
    out = tmp_path / "labels.jsonl"
    base = ["train", "label", "--config", str(recipe), "--teacher", "nli", "--out", str(out),
            "--data-dir", str(data_dir)]
    first = runner.invoke(app, base)
    assert first.exit_code == 0, first.output
    assert "30 pairs labelled by nli" in first.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 30 and all(len(r["probabilities"]) == 3 for r in rows)
    assert all(abs(sum(r["probabilities"]) - 1.0) < 1e-3 for r in rows)
    # A killed run continues where its file ends.
    out.write_text("".join(json.dumps(r) + "\n" for r in rows[:12]))
    again = runner.invoke(app, base)
    assert again.exit_code == 0, again.output
    assert [json.loads(line) for line in out.read_text().splitlines()] == rows
    other = _recipe(tmp_path, "other", 'nli_files = ["rte_train_2way"]\nmax_pairs = 30')
    refused = runner.invoke(app, [*base[:3], str(other), *base[4:]])
    assert refused.exit_code == 2 and "labelled from another recipe" in refused.output

    from veritype.train.config import TrainConfig
    from veritype.train.trainer import Trainer

    student = _recipe(tmp_path, "student",
                      f'nli_files = ["fracas_train"]\nmax_pairs = 40\n'
                      f'soft_label_files = ["{out}"]')
    config = TrainConfig.load(student).model_copy(update={"output_dir": str(tmp_path / "runs")})
    final = Trainer(config, data_dir).train()
    assert (final / "config.json").is_file()
    counts = json.loads((config.run_dir / "data.json").read_text())["by_source"]
    assert any(source.endswith("(soft, labels)") for source in counts)
