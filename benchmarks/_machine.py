"""What every benchmark report records about where it ran: the CPU (model and the int8
instructions that decide int8 speed) and the versions of the libraries that compute."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from pathlib import Path

_LIBRARIES = ("veritype", "onnxruntime", "onnx", "numpy", "tokenizers", "torch")


def cpu() -> dict[str, object]:
    """The CPU's model and whether it has int8 dot-product instructions (VNNI), which
    decide how much int8 gains over fp32."""
    info = Path("/proc/cpuinfo")
    text = info.read_text() if info.exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                  if line.startswith("model name")), "unknown")
    flags = set(next((line.split(":", 1)[1].split() for line in text.splitlines()
                      if line.startswith("flags")), []))
    return {"model": model, "vnni": bool(flags & {"avx512_vnni", "avx_vnni"}),
            "avx512": any(flag.startswith("avx512") for flag in flags),
            "avx2": "avx2" in flags}


def machine() -> dict[str, object]:
    """CPU, core count, Python and the installed versions of the computing libraries."""
    versions = {}
    for name in _LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {"cpu": cpu(), "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "libraries": versions}
