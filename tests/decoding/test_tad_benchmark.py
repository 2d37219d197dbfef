"""The TAD benchmark (benchmarks/tad.py) on a small scale: its open-world sets are open
world indeed (no surface of the knowledge base names their relations, nor does it hold their
subjects), answers are scored as whole words against gold, and a short run reports rates
that add up, with every answer's status and the speed beside the abstentions."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from benchmark_support import benchmark_module

OPEN_SETS = ("absent", "paraphrase", "retrieved")


@pytest.fixture(scope="module")
def tad() -> Iterator[ModuleType]:
    with benchmark_module("tad.py") as module:
        yield module


def test_the_guard_knows_the_closed_world_answers_and_must_reach_the_open_world_ones(
    tad: ModuleType, tmp_path: Path
) -> None:
    corpus, retriever = tad.demo_retriever(tmp_path)
    with corpus:
        cases, guards = tad.build_cases(["general", *OPEN_SETS], 0, retriever)
        by_set = {name: [c for c in cases if c.kind == name] for name in ("general", *OPEN_SETS)}
        assert len(by_set["absent"]) >= 60 and len(by_set["paraphrase"]) == len(by_set["general"])
        known: dict[str, int] = dict.fromkeys(by_set, 0)
        for case in cases:
            lead = case.prompt.rpartition("\n")[2]
            # The exact trie never knows an open-world lead (build_cases checks it too).
            assert guards.open.compiled.lookup(lead, tad.date.today()) is None or (
                case.kind == "general")
            verdicts = guards.for_case(case).safe(lead, [f" {case.expected}", " Zanzibar"])
            assert verdicts[0], case  # the gold answer is never blocked
            known[case.kind] += not verdicts[1]
    assert known["general"] == len(by_set["general"]) and known["absent"] == 0
    # By meaning, most paraphrased relations reach their triple; by retrieval, most
    # demo-corpus facts do.
    assert len(by_set["paraphrase"]) // 2 <= known["paraphrase"] < len(by_set["paraphrase"])
    assert known["retrieved"] >= len(by_set["retrieved"]) // 2
    for case in by_set["absent"]:
        assert case.evidence == "" and tad.retry_for("on", case) is None
    for case in by_set["paraphrase"]:
        assert case.evidence and tad.retry_for("on", case) is not None


def test_an_open_world_subject_the_knowledge_base_holds_is_refused(
    tad: ModuleType, tmp_path: Path
) -> None:
    facts = tmp_path / "open.csv"
    facts.write_text("subject,relation,answer,alternatives,source\n"
                     "Canada,capital,Ottawa,,CIA World Factbook\n", encoding="utf-8")
    knowledge = tad.KnowledgeBase.from_file(tad.FACTS)
    with pytest.raises(ValueError, match="Canada"):
        tad.absent_cases(knowledge, facts)


def test_answers_are_scored_as_whole_words_against_gold(tad: ModuleType) -> None:
    potassium = tad.Case("absent", "", "K", "")
    assert potassium.correct(" K.") and not potassium.correct(" Kr.")
    assert not tad.Case("absent", "", "Au", "").correct(" Australian gold.")
    brazil = tad.Case("general", "", "Brasília", "", ("Brasilia",))
    assert brazil.correct(" Brasilia, since 1960.") and not brazil.correct(" Rio. Brasília.")
    obama = tad.Case("paraphrase", "", "Barack Obama", "")
    assert not obama.correct(" Donald Trump, who is the current US president Barack Obama.")
    assert tad.Case("absent", "", "1809", "").correct(" February 12, 1809, in Kentucky.")


@pytest.mark.needs_llama
@pytest.mark.slow
def test_a_short_open_world_run_reports_rates_that_add_up(
    tad: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    args = tad.parser().parse_args(["--limit", "2", "--sets", "general,absent,paraphrase"])
    report = tad.run(args)
    for config in tad.CONFIGS:
        for group in ("absent", "paraphrase", "open_world_facts"):
            row = report["table"][config][group]
            assert row["prompts"] == (4 if group == "open_world_facts" else 2)
            assert row["correct"] + row["wrong"] + row["abstained"] == row["prompts"]
            assert row["guarded"] + row["unverified"] + row["abstained"] == row["prompts"]
            assert math.isclose(row["accuracy"] + row["hallucination_rate"]
                                + row["abstention_rate"], 1.0)
            for key in ("accuracy", "hallucination_rate", "abstention_rate"):
                low, high = row[f"{key}_ci95"]
                assert low <= row[key] <= high
    # Nothing to retrieve for an absent fact: the guarded run never backs off to evidence,
    # and no guard can check it, so none is presented as guarded.
    absent = report["table"]["on"]["absent"]
    assert absent["retried"] == 0 and absent["guarded"] == 0
    assert report["table"]["on"]["general"]["hallucination_rate"] == 0.0
    assert report["table"]["off"]["general"]["guarded"] == 0
    hallucination = report["headline"]["hallucination"]
    assert {"closed_world_facts", "open_world_facts"} <= hallucination.keys()
    for config in ("on", "on_no_retry"):
        speed = report["headline"]["speed"][config]
        assert {"seconds_per_prompt_overhead", "abstention_rate"} <= speed.keys()
    assert report["machine"]["cpu"]["model"] and report["model"]["llama_cpp_python"]
    tad.print_report(report)
    assert "open_world_facts" in capsys.readouterr().out
