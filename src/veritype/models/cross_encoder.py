"""An NLI cross-encoder on onnxruntime + tokenizers: no torch at inference time.

A model directory holds ``model.onnx``, ``tokenizer.json`` and ``labels.json`` (the label
of each output, in order). Scores come back as probabilities in the fixed order
entailment, neutral, contradiction, whatever the model's own order; a 2-way model's
not_entailment mass is reported as neutral.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from veritype._onnx import quiet_threads
from veritype.deadline import checkpoint
from veritype.errors import ModelError
from veritype.models.model_files import (
    LABELS_FILE,
    MODEL_FILE,
    STANDARD_LABELS,
    TOKENIZER_FILE,
    normalise_labels,
)
from veritype.settings import model_cache_dir

SHIPPED_MODELS = ("nli", "align")
# Cross-encoders that ship for another question than NLI: ``answers`` reads
# (question, sentence) as P(the sentence answers the question).
SHIPPED_SCORERS = ("answers",)


def shipped_model_dir(name: str) -> Path:
    """The directory of a model that ships inside the package (``nli``, ``align``, ``answers``)."""
    if name not in (*SHIPPED_MODELS, *SHIPPED_SCORERS):
        raise ModelError(f"no shipped model {name!r}; shipped models: "
                         f"{', '.join((*SHIPPED_MODELS, *SHIPPED_SCORERS))}")
    return Path(str(resources.files("veritype.models").joinpath(name)))


def model_directory(name_or_path: str, *, cache_dir: Path | None = None) -> Path:
    """A directory holding an ONNX model for ``name_or_path``, exporting one if needed.

    Accepts a shipped model name, an exported model directory, or any Hugging Face
    sequence-classification NLI checkpoint by path or hub id; the last is exported to
    ONNX int8 once (needs the ``train`` extra) and kept in ``cache_dir``.
    """
    if name_or_path in (*SHIPPED_MODELS, *SHIPPED_SCORERS):
        return shipped_model_dir(name_or_path)
    path = Path(name_or_path)
    if (path / MODEL_FILE).is_file():
        return path
    cache = cache_dir or model_cache_dir()
    target = cache / re.sub(r"[^A-Za-z0-9_.-]+", "--", name_or_path.strip("/"))
    if (target / MODEL_FILE).is_file():
        return target
    try:
        from veritype.models.export import export_onnx
    except ImportError as error:
        raise ModelError(
            f"{name_or_path!r} is not an exported model directory; exporting a Hugging Face "
            f'checkpoint needs the train extra (pip install "veritype[train]"): {error}'
        ) from None
    try:
        export_onnx(name_or_path, target)
    except (OSError, ValueError) as error:
        # A failed export leaves nothing half-written in the user's cache.
        shutil.rmtree(target, ignore_errors=True)
        raise ModelError(
            f"{name_or_path!r} is neither an exported model directory (no {MODEL_FILE}) nor a "
            f"Hugging Face checkpoint that can be exported: {error}"
        ) from None
    return target


def dynamically_quantised(model_file: Path) -> bool:
    """Whether the graph quantises its activations at run time (one scale per run)."""
    import onnx

    graph = onnx.load(str(model_file), load_external_data=False).graph
    return any(node.op_type == "DynamicQuantizeLinear" for node in graph.node)


class CrossEncoder:
    """Scores (premise, hypothesis) pairs with an ONNX NLI model.

    The same pair always gets the same scores. A dynamically quantised (int8) graph scales
    its activations by the largest value in the whole run, so a pair's scores would depend on
    the pairs batched with it: such a model scores each pair in a run of its own, which on 2
    cores costs 14-28% of the pairs/s of batches of 8, where 4-6% of pairs changed their
    label with their batch-mates (``benchmarks/determinism.py``). Other graphs take batches of
    ``batch_size`` pairs sorted by length. Scores are kept in an LRU cache keyed by the pair,
    so re-verifying a claim against the same evidence is free.
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        *,
        threads: int = 2,
        batch_size: int | None = None,
        max_length: int = 256,
        cache_size: int = 8192,
    ) -> None:
        """``batch_size``: pairs per run; by default 1 for a dynamically quantised graph
        (so that scores do not depend on batch-mates) and 8 otherwise."""
        directory = Path(model_dir)
        for required in (MODEL_FILE, TOKENIZER_FILE, LABELS_FILE):
            if not (directory / required).is_file():
                raise ModelError(f"{directory}: missing {required}")
        if batch_size is None:
            batch_size = 1 if dynamically_quantised(directory / MODEL_FILE) else 8
        if batch_size < 1 or threads < 1 or max_length < 8 or cache_size < 0:
            raise ModelError(
                "batch_size and threads must be >= 1, max_length >= 8, cache_size >= 0"
            )
        raw_labels = json.loads((directory / LABELS_FILE).read_text(encoding="utf-8"))
        labels = normalise_labels(dict(enumerate(raw_labels)), where=str(directory))
        # Column of each standard label in the model's output; not_entailment counts as neutral.
        self._columns = {label: i for i, label in enumerate(labels)}
        if "not_entailment" in self._columns:
            self._columns["neutral"] = self._columns.pop("not_entailment")
        self.directory = directory
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length, strategy="longest_first")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        quiet_threads(options)
        self._session = ort.InferenceSession(
            str(directory / MODEL_FILE), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._output = self._session.get_outputs()[0].name
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()

    def predict(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Probabilities, one row per pair, columns entailment / neutral / contradiction."""
        out = np.zeros((len(pairs), len(STANDARD_LABELS)), dtype=np.float32)
        todo: dict[tuple[str, str], list[int]] = {}
        for row, pair in enumerate(pairs):
            cached = self._cache.get(pair)
            if cached is not None:
                self._cache.move_to_end(pair)
                out[row] = cached
            else:
                todo.setdefault(pair, []).append(row)
        if todo:
            unique = list(todo)
            for pair, scores in zip(unique, self._score(unique), strict=True):
                out[todo[pair]] = scores
                self._remember(pair, scores)
        return out

    def clear_cache(self) -> None:
        self._cache.clear()

    def _remember(self, pair: tuple[str, str], scores: np.ndarray) -> None:
        if self.cache_size == 0:
            return
        self._cache[pair] = scores
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _score(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(pairs)
        order = sorted(range(len(pairs)), key=lambda i: len(encodings[i].ids))
        result = np.zeros((len(pairs), len(STANDARD_LABELS)), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            checkpoint("the next model batch")
            batch = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            feeds = {
                name: np.zeros((len(batch), width), dtype=np.int64)
                for name in ("input_ids", "attention_mask", "token_type_ids")
            }
            for row, index in enumerate(batch):
                encoding = encodings[index]
                length = len(encoding.ids)
                feeds["input_ids"][row, :length] = encoding.ids
                feeds["attention_mask"][row, :length] = 1
                feeds["token_type_ids"][row, :length] = encoding.type_ids
            (logits,) = self._session.run([self._output], {n: feeds[n] for n in self._inputs})
            probabilities = _softmax(np.asarray(logits, dtype=np.float32))
            for label_index, label in enumerate(STANDARD_LABELS):
                column = self._columns.get(label)
                if column is not None:
                    result[batch, label_index] = probabilities[:, column]
        return result


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=1, keepdims=True), dtype=np.float32)
