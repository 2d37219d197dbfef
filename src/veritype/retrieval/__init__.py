"""Retrieval: sparse (BM25), dense (ONNX embeddings) and hybrid fusion."""

from veritype.errors import ModelError
from veritype.retrieval._base import (
    Retriever,
    ScoredChunk,
    available_retrievers,
    create_retriever,
    evidence_pack,
    register_retriever,
)
from veritype.retrieval.bm25 import BM25Index, BM25Retriever
from veritype.retrieval.dense import DenseRetriever
from veritype.retrieval.embedding import (
    DEFAULT_EMBEDDER,
    Embedder,
    OnnxEmbedder,
    available_embedders,
    create_embedder,
    register_embedder,
)
from veritype.retrieval.hybrid import DEFAULT_RRF_K, HybridRetriever

__all__ = [
    "DEFAULT_EMBEDDER",
    "DEFAULT_RRF_K",
    "BM25Index",
    "BM25Retriever",
    "DenseRetriever",
    "Embedder",
    "HybridRetriever",
    "ModelError",
    "OnnxEmbedder",
    "Retriever",
    "ScoredChunk",
    "available_embedders",
    "available_retrievers",
    "create_embedder",
    "create_retriever",
    "evidence_pack",
    "register_embedder",
    "register_retriever",
]
