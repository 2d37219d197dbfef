"""How a checkpoint's output labels are read as entailment / neutral / contradiction."""

import pytest

from veritype.errors import ModelError
from veritype.models.model_files import normalise_labels


@pytest.mark.parametrize(
    ("id2label", "expected"),
    [
        (
            {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"},
            ["entailment", "neutral", "contradiction"],
        ),
        (
            {0: "contradiction", 1: "neutral", 2: "entailment"},
            ["contradiction", "neutral", "entailment"],
        ),
        ({0: "entailment", 1: "not_entailment"}, ["entailment", "not_entailment"]),
    ],
)
def test_label_orders_are_read_from_the_config(
    id2label: dict[int, str], expected: list[str]
) -> None:
    assert normalise_labels(id2label, where="m") == expected


def test_unnamed_labels_are_refused() -> None:
    with pytest.raises(ModelError, match=r"output 0 is labelled 'LABEL_0'"):
        normalise_labels({0: "LABEL_0", 1: "LABEL_1"}, where="m")
    with pytest.raises(ModelError, match=r"exactly one entailment"):
        normalise_labels({0: "neutral", 1: "contradiction"}, where="m")
