"""Ingest engines by name: the local engine is the plain ingest, unknown names and Ray
options without Ray are refused before any store is touched."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from veritype.cli import app
from veritype.errors import UnknownComponentError
from veritype.ingest import Corpus, available_ingest_engines, create_ingest_engine
from veritype.store import Chunking, IndexSpec

LAYOUT = [IndexSpec("bm25", "bm25", Chunking(max_chars=300))]


def test_the_engines_are_local_and_ray_and_an_unknown_one_is_named() -> None:
    assert available_ingest_engines() == ["local", "ray"]
    with pytest.raises(UnknownComponentError, match=r"unknown engine 'spark'; known engines: "
                                                    r"local, ray"):
        create_ingest_engine("spark")


def test_the_local_engine_ingests_as_a_corpus_does_without_one(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Mount Etna erupted in 2021. Its lava reached the sea.")
    reports, stored = [], []
    for name, engine in (("plain", None), ("local", create_ingest_engine("local"))):
        with Corpus.open(f"sqlite:///{tmp_path / name}.sqlite", indexes=LAYOUT,
                         index_dir=tmp_path / name) as corpus:
            reports.append(corpus.ingest([tmp_path / "a.txt"], engine=engine))
            stored.append([(r.doc_id, r.document.text) for r in corpus.store.documents()])
    assert [(r.files, r.added, r.chunks) for r in reports] == [(1, 1, 1), (1, 1, 1)]
    assert stored[0] == stored[1] and len(stored[0]) == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--engine", "spark"], "unknown engine 'spark'; known engines: local, ray"),
        (["--workers", "2"], "--address and --workers need --engine ray"),
        (["--address", "auto"], "--address and --workers need --engine ray"),
        (["--engine", "ray", "--workers", "0"], "Invalid value for '--workers'"),
    ],
)
def test_bad_engine_options_fail_and_leave_the_store_as_it_was(
    tmp_path: Path, options: list[str], message: str
) -> None:
    (tmp_path / "a.txt").write_text("Mount Etna erupted in 2021.")
    (tmp_path / "b.txt").write_text("Mount Fuji is in Japan.")
    store = tmp_path / "store.sqlite"
    runner = CliRunner()
    first = runner.invoke(app, ["ingest", str(tmp_path / "a.txt"), "--store", str(store)])
    assert first.exit_code == 0, first.output
    before = store.read_bytes()
    result = runner.invoke(app, ["ingest", str(tmp_path / "b.txt"), "--store", str(store),
                                 *options])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert store.read_bytes() == before
    never = tmp_path / "never.sqlite"
    assert runner.invoke(app, ["ingest", str(tmp_path / "b.txt"), "--store", str(never),
                               *options]).exit_code == 2
    assert not never.exists()
