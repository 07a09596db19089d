"""Kernels that once got a false "proved" (found by red-teaming the prover).

Each has a real bug that the simulator confirms on a concrete launch; the
prover must never call the buggy obligation proved. Where the encoding is
exact the obligation must be `failed`; elsewhere `unknown` is acceptable.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, prove_src  # noqa: E402

from verikern import errors  # noqa: E402
from verikern.backends.simulator import simulate  # noqa: E402
from verikern.runtime import LaunchConfig  # noqa: E402

CASES = {
    # unsigned // by a zero parameter (a division lemma once hid d == 0)
    "udiv_zero": ("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.uint32), d: vk.uint32):
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = vk.uint32(7) // d
    """, "div-zero", (4,), 4, {"x": np.zeros(4, np.uint32)}, {"d": 0},
        errors.DivisionByZeroError),
    # an out-of-bounds write before a loop that some threads never leave
    "oob_before_nonterminating_loop": ("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), n: vk.int32):
            vk.requires(n % 2 == 0)
            i = vk.tid()
            if i % 2 == 1:
                x[x.shape[0]] = 1
            k = i
            while k != n:
                k += 2
    """, "bounds", (2,), 2, {"x": np.zeros(4, np.int32)}, {"n": 0},
        errors.OutOfBoundsError),
    "oob_before_while_true": ("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32)):
            i = vk.tid()
            x[i + 1] = 1
            while True:
                pass
    """, "bounds", (1,), 1, {"x": np.zeros(1, np.int32)}, {},
        errors.OutOfBoundsError),
    # a thread-dependent break nested under an if, in a loop with a barrier
    "divergence_nested_break": ("""
        @vk.kernel(block_dim=32)
        def k(out: vk.array(dtype=vk.int32)):
            t = vk.thread_idx()
            k = 0
            while k < 8:
                vk.sync_threads()
                if t < 16:
                    if k == 2:
                        break
                k += 1
    """, "divergence", (32,), 32, {"out": np.zeros(1, np.int32)}, {},
        errors.BarrierDivergenceError),
    "divergence_two_exits": ("""
        @vk.kernel(block_dim=32)
        def k(out: vk.array(dtype=vk.int32)):
            t = vk.thread_idx()
            k = 0
            while k < 100:
                vk.sync_threads()
                if t < 16:
                    if k == 2:
                        break
                else:
                    if k == 5:
                        break
                k += 1
    """, "divergence", (32,), 32, {"out": np.zeros(1, np.int32)}, {},
        errors.BarrierDivergenceError),
    # a division inside a requires, checked under that very requires (z3's
    # value of n // 0 made it false, so d == 0 looked impossible)
    "division_inside_requires": ("""
        @vk.kernel
        def k(x: vk.array(dtype=vk.int32), n: vk.int32, d: vk.int32):
            vk.requires(n // d > 2)
            i = vk.tid()
            if i < x.shape[0]:
                x[i] = n
    """, "div-zero", (1,), 1, {"x": np.zeros(1, np.int32)}, {"n": 7, "d": 0},
        errors.DivisionByZeroError),
    # a func's return inside a loop with a barrier leaves the loop early
    "divergence_func_return_in_loop": ("""
        @vk.func
        def steps(t: vk.int32) -> vk.int32:
            k = 0
            while k < 8:
                vk.sync_threads()
                if t < 16:
                    return k
                k += 1
            return k

        @vk.kernel(block_dim=32)
        def k(out: vk.array(dtype=vk.int32)):
            t = vk.thread_idx()
            r = steps(t)
            if vk.tid() < out.shape[0]:
                out[vk.tid()] = r
    """, "divergence", (32,), 32, {"out": np.zeros(32, np.int32)}, {},
        errors.BarrierDivergenceError),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bug_is_real_on_the_simulator(name):
    src, _kind, dims, bd, arrays, scalars, err = CASES[name]
    kernel = compile_kernel(src)
    size = int(np.prod(dims))
    launch = LaunchConfig(tuple(dims), bd, -(-size // bd), size)
    with pytest.raises(err):
        simulate(kernel, launch, {k: v.copy() for k, v in arrays.items()}, dict(scalars))


@pytest.mark.parametrize("name", sorted(CASES))
def test_prover_never_proves_the_buggy_obligation(name):
    src, kind, *_ = CASES[name]
    obligations = prove_src(src, timeout=10.0)
    of_kind = [o for o in obligations if o.kind.value == kind]
    assert of_kind, f"no {kind} obligation at all"
    assert any(o.status.value != "proved" for o in of_kind), \
        [f"{o.kind.value} {o.status.value} L{o.loc.line}: {o.message}" for o in of_kind]
    assert {o.status.value for o in obligations} != {"proved"}
