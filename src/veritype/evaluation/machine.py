"""Where a figure was measured: the CPU (model and the instruction sets that decide int8
speed and results), the versions of the libraries that compute, and whether the shipped
verifier's scores repeat exactly. Every evaluation report and benchmark records these."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from pathlib import Path

import numpy as np

from veritype._cpu import cpu_flags, int8_kernels

_LIBRARIES = ("veritype", "onnxruntime", "onnx", "numpy", "tokenizers", "torch",
              "llama_cpp_python")
# The flags that change what int8 and float kernels compute or how fast.
_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni",
          "amx_int8", "amx_bf16")
# Pairs of different lengths: batched together, a dynamically quantised graph would scale
# each pair's activations by its batch-mates'.
_PROBE_PAIRS = (
    ("The Eiffel Tower was completed in 1889.", "The tower was finished in 1889."),
    ("Penicillin was discovered by Alexander Fleming in 1928 at St Mary's Hospital in London.",
     "Fleming discovered penicillin."),
    ("The Brooklyn Bridge opened in 1883.", "The Golden Gate Bridge opened in 1883."),
    ("Water boils at 100 degrees Celsius at sea level; at altitude it boils at a lower "
     "temperature because the air pressure is lower.", "Water boils at 90 degrees at sea level."),
)


def cpu() -> dict[str, object]:
    """The CPU's model, its relevant instruction-set flags and whether it has int8
    dot-product instructions (VNNI), which decide how much int8 gains over fp32."""
    info = Path("/proc/cpuinfo")
    text = info.read_text() if info.exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                  if line.startswith("model name")), platform.processor() or "unknown")
    flags = cpu_flags()
    return {"model": model, "architecture": platform.machine(),
            "vnni": int8_kernels() == "vnni",
            "int8_kernels": int8_kernels(),
            "avx512": any(flag.startswith("avx512") for flag in flags),
            "avx2": "avx2" in flags,
            "flags": [flag for flag in _FLAGS if flag in flags]}


def machine() -> dict[str, object]:
    """CPU, core count, Python and the installed versions of the computing libraries."""
    versions: dict[str, str | None] = {}
    for name in _LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return {"cpu": cpu(), "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "libraries": versions}


def score_determinism(model: str = "nli") -> dict[str, object]:
    """Whether the shipped ``model`` gives the same scores to the same pairs when they come
    in another order and with other batch-mates, as the engine scores them (default
    settings): scored once in order, once reversed and once with each pair twice."""
    from veritype.models.cross_encoder import CrossEncoder, shipped_model_dir

    pairs = list(_PROBE_PAIRS)
    encoder = CrossEncoder(shipped_model_dir(model), cache_size=0)
    first = encoder.predict(pairs)
    reversed_order = encoder.predict(pairs[::-1])[::-1]
    doubled = encoder.predict(pairs + pairs)[: len(pairs)]
    difference = float(max(np.abs(first - reversed_order).max(), np.abs(first - doubled).max()))
    return {"model": model, "pairs_per_run": encoder.batch_size,
            "deterministic": difference == 0.0, "max_abs_difference": difference}
