"""How far the shipped models' outputs move between CPU families of int8 kernels.

The identity references (``tests/data/identity_reference.<family>.json``, written by
``tests/checking/identity_support.py`` on a CPU of each family from the same code) hold every
output of ``check`` on the labelled RAG rows and of the default views on a third of the type
contract. x86 CPUs with VNNI sum int8 products exactly; those without sum pairs in 16 bits,
which saturate. This compares two families' references: the largest score difference per
view, and how many claim types, row verdicts and view verdicts differ.

    python benchmarks/cpu_families.py [--families avx2 vnni]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from veritype.evaluation.machine import machine

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = ROOT / "tests" / "data"
OUT = Path(__file__).resolve().parent / "results" / "cpu_families.json"


def _views(claim: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """A claim's view results as view → (verdict, score), from either reference part."""
    views = claim["views"]
    if isinstance(views, dict):
        return {name: (str(result[0]), float(result[1])) for name, result in views.items()}
    return {str(result[0]): (str(result[1]), float(result[2])) for result in views}


def compare(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Differences between two references' outputs, claim by claim."""
    pairs = [(a, b) for row_a, row_b in zip(first["check_rag_rows"], second["check_rag_rows"],
                                            strict=True)
             for a, b in zip(row_a["claims"], row_b["claims"], strict=True)]
    pairs += list(zip(first["type_contract"], second["type_contract"], strict=True))
    largest: dict[str, float] = {}
    view_verdicts = 0
    for a, b in pairs:
        views_a, views_b = _views(a), _views(b)
        for name in views_a.keys() & views_b.keys():
            largest[name] = max(largest.get(name, 0.0),
                                abs(views_a[name][1] - views_b[name][1]))
            view_verdicts += views_a[name][0] != views_b[name][0]
    return {
        "claims": len(pairs),
        "claim_types_differing": sum(a["type"] != b["type"] for a, b in pairs),
        "rows": len(first["check_rag_rows"]),
        "row_verdicts_differing": sum(
            a["verdict"] != b["verdict"]
            for a, b in zip(first["check_rag_rows"], second["check_rag_rows"], strict=True)),
        "largest_support_difference": round(max(abs(a["support"] - b["support"])
                                                for a, b in pairs), 4),
        "largest_score_difference_by_view": {name: round(value, 4)
                                             for name, value in sorted(largest.items())},
        "view_verdicts_differing": view_verdicts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--families", nargs=2, default=["avx2", "vnni"])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    paths = [REFERENCES / f"identity_reference.{family}.json" for family in args.families]
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        sys.exit(f"no identity reference: {', '.join(missing)} (write one with "
                 f"tests/checking/identity_support.py on a CPU of that family)")
    first, second = (json.loads(path.read_text(encoding="utf-8")) for path in paths)
    result = {"benchmark": "cpu_families", "families": args.families,
              "machine": machine(), **compare(first, second)}
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=2))


if __name__ == "__main__":
    main()
