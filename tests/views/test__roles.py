import pytest

from veritype._text import content_words
from veritype.views._roles import Agency, agencies, given_to_another_agent

MUSEUM = [
    "The museum is open on Mondays and Wednesdays; on all other days it is closed.",
    "Its collection of maps was donated by the shipping family Verhoeven in 1962, and the "
    "building itself was designed by the architect Ida Kraal.",
]


def swap(claim: str, evidence: list[str]) -> tuple[Agency, Agency, int] | None:
    """The role swap the evidence texts show in ``claim``, read as numeric reads them."""
    return given_to_another_agent(claim, [agencies(text) for text in evidence],
                                  [frozenset(content_words(text)) for text in evidence])


def test_agents_are_read_from_by_phrases_and_named_subjects() -> None:
    read = agencies("The maps were donated by the shipping family Verhoeven in 1962, and Ida "
                    "Kraal designed the building.")
    assert [(agency.action, agency.agents) for agency in read] == [
        ("donat", frozenset({"verhoeven"})), ("design", frozenset({"ida", "kraal"}))]
    # A by-phrase naming no one gives an unnamed agent; "It", "them" give none.
    assert [(agency.action, agency.agents, agency.named) for agency in agencies(
        "It was built by the company and opened in 1889.")] == [
        ("build", frozenset({"company"}), False)]
    assert agencies("It opened in 1889 and was paid for by them.") == []


def test_agents_are_read_past_particles_adverbs_irregular_verbs_and_nouns() -> None:
    read = agencies("The playground was paid for by the Rotary Club. Owen Pryce later worked "
                    "out its structure. The ribbon was cut by the mayor, Janet Brooks, on "
                    "Saturday. It follows a design by the engineer Margaret Tull, and the organ "
                    "was a gift from the Falk Foundation.")
    assert [(agency.action, agency.agents) for agency in read] == [
        ("pay", frozenset({"rotary", "club"})), ("cut", frozenset({"janet", "brooks"})),
        ("design", frozenset({"margaret", "tull"})), ("donat", frozenset({"falk", "foundation"})),
        ("work", frozenset({"owen", "pryce"}))]
    # A phrase of place or time may stand between the participle and "by".
    assert [(agency.action, agency.agents) for agency in agencies(
        "It was developed at the Kemble Institute by Aiko Tanaka and built between 1840 and "
        "1844 by William Hale.")] == [("develop", frozenset({"aiko", "tanaka"})),
                                      ("build", frozenset({"william", "hale"}))]
    # So may an adverb, and either may be set off by commas.
    assert [(agency.action, agency.agents) for agency in agencies(
        "Dunlish Fort was built later, in 1768, by John Ferrier.")] == [
        ("build", frozenset({"john", "ferrier"}))]
    # A phrase ends where a new clause starts: ", and the ribbon ...".
    (designed,) = agencies("It was designed by a carpenter, Sam Okafor, and the ribbon fell.")
    assert designed.agents == {"sam", "okafor"}


@pytest.mark.parametrize(("claim", "rival"), [
    ("The museum building was designed by the Verhoeven family.", "designed by the architect "
     "Ida Kraal"),
    ("The maps were donated by Ida Kraal in 1962.", "donated by the shipping family Verhoeven"),
])
def test_the_right_names_in_the_wrong_roles_are_a_swap(claim: str, rival: str) -> None:
    found = swap(claim, MUSEUM)
    assert found is not None
    assert (found[1].written, found[2]) == (rival, 1)


@pytest.mark.parametrize("claim", [
    "The collection of maps was donated by the shipping family Verhoeven.",
    "The building was designed by Ida Kraal.",
    # Named nowhere in the evidence: not a swap of roles, only not stated.
    "The building was designed by Piet Mondriaan.",
])
def test_an_agent_the_evidence_gives_the_action_or_does_not_name_is_no_swap(claim: str) -> None:
    assert swap(claim, MUSEUM) is None


def test_one_of_several_agents_listed_is_no_swap() -> None:
    bridge = ["The bridge was designed by Joseph Strauss, Leon Moisseiff and Charles Ellis.",
              "Charles Ellis resigned in 1931."]
    assert swap("The bridge was designed by Charles Ellis.", bridge) is None


POST = ["The uniform penny post was proposed by Rowland Hill in 1837.",
        "The stamp's portrait was based on a sketch made by Henry Corbould."]
BRIDGE = ["The bridge was designed by Ana Ruiz and constructed by the firm Holt & Sons."]
CHOIR = ["Mara Eld founded the choir in 1950. Tomas Berg wrote its first songbook."]
# The agent's other role is in words no agency is read from ("the work of").
HALL = ["Its acoustics were designed by Mirela Kos, while the facade was the work of the "
        "architect Tobias Lindqvist. Its safety trial was run by the Norwood Unit."]
BOOK = ["The novel was written by Clara Vance. Its cover was painted by her brother, Elliot "
        "Vance."]


@pytest.mark.parametrize(("claim", "evidence"), [
    # "came from" says whose idea it was, as "proposed by" does.
    ("The idea of a uniform penny post came from Henry Corbould.", POST),
    # One action in other words: "built" as "constructed", "established" as "founded".
    ("The bridge was built by Ana Ruiz.", BRIDGE),
    ("The choir was established by Tomas Berg.", CHOIR),
    ("The acoustics were designed by Tobias Lindqvist.", HALL),
    # "ran" and "run by" are one action.
    ("Mirela Kos ran the safety trial.", HALL),
    # The name a relative clause opens on is its agent: Rovers beat Albion.
    ("Albion beat Rovers in the final.", ["The final was won by Rovers, who beat Albion."]),
    # A shared surname is not one agent.
    ("Clara Vance painted the cover of the novel.", BOOK),
])
def test_a_swap_is_read_whatever_verb_names_the_action(claim: str, evidence: list[str]) -> None:
    assert swap(claim, evidence) is not None


# An agent named by a description, where the claim's agent has another role.
PARK = ["The playground was paid for by the Rotary Club and built by local volunteers."]


@pytest.mark.parametrize(("claim", "evidence"), [
    ("The Rotary Club built the playground.", PARK),
    ("The playground was built by the Rotary Club.", PARK),
])
def test_an_action_a_description_did_is_not_anothers_with_a_role_of_its_own(
    claim: str, evidence: list[str]
) -> None:
    found = swap(claim, evidence)
    assert found is not None and found[1].written == "built by local volunteers"


@pytest.mark.parametrize(("claim", "evidence"), [
    # A description may stand for the claim's agent when the evidence gives it no role.
    ("Acme Builders built the hall.", ["Acme Builders is based in Leeds. The hall was built "
                                       "by the company in 1990."]),
    ("The Rotary Club paid for the playground.", PARK),
    ("The idea of a uniform penny post came from Rowland Hill.", POST),
    ("The bridge was built by the firm Holt & Sons.", BRIDGE),
    ("The choir was established by Mara Eld in 1950.", CHOIR),
    ("The Norwood Unit ran the safety trial.", HALL),
    ("Elliot Vance painted the cover of the novel.", BOOK),
    ("Rovers beat Albion in the final.", ["The final was won by Rovers, who beat Albion."]),
    # The full stop of an initial does not end the agent's name.
    ("John A. Roebling designed it.", ["The bridge was designed by John A. Roebling. It "
                                       "opened in 1883."]),
])
def test_the_agent_of_the_action_in_other_words_is_no_swap(claim: str,
                                                           evidence: list[str]) -> None:
    assert swap(claim, evidence) is None


def test_agents_are_read_from_appositives_gapped_clauses_possessives_and_converses() -> None:
    def read(text: str) -> list[tuple[str, frozenset[str], frozenset[str]]]:
        return [(agency.action, agency.agents, agency.patients) for agency in agencies(text)]

    assert read("Its captain, Ana Pires, steered the boat home.") == [
        ("steer", frozenset({"ana", "pires"}), frozenset())]
    # A gapped clause gives the same action to another agent, of another thing.
    assert read("The Aster bridge was built by Kolb and the Mira bridge by Fenn Brothers.") == [
        ("build", frozenset({"kolb"}), frozenset({"aster"})),
        ("build", frozenset({"fenn", "brothers"}), frozenset({"mira"}))]
    assert read("Dr Lee's analysis was published in 2010.") == [
        ("analys", frozenset({"dr", "lee"}), frozenset())]
    # Told from the other side: whoever it was bought from sold it; the winner beat the loser.
    assert read("The museum bought the vase from the dealer Omar Haddad.") == [
        ("sell", frozenset({"omar", "haddad"}), frozenset())]
    assert read("Castor lost to Pollux in the final.")[0] == (
        "beat", frozenset({"pollux"}), frozenset({"castor"}))
    # "whose" starts another phrase: the teacher is not who painted it.
    (painted,) = agencies("It was painted by Mia Holm, whose teacher, Karl Berg, had urged her.")
    assert painted.agents == {"mia", "holm"}


@pytest.mark.parametrize(("claim", "rival"), [
    ("The Mira bridge was built by Kolb.", "built by Fenn Brothers"),
    ("Karl Berg painted the portrait.", "painted by Mia Holm"),
    ("Ana Pires sold the vase to the museum.", "bought the vase from the dealer Omar Haddad"),
    ("Castor beat Pollux in the final.", "lost to Pollux"),
    ("Ana Pires's analysis of the vase was published.", "analysed by Omar Haddad"),
])
def test_swaps_are_found_through_those_readings(claim: str, rival: str) -> None:
    evidence = ["The Aster bridge was built by Kolb and the Mira bridge by Fenn Brothers.",
                "The portrait was painted by Mia Holm, whose teacher, Karl Berg, had urged her.",
                "The museum bought the vase from the dealer Omar Haddad. Its captain, Ana "
                "Pires, steered the boat home.", "Castor lost to Pollux in the final.",
                "The vase was analysed by Omar Haddad."]
    found = swap(claim, evidence)
    assert found is not None and found[1].written == rival


@pytest.mark.parametrize("claim", [
    "The Aster bridge was built by Kolb.", "Fenn Brothers built the Mira bridge.",
    "Omar Haddad sold the vase to the museum.", "Pollux beat Castor in the final.",
])
def test_the_same_readings_keep_the_right_roles(claim: str) -> None:
    evidence = ["The Aster bridge was built by Kolb and the Mira bridge by Fenn Brothers.",
                "The museum bought the vase from the dealer Omar Haddad.",
                "Castor lost to Pollux in the final."]
    assert swap(claim, evidence) is None


COURT = ["The case was brought by the tenants' association against Redbrook Properties, and "
         "Redbrook was ordered to pay the costs."]


@pytest.mark.parametrize("claim", ["Redbrook Properties brought the case.",
                                   "The case was brought by Redbrook Properties."])
def test_the_party_an_action_was_against_is_not_its_agent(claim: str) -> None:
    found = swap(claim, COURT)
    assert found is not None
    assert found[1].written == "brought by the tenants' association"


@pytest.mark.parametrize("claim", ["The case was brought against Redbrook Properties.",
                                   "The tenants' association brought the case.",
                                   "Redbrook Properties was ordered to pay the costs."])
def test_the_party_in_its_own_role_is_no_swap(claim: str) -> None:
    assert swap(claim, COURT) is None
    (brought, against) = agencies(COURT[0])[:2]
    assert (brought.agents, against.agents) == ({"tenant", "association"},
                                                {"redbrook", "properties"})
