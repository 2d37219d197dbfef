"""``check`` where RAG engineers keep their rows (a DataFrame, a Hugging Face Dataset, a RAGAS
EvaluationDataset, a mapping of columns), and its results as DataFrames and records."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from check_support import BAND_ROWS, BAND_SETTINGS, BROOKLYN, GOLDEN_GATE, IN_THE_BAND, ROWS

from veritype import check
from veritype.checking import InputError, UncertainAs, check_file, write_outputs

ROOT = Path(__file__).resolve().parents[2]
RAGAS_ROWS = [
    {"user_input": row["question"], "response": row["answer"],
     "retrieved_contexts": row["contexts"]} for row in ROWS[:2]
]


def assert_the_two_bridge_rows(result: Any) -> None:
    records = result.records()
    assert [record["verdict"] for record in records] == ["faithful", "unfaithful"]
    wrong = records[1]["unsupported_claims"]
    assert len(wrong) == 1
    assert wrong[0]["claim"] == "The Golden Gate Bridge opened to traffic in 1883."
    assert "1883" in wrong[0]["reason"] and "1937" in wrong[0]["reason"]
    assert (wrong[0]["start"], wrong[0]["end"]) == (0, len(ROWS[1]["answer"]))


def test_a_dataframe_in_ragas_column_names() -> None:
    pandas = pytest.importorskip("pandas")
    result = check(pandas.DataFrame(RAGAS_ROWS))
    assert_the_two_bridge_rows(result)
    frame = result.to_pandas()
    assert list(frame["verdict"]) == ["faithful", "unfaithful"]
    assert frame.loc[1, "unsupported"] == 1
    claims = result.claims_frame()
    assert {"claim", "type", "support", "reason", "answer_start", "answer_end", "citations",
            "nli_verdict", "numeric_score"} <= set(claims.columns)
    verified = claims[claims["type"] == "verified"].iloc[0]
    citation = verified["citations"][0]
    context = RAGAS_ROWS[0]["retrieved_contexts"][citation["context"]]
    assert context[citation["start"]:citation["end"]] == citation["quote"]


def test_a_dataframe_with_an_empty_question_cell_is_checked() -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([{"question": None, "answer": ROWS[0]["answer"],
                               "contexts": [GOLDEN_GATE]},
                              {"question": "Q?", "answer": "The bridge crosses the East River.",
                               "contexts": [BROOKLYN]}])
    assert [record["verdict"] for record in check(frame).records()] == ["faithful", "faithful"]


def test_a_hugging_face_dataset() -> None:
    datasets = pytest.importorskip("datasets")
    assert_the_two_bridge_rows(check(datasets.Dataset.from_list(RAGAS_ROWS)))


def test_a_ragas_evaluation_dataset() -> None:
    ragas = pytest.importorskip("ragas")
    samples = [ragas.SingleTurnSample(**row) for row in RAGAS_ROWS]
    assert_the_two_bridge_rows(check(ragas.EvaluationDataset(samples=samples)))


def test_a_mapping_of_columns() -> None:
    columns = {name: [row[name] for row in RAGAS_ROWS] for name in RAGAS_ROWS[0]}
    assert_the_two_bridge_rows(check(columns))
    with pytest.raises(InputError, match="differ in length: user_input 2, response 1"):
        check({**columns, "response": columns["response"][:1]})


@pytest.mark.parametrize(("data", "words"), [
    ("rows.jsonl", "not a text"), ({"answer": "x"}, "a list of mappings"), (42, "not a int"),
])
def test_what_is_not_rows_is_refused(data: Any, words: str) -> None:
    with pytest.raises(InputError, match=words):
        check(data)


def test_skipped_rows_are_records_too() -> None:
    records = check(ROWS).records()
    assert [record["line"] for record in records] == [1, 2, 3, 4, 5, 6]
    assert records[5]["verdict"] == "skipped" and "empty" in records[5]["problem"]


def test_without_pandas_a_frame_says_what_to_install() -> None:
    script = (
        "import sys; sys.modules['pandas'] = None\n"
        "from veritype import check\n"
        f"result = check({RAGAS_ROWS[:1]!r})\n"
        "assert result.records()[0]['verdict'] == 'faithful'\n"
        "try:\n    result.to_pandas()\n"
        "except Exception as error:\n    print(type(error).__name__, error)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == ("InputError a DataFrame needs pandas: pip install pandas "
                                   "(records() gives the same rows)")


def test_every_claim_not_verified_has_a_reason_in_the_csv(tmp_path: Path) -> None:
    result = check_file(ROOT / "examples" / "rag_outputs.jsonl", tmp_path / "run")
    paths = write_outputs(result, tmp_path / "run")
    failing = [claim for row in result.rows for claim in row.claims
               if claim.type.value != "verified"]
    assert failing and all(claim.reason for claim in failing)
    with paths["csv"].open(encoding="utf-8") as handle:
        cells = [row["unsupported_claims"] + row["uncertain_claims"]
                 for row in csv.DictReader(handle)]
    for claim in failing:
        assert any(f"{claim.written} ({claim.reason}) [{claim.start}:{claim.end}]" in cell
                   for cell in cells)


@pytest.mark.parametrize(("uncertain_as", "faithfulness"),
                         [(UncertainAs.FAIL, 0.5), (UncertainAs.PASS, 1.0)])
def test_records_and_frames_mark_the_row_that_needs_review(
        uncertain_as: UncertainAs, faithfulness: float) -> None:
    result = check(BAND_ROWS, settings=BAND_SETTINGS, uncertain_as=uncertain_as)
    records = result.records()
    assert [(r["id"], r["verdict"], r["needs_review"]) for r in records] == [
        ("needs-review", "uncertain", True), ("right", "faithful", False),
        ("wrong", "unfaithful", False)]
    assert records[0]["faithfulness"] == faithfulness
    assert [claim["claim"] for claim in records[0]["uncertain_claims"]] == [IN_THE_BAND]
    assert records[0]["unsupported_claims"] == []
    pandas = pytest.importorskip("pandas")
    frame = result.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["needs_review"]) == [True, False, False]
    assert list(frame["verdict"]) == ["uncertain", "faithful", "unfaithful"]
    assert frame.loc[0, "faithfulness"] == faithfulness
