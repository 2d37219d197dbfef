"""What an exported model directory holds: ``model.onnx``, ``tokenizer.json`` and
``labels.json`` (the label of each output, in order), and how a checkpoint's labels are read
as the standard ones. Shared by the exporter that writes such a directory and the
cross-encoder that reads it."""

from __future__ import annotations

from collections.abc import Mapping

from veritype.errors import ModelError

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
LABELS_FILE = "labels.json"
STANDARD_LABELS = ("entailment", "neutral", "contradiction")

_ALIASES = {
    "entailment": "entailment",
    "entail": "entailment",
    "entailed": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradict": "contradiction",
    "contradicted": "contradiction",
    "not_entailment": "not_entailment",
    "non_entailment": "not_entailment",
    "not entailment": "not_entailment",
    "not-entailment": "not_entailment",
}


def normalise_labels(id2label: Mapping[int, str], *, where: str) -> list[str]:
    """The standard label of each output index, from a checkpoint's ``id2label``."""
    labels = []
    for index in range(len(id2label)):
        raw = id2label.get(index)
        label = _ALIASES.get(str(raw).strip().lower()) if raw is not None else None
        if label is None:
            raise ModelError(
                f"{where}: output {index} is labelled {raw!r}; an NLI model needs labels "
                "named entailment / neutral / contradiction (or not_entailment)"
            )
        labels.append(label)
    if "entailment" not in labels or len(set(labels)) != len(labels):
        raise ModelError(f"{where}: labels {labels} need exactly one entailment output")
    return labels
