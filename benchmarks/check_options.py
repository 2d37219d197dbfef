"""`veritype check` on bare answers that choose between a question's options, right and wrong.

HaluEval-QA asks many questions that offer two options ("Which was released first, The True
Glory or American Pimp?") and gives the right one as a bare answer; its hallucinated answers
are sentences, so the HaluEval benchmark never checks a wrong bare option. Here each such row
(rows START:STOP, whose right answer is one of the two options after a comma) gives two
check rows over its knowledge: the right option and the other one, wrong by construction.
A detector that cannot tell them apart passes as many of one as of the other.

Reported: the share of right options checked faithful, the share of wrong options not
faithful, their mean (balanced accuracy), beside accepting everything and the verbatim
substring (the bare option occurs in the knowledge).

    python benchmarks/check_options.py --data-dir ../shared/data [--rows 8000:10000]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

from _common import ROOT, add_data_dir, write_report

from veritype.checking import RowVerdict, check

# ", X or Y?" closing the question.
_OPTIONS = re.compile(r"[,:]\s*([^,?]+?)\s+or\s+([^,?]+?)\s*\??\s*$")


def _plain(text: str) -> str:
    return re.sub(r"^(?:the|a|an)\s+", "", " ".join(text.lower().split())).rstrip(".")


def option_rows(data_dir: Path, start: int, stop: int) -> list[dict[str, Any]]:
    """The right option and the other one of each HaluEval-QA row in [start, stop) whose
    question closes on two options and whose right answer is one of them."""
    rows: list[dict[str, Any]] = []
    with (data_dir / "halueval" / "qa_data.json").open(encoding="utf-8") as source:
        for number, line in enumerate(source):
            if not start <= number < stop:
                continue
            row = json.loads(line)
            found = _OPTIONS.search(row["question"])
            if found is None:
                continue
            first, second = (option.strip() for option in found.groups())
            right = _plain(row["right_answer"])
            other = second if right == _plain(first) else first if right == _plain(second) \
                else None
            if other is None:
                continue
            for kind, answer in (("right", row["right_answer"].strip()), ("wrong", other)):
                rows.append({"id": f"qa-{number}-{kind}", "question": row["question"],
                             "answer": answer, "contexts": [row["knowledge"]]})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--rows", default="8000:10000", help="HaluEval-QA rows START:STOP")
    parser.add_argument("--out", type=Path,
                        default=ROOT / "benchmarks" / "results" / "check_options.json")
    args = parser.parse_args()
    start, stop = (int(part) for part in args.rows.split(":"))
    rows = option_rows(args.data_dir, start, stop)
    started = time.perf_counter()
    result = check(rows)
    seconds = time.perf_counter() - started
    passed = {kind: [r.verdict is RowVerdict.FAITHFUL for r in result.rows
                     if (r.row.row_id or "").endswith(kind)] for kind in ("right", "wrong")}
    right = sum(passed["right"]) / len(passed["right"])
    wrong_flagged = 1 - sum(passed["wrong"]) / len(passed["wrong"])
    write_report(args.out, "check_options",
                 halueval_rows=[start, stop], questions=len(passed["right"]),
                 seconds=round(seconds, 1),
                 veritype_check={"right_passed": round(right, 4),
                                 "wrong_flagged": round(wrong_flagged, 4),
                                 "balanced_accuracy": round((right + wrong_flagged) / 2, 4)},
                 baselines={"accept everything": _rates([True] * len(rows), rows),
                            "verbatim substring": _rates(
                                [_plain(row["answer"]) in _plain(row["contexts"][0])
                                 for row in rows], rows)})


def _rates(passes: list[bool], rows: list[dict[str, Any]]) -> dict[str, float]:
    """A baseline's share of right options passed and of wrong ones flagged."""
    right = [p for p, row in zip(passes, rows, strict=True) if row["id"].endswith("right")]
    wrong = [p for p, row in zip(passes, rows, strict=True) if row["id"].endswith("wrong")]
    right_passed, wrong_flagged = sum(right) / len(right), 1 - sum(wrong) / len(wrong)
    return {"right_passed": round(right_passed, 4), "wrong_flagged": round(wrong_flagged, 4),
            "balanced_accuracy": round((right_passed + wrong_flagged) / 2, 4)}


if __name__ == "__main__":
    main()
