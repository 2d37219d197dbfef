"""Checking gives the same outputs as the stored reference: types, supports, view verdicts and
scores (to 1e-6) and citations of the RAG rows and of a third of the type contract. The
reference was written by ``identity_support.py`` before the changes that made checking
faster, so it holds them to changing nothing."""

from __future__ import annotations

import json

import pytest
from identity_support import REFERENCE, differences, outputs, rag_rows, result_outputs

from veritype._cpu import int8_kernels
from veritype.checking import CheckSettings, check
from veritype.checking._run import LocalEngine

pytestmark = pytest.mark.skipif(
    not REFERENCE.is_file(),
    reason=f"no identity reference for int8 kernels {int8_kernels()!r} (write one with "
           f"identity_support.py on the revision the reference should hold)")


def test_outputs_equal_the_reference() -> None:
    expected = json.loads(REFERENCE.read_text(encoding="utf-8"))
    found = differences(expected, json.loads(json.dumps(outputs())))
    assert not found, "\n".join(found[:20])


def test_two_worker_processes_give_the_reference_outputs() -> None:
    expected = json.loads(REFERENCE.read_text(encoding="utf-8"))["check_rag_rows"]
    engine = LocalEngine(CheckSettings(), workers=2)
    try:
        # Blocks of four rows, so that both workers check some.
        result = check(rag_rows(), engine=engine, block_rows=4)
    finally:
        engine.close()
    assert result.engine == "local" and result.workers == 2
    found = differences(expected, json.loads(json.dumps(result_outputs(result.rows))))
    assert not found, "\n".join(found[:20])
