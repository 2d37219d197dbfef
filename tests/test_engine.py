from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from veritype.answer import confabulation_problems
from veritype.engine import Engine, EngineConfig, split_compound
from veritype.errors import VeritypeError
from veritype.evidence import Chunk, Document, EvidencePack
from veritype.graph import EvidenceType, Status

ROOT = Path(__file__).resolve().parents[1]
EIFFEL = (ROOT / "examples" / "eiffel" / "evidence.txt").read_text(encoding="utf-8")

DOCUMENTS = {
    "eiffel": ("The Eiffel Tower", EIFFEL),
    "golden-gate": (
        "Golden Gate Bridge",
        "The Golden Gate Bridge is a suspension bridge spanning the Golden Gate strait in "
        "California. The bridge opened to traffic on May 27, 1937. Its main span is 1,280 "
        "metres long. The bridge was designed by the engineer Joseph Strauss.",
    ),
    "aspirin": (
        "Aspirin",
        "Aspirin is used to reduce pain, fever and inflammation. Low-dose aspirin lowers the "
        "risk of heart attack in people at high risk. Aspirin can cause stomach bleeding.",
    ),
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    store = tmp_path_factory.mktemp("engine") / "store.sqlite"
    with Engine(EngineConfig(store=f"sqlite:///{store}")) as engine:
        engine.ingest_texts(
            [text for _, text in DOCUMENTS.values()],
            titles=[title for title, _ in DOCUMENTS.values()],
            sources=list(DOCUMENTS),
        )
        yield engine


def _evidence_of(trace: dict[str, object]) -> EvidencePack:
    entries = trace["evidence"]
    assert isinstance(entries, list)
    chunks = [
        Chunk(e["chunk_id"], e["doc_id"], e["start"], e["end"], e["text"]) for e in entries
    ]
    return EvidencePack(chunks=chunks, documents={})


def test_config_precedence_is_defaults_file_env_arguments(tmp_path: Path) -> None:
    path = tmp_path / "veritype.toml"
    path.write_text('generator = "local"\ntau = 0.7\nk = 4\nviews = ["lexical"]\n')
    env = {"VERITYPE_TAU": "0.9", "VERITYPE_VIEWS": "numeric, lexical", "VERITYPE_OTHER": "x"}
    config = EngineConfig.load(path, env=env, k=9)
    assert config.generator == "local"  # file over default
    assert config.tau == 0.9  # environment over file
    assert config.views == ["numeric", "lexical"]
    assert config.k == 9  # arguments over everything
    assert config.tau_low is None  # default: the aggregator's own


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"k": 0}, "k:"),
        ({"contradicted": "hide"}, "contradicted:"),
        ({"views": []}, "views:"),
        ({"colour": "red"}, "unknown keys colour"),
    ],
)
def test_bad_configuration_names_the_field(overrides: dict[str, object], problem: str) -> None:
    with pytest.raises(VeritypeError, match=problem):
        EngineConfig.load(env={}, **overrides)


def test_a_bad_config_file_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("tau = [")
    with pytest.raises(VeritypeError, match=r"broken\.toml is not valid TOML"):
        EngineConfig.load(broken, env={})
    with pytest.raises(VeritypeError, match="cannot be read"):
        EngineConfig.load(tmp_path / "missing.toml", env={})


def test_thresholds_in_the_wrong_order_are_refused(tmp_path: Path) -> None:
    config = EngineConfig(store=f"sqlite:///{tmp_path / 's.sqlite'}", tau=0.2, tau_low=0.5)
    with pytest.raises(VeritypeError, match="tau"):
        Engine(config)


def test_ask_renders_only_verified_cited_claims_and_saves_the_trace(engine: Engine) -> None:
    grounded = engine.ask("When did the Golden Gate Bridge open to traffic?")
    assert not grounded.abstained, grounded.abstention_reason
    assert "1937" in grounded.answer
    rendered = [claim for claim in grounded.claims if claim.rendered]
    assert rendered
    for claim in rendered:
        assert claim.type is EvidenceType.VERIFIED
        assert claim.citations
    trace = engine.trace(grounded.trace_id)
    assert trace is not None and trace["kind"] == "ask"
    assert confabulation_problems(grounded, _evidence_of(trace)) == []
    nodes = trace["graph"]["nodes"]
    assert {result["view"] for node in nodes for result in node["results"]} >= {"numeric", "nli"}
    assert set(trace["timings"]) >= {"retrieve_s", "generate_s", "verify_s", "total_s"}
    assert grounded.references[0].doc_id in {c.doc_id for c in rendered[0].citations}


def test_on_claim_sees_every_claim_once(engine: Engine) -> None:
    seen: list[str] = []
    grounded = engine.ask("What is aspirin used for?", on_claim=lambda claim: seen.append(claim.id))
    assert seen == [claim.id for claim in grounded.claims]


def test_ask_abstains_when_no_document_passes_the_filters(engine: Engine) -> None:
    grounded = engine.ask("When did the bridge open?", filters={"source": "no-such-source"})
    assert grounded.abstained
    assert grounded.abstention_reason == "No document in the store matches the query."
    assert grounded.answer == "" and grounded.claims == []
    assert engine.trace(grounded.trace_id) is not None


def test_filters_keep_only_matching_documents(engine: Engine) -> None:
    grounded = engine.ask("How tall is the tower and when did it open?",
                          filters={"title": "Eiffel"})
    cited = {c.doc_id for claim in grounded.claims for c in claim.citations}
    trace = engine.trace(grounded.trace_id)
    assert trace is not None
    assert {entry["title"] for entry in trace["evidence"]} == {"The Eiffel Tower"}
    assert len(cited) <= 1


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda e: e.ask("   "), "query: must not be empty"),
        (lambda e: e.ask("x" * 2001), "query: 2001 characters"),
        (lambda e: e.ask("bridge", mode="long"), "mode:"),
        (lambda e: e.ask("bridge", filters={"colour": "red"}), "unknown filter 'colour'"),
        (lambda e: e.ask("bridge", filters={"added_after": "soon"}), "added_after must be"),
        (lambda e: e.verify("The bridge opened in 1937.", evidence=[" "]), "evidence:"),
        (lambda e: e.verify(""), "answer: must not be empty"),
    ],
)
def test_bad_input_is_refused_with_the_field_named(
    engine: Engine, call: object, problem: str
) -> None:
    assert callable(call)
    with pytest.raises(VeritypeError, match=problem):
        call(engine)


def test_verify_with_given_evidence_drops_the_contradicted_claim(tmp_path: Path) -> None:
    # The vote vetoes on any strong view's contradiction; the default aggregator found no
    # veto reliable on its validation data (its card), so this policy is the vote's.
    answer = "The Eiffel Tower opened on 31 March 1889. The tower is 300 metres tall."
    with Engine(EngineConfig(store=f"sqlite:///{tmp_path / 's.sqlite'}",
                             aggregator="vote")) as voting:
        grounded = voting.verify(answer, evidence=[EIFFEL])
    by_text = {claim.text: claim for claim in grounded.claims}
    assert by_text["The Eiffel Tower opened on 31 March 1889."].rendered
    wrong = by_text["The Eiffel Tower is 300 metres tall."]
    assert wrong.status is Status.CONTRADICTED and not wrong.rendered
    assert "300" not in grounded.answer
    assert any("Contradicted" in item for item in grounded.limitations)


def test_verify_without_evidence_retrieves_from_the_store(engine: Engine) -> None:
    grounded = engine.verify("The Golden Gate Bridge opened to traffic on May 27, 1937.")
    assert [claim.rendered for claim in grounded.claims] == [True]
    assert grounded.claims[0].citations[0].doc_id == _doc_id(engine, "golden-gate")


def _doc_id(engine: Engine, source: str) -> str:
    for record in engine.corpus.store.documents():
        if record.source == source:
            return record.doc_id
    raise AssertionError(f"{source} not stored")


def test_flag_and_correct_policies_for_contradicted_claims(tmp_path: Path) -> None:
    answer = "The Eiffel Tower is 300 metres tall."
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    with Engine(EngineConfig(store=store, contradicted="flag", aggregator="vote")) as flagging:
        flagged = flagging.verify(answer, evidence=[EIFFEL])
    assert flagged.abstained
    assert flagged.references and flagged.references[0].quote in EIFFEL
    assert "the evidence says \u201cThe tower is 330 metres tall" in flagged.limitations[0]
    with Engine(EngineConfig(store=store, contradicted="correct",
                             aggregator="vote")) as correcting:
        corrected = correcting.verify(answer, evidence=[EIFFEL])
        trace = correcting.trace(corrected.trace_id)
    assert not corrected.abstained
    assert "330 metres" in corrected.answer and "300 metres" not in corrected.answer
    assert corrected.limitations[0].startswith("Corrected:")
    assert trace is not None and trace["corrections"][0]["verified"] is True
    assert confabulation_problems(corrected, _evidence_of(trace)) == []


def test_split_compound_splits_only_standalone_connectives() -> None:
    assert split_compound(
        "The tower is 330 metres tall, although it was built in 1889 for a fair."
    ) == ["The tower is 330 metres tall.", "It was built in 1889 for a fair."]
    assert split_compound("The bridge opened in 1937 because traffic grew fast.") == [
        "The bridge opened in 1937 because traffic grew fast."
    ]


def test_an_uncertain_compound_is_refined_into_verified_parts(tmp_path: Path) -> None:
    evidence = Document.from_text(EIFFEL)
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    answer = (
        "The tower is 330 metres tall, although the engineer Gustave Eiffel gave it his name."
    )
    # Lexical and numeric views alone find the compound's paraphrase borderline.
    with Engine(EngineConfig(store=store, views=["lexical", "numeric"], tau=0.9,
                             tau_low=0.1)) as refining:
        grounded = refining.verify(answer, evidence=[evidence.text])
        trace = refining.trace(grounded.trace_id)
    assert trace is not None
    refinements = trace["refinements"]
    if not refinements:
        pytest.fail(f"no refinement happened; claims: {grounded.claims}")
    parts = refinements[0]["parts"]
    assert [part["id"] for part in parts] == ["c1.1", "c1.2"]
    compound = next(claim for claim in grounded.claims if claim.id == "c1")
    assert compound.rendered == refinements[0]["verified"]
    assert compound.type is (
        EvidenceType.VERIFIED if refinements[0]["verified"] else EvidenceType.UNCERTAIN
    )


def test_an_answer_without_a_checkable_claim_abstains(engine: Engine) -> None:
    grounded = engine.verify("\u00a2 ?")
    assert grounded.abstained
    assert grounded.abstention_reason == "The answer contains no checkable claim."


def test_ask_does_not_show_a_verified_claim_off_the_question(tmp_path: Path) -> None:
    texts = [
        "Apple computers can get viruses and other malware from downloaded files.",
        "Sharks can get cancer, despite the popular myth that they cannot.",
    ]
    question = "Can Apple computers get viruses?"
    for relevance in (True, False):
        store = tmp_path / f"relevance-{relevance}.sqlite"
        with Engine(EngineConfig(store=f"sqlite:///{store}", relevance=relevance)) as engine:
            engine.ingest_texts(texts, titles=["Macs", "Sharks"])
            answer = engine.ask(question)
            trace = engine.trace(answer.trace_id)
        assert trace is not None
        sharks = [claim for claim in answer.claims if "Sharks" in claim.text]
        assert sharks and all(claim.type is EvidenceType.VERIFIED for claim in sharks)
        assert "Apple computers can get viruses" in answer.answer
        if relevance:
            assert "Sharks" not in answer.answer
            assert trace["off_question"] == [claim.id for claim in sharks]
            assert any("does not address the question" in note for note in answer.limitations)
        else:
            assert "Sharks" in answer.answer and trace["off_question"] == []


def test_a_chunk_opening_with_a_pronoun_is_drafted_with_the_sentence_naming_it(
    tmp_path: Path,
) -> None:
    filler = " ".join(f"Florence had {n} guilds in that year of its history." for n in range(18))
    text = (f"{filler} The Ponte Vecchio is a medieval stone bridge over the Arno in Florence. "
            "It was rebuilt in 1345 after a flood destroyed the older bridge.")
    with Engine(EngineConfig(store=f"sqlite:///{tmp_path / 'store.sqlite'}")) as engine:
        engine.ingest_texts([text, "The Rialto Bridge crosses the Grand Canal in Venice."],
                            titles=["Florence", "Venice"])
        chunks = [chunk for _, chunk in engine.corpus.store.document_chunks(
            engine.corpus.store.documents()[0].doc_id)]
        assert chunks[-1].text.startswith("It was rebuilt")  # the pronoun opens a chunk
        answer = engine.ask("When was the Ponte Vecchio rebuilt?")
        trace = engine.trace(answer.trace_id)
    assert trace is not None
    assert ("The Ponte Vecchio is a medieval stone bridge over the Arno in Florence. It was "
            "rebuilt in 1345") in str(trace["draft"])
    assert "The Ponte Vecchio was rebuilt in 1345" in answer.answer


def test_with_referent_reaches_back_to_the_sentence_or_heading_that_names_it() -> None:
    from veritype.engine._evidence import with_referent

    text = ("# Akashi Kaikyo Bridge\n\nIt crosses the Akashi Strait. "
            "The Akashi Kaikyo Bridge is a suspension bridge in Japan. The bridge opened in "
            "1998. Its central span is 1,991 metres long.")
    document = Document.from_text(text, source="akashi.md")

    def chunk_at(sentence: str) -> Chunk:
        start = text.index(sentence)
        return Chunk("c", document.doc_id, start, len(text), text[start:])

    widened = with_referent(chunk_at("Its central span"), text)
    assert widened.text.startswith("The Akashi Kaikyo Bridge is a suspension bridge")
    assert widened.text == text[widened.start:widened.end] and widened.end == len(text)
    assert with_referent(chunk_at("It crosses"), text).text.startswith("# Akashi Kaikyo")
    unchanged = chunk_at("The bridge opened")
    assert with_referent(unchanged, text) is unchanged
    # A description of another thing than the one named before is what "it" stands for.
    guide = ("## By air\n\nThe airport lies 18 km north. The cheaper option is airport bus 30, "
             "which stops at the Harbour. It runs every 20 minutes.")
    start = guide.index("It runs")
    bus = with_referent(Chunk("c", "d", start, len(guide), guide[start:]), guide)
    assert bus.text.startswith("The cheaper option is airport bus 30")
    far = "The Seine flows through Paris. " + " ".join(["It is long."] * 4)
    last = far.rindex("It is long.")
    tail = Chunk("c", "d", last, len(far), far[last:])
    assert with_referent(tail, far) is tail
