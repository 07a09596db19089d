"""Golden C (`verikern emit --ir c`) for two examples: saxpy (bounds, races on
global memory, one thread per element) and block_reduce (shared memory,
barriers in a loop, divergence checks).  `pytest --update-goldens` (or
VERIKERN_UPDATE_GOLDENS=1) rewrites them; review the diff."""
from __future__ import annotations

from pathlib import Path

import pytest

from goldens import check_golden
from verikern.encoders.c import emit_c
from verikern.frontend import compile_source

from shared_helpers import ROOT
GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.mark.parametrize("example,kernel", [("saxpy", "saxpy"), ("block_reduce", None)])
def test_c_golden(example, kernel, update_goldens):
    text = (ROOT / "examples" / f"{example}.py").read_text(encoding="utf-8")
    module = compile_source(text, f"{example}.py")
    name = kernel or module.kernel_names[0]
    c = emit_c(module.kernel(name).mir)
    assert "__CPROVER_assert" in c and "nondet_int32()" in c
    check_golden(GOLDEN / f"{example}.c", c, update_goldens)
