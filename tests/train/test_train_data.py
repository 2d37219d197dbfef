import random
from pathlib import Path

import pytest

from veritype.errors import DataError
from veritype.train import data
from veritype.train.data import Pair


def test_nli_pool_reads_train_files_and_refuses_eval(data_dir: Path) -> None:
    pairs = data.nli_pool(data_dir, ["fracas_dev", "rte_train_2way"])
    rows = sum(
        len((data_dir / "nli" / "train" / f"{name}.jsonl").read_text().splitlines())
        for name in ("fracas_dev", "rte_train_2way")
    )
    assert len(pairs) == rows > 2000
    assert {p.label for p in pairs} == {"entailment", "neutral", "contradiction", "not_entailment"}
    with pytest.raises(DataError, match="only files of nli/train"):
        data.nli_pool(data_dir, ["eval/sick_test"])
    with pytest.raises(DataError, match="not found"):
        data.nli_pool(data_dir, ["no_such_set"])


def test_halueval_refuses_evaluation_rows(data_dir: Path) -> None:
    pairs = data.halueval(data_dir, "qa", 5)
    assert len(pairs) == 10
    assert [p.label for p in pairs[:2]] == ["entailment", "not_entailment"]
    assert pairs[0].hypothesis.startswith("Which magazine was started first")
    with pytest.raises(DataError, match="evaluation only"):
        data.halueval(data_dir, "qa", 8001)
    with pytest.raises(DataError, match="evaluation only"):
        data.halueval_texts(data_dir, 9000)
    with pytest.raises(DataError, match="use one of"):
        data.halueval(data_dir, "general", 10)


def test_scifact_pairs_come_from_rationales(data_dir: Path) -> None:
    pairs = data.scifact(data_dir, random.Random(0))
    labels = {p.label for p in pairs}
    assert labels == {"entailment", "contradiction", "neutral"}
    assert all(p.source == "scifact" and p.premise and p.hypothesis for p in pairs)
    assert 1000 < len(pairs) < 3000


def test_synthetic_perturbations_change_what_they_claim_to() -> None:
    document = (
        "The bridge was opened in 1932 by Governor Smith. It carries 160,000 vehicles a day "
        "across the harbour. The deck is 49 metres wide and was rebuilt in 1990."
    )
    pairs = data.synthetic([document], random.Random(4), per_document=3, source="t")
    by_label: dict[str, list[Pair]] = {}
    for pair in pairs:
        by_label.setdefault(pair.label, []).append(pair)
    assert set(by_label) == {"entailment", "contradiction", "neutral"}
    for pair in by_label["contradiction"]:
        assert pair.hypothesis != pair.premise
    for pair in by_label["neutral"]:
        assert pair.hypothesis != pair.premise
        assert pair.hypothesis in document


def test_polarity_flip_is_reversible() -> None:
    flipped = data._flip_polarity("The drug was effective in mice.")
    assert flipped == "The drug was not effective in mice."
    assert data._flip_polarity(flipped) == "The drug was effective in mice."
    assert data._flip_polarity("Mice respond quickly.") is None


def test_a_pronoun_for_the_subject_name_is_neutral_evidence() -> None:
    assert data._pronoun_subject("The Eiffel Tower was completed in 1889.") == (
        "It was completed in 1889."
    )
    assert data._pronoun_subject("Sonic Youth were an American band.") == (
        "They were an American band."
    )
    assert data._pronoun_subject("In 1990 Paris grew.") is None
    document = "Paris is the capital of France. The city has two million inhabitants."
    pairs = data.synthetic([document], random.Random(1), per_document=2, source="t")
    pronominal = [p for p in pairs if p.premise == "It is the capital of France."]
    assert [(p.hypothesis, p.label) for p in pronominal] == [
        ("Paris is the capital of France.", "neutral")
    ]


def test_each_synthetic_kind_can_be_chosen_alone() -> None:
    document = (
        "Doctor Smith treated some patients with the new drug in 1998. The trial often "
        "ran for 12 weeks in Boston. Most patients were cured within a month of treatment."
    )
    seen: dict[str, set[str]] = {}
    for kind in data.SYNTHETIC_KINDS:
        pairs = data.synthetic([document], random.Random(2), per_document=3, source="t",
                               kinds=(kind,))
        assert pairs, kind
        assert {p.source for p in pairs} == {f"t_{kind}"}
        seen[kind] = {p.label for p in pairs}
    assert seen["clause"] == {"entailment"}
    assert seen["value"] == seen["negation"] == {"contradiction"}
    assert seen["quantifier"] == seen["hedge"] == seen["unrelated"] == {"neutral"}


def test_a_strengthened_quantifier_or_a_hedge_says_more_than_the_evidence() -> None:
    assert data._strengthen_quantifier("Some birds can fly at night.") == (
        "All birds can fly at night.")
    assert data._strengthen_quantifier("The trial often ran late.") == "The trial always ran late."
    assert data._strengthen_quantifier("The trial ran late.") is None
    hedged = data._hedged("The drug lowers blood pressure.", random.Random(0))
    assert hedged.endswith("the drug lowers blood pressure.") and hedged != "The drug lowers"


def test_an_unknown_synthetic_kind_is_refused_naming_the_known() -> None:
    from veritype.train.config import DataConfig

    with pytest.raises(ValueError, match="unknown synthetic_kinds \\['sarcasm'\\]"):
        DataConfig(synthetic_kinds=["value", "sarcasm"])
