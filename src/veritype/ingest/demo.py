"""The bundled demo corpus, with the vectors of its chunks computed once and shipped beside it.

A new user's first ``ask`` fills an empty store with the demo corpus, and on a small CPU
embedding its chunks is most of that wait. The vectors ship in ``scifact_demo.vectors.npz``,
keyed by the SHA-256 of the encoder file that computed them and by each chunk's text, one file
per family of int8 kernels (``veritype._cpu.int8_kernels``: x86 CPUs with and without VNNI
compute different vectors from the same int8 graph). They are used only where the encoder in
use is that same file with the same truncation, on a CPU of the same family: the default
embedder runs one text per session run, so a text's vector does not depend on what else is
embedded, and a shipped vector is the one the encoder would compute. Any other encoder
(another model, or another onnxruntime deriving another int8 graph) or CPU family embeds as
usual.

``write_demo_vectors(demo_vectors_path(), DEFAULT_INDEXES)`` writes this CPU family's file
anew; a test says when it is stale.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from veritype._cpu import int8_kernels
from veritype.retrieval.embedding import Embedder, OnnxEmbedder, create_embedder
from veritype.store import IndexSpec, Vectors

_DEMO = resources.files("veritype") / "data" / "demo"


def demo_corpus_path() -> Path:
    """The bundled demo corpus: SciFact abstracts as JSON Lines (see its NOTICE)."""
    return Path(str(_DEMO / "scifact_demo.jsonl"))


def demo_vectors_path() -> Path:
    """The shipped vectors of the demo corpus's chunks for this CPU's family of int8 kernels
    (see the module's docstring)."""
    return Path(str(_DEMO / f"scifact_demo.vectors.{int8_kernels()}.npz"))


def encoder_digest(embedder: Embedder) -> str | None:
    """The SHA-256 of the ONNX file ``embedder`` runs, if it runs one."""
    if not isinstance(embedder, OnnxEmbedder):
        return None
    return hashlib.sha256(embedder.model_path.read_bytes()).hexdigest()


def _text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class KnownVectors:
    """An embedder that gives the shipped vector of a text it knows and embeds the others
    with ``base``."""

    def __init__(self, base: Embedder, known: dict[bytes, Vectors]) -> None:
        self.base = base
        self.known = known
        self.name = base.name
        self.dimensions = base.dimensions

    def embed(self, text: str) -> Vectors:
        return np.asarray(self.embed_batch([text])[0], dtype=np.float32)

    def embed_batch(self, texts: Sequence[str]) -> Vectors:
        keys = [_text_key(text) for text in texts]
        unknown = [i for i, key in enumerate(keys) if key not in self.known]
        result = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for i, key in enumerate(keys):
            if key in self.known:
                result[i] = self.known[key]
        if unknown:
            result[unknown] = self.base.embed_batch([texts[i] for i in unknown])
        return result


def shipped_embedders(indexes: Sequence[IndexSpec], path: Path | None = None
                      ) -> dict[str, Embedder]:
    """For each dense index of ``indexes`` whose encoder is the one that computed the shipped
    vectors (at ``path``, default :func:`demo_vectors_path`) on a CPU of this one's family,
    an embedder that reads them."""
    path = path or demo_vectors_path()
    if not path.is_file():
        return {}
    with np.load(path, allow_pickle=False) as bundle:
        model, encoder = str(bundle["model"]), str(bundle["encoder"])
        max_tokens = int(bundle["max_tokens"])
        if str(bundle["int8_kernels"]) != int8_kernels():
            return {}
        known = dict(zip((bytes(key) for key in bundle["keys"]),
                         np.asarray(bundle["vectors"], dtype=np.float32), strict=True))
    embedders: dict[str, Embedder] = {}
    for spec in indexes:
        if spec.kind != "dense" or spec.model != model or spec.max_tokens != max_tokens:
            continue
        base = create_embedder(spec.model, max_tokens=spec.max_tokens)
        if encoder_digest(base) == encoder:
            embedders[spec.name] = KnownVectors(base, known)
    return embedders


def write_demo_vectors(path: Path, indexes: Sequence[IndexSpec]) -> int:
    """Ingest the demo corpus under ``indexes`` (the default layout: ``DEFAULT_INDEXES``),
    write the vectors of its chunks for their dense index to ``path`` with the encoder's
    digest, and return how many there are."""
    from veritype.ingest.pipeline import Ingestor
    from veritype.store import open_store

    (spec,) = [spec for spec in indexes if spec.kind == "dense"]
    with tempfile.TemporaryDirectory() as scratch:
        store = open_store(f"sqlite:///{scratch}/demo.sqlite")
        try:
            Ingestor(store, indexes).ingest([demo_corpus_path()])
            ids, vectors = store.vectors(spec)
            chunks = store.chunks(ids)
        finally:
            store.close()
    by_key = {_text_key(chunks[chunk_id].index_text): vector
              for chunk_id, vector in zip(ids, vectors, strict=True)}
    keys = sorted(by_key)
    encoder = encoder_digest(create_embedder(spec.model, max_tokens=spec.max_tokens))
    np.savez_compressed(
        path, model=np.array(spec.model), encoder=np.array(encoder),
        int8_kernels=np.array(int8_kernels()),
        max_tokens=np.array(spec.max_tokens),
        keys=np.array(keys, dtype="S32"),
        vectors=np.stack([by_key[key] for key in keys]).astype(np.float32))
    return len(keys)
