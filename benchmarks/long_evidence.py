"""How well do the model views read long evidence, by which windows they score?

HaluEval summarization (documents of median ~2,500 characters): each summary's sentences are
checked against its document, and the summary scores the minimum of its sentences' support
(one unsupported sentence makes a hallucinated summary). Training-side rows only, which the
``align`` model never read (rows from 2000; it trained on rows 0–1999); nothing is fitted
here, the figures choose the default windows. Compared side by side in one process, for
the ``nli`` and ``align`` views:

- ``2-sentence windows``: windows of two sentences, the six closest scored (the default,
  chosen by this comparison);
- ``2-3-sentence windows``: windows of two and three sentences, the six closest scored;
- ``1-3-sentence windows``: windows of one, two and three sentences, the six closest scored.

ROC-AUC of the summary score against the right/hallucinated label, with a row bootstrap
interval, and seconds.

    python benchmarks/long_evidence.py [--data-dir ../shared/data] [--rows 300]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from _common import add_data_dir, write_report

from veritype.claims import Claim, decompose
from veritype.evaluation.metrics import roc_auc
from veritype.evidence import EvidencePack
from veritype.models.cross_encoder import CrossEncoder, model_directory
from veritype.models.encoder_views import CrossEncoderView

ROOT = Path(__file__).resolve().parents[1]
FIRST_ROW = 2000
SETTINGS = {
    "2-sentence windows": {"window_sizes": (2,), "max_windows": 6},
    "2-3-sentence windows": {"window_sizes": (2, 3), "max_windows": 6},
    "1-3-sentence windows": {"window_sizes": (1, 2, 3), "max_windows": 6},
}


def rows(data_dir: Path, count: int) -> list[dict[str, str]]:
    path = data_dir / "halueval" / "summarization_data.json"
    with path.open(encoding="utf-8") as handle:
        lines = [line for _, line in zip(range(FIRST_ROW + count), handle, strict=False)]
    return [json.loads(line) for line in lines[FIRST_ROW:]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "long_evidence.json")
    args = parser.parse_args()

    summaries: list[tuple[EvidencePack, list[Claim], bool, int]] = []
    for number, row in enumerate(rows(args.data_dir, args.rows)):
        pack = EvidencePack.from_texts([row["document"]])
        for key, supported in (("right_summary", True), ("hallucinated_summary", False)):
            claims = decompose(row[key]).claims
            if claims:
                summaries.append((pack, claims, supported, number))
    truth = np.array([supported for _, _, supported, _ in summaries])
    groups = np.array([number for *_, number in summaries])
    lengths = [sum(len(chunk.text) for chunk in pack.chunks) for pack, *_ in summaries]

    results: dict[str, dict[str, object]] = {}
    for model in ("nli", "align"):
        encoder = CrossEncoder(model_directory(model), cache_size=0)
        for label, settings in SETTINGS.items():
            view = CrossEncoderView(model, encoder, **settings)  # type: ignore[arg-type]
            started = time.perf_counter()
            scores = []
            for pack, claims, _, _ in summaries:
                verdicts = view.verify_batch(claims, [pack] * len(claims))
                scores.append(min(result.score for result in verdicts))
            seconds = time.perf_counter() - started
            values = np.array(scores)
            rng = np.random.default_rng(0)
            names = np.unique(groups)
            spread = []
            for _ in range(500):
                picked = np.isin(groups, rng.choice(names, len(names)))
                if truth[picked].all() or not truth[picked].any():
                    continue
                spread.append(roc_auc(values[picked], truth[picked]))
            results[f"{model}: {label}"] = {
                "roc_auc": roc_auc(values, truth),
                "roc_auc_ci95": [float(np.percentile(spread, 2.5)),
                                 float(np.percentile(spread, 97.5))],
                "seconds": round(seconds, 2),
            }
            print(f"{model}: {label}: AUC {results[f'{model}: {label}']['roc_auc']:.3f} "
                  f"in {seconds:.1f} s", file=sys.stderr)
    write_report(
        args.output, "long_evidence",
        data={"set": "HaluEval summarization", "rows": [FIRST_ROW, FIRST_ROW + args.rows],
              "summaries": len(summaries), "median_document_chars": float(np.median(lengths)),
              "claims": sum(len(claims) for _, claims, _, _ in summaries)},
        results=results,
    )


if __name__ == "__main__":
    main()
