"""What every onnxruntime session of veritype's sets alike: the cross-encoders and the
embedder each run many short runs, one pair or one text at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnxruntime


def quiet_threads(options: onnxruntime.SessionOptions) -> None:
    """Threads that sleep between runs instead of spinning. Spinning threads hold the cores
    between short runs, and on a machine with other work (or two models taking turns) a run
    waits for cores that spin idle. Only scheduling changes: the outputs are the same to the
    bit."""
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
