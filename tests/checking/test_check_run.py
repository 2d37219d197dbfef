"""Run directories: a stopped check continues where it stopped; another check is refused;
the Ray engine gives the local engine's results."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from veritype.checking import CheckSettings, check_file
from veritype.checking._run import ROWS
from veritype.errors import InputError

FIELDS = ("line", "claims", "faithfulness", "verdict")


def _stored(out: Path) -> list[dict[str, object]]:
    entries = [json.loads(line) for line in (out / ROWS).read_text().splitlines()]
    return sorted(({k: e.get(k) for k in (*FIELDS, "problem")} for e in entries),
                  key=lambda e: int(str(e["line"])))


def test_a_check_continues_after_a_torn_write(rows_file: Path, tmp_path: Path) -> None:
    full = check_file(rows_file, tmp_path / "full", block_rows=2)
    out = tmp_path / "partial"
    first = check_file(rows_file, out, block_rows=2)
    assert first.checked_now == 5
    # A kill in the middle of a write: keep two whole lines and half of the third.
    lines = (out / ROWS).read_bytes().splitlines(keepends=True)
    (out / ROWS).write_bytes(b"".join(lines[:2]) + lines[2][: len(lines[2]) // 2])
    seen: list[tuple[int, int]] = []
    second = check_file(rows_file, out, block_rows=2,
                        on_start=lambda total, done: seen.append((total, done)))
    assert seen == [(6, 2)]
    assert second.checked_now == 3, "rows 3, 4 and 5; row 6 is the bad one"
    assert [r.to_dict() | {"seconds": 0} for r in second.rows] == [
        r.to_dict() | {"seconds": 0} for r in full.rows]
    assert _stored(out) == _stored(tmp_path / "full")


def test_a_killed_command_line_check_resumes(rows_file: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    big.write_text(rows_file.read_text() * 30)
    out = tmp_path / "run"
    command = [sys.executable, "-m", "veritype", "check", str(big), "--out", str(out), "--json"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if (out / ROWS).exists() and len((out / ROWS).read_text().splitlines()) >= 40:
            break
        time.sleep(0.2)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    stopped = len((out / ROWS).read_text().splitlines())
    assert 40 <= stopped < 180, "the kill came in the middle of the check"
    resumed = subprocess.run(command, capture_output=True, text=True, check=True)
    assert f"{stopped:,} of 180 rows already done" in " ".join(resumed.stderr.split())
    summary = json.loads(resumed.stdout)
    assert summary["rows"] == 180 and summary["checked"] == 150 and summary["skipped"] == 30
    assert 0 < summary["checked_now"] < 150
    lines = [json.loads(line)["line"] for line in (out / ROWS).read_text().splitlines()]
    assert sorted(lines) == list(range(1, 181)), "every row once, none twice"


def test_another_file_or_settings_are_refused_and_nothing_is_lost(
        rows_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    check_file(rows_file, out)
    before = (out / ROWS).read_bytes()
    with pytest.raises(InputError, match=r"other settings \(differs in settings\).*--restart"):
        check_file(rows_file, out, settings=CheckSettings(views=("numeric", "lexical")))
    other = tmp_path / "other.jsonl"
    other.write_text(rows_file.read_text().splitlines()[0] + "\n")
    with pytest.raises(InputError, match=r"differs in input, input_sha256"):
        check_file(other, out)
    assert (out / ROWS).read_bytes() == before
    replaced = check_file(other, out, restart=True)
    assert len(replaced.rows) == 1 and len((out / ROWS).read_text().splitlines()) == 1


def test_an_out_path_that_is_a_file_is_refused(rows_file: Path, tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("mine")
    with pytest.raises(InputError, match="not a directory"):
        check_file(rows_file, taken)
    assert taken.read_text() == "mine"


@pytest.mark.needs_ray
@pytest.mark.slow
def test_the_ray_engine_gives_the_local_results(rows_file: Path, tmp_path: Path) -> None:
    import ray

    local = check_file(rows_file, tmp_path / "local", block_rows=2)
    try:
        distributed = check_file(rows_file, tmp_path / "ray", engine="ray", workers=2,
                                 block_rows=2)
    finally:
        ray.shutdown()
    assert distributed.engine == "ray" and distributed.workers == 2
    assert [r.to_dict() | {"seconds": 0} for r in distributed.rows] == [
        r.to_dict() | {"seconds": 0} for r in local.rows]
    assert _stored(tmp_path / "ray") == _stored(tmp_path / "local")


def test_a_limited_check_is_extended_by_a_later_full_one(rows_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert len(check_file(rows_file, out, limit=2).rows) == 2
    seen: list[tuple[int, int]] = []
    full = check_file(rows_file, out, on_start=lambda total, done: seen.append((total, done)))
    assert seen == [(6, 2)] and full.checked_now == 3 and len(full.rows) == 5
