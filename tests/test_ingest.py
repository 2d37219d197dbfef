"""Reading files of every supported format, walking folders, and the corpus CLI commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veritype.cli import app
from veritype.ingest import (
    Corpus,
    RecordFields,
    UnreadableFileError,
    collect_files,
    demo_corpus_path,
    read_file,
)
from veritype.store import Chunking, IndexSpec

BM25_ONLY = [IndexSpec("bm25", "bm25", Chunking(max_chars=200))]


def make_pdf(lines: list[str]) -> bytes:
    """A one-page PDF with real text drawn in Helvetica."""
    content = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) Tj T*" for line in lines)
    content += " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


def test_a_damaged_pdf_warns_through_the_ingest_report_not_on_stderr(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    pdf = make_pdf(["Volcanoes erupt lava."])
    cut = pdf.rindex(b"startxref")
    (tmp_path / "damaged.pdf").write_bytes(pdf[:cut] + b"startxref\n9999\n%%EOF\n")
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    result = runner.invoke(app, ["ingest", str(tmp_path / "damaged.pdf"), "--store", store])
    assert result.exit_code == 0, result.output
    assert "1 documents added" in result.stdout
    assert "warning:" in result.output and "incorrect startxref pointer" in result.output
    assert "incorrect startxref" not in capfd.readouterr().err


def test_plain_markdown_and_html_files_become_one_document_each(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Plain words here.")
    (tmp_path / "b.md").write_text("Intro line.\n\n# The Heading\n\nBody text.")
    (tmp_path / "c.html").write_text(
        "<html><head><title> Page  Title </title><style>p{}</style></head>"
        "<body><script>var x = 1;</script><p>First &amp; second.</p><div>Third.</div></body>"
        "</html>"
    )
    plain = read_file(tmp_path / "a.txt").documents[0]
    assert (plain.text, plain.title, plain.media_type) == (
        "Plain words here.",
        "a.txt",
        "text/plain",
    )
    assert plain.source == str((tmp_path / "a.txt").resolve())
    assert read_file(tmp_path / "b.md").documents[0].title == "The Heading"
    html = read_file(tmp_path / "c.html").documents[0]
    assert html.text == "First & second.\n\nThird."
    assert html.title == "Page Title"


def test_pdf_text_is_extracted_page_by_page(tmp_path: Path) -> None:
    (tmp_path / "paper.pdf").write_bytes(make_pdf(["Volcanoes erupt lava.", "Etna is in Sicily."]))
    document = read_file(tmp_path / "paper.pdf").documents[0]
    assert "Volcanoes erupt lava." in document.text and "Etna is in Sicily." in document.text
    assert document.media_type == "application/pdf"


def test_a_broken_pdf_is_unreadable_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    with pytest.raises(UnreadableFileError, match="PDF"):
        read_file(tmp_path / "broken.pdf")


def test_jsonl_rows_with_list_text_ids_and_row_warnings(tmp_path: Path) -> None:
    rows = [
        {"doc_id": 7, "title": "Seven", "abstract": ["First sentence.", "Second one."]},
        {"doc_id": 8, "title": "Eight"},
        {"doc_id": 7, "title": "Again", "abstract": "Duplicate id."},
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n{not json\n")
    contents = read_file(path)
    assert [(d.text, d.title) for d in contents.documents] == [
        ("First sentence. Second one.", "Seven")
    ]
    assert contents.documents[0].source.endswith("rows.jsonl#7")
    assert len(contents.row_warnings) == 3
    assert any("invalid JSON" in warning and ":4:" in warning for warning in contents.row_warnings)


def test_csv_with_a_named_text_field(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text('key,body,heading\nk1,"Cats purr, mostly.",Cats\nk2,Dogs bark.,Dogs\n')
    contents = read_file(path, RecordFields(text="body", title="heading", identifier="key"))
    assert [(d.text, d.title) for d in contents.documents] == [
        ("Cats purr, mostly.", "Cats"),
        ("Dogs bark.", "Dogs"),
    ]
    with pytest.raises(UnreadableFileError, match="no row has usable text"):
        read_file(path, RecordFields(text="missing"))


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("binary.txt", b"\x00\x01\x02binary", "binary"),
        ("latin1.txt", "caf\xe9".encode("latin-1"), "not valid UTF-8"),
        ("empty.md", b"   \n", "empty"),
    ],
)
def test_unreadable_files_name_the_reason(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(UnreadableFileError, match=reason):
        read_file(tmp_path / name)


def test_folders_are_walked_with_include_and_exclude_globs(tmp_path: Path) -> None:
    for name in (
        "a.txt",
        "sub/b.md",
        "sub/deep/c.html",
        "sub/drafts/d.md",
        ".hidden/e.txt",
        "image.png",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    files, missing = collect_files([tmp_path, tmp_path / "nope.txt"])
    names = sorted(path.relative_to(tmp_path).as_posix() for path in files)
    assert names == ["a.txt", "sub/b.md", "sub/deep/c.html", "sub/drafts/d.md"]
    assert [item.reason for item in missing] == ["no such file or directory"]
    files, _ = collect_files([tmp_path], include=["*.md"], exclude=["sub/drafts/*"])
    assert [path.name for path in files] == ["b.md"]


def test_a_bad_file_is_skipped_and_the_rest_is_ingested(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.txt").write_text("The Eiffel Tower is 330 metres tall.")
    (folder / "bad.txt").write_bytes(b"\x00\x01\x02\x03\x04binary")
    with Corpus.open(f"sqlite:///{tmp_path / 's.sqlite'}", indexes=BM25_ONLY) as corpus:
        corpus.ingest_texts(["Kept from before."], sources=["earlier"])
        report = corpus.ingest([folder])
        assert report.added == 1
        assert [(Path(s.path).name, s.reason) for s in report.skipped] == [
            ("bad.txt", "looks like a binary file, not text")
        ]
        assert corpus.store.count_documents() == 2
        assert corpus.retrieve("Eiffel", 1, retriever="bm25")[0].title == "good.txt"


def test_a_text_file_with_a_stray_nul_ingests_and_a_renamed_image_does_not(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_bytes(b"The tower is 330 metres tall.\x00 It opened in 1889.")
    (folder / "notes.md").write_bytes(b"# Bridge\n\nThe bridge\x00 opened in 1937.\n")
    (folder / "rows.csv").write_bytes(b"title,text\nCats,\"Cats\x00 purr at night.\"\n")
    (folder / "photo.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    with Corpus.open(f"sqlite:///{tmp_path / 's.sqlite'}", indexes=BM25_ONLY) as corpus:
        report = corpus.ingest([folder])
        assert report.added == 3
        assert [(Path(s.path).name, s.reason) for s in report.skipped] == [
            ("photo.txt", "looks like a PNG image, not text")
        ]
        assert sum("NUL" in warning for warning in report.warnings) == 3
        texts = {record.document.title: record.document.text
                 for record in corpus.store.documents(limit=10, offset=0)}
    assert texts["notes.txt"] == "The tower is 330 metres tall.  It opened in 1889."
    assert texts["Cats"] == "Cats  purr at night."


def test_the_demo_corpus_is_small_licensed_and_ingests(tmp_path: Path) -> None:
    path = demo_corpus_path()
    assert path.stat().st_size < 1_000_000
    assert "ODC-By" in (path.parent / "NOTICE").read_text()
    rows = read_file(path).documents
    assert 200 <= len(rows) <= 500
    with Corpus.open(f"sqlite:///{tmp_path / 's.sqlite'}", indexes=BM25_ONLY) as corpus:
        assert corpus.ensure_demo() is not None
        assert corpus.ensure_demo() is None
        assert corpus.store.count_documents() == len(rows)


runner = CliRunner()


def test_cli_ingest_list_show_delete(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tower.txt").write_text("The Eiffel Tower opened in 1889. It is in Paris.")
    (folder / "junk.txt").write_bytes(b"\x00binary")
    store = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    result = runner.invoke(app, ["ingest", str(folder), "--store", store, "--chunk-chars", "40"])
    assert result.exit_code == 0, result.output
    assert "1 documents added" in result.stdout
    assert "skipped" in result.output and "junk.txt" in result.output

    listed = runner.invoke(app, ["documents", "list", "--store", store, "--json"])
    assert listed.exit_code == 0
    row = json.loads(listed.stdout.splitlines()[0])
    assert row["title"] == "tower.txt" and row["chunks"] == 2

    shown = runner.invoke(app, ["documents", "show", row["doc_id"], "--store", store, "--chunks"])
    assert shown.exit_code == 0 and "It is in Paris." in shown.stdout
    assert "0" in shown.stdout and "32" in shown.stdout

    found = runner.invoke(
        app, ["search", "When did the tower open?", "--store", store, "--json", "-k", "1"]
    )
    assert found.exit_code == 0, found.output
    hit = json.loads(found.stdout)[0]
    assert hit["text"] == "The Eiffel Tower opened in 1889."
    assert (hit["start"], hit["end"]) == (0, 32)

    assert runner.invoke(app, ["documents", "show", "nope", "--store", store]).exit_code == 2
    deleted = runner.invoke(app, ["documents", "delete", row["doc_id"], "--store", store])
    assert deleted.exit_code == 0 and "Deleted 1 document." in deleted.stdout
    assert (
        runner.invoke(app, ["documents", "delete", row["doc_id"], "--store", store]).exit_code == 2
    )


def test_cli_ingest_of_nothing_readable_exits_2_and_creates_no_store(tmp_path: Path) -> None:
    (tmp_path / "junk.txt").write_bytes(b"\x00binary")
    store = tmp_path / "cli.sqlite"
    result = runner.invoke(app, ["ingest", str(tmp_path / "missing.txt"),
                                 str(tmp_path / "junk.txt"), "--store", f"sqlite:///{store}",
                                 "--chunk-chars", "40"])
    assert result.exit_code == 2
    assert "missing.txt" in result.output and "no such file" in result.output
    assert "junk.txt" in result.output and "2 files skipped" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["junk.txt"]


def test_cli_ingest_of_nothing_readable_leaves_a_store_as_it_was(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    (tmp_path / "note.txt").write_text("The bridge opened in 1937.")
    assert runner.invoke(app, ["ingest", str(tmp_path / "note.txt"), "--store", store]
                         ).exit_code == 0
    result = runner.invoke(app, ["ingest", str(tmp_path / "missing.txt"), "--store", store])
    assert result.exit_code == 2 and "The store holds 1 documents." in result.output


def test_cli_refuses_a_bad_store_url_and_unknown_retriever(tmp_path: Path) -> None:
    bad = runner.invoke(app, ["documents", "list", "--store", "mongodb://x"])
    assert bad.exit_code == 2 and "unknown store URL scheme" in bad.output
    store = f"sqlite:///{tmp_path / 'cli.sqlite'}"
    (tmp_path / "note.txt").write_text("The bridge opened in 1937.")
    ingested = runner.invoke(app, ["ingest", str(tmp_path / "note.txt"), "--store", store])
    assert ingested.exit_code == 0
    result = runner.invoke(app, ["search", "x", "--store", store, "--retriever", "magic"])
    assert result.exit_code == 2 and "unknown retriever 'magic'" in result.output


def test_traces_prune_deletes_the_oldest_and_reports_what_remains(tmp_path: Path) -> None:
    from veritype.store import open_store

    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    with open_store(url) as store:
        for number in range(4):
            store.save_trace(f"t{number}", "ask", {"n": number})
    pruned = runner.invoke(app, ["traces", "prune", "--store", url, "--keep", "1"])
    assert pruned.exit_code == 0, pruned.output
    assert "Deleted 3 traces; 1 remain." in pruned.stdout
    aged = runner.invoke(app, ["traces", "prune", "--store", url, "--older-than", "30d"])
    assert aged.exit_code == 0 and "Deleted 0 traces; 1 remain." in aged.stdout
    bad = runner.invoke(app, ["traces", "prune", "--store", url, "--older-than", "soon"])
    assert bad.exit_code == 2 and "not a duration" in bad.output
    assert runner.invoke(app, ["traces", "prune", "--store", url]).exit_code == 2


def test_a_big_documents_embedding_shows_its_progress_in_slices() -> None:
    import io

    import numpy as np
    from rich.console import Console

    from veritype._cli import rich_progress
    from veritype.ingest.pipeline import EMBED_SLICE, _embed_slices
    from veritype.retrieval.embedding import create_embedder

    embedder = create_embedder("minilm")
    texts = [f"Sample {n} of the river." for n in range(EMBED_SLICE + 40)]
    calls: list[int] = []

    def embed(batch: object) -> np.ndarray:
        calls.append(len(batch))  # type: ignore[arg-type]
        return embedder.embed_batch(batch)  # type: ignore[arg-type]

    screen = io.StringIO()
    with rich_progress(Console(file=screen, force_terminal=True, width=100)) as progress:
        vectors = _embed_slices(embed, texts, progress, "  embedding for dense")
    assert calls == [EMBED_SLICE, 40]
    assert vectors.shape == (len(texts), embedder.dimensions)
    assert "embedding for dense" in screen.getvalue()
    alone = embedder.embed_batch(texts[-3:])
    assert np.allclose(vectors[-3:], alone, atol=0.02)


def test_texts_ingested_in_separate_calls_without_sources_are_all_kept(tmp_path: Path) -> None:
    with Corpus.open(f"sqlite:///{tmp_path / 's.sqlite'}", indexes=BM25_ONLY) as corpus:
        corpus.ingest_texts(["Alan Turing proposed the Turing test in 1950."])
        corpus.ingest_texts(["Rosalind Franklin died in 1958."])
        again = corpus.ingest_texts(["Rosalind Franklin died in 1958."])
        assert corpus.store.count_documents() == 2
        assert again.unchanged == 1
        hit = corpus.retrieve("Turing test", 1, retriever="bm25")[0]
        assert "1950" in hit.chunk.text
