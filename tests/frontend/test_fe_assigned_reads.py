"""Reads of a variable that only some paths assign (check/assigned_reads.py):
which kernels compile (exactly those Warp 1.19 builds), the MIR they give (one
flag per such variable, a check only where some path may not have assigned
it, never a loop-carried flag for `v += e`), and the simulator's verdict at
run time. Real Warp's results are compared in
tests/warp_compat/test_warp_assigned_reads.py."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.errors import UnassignedReadError
from verikern.mir.nodes import Assert, Phi
from frontend.fe_util import compile_ok, compile_text, first_error, marker_loc

W = "import warp as wp\n\n"


def _checks(k) -> list[Assert]:
    return [ins for _, ins in k.instructions() if isinstance(ins, Assert) and ins.kind == "unassigned"]


ACCUMULATE = W + '''@wp.kernel
def k(x: wp.array(dtype=float), flag: int, out: wp.array(dtype=float)):
    i = wp.tid()
    if flag > 0:
        acc = float(0.0)
    for j in range(x.shape[0]):
        if flag > 0:
            acc += x[j]
    if flag > 0:
        out[i] = acc * acc + acc
'''


def test_a_flag_per_variable_and_a_check_per_block_not_a_loop_carried_flag():
    k = compile_ok(ACCUMULATE)
    checks = _checks(k)
    # one in the loop (`acc +=`), one at the store (its three reads share a block)
    assert [(c.loc.line, c.loc.col) for c in checks] == [marker_loc(ACCUMULATE, "acc +="),
                                                         marker_loc(ACCUMULATE, "acc * acc")]
    assert {c.cond for c in checks} == {checks[0].cond}            # one flag
    header = k.block(k.loops[0].header)
    flag_phis = [p for p in header.instrs if isinstance(p, Phi) and "assigned" in p.result.name]
    assert flag_phis == []                  # `acc +=` reads first: the flag is not set again


@pytest.mark.parametrize("flag, expect", [(1, 3.0 ** 2 + 3.0), (0, 5.0)])
def test_the_simulator_runs_reads_that_follow_the_assignment(flag, expect):
    k = compile_ok(ACCUMULATE)
    out = np.full(1, 5.0, np.float32)
    vk.launch(k, 1, [np.ones(3, np.float32), flag, out])
    assert out[0] == expect


def test_the_simulator_flags_a_read_no_path_assigned():
    src = W + ('@wp.kernel\ndef k(flag: int, out: wp.array(dtype=float)):\n    i = wp.tid()\n'
               '    if flag > 0:\n        v = 2.0\n    out[i] = v\n')
    k = compile_ok(src)
    out = np.zeros(2, np.float32)
    vk.launch(k, 2, [1, out])
    assert out.tolist() == [2.0, 2.0]
    with pytest.raises(UnassignedReadError) as info:
        vk.launch(k, 2, [0, out])
    assert (info.value.loc.line, info.value.loc.col) == marker_loc(src, "v\n")


def test_a_read_right_of_and_is_checked_only_where_python_evaluates_it():
    src = W + ('@wp.kernel\ndef k(flag: int, out: wp.array(dtype=float)):\n    i = wp.tid()\n'
               '    if flag > 0:\n        v = 2.0\n    if flag > 0 and v > 1.0:\n        out[i] = v\n'
               '    out[i] = out[i] + 1.0\n')
    k = compile_ok(src)
    out = np.zeros(1, np.float32)
    vk.launch(k, 1, [0, out])               # `v > 1.0` is never evaluated
    assert out.tolist() == [1.0]


def test_an_else_branch_and_a_loop_unrolled_to_nothing_do_not_see_the_name():
    # as Warp: the else branch is lowered on the symbols from before the if, and
    # `range(0)` is unrolled to no body ("Referencing undefined symbol")
    for body in ("    if i > 0:\n        v = 1.0\n    else:\n        out[i] = v\n",
                 "    for j in range(0):\n        v = 1.0\n    out[i] = v\n",
                 "    out[i] = v\n    if i > 0:\n        v = 1.0\n"):
        src = W + f"@wp.kernel\ndef k(out: wp.array(dtype=float)):\n    i = wp.tid()\n{body}"
        err = first_error(src)
        assert err.rule == "undefined-variable", err.render()
        assert (err.loc.line, err.loc.col) == marker_loc(src, "v\n"), err.render()


def test_writing_a_part_of_a_maybe_assigned_vector_is_refused():
    src = W + ('@wp.kernel\ndef k(flag: int, out: wp.array(dtype=wp.vec3)):\n    i = wp.tid()\n'
               '    if flag > 0:\n        v = wp.vec3()\n    v[0] = 1.0\n    out[i] = v\n')
    err = first_error(src)
    assert err.rule == "undefined-variable" and "'v'" in err.message, err.render()


def test_a_func_and_a_generic_overload_take_the_same_rule():
    src = W + '''from typing import Any


@wp.func
def pick(flag: int, x: float) -> float:
    if flag > 0:
        y = x * 2.0
    if flag > 0:
        return y
    return x


@wp.kernel
def k(flag: int, x: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if flag > 0:
        s = x[i] + x[i]
    if flag > 0:
        out[i] = s
    out[0] = x.dtype(pick(flag, 1.5))


wp.overload(k, {"x": wp.array(dtype=wp.float64), "out": wp.array(dtype=wp.float64)})
'''
    r = compile_text(src)
    instance = next(k for k in r.kernels if k.name == "k[float64, float64]")
    assert instance.error is None, instance.error.render()
    k = instance.mir
    assert len(_checks(k)) == 2            # `y` in the inlined func, `s` in the kernel
    x, out = np.array([3.0, 4.0]), np.zeros(2)
    vk.launch(k, 2, [1, x, out])
    assert out.tolist() == [3.0, 8.0]
