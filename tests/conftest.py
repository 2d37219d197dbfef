import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared datasets: ``VERITYPE_DATA_DIR`` or ``../shared/data`` beside the repo."""
    path = Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data"))
    if not (path / "nli").is_dir():
        pytest.fail(f"datasets not found at {path}; set VERITYPE_DATA_DIR")
    return path


TINY_CONFIG = """
name = "tiny"
description = "A tiny training run."
seed = 3
max_length = 64
batch_size = 8
learning_rate = 5e-5
epochs = 1.0
checkpoint_every = 2
eval_sets = ["rte_dev_2way", "snli_test_2k"]
eval_limit = 40

[data]
nli_files = ["fracas_dev", "rte_train_2way", "snli_dev"]
max_pairs = 240
"""


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """A real training run killed with SIGKILL mid-way, then resumed to the end and exported.

    Returns the run directory (``final/`` checkpoint, ``onnx/`` int8 model, ``train.log``).
    """
    pytest.importorskip("torch")
    work = tmp_path_factory.mktemp("train")
    config = work / "tiny.toml"
    config.write_text(TINY_CONFIG)
    command = [
        sys.executable,
        "-m",
        "veritype",
        "train",
        "verifier",
        "--config",
        str(config),
        "--data-dir",
        str(data_dir),
        "--output-dir",
        str(work / "runs"),
    ]
    run_dir = work / "runs" / "tiny"
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while not (run_dir / "checkpoint.pt").exists():
        if first.poll() is not None or time.monotonic() > deadline:
            _, err = first.communicate()
            pytest.fail(f"training never wrote a checkpoint: {err.decode()[-2000:]}")
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait()
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    return run_dir
