import pytest

from veritype.views._roles import Agency, agencies, given_to_another_agent

MUSEUM = [agencies(text) for text in [
    "The museum is open on Mondays and Wednesdays; on all other days it is closed.",
    "Its collection of maps was donated by the shipping family Verhoeven in 1962, and the "
    "building itself was designed by the architect Ida Kraal.",
]]


def test_agents_are_read_from_by_phrases_and_named_subjects() -> None:
    read = agencies("The maps were donated by the shipping family Verhoeven in 1962, and Ida "
                    "Kraal designed the building.")
    assert [(agency.action, agency.agents) for agency in read] == [
        ("donat", frozenset({"verhoeven"})), ("design", frozenset({"ida", "kraal"}))]
    # A by-phrase naming no one, and a sentence opening with "It", give no agent.
    assert agencies("It was built by the company and opened in 1889.") == []


@pytest.mark.parametrize(("claim", "rival"), [
    ("The museum building was designed by the Verhoeven family.", "designed by the architect "
     "Ida Kraal"),
    ("The maps were donated by Ida Kraal in 1962.", "donated by the shipping family Verhoeven"),
])
def test_the_right_names_in_the_wrong_roles_are_a_swap(claim: str, rival: str) -> None:
    swap = given_to_another_agent(claim, MUSEUM)
    assert swap is not None
    assert (swap[1].written, swap[2]) == (rival, 1)


@pytest.mark.parametrize("claim", [
    "The collection of maps was donated by the shipping family Verhoeven.",
    "The building was designed by Ida Kraal.",
    # Named nowhere else in the evidence: not a swap of roles, only not stated.
    "The building was designed by Piet Mondriaan.",
])
def test_an_agent_the_evidence_gives_the_action_or_no_other_role_is_no_swap(claim: str) -> None:
    assert given_to_another_agent(claim, MUSEUM) is None


def test_one_of_several_agents_listed_is_no_swap() -> None:
    bridge = ["The bridge was designed by Joseph Strauss, Leon Moisseiff and Charles Ellis.",
              "Charles Ellis resigned in 1931."]
    assert given_to_another_agent("The bridge was designed by Charles Ellis.",
                                  [agencies(text) for text in bridge]) is None


POST = [agencies(text) for text in [
    "The uniform penny post was proposed by Rowland Hill in 1837.",
    "The stamp's portrait was based on a sketch made by Henry Corbould.",
]]
BRIDGE = [agencies(text) for text in [
    "The bridge was designed by Ana Ruiz and constructed by the firm Holt & Sons.",
]]
CHOIR = [agencies(text) for text in [
    "Mara Eld founded the choir in 1950. Tomas Berg wrote its first songbook.",
]]


@pytest.mark.parametrize(("claim", "evidence"), [
    # "came from" says whose idea it was, as "proposed by" does.
    ("The idea of a uniform penny post came from Henry Corbould.", POST),
    # One action in other words: "built" as "constructed", "established" as "founded".
    ("The bridge was built by Ana Ruiz.", BRIDGE),
    ("The choir was established by Tomas Berg.", CHOIR),
])
def test_a_swap_is_read_whatever_verb_names_the_action(claim: str,
                                                       evidence: list[list[Agency]]) -> None:
    assert given_to_another_agent(claim, evidence) is not None


@pytest.mark.parametrize(("claim", "evidence"), [
    ("The idea of a uniform penny post came from Rowland Hill.", POST),
    ("The bridge was built by the firm Holt & Sons.", BRIDGE),
    ("The choir was established by Mara Eld in 1950.", CHOIR),
])
def test_the_agent_of_the_action_in_other_words_is_no_swap(claim: str,
                                                           evidence: list[list[Agency]]) -> None:
    assert given_to_another_agent(claim, evidence) is None
