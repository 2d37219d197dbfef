"""Loading a benchmark script (benchmarks/<name>.py) as a module, for tests that run it small."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@contextmanager
def benchmark_module(script: str) -> Iterator[ModuleType]:
    """The benchmark ``script`` (a file name under benchmarks/) loaded as a module, registered
    under its own name while in use."""
    with pytest.MonkeyPatch.context() as patch:
        spec = importlib.util.spec_from_file_location(f"veritype_{Path(script).stem}_benchmark",
                                                      BENCHMARKS / script)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        # Dataclasses look their module up by name while the module is being executed.
        patch.setitem(sys.modules, spec.name, module)
        spec.loader.exec_module(module)
        yield module
