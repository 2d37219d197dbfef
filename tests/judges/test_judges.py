"""The judges and the judge view against the real default judge model, loaded in-process
and served by a real llama.cpp server."""

from __future__ import annotations

from pathlib import Path

import pytest

from veritype.claims import Claim
from veritype.errors import GenerationError, UnknownComponentError
from veritype.evidence import EvidencePack
from veritype.judges import create_judge, support_from_top_tokens
from veritype.judges.view import JudgeView
from veritype.views import Verdict, create_view

TOWER = ("The Eiffel Tower is a wrought-iron lattice tower in Paris. It was completed in 1889 "
         "for the World's Fair. The tower is 330 metres tall.")
SUPPORTED = "The Eiffel Tower was completed in 1889."
UNSUPPORTED = "The Eiffel Tower was completed in 1925."


def test_p_yes_is_read_from_the_first_tokens_alternatives() -> None:
    assert support_from_top_tokens({"Yes": -0.1, " no": -2.4, "Maybe": -3.0}) == pytest.approx(
        0.9088, abs=1e-3)
    assert support_from_top_tokens({"Maybe": -0.1}) is None


def test_an_unknown_judge_names_the_known_ones() -> None:
    with pytest.raises(UnknownComponentError,
                       match="unknown judge 'oracle'; known judges: local, openai"):
        create_judge("oracle")


@pytest.mark.parametrize("where", [
    pytest.param("in-process", marks=pytest.mark.needs_judge),
    pytest.param("llama.cpp server", marks=[pytest.mark.needs_judge, pytest.mark.needs_serve]),
])
def test_each_judge_separates_a_supported_claim_from_a_wrong_date(
    where: str, request: pytest.FixtureRequest
) -> None:
    judge = (create_judge("local", model_path=request.getfixturevalue("judge_model"))
             if where == "in-process"
             else create_judge("openai", base_url=request.getfixturevalue("judge_server")))
    supported, unsupported = judge.judge_batch([(SUPPORTED, TOWER), (UNSUPPORTED, TOWER)])
    assert supported > 0.5 > unsupported


@pytest.mark.needs_judge
def test_a_batch_answers_in_its_own_order_whatever_order_it_is_asked_in(
        judge_model: Path) -> None:
    judge = create_judge("local", model_path=judge_model)
    bridge = "The Golden Gate Bridge opened in 1937. It spans the Golden Gate strait."
    pairs = [(UNSUPPORTED, TOWER), ("The Golden Gate Bridge opened in 1937.", bridge),
             (SUPPORTED, TOWER), ("The Golden Gate Bridge opened in 1883.", bridge)]
    batch = judge.judge_batch(pairs)
    alone = [judge.judge(claim, evidence) for claim, evidence in pairs]
    assert batch == pytest.approx(alone, abs=0.02)
    assert batch[1] > 0.5 > batch[0] and batch[2] > 0.5 > batch[3]


@pytest.mark.needs_judge
def test_the_judge_view_cites_the_windows_it_asked_about(judge_model: Path) -> None:
    view = create_view("judge", model_path=judge_model, max_windows=1)
    assert isinstance(view, JudgeView) and view.cost > 5 and not view.strong
    pack = EvidencePack.from_texts([TOWER])
    supported, unsupported = view.verify_batch(
        [Claim("c1", SUPPORTED), Claim("c2", UNSUPPORTED)], [pack, pack])
    assert supported.verdict is Verdict.ENTAILED and supported.score > 0.5
    assert "1889" in pack.quote(supported.spans[0])
    assert unsupported.verdict is Verdict.UNKNOWN and unsupported.score < 0.5
    assert "local judge: P(yes)" in unsupported.detail


@pytest.mark.needs_httpx
def test_the_openai_judge_names_an_unreachable_server() -> None:
    from llama_support import free_port

    judge = create_judge("openai", base_url=f"http://127.0.0.1:{free_port()}/v1", retries=0,
                         model="any")
    with pytest.raises(GenerationError, match="cannot reach the OpenAI-compatible server"):
        judge.judge(SUPPORTED, TOWER)


@pytest.mark.needs_judge
def test_the_engine_runs_the_judge_with_its_configured_options(
    judge_model: Path, tmp_path: Path
) -> None:
    from veritype.engine import Engine, EngineConfig

    config = EngineConfig(
        store=f"sqlite:///{tmp_path / 'store.sqlite'}",
        views=["numeric", "lexical", "nli", "align", "judge"],
        view_options={"judge": {"model_path": str(judge_model), "borderline_only": False}},
    )
    with Engine(config) as engine:
        # No number: the numeric view cannot settle it before the judge is asked.
        answer = engine.verify("The Eiffel Tower is made of glass.", [TOWER])
        trace = engine.trace(answer.trace_id)
    assert trace is not None
    judged = [result for node in trace["graph"]["nodes"] for result in node["results"]
              if result["view"] == "judge"]
    assert judged and judged[0]["score"] < 0.5 and judged[0]["verdict"] == "unknown"


def test_view_options_must_name_configured_views() -> None:
    from pydantic import ValidationError

    from veritype.engine import EngineConfig

    with pytest.raises(ValidationError, match="view_options names views that are not "
                       "configured: judge"):
        EngineConfig(views=["nli"], view_options={"judge": {"judge": "openai"}})


@pytest.mark.needs_judge
def test_the_default_aggregator_lets_the_judge_lift_a_paraphrase_the_encoders_doubt(
    judge_model: Path, tmp_path: Path
) -> None:
    from veritype.engine import Engine, EngineConfig
    from veritype.graph import EvidenceType

    paraphrase, wrong = "The Eiffel Tower stands in the French capital.", UNSUPPORTED
    encoders = ["numeric", "lexical", "nli", "align"]
    types: dict[str, list[EvidenceType]] = {}
    for name, views in (("encoders", encoders), ("judge", [*encoders, "judge"])):
        config = EngineConfig(store=f"sqlite:///{tmp_path / name}.sqlite", views=views,
                              view_options={"judge": {"model_path": str(judge_model)}}
                              if name == "judge" else {})
        with Engine(config) as engine:
            types[name] = [engine.verify(claim, [TOWER]).claims[0].type
                           for claim in (paraphrase, wrong)]
    # The encoders do not verify the paraphrase (nli even reads it as contradicted); the
    # judge, asked because the encoders leave it unsettled, verifies it; the wrong year
    # stays unverified.
    assert types["encoders"][0] is not EvidenceType.VERIFIED
    assert types["judge"][0] is EvidenceType.VERIFIED
    assert types["judge"][1] is not EvidenceType.VERIFIED


@pytest.mark.needs_judge
def test_the_judge_alone_examines_every_claim(judge_model: Path, tmp_path: Path) -> None:
    from veritype.engine import Engine, EngineConfig

    config = EngineConfig(store=f"sqlite:///{tmp_path / 'judge.sqlite'}", views=["judge"],
                          view_options={"judge": {"model_path": str(judge_model)}})
    with Engine(config) as engine:
        claims = engine.verify(f"{SUPPORTED} {UNSUPPORTED}", [TOWER]).claims
    assert len(claims) == 2
    for claim in claims:
        assert [view.name for view in claim.views] == ["judge"]
    assert claims[0].type.value == "verified" and claims[1].type.value != "verified"
