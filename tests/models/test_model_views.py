from pathlib import Path

import pytest

from veritype.claims import Claim
from veritype.evidence import EvidencePack
from veritype.models.cross_encoder import CrossEncoder
from veritype.models.views import CrossEncoderView, evidence_windows
from veritype.views import Verdict

TEXT = (
    "The tower is 330 metres tall. It opened in 1889. It was built of iron. "
    "Visitors climb it daily."
)


def test_windows_overlap_and_resolve() -> None:
    pack = EvidencePack.from_texts([TEXT, "One sentence only."])
    windows = evidence_windows(pack, 2)
    assert [pack.quote(w.span) for w in windows] == [
        "The tower is 330 metres tall. It opened in 1889.",
        "It opened in 1889. It was built of iron.",
        "It was built of iron. Visitors climb it daily.",
        "One sentence only.",
    ]
    assert all(w.text == pack.quote(w.span) for w in windows)
    assert len(evidence_windows(pack, 1)) == 5


@pytest.mark.slow
def test_view_cites_the_deciding_window(tiny_run: Path) -> None:
    encoder = CrossEncoder(tiny_run / "onnx")
    view = CrossEncoderView("nli", encoder, entail_threshold=0.01, contradiction_threshold=1.0)
    pack = EvidencePack.from_texts([TEXT])
    claims = [Claim("c1", "The tower opened in 1889."), Claim("c2", "Visitors climb it.")]
    results = view.verify_batch(claims, [pack, pack])
    assert [r.verdict for r in results] == [Verdict.ENTAILED, Verdict.ENTAILED]
    for result in results:
        assert len(result.spans) == 1
        assert pack.resolves(result.spans[0])
        assert 0.0 <= result.score <= 1.0
    assert view.verify(claims[0], pack) == results[0]
    empty = view.verify(claims[0], EvidencePack())
    assert empty.verdict is Verdict.UNKNOWN


def test_view_settings_are_validated(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="entail_threshold"):
        CrossEncoderView("nli", None, entail_threshold=0.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sentences_per_window"):
        CrossEncoderView("nli", None, sentences_per_window=0)  # type: ignore[arg-type]
