"""The judge in process and behind an OpenAI-compatible endpoint: same model, same answers?

The default judge model (Qwen2.5-Coder-1.5B-Instruct, Q4) judges claims of the type contract
(``benchmarks/data/type_contract.jsonl``, the first ``--per-category`` claims of each of its
nine categories) twice: in process through llama.cpp (``judge=local``), and through a real
``llama_cpp.server`` on loopback (``judge=openai``, what ``--view-option judge.base_url=…``
selects). Reported: each route's seconds per claim, how far their P(yes) differ, whether
they agree at 0.5, and each route's accuracy against the contract's hand-written types (a
claim expected Verified should get P(yes) ≥ 0.5, any other below), beside the trivial
baseline of calling every claim supported.

Run: ``python benchmarks/judge_endpoint.py`` (writes
``benchmarks/results/judge_endpoint.json``; needs the ``judge`` model and the llama.cpp
server's packages: fastapi, uvicorn, sse-starlette, starlette-context).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from _common import wait_until_serving, write_report

from veritype.evaluation.contract import ContractRow, load_contract
from veritype.graph import EvidenceType
from veritype.judges import create_judge
from veritype.judges.local import default_judge_model

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "benchmarks" / "data" / "type_contract.jsonl"
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "judge_endpoint.json"


@contextmanager
def llama_server(model: Path, threads: int) -> Iterator[str]:
    """``llama_cpp.server`` serving ``model`` on a free loopback port; yields its base URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as work:
        log = Path(work) / "server.log"
        with log.open("wb") as sink:
            server = subprocess.Popen(
                [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host",
                 "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads",
                 str(threads)],
                stdout=sink, stderr=subprocess.STDOUT,
                env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"})
        base_url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_until_serving(server, f"{base_url}/models", log, 180)
            yield base_url
        finally:
            server.terminate()
            server.wait(timeout=30)


def chosen(rows: list[ContractRow], per_category: int) -> list[ContractRow]:
    taken: dict[str, int] = {}
    picked = []
    for row in rows:
        if taken.get(row.category, 0) < per_category:
            taken[row.category] = taken.get(row.category, 0) + 1
            picked.append(row)
    return picked


def judged(judge: Any, rows: list[ContractRow]) -> tuple[np.ndarray, float]:
    """P(yes) per row, one claim at a time as the view asks, and the seconds per claim."""
    judge.judge_batch([(rows[0].claim, rows[0].evidence)])  # loaded and warm
    started = time.perf_counter()
    supports = [judge.judge(row.claim, row.evidence) for row in rows]
    return np.array(supports), (time.perf_counter() - started) / len(rows)


def accuracy(supports: np.ndarray, expected: np.ndarray) -> float:
    return round(float(np.mean((supports >= 0.5) == expected)), 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--per-category", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    rows = chosen(load_contract(CONTRACT), args.per_category)
    expected = np.array([row.expected is EvidenceType.VERIFIED for row in rows])
    model = default_judge_model()
    local, local_s = judged(create_judge("local", n_threads=args.threads), rows)
    print(f"in process: {local_s:.2f} s per claim", flush=True)
    with llama_server(model, args.threads) as base_url:
        remote, remote_s = judged(create_judge("openai", base_url=base_url), rows)
    print(f"endpoint: {remote_s:.2f} s per claim", flush=True)
    difference = np.abs(local - remote)
    write_report(
        args.output, "judge_endpoint",
        model=model.name,
        claims=len(rows),
        categories=sorted({row.category for row in rows}),
        seconds_per_claim={"in_process": round(local_s, 3), "endpoint": round(remote_s, 3)},
        p_yes_difference={"mean": round(float(difference.mean()), 4),
                          "max": round(float(difference.max()), 4)},
        agreement_at_half=round(float(np.mean((local >= 0.5) == (remote >= 0.5))), 4),
        accuracy_against_the_contract={
            "in_process": accuracy(local, expected),
            "endpoint": accuracy(remote, expected),
            "baseline_every_claim_supported": round(float(expected.mean()), 4),
        },
    )


if __name__ == "__main__":
    main()
