"""The type contract (``benchmarks/data/type_contract.jsonl``): the file's shape, and the
default views and aggregator typing its hand-written claims, reported per category.

The floors below hold the figures measured for the shipped default
(``benchmarks/results/type_contract.json``), so a change that types worse fails here. The
contract's own target (95% overall, 90% in every category) is not met yet: the default
Verifies half the paraphrases and swapped attributes, and docs/benchmarks.md says so."""

from collections import Counter
from pathlib import Path

import pytest

from veritype.checking import DEFAULT_VIEWS
from veritype.errors import DataError
from veritype.evaluation.contract import contract_report, load_contract, type_rows
from veritype.graph import EvidenceType
from veritype.views import create_view

SUITE = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "type_contract.jsonl"
CATEGORIES = {"verbatim_copy", "shortened_copy", "paraphrase", "changed_number", "changed_name",
              "swapped_attribute", "negation", "unmentioned", "hedged"}
# Share typed exactly as expected, per category, at or above which the default must stay.
# The share of each category typed as expected or Uncertain: Uncertain is never wrong, only
# undecided.
FLOORS = {"verbatim_copy": 1.0, "shortened_copy": 0.95, "paraphrase": 0.65,
          "changed_number": 0.95, "changed_name": 0.95, "swapped_attribute": 0.75,
          "negation": 0.95, "unmentioned": 0.95, "hedged": 0.9}


@pytest.mark.core
def test_the_contract_covers_its_categories_and_domains() -> None:
    rows = load_contract(SUITE)
    assert len(rows) >= 300
    assert len({row.domain for row in rows}) >= 8
    per_category = Counter(row.category for row in rows)
    assert set(per_category) == CATEGORIES and min(per_category.values()) >= 30
    for row in rows:
        copied = " ".join(row.claim.split()) in " ".join(row.evidence.split())
        assert copied == (row.category == "verbatim_copy"), row.row_id


@pytest.mark.core
def test_a_malformed_contract_is_refused_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "contract.jsonl"
    path.write_text('{"id": "a", "domain": "d", "category": "c", "evidence": "E.", '
                    '"claim": "C.", "expected": "maybe"}\n')
    with pytest.raises(DataError, match=r"contract.jsonl:1: expected must be one of"):
        load_contract(path)


@pytest.mark.core
@pytest.mark.slow
def test_the_default_types_the_contract_per_category() -> None:
    rows = load_contract(SUITE)
    types = type_rows(rows, [create_view(name) for name in DEFAULT_VIEWS])
    report = contract_report(rows, types)
    typed = report["types_by_category"]
    kept: Counter[str] = Counter(row.category for row, kind in zip(rows, types, strict=True)
                                 if kind in (row.expected, EvidenceType.UNCERTAIN))
    right_or_uncertain = {category: kept[category] / sum(counts.values())
                          for category, counts in typed.items()}
    print({name: round(share, 3) for name, share in right_or_uncertain.items()})
    for category, floor in FLOORS.items():
        assert right_or_uncertain[category] >= floor, category
    # Both answers are reachable, and each is the most frequent where it should be.
    assert {kind for counts in typed.values() for kind in counts} >= {
        EvidenceType.VERIFIED.value, EvidenceType.UNSUPPORTED.value}
    for category in ("verbatim_copy", "changed_number"):
        expected = "verified" if category == "verbatim_copy" else "unsupported"
        assert max(typed[category], key=typed[category].__getitem__) == expected
    assert report["share"] >= 0.8
