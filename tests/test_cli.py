import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from veritype import Claim, EvidencePack
from veritype.aggregate import LearnedAggregator, create_aggregator, recommended_thresholds
from veritype.views import LexicalSupportView, NumericConsistencyView

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "eiffel"


def veritype(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "veritype", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_verify_bundled_example_prints_the_typed_table() -> None:
    result = veritype(
        "verify",
        "--evidence",
        str(EXAMPLE / "evidence.txt"),
        "--answer-file",
        str(EXAMPLE / "answer.txt"),
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    rows = {
        line.split("\u2502")[1].strip(): line
        for line in out.splitlines()
        if line.startswith("\u2502 c")
    }
    assert "Verified" in rows["c1"] and "[1]" in rows["c1"]
    # A wrong height and an unmentioned paint job are both Unsupported, neither cited; the
    # height is contradicted (numeric finds 330 metres in its place, a decisive rule).
    assert "Unsupported" in rows["c2"] and "[1]" not in rows["c2"]
    assert "Contradicted by the evidence: “The Eiffel Tower is 300 metres tall.”" in out
    assert "Unsupported" in rows["c3"] and "[1]" not in rows["c3"]
    assert "Answer: The Eiffel Tower opened on March 31, 1889, in Paris [1]." in out
    assert "[1] evidence.txt" in out and "opened on 31 March 1889" in out
    tau, tau_low = recommended_thresholds(create_aggregator("default"))
    assert (f"Verified at support ≥ τ = {tau:.4g}; Unsupported at ≤ τ' = {tau_low:.4g} or when "
            "contradicted; Uncertain between.") in " ".join(out.split())
    # No question: the confidence counts every claim, and there is no corpus to search.
    assert "(1 of 3 claims shown)" in out
    assert "on the question" not in out and "Try searching for" not in out


def test_piped_output_is_wider_than_80_columns_unless_columns_says_otherwise() -> None:
    command = [sys.executable, "-m", "veritype", "verify", "--evidence",
               str(EXAMPLE / "evidence.txt"), "--answer-file", str(EXAMPLE / "answer.txt")]
    environment = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    piped = subprocess.run(command, capture_output=True, text=True, timeout=120,
                           env=environment)
    widths = [len(line) for line in piped.stdout.splitlines()]
    assert piped.returncode == 0, piped.stderr
    assert 80 < max(widths) <= 120
    narrow = subprocess.run(command, capture_output=True, text=True, timeout=120,
                            env={**environment, "COLUMNS": "60"})
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 60


def test_verify_json_report() -> None:
    result = veritype(
        "verify",
        "-e",
        str(EXAMPLE / "evidence.txt"),
        "--answer",
        "The tower is 330 metres tall.",
        "--json",
        "--tau",
        "0.7",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # τ as given; τ' unset, so the default aggregator's: both are stated.
    assert report["tau"] == 0.7
    assert report["tau_low"] == recommended_thresholds(create_aggregator("default"))[1]
    claim = report["grounded"]["claims"][0]
    assert claim["type"] == "verified"
    assert claim["citations"][0]["quote"].startswith("The tower is 330 metres tall")
    assert report["graph"]["format"] == "veritype.esbg"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--evidence", "missing.txt", "--answer", "x y z"], "missing.txt: no such file"),
        (["--evidence", "{bin}", "--answer", "The tower is tall."], "looks like a binary file"),
        (["--evidence", "{latin}", "--answer", "The tower is tall."], "not valid UTF-8"),
        (["--evidence", "{ok}", "--answer", "   "], "the answer is empty"),
        (["--evidence", "{ok}"], "exactly one of --answer"),
        (["--evidence", "{ok}", "--answer", "x", "--tau", "1.5"], "tau must satisfy"),
        (
            ["--evidence", "{ok}", "--answer", "x", "--tau", "0.5", "--tau-low", "0.6"],
            "tau_low must satisfy",
        ),
        (["--evidence", "{ok}", "--answer", "x", "--views", "oracle"], "unknown view 'oracle'"),
        (["--evidence", "{empty}", "--answer", "The tower is tall."], "evidence file is empty"),
        (["--evidence", "{ok}", "--answer", "x", "--aggregator", "magic"], "unknown aggregator"),
        (["--evidence", "{ok}", "--answer", "x", "--aggregator", "learned"], "needs path="),
        (["--evidence", "{ok}", "--answer", "x", "--aggregator", "learned", "--aggregator-file",
          "gone.json"], "gone.json: cannot be read"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(
    tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9")
    (tmp_path / "ok.txt").write_text("The tower is tall.")
    (tmp_path / "empty.txt").write_text("")
    files = {"bin": "bin.dat", "latin": "latin.txt", "ok": "ok.txt", "empty": "empty.txt"}
    resolved = [str(tmp_path / files[a[1:-1]]) if a.startswith("{") else a for a in args]
    result = veritype("verify", *resolved)
    assert result.returncode == 2
    assert message in " ".join(result.stderr.split())


@pytest.mark.parametrize(
    ("option", "message"),
    [
        # The view's own refusals: the option reached it.
        ("numeric.bogus=1", "view 'numeric': NumericConsistencyView.__init__() got an "
                            "unexpected keyword argument 'bogus'"),
        ("numeric.cost=-1", "view 'numeric': cost must be >= 0, got -1"),
        ("judge.judge=openai", "view_options names views that are not configured: judge"),
        ("numeric", "--view-option must look like VIEW.KEY=VALUE"),
    ],
)
def test_verify_gives_a_view_option_to_its_view(option: str, message: str) -> None:
    result = veritype("verify", "-e", str(EXAMPLE / "evidence.txt"), "--answer",
                      "The tower is 330 metres tall.", "--views", "numeric",
                      "--view-option", option)
    assert result.returncode == 2
    assert message in " ".join(result.stderr.split())


def test_verify_takes_its_views_and_their_options_from_a_config_file(tmp_path: Path) -> None:
    config = tmp_path / "verify.toml"
    config.write_text('views = ["numeric"]\n\n[view_options.numeric]\ncost = -1\n')
    args = ["verify", "-e", str(EXAMPLE / "evidence.txt"), "--answer",
            "The tower is 330 metres tall.", "--config", str(config), "--json"]
    refused = veritype(*args)
    assert refused.returncode == 2
    assert "view 'numeric': cost must be >= 0, got -1" in refused.stderr
    # An option given on the command line wins over the file's.
    result = veritype(*args, "--view-option", "numeric.cost=0.5")
    assert result.returncode == 0, result.stderr
    claim = json.loads(result.stdout)["grounded"]["claims"][0]
    assert [view["name"] for view in claim["views"]] == ["numeric"]
    assert claim["type"] == "verified"


def test_schema_command_prints_the_contract() -> None:
    result = veritype("schema")
    assert result.returncode == 0
    assert json.loads(result.stdout)["title"] == "GroundedAnswer"


def test_verify_with_a_fitted_learned_aggregator(tmp_path: Path) -> None:
    evidence = EvidencePack.from_texts([(EXAMPLE / "evidence.txt").read_text()])
    views = [NumericConsistencyView(), LexicalSupportView()]
    labelled = [
        ("The tower is 330 metres tall.", True),
        ("The Eiffel Tower is in Paris.", True),
        ("Gustave Eiffel designed the tower.", True),
        ("The tower is 300 metres tall.", False),
        ("The tower opened in 1900.", False),
        ("The tower is made of glass in Rome.", False),
    ]
    results = [
        [view.verify(Claim(f"c{i}", text), evidence) for view in views]
        for i, (text, _label) in enumerate(labelled)
    ]
    model = LearnedAggregator.fit(results, [label for _text, label in labelled], l2=1e-3)
    path = tmp_path / "aggregator.json"
    model.save(path)
    result = veritype("verify", "-e", str(EXAMPLE / "evidence.txt"), "--json",
                      "--answer", "The tower is 330 metres tall. The tower opened in 1950.",
                      "--aggregator", "learned", "--aggregator-file", str(path))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["aggregator"] == "LearnedAggregator"
    first, second = report["grounded"]["claims"]
    assert first["type"] == "verified"
    assert first["support"] > 0.8
    assert second["type"] == "unsupported"


def test_ask_answers_from_a_store_with_cited_claims_and_json(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    (tmp_path / "eiffel.txt").write_text((EXAMPLE / "evidence.txt").read_text())
    assert veritype("ingest", str(tmp_path / "eiffel.txt"), "--store", store).returncode == 0
    result = veritype("ask", "When was the Eiffel Tower opened?", "--store", store)
    assert result.returncode == 0, result.stderr
    assert "Answer:" in result.stdout and "31 March 1889" in result.stdout
    assert "Confidence:" in result.stdout
    assert re.search(r"trace [0-9a-f]{32}", result.stdout)
    as_json = veritype("ask", "When was the Eiffel Tower opened?", "--store", store, "--json",
                       "--top-k", "2")
    grounded = json.loads(as_json.stdout)
    rendered = [claim for claim in grounded["claims"] if claim["rendered"]]
    assert rendered and all(claim["citations"] for claim in rendered)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["   "], "query: must not be empty"),
        (["tower", "--filter", "colour"], "--filter takes KEY=VALUE"),
        (["tower", "--contradicted", "hide"], "contradicted:"),
        (["tower", "--views", "nli,telepathy"], "unknown view 'telepathy'"),
        (["tower", "--model-path", "no-such.gguf"], "--model-path no-such.gguf: no such model"),
        (["tower", "--model-path", __file__, "-g", "extractive"],
         "--model-path drafts with the local generator, but the generator is 'extractive'"),
        (["tower", "--reader-model", "no-such.gguf"],
         "--reader-model no-such.gguf: no such model"),
        (["tower", "--reader-model", __file__, "-g", "local"],
         "--reader-model reads the extractive drafter's sentences, but the generator is 'local'"),
    ],
)
def test_ask_refuses_bad_input_naming_the_problem(
    tmp_path: Path, args: list[str], problem: str
) -> None:
    result = veritype("ask", *args, "--store", f"sqlite:///{tmp_path / 's.sqlite'}")
    assert result.returncode == 2
    assert problem in result.stderr


@pytest.mark.parametrize(
    "command",
    [["ask", "When did the tower open?"], ["search", "tower"], ["documents", "list"],
     ["documents", "show", "some-id"], ["generate", "When did the tower open?"]],
)
def test_a_read_command_refuses_a_store_that_does_not_exist(
    tmp_path: Path, command: list[str]
) -> None:
    missing = tmp_path / "nowhere" / "store.sqlite"
    result = veritype(*command, "--store", str(missing))
    assert result.returncode == 2
    assert result.stderr.strip() == f"error: no store at {missing}; run `veritype ingest` first"
    assert not missing.parent.exists()  # nothing was created on the way


def test_ingest_creates_the_store_a_reader_then_opens(tmp_path: Path) -> None:
    store = tmp_path / "new" / "store.sqlite"
    assert veritype("ingest", str(EXAMPLE / "evidence.txt"), "--store", str(store)).returncode == 0
    listed = veritype("documents", "list", "--store", str(store))
    assert listed.returncode == 0 and "evidence.txt" in listed.stdout


@pytest.mark.parametrize("url", ["mysql://localhost/db", "ftp://host/store"])
def test_an_unknown_store_scheme_is_one_line_naming_the_known_ones(url: str) -> None:
    result = veritype("ask", "When did the tower open?", "--store", url)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "unknown store URL scheme" in lines[0] and "sqlite://" in lines[0]
