"""Which typings of a generic kernel real Warp builds when the body mixes a
generic value with a literal: exactly the ones verikern enumerates
(frontend/check/generic_kernels.py applies Warp's literal rule: a literal keeps its
own type, int32 or float32, in arithmetic and builtins; comparisons are
exempt). Real Warp on its CPU device is the reference: it raises "Input types
must be the same" while building a typing it cannot compile."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from verikern.frontend import compile_source
from warp_kernel_cache import init_warp_quietly

wp = pytest.importorskip("warp", reason="NVIDIA Warp is not installed (pip install warp-lang)")

LINES = ("r = k + 1", "r = k * 2.0", "r = wp.min(k, 0)", "r = k + k", "r = k >= 0")
DTYPES = (np.int8, np.int32, np.int64, np.float32, np.float64)
SOURCE = '''from typing import Any

import warp as wp


@wp.kernel
def probe(keys: wp.array(dtype=Any), out: wp.array(dtype=int)):
    i = wp.tid()
    k = keys[i]
    {line}
    out[i] = 1
'''


def _warp_builds(tmp_path, n, line, dtype) -> bool:
    path = tmp_path / f"probe{n}.py"
    path.write_text(SOURCE.format(line=line))
    # one module name per (line, typing): Warp keeps modules by name
    spec = importlib.util.spec_from_file_location(f"verikern_generic_literal_{LINES.index(line)}_{n}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        wp.launch(module.probe, dim=1, inputs=[wp.array(np.zeros(1, dtype), device="cpu"),
                                               wp.zeros(1, dtype=int, device="cpu")], device="cpu")
    except Exception as err:      # Warp's codegen raises a plain Exception/RuntimeError
        assert "Input types must be the same" in str(err) or "overload" in str(err), err
        return False
    return True


@pytest.mark.parametrize("line", LINES)
def test_verikern_enumerates_exactly_the_typings_warp_builds(line, tmp_path):
    init_warp_quietly(wp)
    ours = {n.split("[", 1)[1].rstrip("]") for n in compile_source(SOURCE.format(line=line), "p.py").kernel_names}
    for n, dtype in enumerate(DTYPES):
        name = np.dtype(dtype).name
        assert _warp_builds(tmp_path, n, line, dtype) == (name in ours), (line, name, sorted(ours))
