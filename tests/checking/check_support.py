"""Rows a RAG system might have written about two bridges, some right and some not."""

from __future__ import annotations

from typing import Any

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
