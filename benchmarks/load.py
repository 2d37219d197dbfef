"""A bounded load test of the HTTP service: N requests to ``POST /qa/verify``, C at a time,
over loopback, against a real ``veritype serve`` process (or ``--url``). With ``--replicas N``
it starts N processes over one store (``--postgres``: a PostgreSQL database) and spreads the
requests over them, as a load balancer would (each client connection keeps to one replica).

Each request verifies one HaluEval QA answer (rows 8000+, alternately the right and the
hallucinated answer) against its knowledge passage, so every request is distinct and the
engine's caches do not flatter the figures. Reports p50/p95/p99 latency, throughput and
errors (any non-200 answer or transport failure); exits 1 when there was an error.

Then a disconnect storm: ``--disconnects`` heavy requests (an answer of about 50 claims
over forty passages, seconds of work each), ``--concurrency`` at a time, whose clients
leave after ``--leave-after`` seconds. The service must drop the work of a client that
left, so the small requests sent right behind the storm are served as fast as the same
kind of requests before it: their p50/p95 are reported side by side.

Run: ``python benchmarks/load.py [--requests 1000] [--concurrency 8] [--disconnects 64]``
(writes ``benchmarks/results/load.json``); two replicas over PostgreSQL:
``python benchmarks/load.py --requests 300 --disconnects 0 --replicas 2 --postgres
--output benchmarks/results/load_replicas.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import AsyncExitStack, ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from _common import wait_until_serving
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("VERITYPE_DATA_DIR", ROOT.parent / "shared" / "data"))
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results" / "load.json"
FIRST_EVAL_ROW = 8000  # rows before this one may be trained on; load uses the rest
ENDPOINT = "/qa/verify"


def verify_requests(data_dir: Path, count: int) -> list[dict[str, Any]]:
    """``count`` distinct request bodies from the HaluEval QA evaluation rows."""
    path = data_dir / "halueval" / "qa_data.json"
    bodies: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as rows:
        for number, line in enumerate(rows):
            if number < FIRST_EVAL_ROW or not line.strip():
                continue
            row = json.loads(line)
            answer = row["right_answer"] if number % 2 == 0 else row["hallucinated_answer"]
            if answer.strip() and row["knowledge"].strip():
                bodies.append({"answer": answer, "evidence": [row["knowledge"]]})
            if len(bodies) == count:
                return bodies
    raise SystemExit(f"error: {path} has only {len(bodies)} usable evaluation rows")


def heavy_requests(bodies: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """``count`` bodies of seconds of work each: forty rows' passages as both the answer
    (about 50 claims) and its evidence."""
    group = 40
    heavy = []
    for start in range(count):
        rows = [bodies[(start * group + offset) % len(bodies)] for offset in range(group)]
        passages = [row["evidence"][0] for row in rows]
        heavy.append({"answer": " ".join(passages)[:20_000], "evidence": passages})
    return heavy


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


async def _run(
    urls: list[str], bodies: list[dict[str, Any]], concurrency: int, console: Console | None
) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    answered_by: Counter[str] = Counter()
    claims: Counter[str] = Counter()
    errors: list[str] = []
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    progress = Progress(
        TextColumn("load"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, disable=console is None,
    )
    task = progress.add_task("requests", total=len(bodies))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def worker(client: httpx.AsyncClient, url: str) -> None:
        while True:
            try:
                body = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            started = time.perf_counter()
            try:
                response = await client.post(ENDPOINT, json=body)
                statuses[str(response.status_code)] += 1
                answered_by[url] += 1
                if response.status_code == 200:
                    for claim in response.json()["claims"]:
                        claims[claim["type"]] += 1
                else:
                    errors.append(f"{response.status_code}: {response.text[:200]}")
            except httpx.HTTPError as error:
                statuses["transport"] += 1
                errors.append(f"{type(error).__name__}: {error}")
            latencies.append(time.perf_counter() - started)
            progress.advance(task)

    with progress:
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, timeout=120, limits=limits)) for url in urls]
            for client in clients:
                warm = await client.post(
                    ENDPOINT, json={"answer": "Warm up.", "evidence": ["Warm."]})
                warm.raise_for_status()
            started = time.perf_counter()
            # Worker i keeps to replica i mod N: the requests are spread evenly.
            await asyncio.gather(*(
                worker(clients[number % len(urls)], urls[number % len(urls)])
                for number in range(concurrency)))
            wall = time.perf_counter() - started
    return {
        "endpoint": ENDPOINT,
        "requests": len(bodies),
        "concurrency": concurrency,
        "errors": len(errors),
        "error_samples": errors[:5],
        "status_counts": dict(statuses),
        "requests_by_url": dict(answered_by),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 1),
        "p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 1),
        "max_ms": round(max(latencies) * 1000, 1),
        "mean_ms": round(sum(latencies) / len(latencies) * 1000, 1),
        "throughput_rps": round(len(bodies) / wall, 2),
        "wall_s": round(wall, 1),
        "claims_by_type": dict(claims),
    }


async def _timed(client: httpx.AsyncClient, bodies: list[dict[str, Any]]) -> dict[str, Any]:
    """``bodies`` sent one after another; their latencies and statuses."""
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    for body in bodies:
        started = time.perf_counter()
        try:
            response = await client.post(ENDPOINT, json=body)
            statuses[str(response.status_code)] += 1
        except httpx.HTTPError as error:
            statuses[type(error).__name__] += 1
        latencies.append(time.perf_counter() - started)
    return {
        "requests": len(bodies),
        "status_counts": dict(statuses),
        "p50_ms": round(percentile(latencies, 0.50) * 1000, 1),
        "p95_ms": round(percentile(latencies, 0.95) * 1000, 1),
        "max_ms": round(max(latencies) * 1000, 1),
    }


async def _storm(
    url: str, heavy: list[dict[str, Any]], small: list[dict[str, Any]], concurrency: int,
    leave_after: float,
) -> dict[str, Any]:
    half = len(small) // 2
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        before = await _timed(client, small[:half])
    outcomes: Counter[str] = Counter()
    gate = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=0)

    async def leave(leaving: httpx.AsyncClient, body: dict[str, Any]) -> None:
        async with gate:
            try:
                response = await leaving.post(ENDPOINT, json=body)
                outcomes[f"answered {response.status_code}"] += 1
            except httpx.TimeoutException:
                outcomes["left"] += 1

    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=url, timeout=leave_after, limits=limits) as leaving:
        await asyncio.gather(*(leave(leaving, body) for body in heavy))
    storm_s = time.perf_counter() - started
    async with httpx.AsyncClient(base_url=url, timeout=120) as client:
        behind = await _timed(client, small[half:])
    return {
        "heavy_requests": len(heavy),
        "concurrency": concurrency,
        "leave_after_s": leave_after,
        "outcomes": dict(outcomes),
        "storm_wall_s": round(storm_s, 1),
        "small_before": before,
        "small_behind": behind,
    }


def run_disconnect_storm(
    url: str, heavy: list[dict[str, Any]], small: list[dict[str, Any]], concurrency: int,
    leave_after: float,
) -> dict[str, Any]:
    """Half of ``small`` timed one by one, then ``heavy`` sent ``concurrency`` at a time by
    clients that leave after ``leave_after`` seconds, then the other half of ``small``."""
    if len(small) < 2:
        raise ValueError("the storm needs at least two small requests, one before and after")
    return asyncio.run(_storm(url, heavy, small, concurrency, leave_after))


def run_load(
    url: str | list[str], bodies: list[dict[str, Any]], concurrency: int,
    console: Console | None = None,
) -> dict[str, Any]:
    """Send every body to ``url`` (or spread over several) with ``concurrency`` requests in
    flight; the figures."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    urls = [url] if isinstance(url, str) else url
    return asyncio.run(_run(urls, bodies, concurrency, console))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def served(max_pending: int, store: str | None = None) -> Iterator[str]:
    """``veritype serve`` on a free loopback port over ``store``, by default an empty
    temporary one."""
    with tempfile.TemporaryDirectory() as work:
        port = _free_port()
        env = {key: value for key, value in os.environ.items() if key != "VERITYPE_API_KEYS"}
        process = subprocess.Popen(
            [sys.executable, "-m", "veritype", "serve", "--host", "127.0.0.1", "--port",
             str(port), "--store", store or str(Path(work) / "store.sqlite"), "--max-pending",
             str(max_pending)],
            stdout=subprocess.DEVNULL, stderr=open(Path(work) / "serve.log", "w"),  # noqa: SIM115
            env=env, cwd=work,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_serving(process, url + "/healthz", Path(work) / "serve.log", 120)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=30)


@contextmanager
def postgres_store(admin_url: str | None) -> Iterator[str]:
    """The URL of a fresh database on ``admin_url``'s server, else on one ``pgserver``
    starts for the run."""
    import psycopg

    with ExitStack() as stack:
        if admin_url is None:
            import pgserver

            work = stack.enter_context(tempfile.TemporaryDirectory())
            server = pgserver.get_server(Path(work) / "pgdata", cleanup_mode="stop")
            stack.callback(server.cleanup)
            admin_url = server.get_uri()
        name = f"veritype_load_{os.getpid()}"
        with psycopg.connect(admin_url, autocommit=True) as connection:
            connection.execute(f"DROP DATABASE IF EXISTS {name}")
            connection.execute(f"CREATE DATABASE {name}")
        yield urlunsplit(urlsplit(admin_url)._replace(path=f"/{name}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--disconnects", type=int, default=64,
                        help="heavy requests whose clients leave early (0: no storm)")
    parser.add_argument("--leave-after", type=float, default=0.5,
                        help="seconds a storm client waits before it leaves")
    parser.add_argument("--behind", type=int, default=40,
                        help="small requests timed, half before and half behind the storm")
    parser.add_argument("--url", action="append",
                        help="Load this running service instead of starting one; repeat it "
                        "to spread the requests over several replicas.")
    parser.add_argument("--replicas", type=int, default=1,
                        help="serve processes to start over one store, requests spread evenly")
    parser.add_argument("--postgres", action="store_true",
                        help="serve over a fresh PostgreSQL database (else a SQLite file)")
    parser.add_argument("--postgres-url",
                        help="a server whose user may create databases (default: pgserver)")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    if args.requests < 1 or args.concurrency < 1 or args.replicas < 1:
        raise SystemExit("error: --requests, --concurrency and --replicas must be at least 1")
    if args.disconnects < 0 or args.behind < 2 or args.leave_after <= 0:
        raise SystemExit("error: --disconnects must be at least 0, --behind at least 2 and "
                         "--leave-after above 0")
    console = Console(stderr=True)
    bodies = verify_requests(args.data_dir, args.requests + args.behind)
    bodies, small = bodies[: args.requests], bodies[args.requests :]
    heavy = heavy_requests(bodies, args.disconnects)
    # The machine may be shared: the load before the run says how idle it was.
    load_before = os.getloadavg()[0]

    def measure(urls: list[str]) -> dict[str, Any]:
        figures = run_load(urls, bodies, args.concurrency, console)
        if heavy:
            console.print(f"disconnect storm: {len(heavy)} heavy requests, clients leave "
                          f"after {args.leave_after:g} s, on {urls[0]}", highlight=False)
            figures["disconnect_storm"] = run_disconnect_storm(
                urls[0], heavy, small, args.concurrency, args.leave_after)
        return figures

    if args.url:
        result = measure(args.url)
        server = ", ".join(args.url)
    else:
        with ExitStack() as stack:
            store = (stack.enter_context(postgres_store(args.postgres_url))
                     if args.postgres else None)
            if store is None and args.replicas > 1:
                work = stack.enter_context(tempfile.TemporaryDirectory())
                store = str(Path(work) / "store.sqlite")
            urls = [stack.enter_context(served(2 * args.concurrency, store))
                    for _ in range(args.replicas)]
            result = measure(urls)
        kind = "PostgreSQL (pgvector)" if args.postgres else "SQLite"
        server = (f"veritype serve, {args.replicas} process(es) of 1 worker over one {kind} "
                  "store, loopback")
    result.update({
        "data": "HaluEval QA rows 8000+ (answer alternately right and hallucinated)",
        "server": server,
        "cpu_count": os.cpu_count(),
        "load_average_1m_before": round(load_before, 2),
        "python": platform.python_version(),
    })
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    console.print(json.dumps(result, indent=2), highlight=False)
    if result["errors"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
