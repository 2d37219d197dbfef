"""The benchmarks' name for :mod:`veritype.evaluation.machine`."""

from veritype.evaluation.machine import cpu, machine

__all__ = ["cpu", "machine"]
