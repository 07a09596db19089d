"""Golden HIR and MIR text for small kernels.

Regenerate after an intended change with
    VERIKERN_UPDATE_GOLDEN=1 python -m pytest tests/frontend/test_fe_golden.py
and review the diff; by default the test compares.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from verikern.frontend import compile_file
from verikern.hir.printer import format_kernel as format_hir
from verikern.mir.printer import format_kernel as format_mir
from verikern.mir.verifier import verify

GOLDEN = Path(__file__).parent / "golden"
SOURCES = sorted(GOLDEN.glob("*.py"))
UPDATE = os.environ.get("VERIKERN_UPDATE_GOLDEN") == "1"


def _check(path: Path, text: str) -> None:
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"missing golden file {path.name}; set VERIKERN_UPDATE_GOLDEN=1")
        path.write_text(text)
    assert text == path.read_text(), f"{path.name} differs; rerun with VERIKERN_UPDATE_GOLDEN=1"


@pytest.mark.parametrize("src", SOURCES, ids=[p.stem for p in SOURCES])
def test_golden_hir_and_mir(src, monkeypatch):
    monkeypatch.chdir(GOLDEN)
    r = compile_file(src.name)
    assert not r.errors and len(r.kernels) == 1
    k = r.kernels[0]
    assert k.error is None, k.error.render()
    verify(k.mir)
    _check(GOLDEN / f"{src.stem}.hir", format_hir(k.hir))
    _check(GOLDEN / f"{src.stem}.mir", format_mir(k.mir))


def test_golden_set_is_complete():
    assert {p.stem for p in SOURCES} == {"saxpy", "guarded_2d", "reduce_shared", "histogram",
                                         "vec3_kernel", "func_call"}
