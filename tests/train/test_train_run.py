import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from veritype.models.cross_encoder import CrossEncoder
from veritype.train.card import read_floor

pytestmark = [pytest.mark.slow, pytest.mark.needs_torch]


def test_killed_run_resumes_and_exports_a_working_model(tiny_run: Path) -> None:
    log = (tiny_run / "train.log").read_text()
    assert "resumed at step" in log
    resumed_step = int(log.split("resumed at step ")[1].split()[0])
    assert resumed_step >= 2
    assert (tiny_run / "final" / "config.json").is_file()
    data = json.loads((tiny_run / "data.json").read_text())
    assert data["pairs"] == 240
    exported = tiny_run / "onnx"
    assert (exported / "model.onnx").stat().st_size < 30e6
    # Attention is fused before quantisation, so the int8 graph runs it as one op per layer.
    operators = [node.op_type for node in onnx.load(str(exported / "model.onnx")).graph.node]
    assert operators.count("QAttention") == 6
    assert "MatMulInteger" in operators
    metrics = json.loads((exported / "metrics.json").read_text())
    assert set(metrics["eval"]) == {"rte_dev_2way", "snli_test_2k"}
    assert metrics["int8_fp32_argmax_agreement"] >= 0.9
    name, pairs, floor = read_floor(exported / "model_card.md")
    assert (name, pairs) == ("mnli_dev_matched_3k", 200)
    assert 0.0 <= floor <= 1.0
    card = (exported / "model_card.md").read_text()
    assert "Base encoder: all-MiniLM-L6-v2 (Apache-2.0)" in card
    assert "Format: ONNX with fused attention, dynamic int8 quantisation" in card
    assert "Never trained on (evaluation only)" in card and "anli_r1_dev" in card
    encoder = CrossEncoder(exported)
    scores = encoder.predict(
        [
            ("A man plays a guitar.", "A man plays music."),
            ("A man plays a guitar.", "Nobody is playing."),
        ]
    )
    assert scores.shape == (2, 3)
    np.testing.assert_allclose(scores.sum(axis=1), 1.0, atol=1e-5)


def test_an_interrupted_run_is_not_overwritten_without_resume(
    tmp_path: Path, data_dir: Path
) -> None:
    from typer.testing import CliRunner

    from veritype.cli import app

    config = tmp_path / "tiny.toml"
    config.write_text('name = "tiny"\n[data]\nnli_files = ["fracas_dev"]\n')
    checkpoint = tmp_path / "runs" / "tiny" / "checkpoint.pt"
    checkpoint.parent.mkdir(parents=True)
    checkpoint.write_bytes(b"an earlier run's state")
    result = CliRunner().invoke(
        app,
        [
            "train",
            "verifier",
            "--config",
            str(config),
            "--data-dir",
            str(data_dir),
            "--output-dir",
            str(tmp_path / "runs"),
        ],
    )
    assert result.exit_code == 2
    assert "pass --resume" in result.output
    assert checkpoint.read_bytes() == b"an earlier run's state"


def test_frozen_embeddings_stay_as_the_base_model_had_them(
        tmp_path: Path, data_dir: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification

    from veritype.train.base_models import resolve_base_model
    from veritype.train.config import DataConfig, TrainConfig
    from veritype.train.trainer import Trainer

    config = TrainConfig(name="frozen", max_length=64, batch_size=8, epochs=1.0,
                         freeze_embeddings=True, output_dir=str(tmp_path),
                         data=DataConfig(nli_files=["fracas_dev"], max_pairs=24))
    final = Trainer(config, data_dir).train()
    base = AutoModelForSequenceClassification.from_pretrained(
        resolve_base_model(config.base_model), num_labels=3).state_dict()
    trained = AutoModelForSequenceClassification.from_pretrained(final).state_dict()
    embeddings = [name for name in trained if ".embeddings." in name]
    assert embeddings
    assert all(torch.equal(trained[name], base[name]) for name in embeddings)
    layer = "bert.encoder.layer.0.attention.self.query.weight"
    assert not torch.equal(trained[layer], base[layer])
