"""A character trie of phrases, searched for the phrase that ends last in a text: how the
knowledge-base guard finds a lead phrase or a subject at the end of an answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

# The key under which a node holds the entry of the phrase that ends there.
_LEAF = ""
# A node: the node after each next character, and under _LEAF the entry ending here.
Trie = dict[str, Any]


def add(trie: Trie, phrase: str, entry: object) -> None:
    """Store ``entry`` under ``phrase``, replacing what was stored there."""
    node = trie
    for char in phrase:
        node = node.setdefault(char, {})
    node[_LEAF] = entry


def last_match(
    trie: Trie, text: str, boundary: Callable[[str], bool]
) -> tuple[int, int, object] | None:
    """The entry of a character ``trie`` that ends last in ``text`` (the longest of those):
    it starts a word and ends at the end of ``text`` or before a character ``boundary``
    accepts. Returns its span and its leaf."""
    best: tuple[int, int, object] | None = None
    for start in _word_starts(text):
        node: dict[str, Any] | None = trie
        for position in range(start, len(text)):
            node = node.get(text[position]) if node is not None else None
            if node is None:
                break
            leaf = node.get(_LEAF)
            end = position + 1
            if leaf is not None and (end == len(text) or boundary(text[end])) and (
                best is None or end > best[1]
            ):
                best = (start, end, leaf)
    return best


def _word_starts(text: str) -> Iterator[int]:
    for index, char in enumerate(text):
        if char.isalnum() and (index == 0 or not text[index - 1].isalnum()):
            yield index
