"""Where the time of checking goes: per stage, the seconds and calls of each model, of
tokenisation, of the numeric view, of answer relevance and of the bare-answer reading, for

- ``check``: ``--rows`` check rows of HaluEval-QA (rows 8000 on, as ``check_halueval.py``
  writes them: each HaluEval row's right and hallucinated answer with its knowledge),
  checked one at a time as ``veritype check`` does; rows/s of the loop (models loaded);
- ``verify``: answers of several claims each verified against the bridges corpus texts;
- ``ask``: the bridges and people corpora ingested into a fresh store, then questions of
  ``tests/data/corpora/questions.json`` asked (ingest time, ask p50);
- ``truthfulqa``: ``veritype eval truthfulqa`` on its first ``--limit`` questions.

The library runs unchanged: its model, tokenizer and view entry points are wrapped from here
to count and time them (times nest: a view's time holds its model's). ``--compare REV``
runs the same stages on revision REV too (a ``git worktree`` in a temporary folder), each
stage alternating old and new processes ``--rounds`` times, and reports medians and the
new/old ratio of every stage's wall time.

    python benchmarks/stage_speed.py [--rows 300] [--limit 40] [--compare HEAD~3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import ROOT, add_data_dir, write_report

STAGES = ("check", "verify", "ask", "truthfulqa")
RESULTS = ROOT / "benchmarks" / "results" / "stage_speed.json"
CORPORA = ROOT / "tests" / "data" / "corpora"
VERIFY_ANSWERS = [
    "The Golden Gate Bridge opened in 1937. Its chief engineer was Joseph Strauss. It is "
    "painted International Orange and its main span is 1,280 metres long.",
    "The Brooklyn Bridge opened in 1883 and crosses the East River. It was designed by "
    "John A. Roebling, who died before it was finished.",
    "The Millau Viaduct is the tallest bridge in the world. It was designed by Norman "
    "Foster and opened in 2004 in Germany.",
    "Tower Bridge crosses the Thames in London. It opened in 1894 and its bascules are "
    "raised about 800 times a year.",
]


class Meter:
    """Seconds and calls per name, from wrappers put around library entry points."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._undo: list[Callable[[], None]] = []

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - started
            self.calls[name] += 1

    def wrap(self, owner: Any, attribute: str, name: Callable[..., str] | str) -> None:
        """Time every call of ``owner.attribute`` (a function of a class or module)."""
        original = getattr(owner, attribute)

        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.timed(name(*args) if callable(name) else name):
                return original(*args, **kwargs)

        setattr(owner, attribute, timed)
        self._undo.append(lambda: setattr(owner, attribute, original))

    def after_init(self, cls: Any, then: Callable[[Any], None]) -> None:
        """Call ``then(instance)`` after each ``cls(...)``."""
        original = cls.__init__

        def init(instance: Any, *args: Any, **kwargs: Any) -> None:
            original(instance, *args, **kwargs)
            then(instance)

        cls.__init__ = init
        self._undo.append(lambda: setattr(cls, "__init__", original))

    def undo(self) -> None:
        while self._undo:
            self._undo.pop()()

    def table(self) -> dict[str, dict[str, float | int]]:
        return {name: {"seconds": round(self.seconds[name], 3), "calls": self.calls[name]}
                for name in sorted(self.seconds, key=lambda n: -self.seconds[n])}


class _TimedTokenizer:
    """A tokenizer whose encodings are timed under ``tokenise``; all else passes through."""

    def __init__(self, inner: Any, meter: Meter) -> None:
        self._inner, self._meter = inner, meter

    def encode_batch(self, *args: Any, **kwargs: Any) -> Any:
        with self._meter.timed("tokenise"):
            return self._inner.encode_batch(*args, **kwargs)

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        with self._meter.timed("tokenise"):
            return self._inner.encode(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _model_name(session: Any) -> str:
    path = Path(getattr(session, "_model_path", "") or "model")
    if "fused-int8" in path.stem:
        return "embedder"
    return path.parent.name if path.name == "model.onnx" else path.stem


def instrument(meter: Meter) -> None:
    """Wrap the model runs, tokenisers, views and check steps in ``meter``."""
    import onnxruntime

    import veritype.checking._verify as verify_module
    import veritype.models.encoder_views as encoder_views
    from veritype.checking._relevance import AnswerRelevance
    from veritype.models.cross_encoder import CrossEncoder
    from veritype.retrieval.embedding import OnnxEmbedder
    from veritype.views.numeric import NumericConsistencyView

    meter.wrap(onnxruntime.InferenceSession, "run",
               lambda session, *_: f"model run: {_model_name(session)}")
    meter.wrap(CrossEncoder, "predict",
               lambda encoder, *_: f"cross-encoder predict: {encoder.directory.name}")

    def timed_tokenizer(model: Any) -> None:
        model._tokenizer = _TimedTokenizer(model._tokenizer, meter)

    meter.after_init(CrossEncoder, timed_tokenizer)
    meter.after_init(OnnxEmbedder, timed_tokenizer)
    meter.wrap(encoder_views.CrossEncoderView, "verify_batch",
               lambda view, *_: f"view: {view.name}")
    meter.wrap(encoder_views, "evidence_windows", "evidence windows")
    meter.wrap(NumericConsistencyView, "verify_batch", "view: numeric")
    meter.wrap(AnswerRelevance, "score_batch", "answer relevance")
    meter.wrap(verify_module, "read_answer", "bare-answer reading")


def halueval_rows(data_dir: Path, count: int) -> list[Any]:
    """The first ``count`` check rows of HaluEval-QA from row 8000: right, hallucinated, ..."""
    from veritype.checking import CheckRow

    rows: list[CheckRow] = []
    with (data_dir / "halueval" / "qa_data.json").open(encoding="utf-8") as source:
        for number, line in enumerate(source):
            if number < 8000:
                continue
            if len(rows) >= count:
                break
            data = json.loads(line)
            for kind in ("right_answer", "hallucinated_answer"):
                rows.append(CheckRow(line=len(rows) + 1, answer=data[kind],
                                     contexts=(data["knowledge"],), question=data["question"],
                                     row_id=f"qa-{number}-{kind}"))
    return rows[:count]


def stage_check(args: argparse.Namespace, meter: Meter) -> dict[str, Any]:
    from veritype.checking._verify import RowChecker

    rows = halueval_rows(args.data_dir, args.rows)
    checker = RowChecker()
    checker.answer_scorer()
    if checker.relevance is not None:
        checker.relevance.encoder.embed("warm up")
    meter.seconds.clear()
    meter.calls.clear()
    started = time.perf_counter()
    for row in rows:
        checker.check(row)
    seconds = time.perf_counter() - started
    return {"rows": len(rows), "seconds": round(seconds, 3),
            "rows_per_s": round(len(rows) / seconds, 2)}


def _engine(store: str) -> Any:
    from veritype.engine import Engine, EngineConfig

    return Engine(EngineConfig(store=store))


def stage_verify(args: argparse.Namespace, meter: Meter) -> dict[str, Any]:
    evidence = [path.read_text(encoding="utf-8")
                for path in sorted((CORPORA / "bridges").glob("*.md"))]
    with tempfile.TemporaryDirectory() as folder:
        engine = _engine(f"sqlite:///{Path(folder) / 'store.sqlite'}")
        engine.views()
        meter.seconds.clear()
        meter.calls.clear()
        started = time.perf_counter()
        claims = sum(len(engine.verify(answer, evidence).claims) for answer in VERIFY_ANSWERS)
        seconds = time.perf_counter() - started
        engine.close()
    return {"answers": len(VERIFY_ANSWERS), "claims": claims, "seconds": round(seconds, 3)}


def stage_ask(args: argparse.Namespace, meter: Meter) -> dict[str, Any]:
    questions = json.loads((CORPORA / "questions.json").read_text(encoding="utf-8"))
    asked = [q["question"] for corpus in ("bridges", "people")
             for q in questions.get(corpus, [])][:args.questions]
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        engine = _engine(f"sqlite:///{Path(folder) / 'store.sqlite'}")
        engine.ingest([CORPORA / "bridges", CORPORA / "people"])
        ingest = time.perf_counter() - started
        meter.seconds.clear()
        meter.calls.clear()
        times = []
        for question in asked:
            began = time.perf_counter()
            engine.ask(question)
            times.append(time.perf_counter() - began)
        engine.close()
    return {"questions": len(asked), "ingest_s": round(ingest, 3),
            "seconds": round(sum(times), 3), "ask_p50_s": round(statistics.median(times), 3)}


def stage_truthfulqa(args: argparse.Namespace, meter: Meter) -> dict[str, Any]:
    from veritype.evaluation.runner import EvalSettings
    from veritype.evaluation.truthfulqa import TruthfulQA

    evaluator = TruthfulQA(EvalSettings(data_dir=args.data_dir, limit=args.limit), seeds=0)
    meter.wrap(TruthfulQA, "score", "truthfulqa verification")
    started = time.perf_counter()
    evaluator.run()
    seconds = time.perf_counter() - started
    return {"questions": args.limit, "seconds": round(seconds, 3),
            "verification_s": round(meter.seconds["truthfulqa verification"], 3)}


def run_stage(name: str, args: argparse.Namespace) -> dict[str, Any]:
    meter = Meter()
    instrument(meter)
    try:
        figures = globals()[f"stage_{name}"](args, meter)
    finally:
        meter.undo()
    return {**figures, "parts": meter.table()}


def _versions(src: Path) -> str:
    return subprocess.run(["git", "-C", str(src), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True, check=False).stdout.strip()


def _in_process(stage: str, args: argparse.Namespace, src: Path) -> dict[str, Any]:
    """``stage`` run in a fresh process on the package under ``src``."""
    command = [sys.executable, __file__, "--one", stage, "--rows", str(args.rows),
               "--limit", str(args.limit), "--questions", str(args.questions),
               "--data-dir", str(args.data_dir)]
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{stage} on {src} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@contextmanager
def revision_tree(revision: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="veritype-stage-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree),
                        revision], check=True, capture_output=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], check=False, capture_output=True)


def compare(args: argparse.Namespace, stages: list[str]) -> dict[str, Any]:
    """Each stage on the old and the new tree, alternating, ``args.rounds`` times."""
    out: dict[str, Any] = {}
    with revision_tree(args.compare) as tree:
        sources = {"old": tree / "src", "new": ROOT / "src"}
        for stage in stages:
            runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
            for _ in range(args.rounds):
                for side, src in sources.items():
                    runs[side].append(_in_process(stage, args, src))
                    print(f"{stage} {side}: {runs[side][-1]['seconds']} s", file=sys.stderr)
            medians = {side: statistics.median(r["seconds"] for r in runs[side])
                       for side in runs}
            out[stage] = {
                "old_seconds": [r["seconds"] for r in runs["old"]],
                "new_seconds": [r["seconds"] for r in runs["new"]],
                "old_median_s": round(medians["old"], 3),
                "new_median_s": round(medians["new"], 3),
                "speedup": round(medians["old"] / medians["new"], 3),
                "old": runs["old"][-1], "new": runs["new"][-1],
            }
            if stage == "check":
                out[stage] |= {side: runs[side][-1] | {"rows_per_s_median": round(
                    statistics.median(r["rows_per_s"] for r in runs[side]), 2)}
                    for side in runs}
    return {"old_revision": f"{args.compare} ({_versions(tree) or args.compare})",
            "new_revision": _versions(ROOT), "rounds": args.rounds, "stages": out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--rows", type=int, default=300, help="check rows of HaluEval-QA")
    parser.add_argument("--limit", type=int, default=40, help="TruthfulQA questions")
    parser.add_argument("--questions", type=int, default=8, help="questions asked")
    parser.add_argument("--stages", default=",".join(STAGES))
    parser.add_argument("--compare", metavar="REV", help="also run revision REV, alternating")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--one", choices=STAGES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_stage(args.one, args)))
        return
    stages = [name for name in args.stages.split(",") if name]
    if unknown := set(stages) - set(STAGES):
        parser.error(f"unknown stages {sorted(unknown)}; known: {', '.join(STAGES)}")
    settings = {"rows": args.rows, "truthfulqa_limit": args.limit, "questions": args.questions}
    if args.compare:
        write_report(args.out, "stage_speed", settings=settings, **compare(args, stages))
        return
    write_report(args.out, "stage_speed", settings=settings, revision=_versions(ROOT),
                 stages={stage: _in_process(stage, args, ROOT / "src") for stage in stages})


if __name__ == "__main__":
    main()
