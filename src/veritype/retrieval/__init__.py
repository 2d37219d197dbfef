"""Retrieval: sparse (BM25), dense (ONNX embeddings), hybrid fusion and reranking."""

from veritype.retrieval._base import (
    Retriever,
    RetrieverError,
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
    EmbedderError,
    OnnxEmbedder,
    available_embedders,
    create_embedder,
    register_embedder,
)
from veritype.retrieval.hybrid import DEFAULT_RRF_K, HybridRetriever
from veritype.retrieval.rerank import (
    Reranker,
    RerankerRegistryError,
    RerankingRetriever,
    available_rerankers,
    create_reranker,
    register_reranker,
)

__all__ = [
    "DEFAULT_EMBEDDER",
    "DEFAULT_RRF_K",
    "BM25Index",
    "BM25Retriever",
    "DenseRetriever",
    "Embedder",
    "EmbedderError",
    "HybridRetriever",
    "OnnxEmbedder",
    "Reranker",
    "RerankerRegistryError",
    "RerankingRetriever",
    "Retriever",
    "RetrieverError",
    "ScoredChunk",
    "available_embedders",
    "available_rerankers",
    "available_retrievers",
    "create_embedder",
    "create_reranker",
    "create_retriever",
    "evidence_pack",
    "register_embedder",
    "register_reranker",
    "register_retriever",
]
