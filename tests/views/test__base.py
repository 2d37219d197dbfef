"""The bases views share: a view that analyses packs stops at a cancel between two claims,
and under a live deadline gives what it gives without one."""

from __future__ import annotations

import pytest
from deadline_support import cancelled_while

from veritype.claims import Claim
from veritype.deadline import Deadline, running_under
from veritype.evidence import EvidencePack
from veritype.views import LexicalSupportView, NumericConsistencyView, PackAnalysingView

CITIES = ("Paris", "Lyon", "Rome", "Vienna", "Prague", "Berlin", "Madrid", "Lisbon")
# Forty evidence sentences, read at once, and a thousand claims of numbers and names: a
# batch of seconds.
EVIDENCE = " ".join(
    f"The bridge near the old tower of {CITIES[i % 8]} was restored in {1800 + i} by "
    f"{20 + i} workers, and its hall holds {400 + 7 * i} seats." for i in range(40)
)
CLAIMS = [
    Claim(f"c{i}", f"The bridge in {CITIES[(i * 3) % 8]} was built in {1790 + i % 60} and is "
                   f"{100 + i} metres long.")
    for i in range(1000)
]


@pytest.mark.parametrize("view", [NumericConsistencyView(), LexicalSupportView()],
                         ids=lambda view: view.name)
def test_a_live_deadline_changes_no_result(view: PackAnalysingView[object]) -> None:
    pack = EvidencePack.from_texts([EVIDENCE])
    claims = CLAIMS[:20]
    with running_under(Deadline(600)):
        under_deadline = view.verify_batch(claims, [pack] * len(claims))
    assert under_deadline == view.verify_batch(claims, [pack] * len(claims))


def test_a_cancel_stops_a_batch_before_its_next_claim() -> None:
    view, pack = NumericConsistencyView(), EvidencePack.from_texts([EVIDENCE])
    errors, stopped_in = cancelled_while(
        lambda: view.verify_batch(CLAIMS, [pack] * len(CLAIMS)), after=0.1, wait=30)
    assert errors == ["cancelled before the next claim"]
    assert stopped_in < 0.5
