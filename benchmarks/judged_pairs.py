"""The pairs the judge answered while ``veritype train aggregator --judge`` fitted the judge
stage, as two soft-label files for ``synthetic_ablation.py --soft``: the judge's P(yes)
(``judge.jsonl``) and the gold label of the same pairs (``gold.jsonl``), so a distillation
ablation compares the teacher with the truth on identical pairs.

    python benchmarks/judged_pairs.py RUN_DIR OUT_DIR [--data-dir ../shared/data]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from _common import add_data_dir

from veritype.train.fitting_data import fitting_examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="The --output-dir of the aggregator fit.")
    parser.add_argument("out_dir", type=Path)
    add_data_dir(parser)
    args = parser.parse_args()
    judged = np.load(args.run_dir / "judge_scores.npz", allow_pickle=False)
    column = [str(view) for view in judged["views"]].index("judge")
    support = {str(example_id): float(score)
               for example_id, score in zip(judged["ids"], judged["score"][:, column],
                                            strict=True)}
    examples = [e for e in fitting_examples(args.data_dir) if e.example_id in support]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name, probability in (("judge", lambda e: support[e.example_id]),
                              ("gold", lambda e: 1.0 if e.supported else 0.0)):
        with (args.out_dir / f"{name}.jsonl").open("w", encoding="utf-8") as handle:
            for example in examples:
                handle.write(json.dumps({
                    "premise": "\n".join(example.evidence), "hypothesis": example.claim,
                    "source": f"{example.meta['source']}_{name}",
                    "probabilities": [round(probability(example), 5)],
                }) + "\n")
    print(f"{len(examples)} judged pairs -> {args.out_dir}/judge.jsonl, gold.jsonl")


if __name__ == "__main__":
    main()
