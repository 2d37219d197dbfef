"""The frozen evaluation data of the typing work: attribution swaps for the type contract
(``attribution_swaps.jsonl``), the metamorphic suite (``metamorphic.jsonl``) and the labelled
RAG rows (``rag_rows.jsonl``), all under ``benchmarks/data``. Only the files' shape and
invariants are checked here; no model is loaded and nothing is typed."""

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from veritype.checking._rows import CheckRow, Columns, parse_row
from veritype.evaluation.contract import load_contract

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
SWAPS = DATA / "attribution_swaps.jsonl"
METAMORPHIC = DATA / "metamorphic.jsonl"
RAG_ROWS = DATA / "rag_rows.jsonl"

HOOVER = ("Hoover Dam is a concrete arch-gravity dam on the Colorado River, on the border "
          "between Nevada and Arizona. It was constructed between 1931 and 1936 and was "
          "dedicated by President Franklin D. Roosevelt on September 30, 1935.")
EDITS = ("article", "capitalisation", "trailing_period", "whitespace", "digit_grouping",
         "spelling")
ARTICLES = {"the", "a", "an"}
# British spelling -> American spelling, for the words the suite uses.
SPELLINGS = {
    "colour": "color", "colours": "colors", "metre": "meter", "metres": "meters",
    "kilometres": "kilometers", "litres": "liters", "centre": "center", "theatre": "theater",
    "programme": "program", "organised": "organized", "reorganised": "reorganized",
    "flavoured": "flavored", "grey": "gray", "harbour": "harbor", "haemoglobin": "hemoglobin",
    "anaemia": "anemia", "paediatric": "pediatric", "aluminium": "aluminum",
}
FAULTS = {"wrong_number", "wrong_attribution", "sibling_entity", "added_detail", "negation",
          "overgeneralisation"}
SUPPORTS = {"copy", "shortened_copy", "leading_clause", "paraphrase", "combine"}


def read(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?=\s|$)", text.strip()))


def flat(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------- attribution swaps


def test_attribution_rows_load_as_contract_rows() -> None:
    rows = load_contract(SWAPS)
    contract_ids = {row.row_id for row in load_contract(DATA / "type_contract.jsonl")}
    assert not contract_ids & {row.row_id for row in rows}
    per_category = Counter(row.category for row in rows)
    assert set(per_category) == {"attribution_swap", "attribution_kept"}
    assert per_category["attribution_swap"] >= 48
    assert per_category["attribution_kept"] >= 24
    for row in rows:
        expected = "unsupported" if row.category == "attribution_swap" else "verified"
        assert row.expected.value == expected, row.row_id


def test_attribution_rows_have_exactly_the_contract_fields() -> None:
    for row in read(SWAPS):
        assert set(row) == {"id", "domain", "category", "evidence", "claim", "expected"}, row
        assert all(isinstance(value, str) and value.strip() for value in row.values()), row


def test_attribution_domains_and_passages_hold_both_categories() -> None:
    rows = read(SWAPS)
    by_domain: dict[str, Counter[str]] = {}
    by_passage: dict[str, set[str]] = {}
    for row in rows:
        by_domain.setdefault(row["domain"], Counter())[row["category"]] += 1
        by_passage.setdefault(row["evidence"], set()).add(row["category"])
    assert {"arts", "science", "sport", "business", "history", "local_news"} <= set(by_domain)
    for domain, counts in by_domain.items():
        assert counts["attribution_swap"] >= 6 and counts["attribution_kept"] >= 3, domain
    for passage, categories in by_passage.items():
        assert categories == {"attribution_swap", "attribution_kept"}, passage
        # One passage is quoted as a user reported it (two sentences); the others have 3 to 6.
        assert 2 <= sentences(passage) <= 6, passage


def test_attribution_claims_reword_and_name_only_evidence_names() -> None:
    for row in read(SWAPS):
        claim, evidence = row["claim"], row["evidence"]
        assert flat(claim) not in flat(evidence), row["id"]
        assert claim.endswith(".") and sentences(claim) == 1, row["id"]
        names = re.findall(r"\b[A-Z][\w&-]*", claim)
        if names and names[0] in {"The", "A", "An", "In", "Its"}:
            names = names[1:]
        for name in names:
            assert re.search(rf"\b{re.escape(name)}\b", evidence), (row["id"], name)


# ---------------------------------------------------------------- metamorphic suite


def same_but_first_letter(first: str, second: str) -> bool:
    return first[:1].lower() + first[1:] == second[:1].lower() + second[1:]


def article_edit(claim: str, variant: str) -> bool:
    """One article ("the", "a", "an") added or removed, the next word's first letter allowed
    to change case where the article led the sentence."""
    one, two = claim.split(" "), variant.split(" ")
    longer, shorter = (one, two) if len(one) > len(two) else (two, one)
    if len(longer) != len(shorter) + 1:
        return False
    for i, word in enumerate(longer):
        if word.lower() in ARTICLES and same_but_first_letter(
                " ".join(longer[:i] + longer[i + 1:]), " ".join(shorter)):
            return True
    return False


def american(text: str) -> str:
    def spelled(match: re.Match[str]) -> str:
        word = match.group()
        found = SPELLINGS.get(word.lower())
        if found is None:
            return word
        return found.capitalize() if word[0].isupper() else found

    return re.sub(r"[A-Za-z]+", spelled, text)


def ungrouped(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)


def declared_edit(edit: str, claim: str, variant: str) -> bool:
    if edit == "article":
        return article_edit(claim, variant)
    if edit == "capitalisation":
        return claim.lower() == variant.lower()
    if edit == "trailing_period":
        shorter, longer = sorted((claim, variant), key=len)
        return longer == shorter + "." and not shorter.endswith(".")
    if edit == "whitespace":
        return flat(claim) == flat(variant)
    if edit == "digit_grouping":
        return ungrouped(claim) == ungrouped(variant)
    if edit == "spelling":
        return american(claim) == american(variant)
    raise AssertionError(f"unknown edit {edit!r}")


def test_metamorphic_rows_have_their_fields_and_counts() -> None:
    rows = read(METAMORPHIC)
    assert len(rows) >= 220
    assert len({row["id"] for row in rows}) == len(rows)
    for row in rows:
        assert set(row) == {"id", "evidence", "claim", "variant", "edit", "expected"}, row
        assert row["expected"] in {"verified", "unsupported"}, row["id"]
        assert row["claim"].strip() and row["variant"].strip() and row["evidence"].strip()
    per_edit = Counter(row["edit"] for row in rows)
    assert set(per_edit) == set(EDITS)
    assert min(per_edit.values()) >= 30
    for edit in EDITS:
        verified = sum(row["expected"] == "verified" for row in rows if row["edit"] == edit)
        assert 0.35 <= verified / per_edit[edit] <= 0.65, edit


@pytest.mark.parametrize("edit", EDITS)
def test_each_variant_differs_from_its_claim_only_by_its_edit(edit: str) -> None:
    for row in read(METAMORPHIC):
        if row["edit"] != edit:
            continue
        claim, variant = row["claim"], row["variant"]
        assert claim != variant, row["id"]
        assert declared_edit(edit, claim, variant), row["id"]
        # The edit is of its own kind only: no other normaliser makes the pair equal.
        for other in EDITS:
            if other != edit and other != "article":
                assert not declared_edit(other, claim, variant), (row["id"], other)


def test_the_normalisers_refuse_other_edits() -> None:
    assert not article_edit("Hoover Dam is on the river.", "Hoover Dam is on a river bank.")
    assert not declared_edit("capitalisation", "The dam opened.", "The dam opened")
    assert not declared_edit("whitespace", "The dam opened.", "The dam  opened!")
    assert not declared_edit("digit_grouping", "It holds 6,650 litres.", "It holds 6,560 litres.")
    assert not declared_edit("spelling", "It is 6 metres long.", "It is 6 metres wide.")
    assert not declared_edit("trailing_period", "It opened.", "It opened..")


def test_the_hoover_dam_examples_are_in_the_suite() -> None:
    pairs = {(row["claim"], row["variant"]) for row in read(METAMORPHIC)
             if row["evidence"] == HOOVER}
    assert ("Hoover Dam is on the Colorado River.",
            "The Hoover Dam is on the Colorado River.") in pairs
    claims = {text for pair in pairs for text in pair}
    assert ("The Hoover Dam is on the Colorado River, on the border between Nevada and Arizona."
            in claims)
    assert "Hoover Dam was dedicated by President Franklin D. Roosevelt in 1935." in claims


# ---------------------------------------------------------------- labelled RAG rows


def test_rag_rows_are_rows_that_check_reads() -> None:
    rows = read(RAG_ROWS)
    assert len(rows) >= 64
    assert len({row["id"] for row in rows}) == len(rows)
    for line, row in enumerate(rows, start=1):
        parsed = parse_row(line, row, Columns())
        assert isinstance(parsed, CheckRow), (row["id"], parsed)
        assert parsed.row_id == row["id"] and parsed.question == row["question"]
        assert 2 <= len(parsed.contexts) <= 4, row["id"]
        assert all(2 <= sentences(context) <= 5 for context in parsed.contexts), row["id"]
        assert 1 <= sentences(row["answer"]) <= 3, row["id"]


def test_rag_rows_are_labelled_with_a_kind_and_a_reason() -> None:
    rows = read(RAG_ROWS)
    for row in rows:
        assert row["label"] in {"faithful", "unfaithful"}, row["id"]
        assert row["kind"] in (FAULTS if row["label"] == "unfaithful" else SUPPORTS), row["id"]
        assert isinstance(row["why"], str) and row["why"].strip(), row["id"]
    unfaithful = [row for row in rows if row["label"] == "unfaithful"]
    assert 0.35 <= len(unfaithful) / len(rows) <= 0.45
    faults = Counter(row["kind"] for row in unfaithful)
    assert set(faults) == FAULTS and min(faults.values()) >= 3
    supports = Counter(row["kind"] for row in rows if row["label"] == "faithful")
    assert {"paraphrase", "combine", "leading_clause"} <= set(supports)


def test_every_rag_answer_is_distinct() -> None:
    answers = Counter(flat(row["answer"]) for row in read(RAG_ROWS))
    assert max(answers.values()) == 1
