"""The viewer's legend, read from the page the server sends (no browser needed): each type
with the band of support it stands for."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import veritype

INDEX = Path(veritype.__file__).parent / "server" / "static" / "index.html"


class _Legend(HTMLParser):
    """The text of each item of the list labelled "Legend", spaces collapsed."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "ul" and ("aria-label", "Legend") in attrs:
            self._depth = 1
        elif self._depth and tag == "ul":
            self._depth += 1
        elif self._depth and tag == "li":
            self.items.append("")

    def handle_endtag(self, tag: str) -> None:
        if self._depth and tag == "ul":
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth and self.items:
            self.items[-1] = " ".join(f"{self.items[-1]} {data}".split())


def test_the_legend_gives_each_type_its_band_of_support() -> None:
    legend = _Legend()
    legend.feed(INDEX.read_text(encoding="utf-8"))
    assert legend.items[:3] == [
        "Verified support ≥ τ: backed by the evidence; shown in the answer",
        "Uncertain τ' < support < τ: the views cannot tell; only listed as a limitation",
        "Unsupported support ≤ τ', or contradicted: not backed; never shown",
    ]
    assert any(item.startswith("τ and τ': the server's thresholds") for item in legend.items)
