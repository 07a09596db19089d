"""cpu:native calls the C library for `**` even when an operand is a literal
(LLVM would otherwise rewrite `pow(x, 2.0)` to `x*x`, `pow(2.0, x)` to
`exp2(x)`, `pow(x, -1.0)` to `1/x`, which differ from glibc's pow in the last
bit on some inputs): it agrees bit for bit with the simulator, which calls
the same functions (backends/semantics/libm.py)."""
from __future__ import annotations

import numpy as np

from verikern.frontend import compile_source
from verikern.runtime import launch

SRC = """import verikern as vk

@vk.kernel
def k(x: vk.array(dtype=vk.float64), out: vk.array(dtype=vk.float64)):
    i = vk.tid()
    out[i] = x[i] ** 2.0 + 2.0 ** x[i] + x[i] ** -1.0 + x[i] ** 0.5
"""


def test_pow_with_literal_operands_matches_the_simulator_bitwise():
    kernel = compile_source(SRC, "literal_pow.py").kernels[0].mir
    x = np.random.default_rng(0).standard_normal(200_000) * 3.0
    sim, nat = np.zeros_like(x), np.zeros_like(x)
    with np.errstate(all="ignore"):
        launch(kernel, x.size, [x, sim], device="cpu")
        launch(kernel, x.size, [x, nat], device="cpu:native")
    same = (sim.view(np.uint64) == nat.view(np.uint64)) | (np.isnan(sim) & np.isnan(nat))
    assert same.all(), f"{(~same).sum()} values differ, first at {np.flatnonzero(~same)[:3]}"
