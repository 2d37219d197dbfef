"""Which int8 kernels onnxruntime runs on this CPU: the shipped int8 models' scores are the
same on every CPU of one family and differ, by up to a few hundredths, across families."""

from __future__ import annotations

import platform
from pathlib import Path


def cpu_flags() -> set[str]:
    """The CPU's instruction-set flags, as Linux lists them (empty where it does not)."""
    info = Path("/proc/cpuinfo")
    text = info.read_text() if info.exists() else ""
    return set(next((line.split(":", 1)[1].split() for line in text.splitlines()
                     if line.startswith("flags")), []))


def int8_kernels() -> str:
    """``vnni`` on x86 CPUs with int8 dot-product instructions, which sum exactly; ``avx2`` on
    other x86 CPUs, whose pairwise 16-bit sums saturate; else the machine's architecture."""
    machine = platform.machine().lower()
    if machine not in {"x86_64", "amd64"}:
        return machine or "unknown"
    return "vnni" if cpu_flags() & {"avx512_vnni", "avx_vnni"} else "avx2"
