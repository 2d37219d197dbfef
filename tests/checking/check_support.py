"""Rows a RAG system might have written about two bridges, some right and some not."""

from __future__ import annotations

from typing import Any

from veritype.checking import CheckSettings

GOLDEN_GATE = ("The Golden Gate Bridge opened to traffic on May 27, 1937. Its chief engineer "
               "was Joseph Strauss. The bridge is painted a colour called International Orange.")
BROOKLYN = ("The Brooklyn Bridge opened on May 24, 1883. It was designed by John A. Roebling "
            "and crosses the East River.")

ROWS: list[dict[str, Any]] = [
    {"id": "gg-right", "question": "When did the Golden Gate Bridge open?",
     "answer": "The Golden Gate Bridge opened to traffic in 1937.",
     "contexts": [GOLDEN_GATE, BROOKLYN]},
    {"id": "gg-wrong-date", "question": "When did the Golden Gate Bridge open?",
     "answer": "The Golden Gate Bridge opened to traffic in 1883.",
     "contexts": [GOLDEN_GATE, BROOKLYN]},
    {"id": "short", "question": "Who designed the Brooklyn Bridge?",
     "answer": "John A. Roebling", "contexts": [BROOKLYN]},
    {"id": "refusal", "question": "How long is the Brooklyn Bridge?",
     "answer": "I don't know.", "contexts": [BROOKLYN]},
    {"id": "mixed", "question": "Tell me about the Brooklyn Bridge.",
     "answer": "The Brooklyn Bridge crosses the East River. It was designed by Gustave Eiffel.",
     "contexts": [BROOKLYN]},
    {"id": "bad", "question": "Q?", "answer": "", "contexts": [BROOKLYN]},
]

EIFFEL = "The Eiffel Tower is in Paris. The tower is 330 metres tall. It opened in 1889."
# The vote of numeric and nli, with τ and τ' given: numeric finds 1889 stated and nli does
# not find the visitors, so the claim's support is 1/2, inside the Uncertain band. The vote
# is used, not the fitted default, so that refitting the default cannot move the claim.
BAND_TAU, BAND_TAU_LOW = 0.8, 0.3
BAND_SETTINGS = CheckSettings(views=("numeric", "nli"), aggregator="vote", tau=BAND_TAU,
                              tau_low=BAND_TAU_LOW)
BAND_ARGS = ("--views", "numeric,nli", "--aggregator", "vote", "--tau", str(BAND_TAU),
             "--tau-low", str(BAND_TAU_LOW))
IN_THE_BAND = "The Eiffel Tower first welcomed visitors in 1889."
BAND_ROWS: list[dict[str, Any]] = [
    {"id": "needs-review", "answer": f"The Eiffel Tower is in Paris. {IN_THE_BAND}",
     "contexts": [EIFFEL]},
    {"id": "right", "answer": "The tower is 330 metres tall.", "contexts": [EIFFEL]},
    {"id": "wrong", "answer": "The tower is 300 metres tall.", "contexts": [EIFFEL]},
]
