import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veritype.cli import app

runner = CliRunner()
EVIDENCE = (
    "The Eiffel Tower in Paris was opened on 31 March 1889. It is 330 metres tall. "
    "The tower was built by the company of Gustave Eiffel for the World's Fair."
)


@pytest.fixture
def evidence_file(tmp_path: Path) -> Path:
    path = tmp_path / "eiffel.txt"
    path.write_text(EVIDENCE)
    return path


def test_generate_prints_the_draft_its_speed_and_its_claims(evidence_file: Path) -> None:
    result = runner.invoke(app, ["generate", "How tall is the Eiffel Tower?",
                                 "--evidence", str(evidence_file)])
    assert result.exit_code == 0, result.output
    assert "The Eiffel Tower in Paris was opened on 31 March 1889." in result.output
    assert "tokens/s" in result.output
    assert "Claims" in result.output and "0..54" in result.output


def test_generate_json_has_tokens_claims_and_exact_spans(evidence_file: Path) -> None:
    result = runner.invoke(app, ["generate", "Who built the tower?", "-e", str(evidence_file),
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["generator"] == "extractive" and data["draft"]
    for token in data["tokens"]:
        assert data["draft"][token["start"] : token["start"] + len(token["text"])] == (
            token["text"]
        )
    assert data["claims"]
    for claim in data["claims"]:
        assert data["draft"][claim["start"] : claim["end"]].rstrip(".") in data["draft"]
    assert data["evidence"][0]["text"] == EVIDENCE


@pytest.mark.slow
def test_generate_with_the_local_model(evidence_file: Path, smollm2_path: Path) -> None:
    result = runner.invoke(app, ["generate", "How tall is the Eiffel Tower?", "-e",
                                 str(evidence_file), "--generator", "local", "--model-path",
                                 str(smollm2_path), "--max-tokens", "16", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["generator"] == "local" and 1 <= len(data["tokens"]) <= 16
    assert all(token["entropy"] is not None for token in data["tokens"])


@pytest.mark.slow
def test_generate_retrieves_from_a_store(tmp_path: Path, evidence_file: Path) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    assert runner.invoke(app, ["ingest", str(evidence_file), "--store", store]).exit_code == 0
    result = runner.invoke(app, ["generate", "How tall is the Eiffel Tower?", "--store", store,
                                 "-k", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["evidence"] and "330 metres" in data["evidence"][0]["text"]


@pytest.mark.slow
def test_without_store_the_default_store_is_used(
    tmp_path: Path, evidence_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VERITYPE_STORE", str(tmp_path / "default.sqlite"))
    assert runner.invoke(app, ["ingest", str(evidence_file)]).exit_code == 0
    # The store is not empty, so the demo corpus is not ingested into it.
    result = runner.invoke(app, ["generate", "Who built the Eiffel Tower?", "-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [chunk["text"] for chunk in data["evidence"]] == [EVIDENCE]
    assert "Gustave Eiffel" in data["draft"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["generate", "Q?", "-k", "0"], "-k must be at least 1"),
        (["generate", "  "], "the question is empty"),
        (["generate", "Q?", "--generator", "oracle"], "unknown generator 'oracle'"),
        (["generate", "Q?", "--model-path", "m.gguf"], "--model-path does not apply"),
        (["generate", "Q?", "-g", "local", "--model-path", "missing.gguf"],
         "model file not found: missing.gguf"),
        (["generate", "Q?", "--temperature", "-1"], "temperature must lie in"),
        (["generate", "Q?", "-e", "missing.txt"], "missing.txt: no such file"),
        (["generate", "Q?", "-e", "x.txt", "--store", "s.sqlite"], "not both"),
    ],
)
def test_bad_input_exits_2_naming_the_problem(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2
    assert "error:" in result.output and message in " ".join(result.output.split())


@pytest.mark.needs_httpx
def test_an_unreachable_openai_server_exits_2_naming_its_url(
    evidence_file: Path, closed_port: int
) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    result = runner.invoke(app, ["generate", "Q?", "-e", str(evidence_file), "-g", "openai",
                                 "--base-url", url, "--model", "m"])
    assert result.exit_code == 2
    assert f"{url}/chat/completions" in " ".join(result.output.split())


@pytest.mark.slow
def test_tad_steers_the_local_model_to_the_right_sum(
    evidence_file: Path, smollm2_path: Path
) -> None:
    result = runner.invoke(app, ["generate", "What is 37 × 24? Answer with the number.",
                                 "-g", "local", "--tad", "--max-tokens", "12",
                                 "-e", str(evidence_file), "--json"])
    assert result.exit_code == 0, result.output
    guarded = json.loads(result.output)["guarded"]
    assert "888" in guarded["text"]
    steered = [step for step in guarded["interventions"] if "arithmetic" in step["guards"]]
    assert steered and all(0.0 <= step["safe_mass"] <= 1.0 for step in steered)
    off = runner.invoke(app, ["generate", "What is 37 × 24? Answer with the number.",
                              "-g", "local", "--tad", "--no-arithmetic", "--no-context",
                              "--no-kb", "--max-tokens", "12", "-e", str(evidence_file),
                              "--json"])
    assert json.loads(off.output)["guarded"]["interventions"] == []


def test_tad_needs_the_local_generator_and_a_readable_kb(evidence_file: Path) -> None:
    result = runner.invoke(app, ["generate", "Who built it?", "-e", str(evidence_file), "--tad"])
    assert result.exit_code == 2
    assert "does not apply to the extractive generator" in result.output
