"""Golden HIR and MIR text for small kernels.

Regenerate after an intended change with
    python -m pytest tests/frontend/test_fe_golden.py --update-goldens
(or VERIKERN_UPDATE_GOLDENS=1, see tests/goldens.py) and review the diff; by
default the test compares.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from goldens import check_golden
from verikern.frontend import compile_file
from verikern.hir.printer import format_kernel as format_hir
from verikern.mir.printer import format_kernel as format_mir
from verikern.mir.verifier import verify

GOLDEN = Path(__file__).parent / "golden"
SOURCES = sorted(GOLDEN.glob("*.py"))


@pytest.mark.parametrize("src", SOURCES, ids=[p.stem for p in SOURCES])
def test_golden_hir_and_mir(src, monkeypatch, update_goldens):
    monkeypatch.chdir(GOLDEN)
    r = compile_file(src.name)
    assert not r.errors and len(r.kernels) == 1
    k = r.kernels[0]
    assert k.error is None, k.error.render()
    verify(k.mir)
    check_golden(GOLDEN / f"{src.stem}.hir", format_hir(k.hir), update_goldens)
    check_golden(GOLDEN / f"{src.stem}.mir", format_mir(k.mir), update_goldens)


def test_golden_set_is_complete():
    assert {p.stem for p in SOURCES} == {"saxpy", "guarded_2d", "reduce_shared", "histogram",
                                         "vec3_kernel", "func_call"}
