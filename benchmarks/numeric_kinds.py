"""How precise the `numeric` view's contradictions are, by the kind of value in conflict.

Over the aggregator's fitting pairs (training-side only: `veritype.train.fitting_data`), each
claim the `numeric` view calls contradicted with a contradiction score (the share of the
claim's other words the conflicting sentence holds) of at least ``--floor`` is counted by its
kind (the claim value in conflict: a quantity
with its unit, a bare number, a percentage, money, a date; or a value the evidence states
for another subject) and by source, with the share of those claims that are not supported.
A kind precise on every source could decide Unsupported alone where the others may not.

    python benchmarks/numeric_kinds.py --data-dir ../shared/data [--floor 0.6]
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from _common import ROOT, add_data_dir, write_report

from veritype.claims import Claim
from veritype.evidence import EvidencePack
from veritype.train.fitting_data import fitting_examples, label_arrays
from veritype.verdicts import Verdict
from veritype.views import create_view
from veritype.views._values import extract_values

ANOTHERS = "is another's"
CONFLICT = re.compile(r"claim says (.+?), evidence says")


def conflict_kind(claim: str, detail: str) -> str:
    """The kind of the first claim value a contradiction names."""
    if ANOTHERS in detail:
        return "another subject's value"
    match = CONFLICT.match(detail)
    kinds = [v.kind.name.lower() for v in extract_values(claim)
             if match is not None and v.label == match.group(1)]
    return kinds[0] if kinds else "unrecognised"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_data_dir(parser)
    parser.add_argument("--output", type=Path,
                        default=ROOT / "benchmarks" / "results" / "numeric_kinds.json")
    parser.add_argument("--floor", type=float, default=0.6,
                        help="the lowest contradiction score counted")
    args = parser.parse_args()
    floor = args.floor
    examples = fitting_examples(args.data_dir)
    supported, _ = label_arrays(examples)
    view = create_view("numeric")
    fired: Counter[tuple[str, str]] = Counter()
    right: Counter[tuple[str, str]] = Counter()
    for example, is_supported in zip(examples, supported, strict=True):
        result = view.verify(Claim("c", example.claim),
                             EvidencePack.from_texts(list(example.evidence)))
        if result.verdict is not Verdict.CONTRADICTED or result.contradiction < floor:
            continue
        kind = conflict_kind(example.claim, result.detail)
        for key in ((kind, example.meta["source"]), (kind, "all")):
            fired[key] += 1
            right[key] += not is_supported
    kinds = sorted({kind for kind, _ in fired})
    table = {kind: {source: {"fired": fired[(kind, source)],
                             "not_supported": right[(kind, source)],
                             "precision": right[(kind, source)] / fired[(kind, source)]}
                    for (k, source) in sorted(fired) if k == kind}
             for kind in kinds}
    write_report(args.output, "numeric_kinds", floor=floor, pairs=len(examples),
                 by_kind=table)
    for kind, sources in table.items():
        cells = ", ".join(f"{s} {v['not_supported']}/{v['fired']}" for s, v in sources.items())
        print(f"{kind}: {cells}")


if __name__ == "__main__":
    main()
