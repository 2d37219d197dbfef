"""BM25, dense and hybrid retrieval over a small real corpus."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from veritype.errors import UnknownComponentError
from veritype.ingest import Corpus
from veritype.retrieval import (
    BM25Index,
    HybridRetriever,
    available_retrievers,
    create_retriever,
    evidence_pack,
)
from veritype.store import Chunking, IndexSpec

SMALL = Chunking(max_chars=60)
LAYOUT = [
    IndexSpec("bm25", "bm25", SMALL),
    IndexSpec("dense", "dense", SMALL, model="minilm"),
    IndexSpec("bm25-whole", "bm25", Chunking(max_chars=5000)),
]
TEXTS = [
    "The Eiffel Tower opened in 1889. It stands in Paris and is 330 metres tall.",
    "Honeybees communicate through a waggle dance. The dance points to flowers.",
    "Penicillin was discovered by Alexander Fleming in 1928. It treats infections.",
    "The Amazon river carries more water than any other river on Earth.",
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    folder = tmp_path_factory.mktemp("corpus")
    opened = Corpus.open(f"sqlite:///{folder / 'store.sqlite'}", indexes=LAYOUT)
    opened.ingest_texts(TEXTS, titles=["Tower", "Bees", "Penicillin", "Amazon"])
    yield opened
    opened.close()


def test_bm25_finds_the_exact_sentence_span(corpus: Corpus) -> None:
    hit = corpus.retrieve("Who discovered penicillin?", 1, retriever="bm25")[0]
    assert hit.title == "Penicillin"
    assert hit.chunk.text == "Penicillin was discovered by Alexander Fleming in 1928."
    record = corpus.store.document(hit.chunk.doc_id)
    assert record is not None
    assert record.document.text[hit.span.start : hit.span.end] == hit.chunk.text


def test_bm25_leaves_out_chunks_without_a_shared_term(corpus: Corpus) -> None:
    assert corpus.retrieve("zeppelin quasar", 5, retriever="bm25") == []
    assert len(corpus.retrieve("the", 5, retriever="bm25")) == 0


def test_dense_matches_meaning_without_shared_words(corpus: Corpus) -> None:
    hits = corpus.retrieve("insects signalling where food is", 2, retriever="dense")
    assert hits[0].title == "Bees"
    assert hits[0].score > hits[1].score


def test_two_indexes_can_chunk_differently(corpus: Corpus) -> None:
    small = corpus.retrieve("Eiffel Tower height", 1, retriever="bm25")[0]
    whole = corpus.retrieve("Eiffel Tower height", 1, retriever="bm25-whole")[0]
    assert small.chunk.text != whole.chunk.text == TEXTS[0]
    assert small.chunk.chunk_id.split(":")[1] != whole.chunk.chunk_id.split(":")[1]


def test_hybrid_is_weighted_reciprocal_rank_fusion(corpus: Corpus) -> None:
    bm25, dense = corpus.retriever("bm25"), corpus.retriever("dense")
    query = "Where does the tower stand?"
    hybrid = HybridRetriever([bm25, dense], weights=[2.0, 1.0], rrf_k=10, depth=20)
    fused = hybrid.retrieve(query, 3)
    sparse_ranks = {hit.key: rank for rank, hit in enumerate(bm25.retrieve(query, 20), 1)}
    dense_ranks = {hit.key: rank for rank, hit in enumerate(dense.retrieve(query, 20), 1)}
    for hit in fused:
        expected = 0.0
        if hit.key in sparse_ranks:
            expected += 2.0 / (10 + sparse_ranks[hit.key])
        if hit.key in dense_ranks:
            expected += 1.0 / (10 + dense_ranks[hit.key])
        assert hit.score == pytest.approx(expected)
    assert [hit.score for hit in fused] == sorted((hit.score for hit in fused), reverse=True)
    assert fused[0].chunk.text == "It stands in Paris and is 330 metres tall."


def test_hybrid_batch_equals_single_queries(corpus: Corpus) -> None:
    queries = ["penicillin discovery", "largest river flow"]
    batch = corpus.retrieve_batch(queries, 3)
    assert batch == [corpus.retrieve(query, 3) for query in queries]
    pack = evidence_pack(batch[0])
    assert pack.has_chunk(batch[0][0].chunk.chunk_id)


def test_bad_hybrid_settings_and_unknown_names_are_refused(corpus: Corpus) -> None:
    bm25 = corpus.retriever("bm25")
    with pytest.raises(ValueError, match="2 weights for 1 retrievers"):
        HybridRetriever([bm25], weights=[1.0, 1.0])
    with pytest.raises(ValueError, match="not all 0"):
        HybridRetriever([bm25], weights=[0.0])
    with pytest.raises(UnknownComponentError,
                       match="known retrievers: bm25, dense, bm25-whole, hybrid"):
        corpus.retriever("nope")
    assert {"bm25", "dense", "hybrid"} <= set(available_retrievers())
    built = create_retriever("bm25", store=corpus.store, index=LAYOUT[0])
    assert built.retrieve("Fleming", 1)[0].title == "Penicillin"


def test_the_bm25_index_is_saved_and_reloaded_until_the_store_changes(
    corpus: Corpus, tmp_path: Path
) -> None:
    spec = LAYOUT[0]
    folder = BM25Index.folder(corpus.store, spec)
    assert (folder / "state.json").exists()
    loaded = BM25Index.load(folder, corpus.store.generation())
    assert loaded is not None and loaded.chunk_ids == BM25Index.build(corpus.store, spec).chunk_ids
    assert BM25Index.load(folder, corpus.store.generation() + 1) is None


_REFRESH_SCRIPT = """
import sys
from pathlib import Path
from veritype.retrieval import BM25Index
from veritype.store import Chunking, IndexSpec, open_store
store = open_store(sys.argv[1], index_dir=Path(sys.argv[2]))
print(len(BM25Index.refresh(store, IndexSpec("bm25", "bm25", Chunking(max_chars=60))).chunk_ids))
"""


@pytest.mark.slow
def test_replicas_sharing_an_index_folder_refresh_it_together(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    with Corpus.open(url, indexes=LAYOUT[:1], index_dir=tmp_path / "writer") as corpus:
        corpus.ingest_texts([f"{text} Copy {n}." for n in range(300) for text in TEXTS])
        chunks = corpus.store.count_chunks(SMALL)
    # Replicas of a service started in one folder share it, and all find it out of date.
    replicas = [
        subprocess.Popen([sys.executable, "-c", _REFRESH_SCRIPT, url, str(tmp_path / "shared")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outcomes = [replica.communicate(timeout=120) for replica in replicas]
    assert [(out.strip(), err[-500:]) for out, err in outcomes] == [(str(chunks), "")] * 4


def test_a_store_whose_chunks_hold_no_term_has_an_empty_bm25_index(tmp_path: Path) -> None:
    with Corpus.open(f"sqlite:///{tmp_path / 'store.sqlite'}", indexes=LAYOUT[:1]) as corpus:
        corpus.ingest_texts(["0", "The and of."])
        assert BM25Index.build(corpus.store, LAYOUT[0]).chunk_ids == []
        assert corpus.retrieve("0", 5, retriever="bm25") == []
