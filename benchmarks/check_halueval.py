"""`veritype check` on HaluEval evaluation rows, judged by HaluEval's own labels.

Each HaluEval row (qa rows 8000–9999 by default, never trained on by a shipped model)
gives two check rows: its right and its hallucinated answer, with the row's knowledge as
the only context. The check's row verdict is read as a detector: anything but
"faithful" flags a hallucination. The benchmark writes the input file into a work
directory (the data stays in the data folder), runs ``veritype check`` itself on it with a
progress bar, and reports:

- balanced accuracy against the labels, with a 95% bootstrap interval over HaluEval rows,
  beside the trivial baselines (accept everything; the verbatim substring: accept when the
  bare answer occurs in the knowledge);
- rows/s of the local engine (by default, a worker process per CPU), of the local engine in
  one process, and of the Ray engine with 1 and 2 workers on the same rows (all of them, or
  the first ``--ray-rows``), in one run, with the check that every row's result is
  identical;
- the tokens a per-claim LLM judge would read for the same rows (the judge prompt with the
  row's contexts and one claim, per claim, counted by the judge model's own tokenizer).

    python benchmarks/check_halueval.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from veritype.checking import CheckSettings, RowResult, RowVerdict
from veritype.evaluation.machine import machine

RESULTS = Path(__file__).parent / "results" / "check_halueval.json"
KEYS = {"qa": ("question", "right_answer", "hallucinated_answer"),
        "dialogue": ("dialogue_history", "right_response", "hallucinated_response")}


def write_input(data_dir: Path, task: str, start: int, stop: int, path: Path) -> int:
    """The check rows of HaluEval ``task`` rows [start, stop): right and hallucinated."""
    question, right, wrong = KEYS[task]
    written = 0
    with (data_dir / "halueval" / f"{task}_data.json").open(encoding="utf-8") as source, \
            path.open("w", encoding="utf-8") as out:
        for number, line in enumerate(source):
            if number < start:
                continue
            if number >= stop:
                break
            row = json.loads(line)
            for kind, key in (("right", right), ("hallucinated", wrong)):
                out.write(json.dumps({"id": f"{task}-{number}-{kind}", "question": row[question],
                                      "answer": row[key], "contexts": [row["knowledge"]]}) + "\n")
                written += 1
    return written


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def detection(rows: list[RowResult], seed: int = 0, resamples: int = 1000) -> dict[str, Any]:
    """Balanced accuracy of "faithful" as the supported prediction, with its trivial
    baselines; intervals resample HaluEval rows (a right and a hallucinated answer together)."""
    label = np.array([r.row.row_id is not None and r.row.row_id.endswith("-right")
                      for r in rows])
    groups = np.array([int((r.row.row_id or "0-0-0").split("-")[1]) for r in rows])
    predictions = {
        "veritype check (faithful = supported)": np.array(
            [r.verdict is RowVerdict.FAITHFUL for r in rows]),
        "accept everything": np.ones(len(rows), dtype=bool),
        "verbatim substring": np.array(
            [_flat(r.row.answer.strip().rstrip(".")) in _flat(" ".join(r.row.contexts))
             for r in rows]),
    }
    unique = np.unique(groups)
    index = {g: np.flatnonzero(groups == g) for g in unique}
    rng = np.random.default_rng(seed)
    draws = [np.concatenate([index[g] for g in rng.choice(unique, unique.size)])
             for _ in range(resamples)]
    out: dict[str, Any] = {}
    for name, predicted in predictions.items():
        def balanced(take: np.ndarray, predicted: np.ndarray = predicted) -> float:
            truth, guess = label[take], predicted[take]
            return float((np.mean(guess[truth]) + np.mean(~guess[~truth])) / 2)

        everything = np.arange(len(rows))
        values = [balanced(take) for take in draws]
        out[name] = {
            "balanced_accuracy": round(balanced(everything), 4),
            "ci95": [round(float(q), 4) for q in np.quantile(values, [0.025, 0.975])],
            "recall_supported": round(float(np.mean(predicted[label])), 4),
            "recall_hallucinated": round(float(np.mean(~predicted[~label])), 4),
        }
    # Threshold-free: how well the row's scores rank right above hallucinated answers.
    scores = {
        "faithfulness": np.array([r.faithfulness if r.faithfulness is not None else 1.0
                                  for r in rows]),
        "lowest claim support": np.array([min((c.support for c in r.claims), default=1.0)
                                          for r in rows]),
    }
    out["roc_auc"] = {name: round(_auc(values, label), 4) for name, values in scores.items()}
    out["verdicts"] = {
        kind: {v.value: sum(r.verdict is v for r, right in zip(rows, label, strict=True)
                            if right == (kind == "right")) for v in RowVerdict}
        for kind in ("right", "hallucinated")
    }
    return out


def _auc(scores: np.ndarray, label: np.ndarray) -> float:
    """ROC-AUC by the rank-sum formula, ties counted half."""
    from scipy.stats import rankdata

    ranks = rankdata(scores)
    positives = int(label.sum())
    negatives = label.size - positives
    return float((ranks[label].sum() - positives * (positives + 1) / 2)
                 / (positives * negatives))


def judge_tokens(rows: list[RowResult]) -> dict[str, Any] | None:
    """Tokens a per-claim LLM judge would read: the judge's chat prompt with the row's
    contexts and each claim, counted by the default judge model's tokenizer."""
    try:
        from llama_cpp import Llama

        from veritype.judges._base import judge_messages
        from veritype.judges.local import default_judge_model
    except ImportError:
        return None
    model = Llama(model_path=str(default_judge_model()), vocab_only=True, verbose=False)
    per_row = []
    for row in rows:
        evidence = "\n\n".join(row.row.contexts)
        total = 0
        for claim in row.claims:
            text = "\n".join(m["content"] for m in judge_messages(claim.text, evidence))
            total += len(model.tokenize(text.encode("utf-8"), add_bos=False)) + 12
        per_row.append(total)
    values = np.array(per_row)
    return {"model": Path(default_judge_model()).name, "mean_tokens_per_row": round(float(
        values.mean()), 1), "median_tokens_per_row": float(np.median(values)),
        "total_tokens": int(values.sum()),
        "note": "prompt tokens per claim call (chat template overhead approximated as 12) "
                "plus one answer token; one call per claim"}


def screenshot(report: Path, path: Path) -> None:
    """The report's first screen in Debian's headless Chromium, for the README."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 1100, "height": 1000})
        page.goto(report.as_uri())
        page.screenshot(path=str(path))
        browser.close()


def run_cli(path: Path, out: Path, extra: list[str]) -> tuple[float, dict[str, Any]]:
    """``veritype check`` as a user runs it (progress bar on the terminal)."""
    command = [sys.executable, "-m", "veritype", "check", str(path), "--out", str(out),
               "--restart", "--json", *extra]
    started = time.perf_counter()
    done = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def _comparable(run: Path) -> list[Any]:
    """Each row's line, verdict and claims (types, supports, view scores, citations)."""
    stored = sorted((json.loads(line) for line in (run / "rows.jsonl").read_text().splitlines()),
                    key=lambda entry: entry["line"])
    return [(e["line"], e.get("verdict"), e.get("claims")) for e in stored]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path,
                        default=Path(os.environ.get("VERITYPE_DATA_DIR", "../shared/data")))
    parser.add_argument("--task", choices=sorted(KEYS), default="qa")
    parser.add_argument("--rows", default="8000:10000", help="HaluEval rows START:STOP")
    parser.add_argument("--ray-rows", type=int, default=0,
                        help="first check rows timed on each engine side by side (0: all, "
                             "with the full local run as the local engine's)")
    parser.add_argument("--work-dir", type=Path, default=Path("runs/check_halueval"))
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--screenshot", type=Path, help="save the report's first screen here")
    args = parser.parse_args()
    start, stop = (int(part) for part in args.rows.split(":"))
    args.work_dir.mkdir(parents=True, exist_ok=True)
    source = args.work_dir / f"halueval_{args.task}_{start}_{stop}.jsonl"
    count = write_input(args.data_dir, args.task, start, stop, source)

    seconds, summary = run_cli(source, args.work_dir / "full", [])
    rows = [RowResult.from_dict(json.loads(line))
            for line in (args.work_dir / "full" / "rows.jsonl").read_text().splitlines()
            if json.loads(line).get("kind") != "bad"]
    result: dict[str, Any] = {
        "benchmark": "check_halueval",
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        "task": args.task, "halueval_rows": [start, stop], "check_rows": count,
        "command": f"veritype check {source.name} --out full",
        "wall_seconds": round(seconds, 1),
        "rows_per_second_in_check": summary["rows_per_second"],
        "mean_faithfulness": summary["mean_faithfulness"],
        "detection": detection(rows),
        "judge_cost": judge_tokens(rows),
    }

    if args.screenshot:
        screenshot(args.work_dir / "full" / "report.html", args.screenshot)

    runs = [("local, in process", ["--workers", "1"]),
            ("ray, 1 worker", ["--engine", "ray", "--workers", "1"]),
            ("ray, 2 workers", ["--engine", "ray", "--workers", "2"])]
    engines: dict[str, Any] = {}
    verdicts: dict[str, list[Any]] = {}
    if args.ray_rows:
        subset = args.work_dir / f"halueval_{args.task}_first_{args.ray_rows}.jsonl"
        subset.write_text("".join(source.read_text().splitlines(keepends=True)[:args.ray_rows]))
        runs.insert(0, ("local", []))
    else:
        subset = source
        engines["local"] = {"rows": count, "wall_seconds": result["wall_seconds"],
                            "rows_per_second_in_check": result["rows_per_second_in_check"]}
        verdicts["local"] = _comparable(args.work_dir / "full")
    for name, extra in runs:
        out = args.work_dir / f"engine_{name.replace(', ', '_').replace(' ', '')}"
        seconds, summary = run_cli(subset, out, extra)
        verdicts[name] = _comparable(out)
        engines[name] = {"rows": len(verdicts[name]), "wall_seconds": round(seconds, 1),
                         "rows_per_second_in_check": summary["rows_per_second"]}
    reference = verdicts["local"]
    result["engines"] = engines
    result["identical_to_local"] = {name: found == reference for name, found in verdicts.items()}
    settings = CheckSettings()
    result["settings"] = settings.to_dict()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({key: result[key] for key in ("detection", "engines", "identical_to_local",
                                                   "judge_cost")}, indent=2))


if __name__ == "__main__":
    main()
