"""The family of int8 kernels a CPU runs, which decides the shipped models' exact scores."""

import platform

import pytest

from veritype._cpu import cpu_flags, int8_kernels

pytestmark = pytest.mark.core


def test_an_x86_cpu_is_of_the_vnni_family_exactly_when_it_has_int8_dot_products() -> None:
    kernels = int8_kernels()
    if platform.machine().lower() in {"x86_64", "amd64"}:
        has_dot_products = bool(cpu_flags() & {"avx512_vnni", "avx_vnni"})
        assert kernels == ("vnni" if has_dot_products else "avx2")
    else:
        assert kernels == platform.machine().lower()
