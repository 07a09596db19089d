"""Atomics in the one op table (verikern.mir.ops.ATOMIC): the verifier
accepts exactly the (op, element type) pairs it lists, every backend and
encoder implements every one of them, and integer results equal the
reference semantics (`atomic_reference`), lane by lane, in lane order."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verikern.backends.simulator.memory import apply_atomic
from verikern.encoders.c import emit_c
from verikern.mir import nodes
from verikern.mir import ops as T
from verikern.mir.types import SCALAR_TYPES
from verikern.mir.verifier import MirVerifyError, verify

TYPES = ["int32", "uint32", "int64", "uint8", "float32", "float64"]
INT_TYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64"]


def test_atomic_op_names_come_from_the_table():
    assert nodes.ATOMIC_OPS == tuple(T.ATOMIC)
    assert {a.name for a in T.ATOMIC.values()} == set(T.ATOMIC)


def test_reference_by_hand():
    i8, u8 = SCALAR_TYPES["int8"], SCALAR_TYPES["uint8"]
    assert T.atomic_reference("add", 127, 1, None, i8) == -128          # wraps
    assert T.atomic_reference("sub", 0, 1, None, u8) == 255
    assert T.atomic_reference("cas", 5, 9, 5, i8) == 9
    assert T.atomic_reference("cas", 5, 9, 4, i8) == 5
    assert T.atomic_reference("exch", 5, -3, None, i8) == -3
    assert T.atomic_reference("xor", 0b1100, 0b1010, None, u8) == 0b0110
    with pytest.raises(T.UndefinedOp):
        T.atomic_reference("and", 1.0, 2.0, None, SCALAR_TYPES["float32"])


@functools.lru_cache(maxsize=None)
def _kernel(op, tname):
    from mir_kernels import atomic_mix
    return atomic_mix(SCALAR_TYPES[tname], op, with_compare=(op == "cas"))


@pytest.mark.parametrize("tname", TYPES)
@pytest.mark.parametrize("op", sorted(T.ATOMIC))
def test_verifier_and_backends_follow_the_table(op, tname):
    t = SCALAR_TYPES[tname]
    try:
        k = _kernel(op, tname)
        verify(k)
    except MirVerifyError as err:
        assert not T.ATOMIC[op].allows(t), f"{op} on {tname} rejected: {err}"
        return
    assert T.ATOMIC[op].allows(t), f"the verifier accepted atomic {op} on {tname}"
    assert "vk_step" in emit_c(k)                      # the C encoder translates it
    n = 8                                              # one slot per thread: no collision
    acc0 = (np.arange(n) % 5).astype(t.np_dtype)
    vals = (np.arange(n) * 3 % 7).astype(t.np_dtype)
    cmps = np.where(np.arange(n) % 2 == 0, acc0, acc0 + 1).astype(t.np_dtype)
    bump = 0.25 if t.is_float else 3
    w = (vals + np.asarray(bump, t.np_dtype)).astype(t.np_dtype)
    want = [_new(op, a, v, c, t) for a, v, c in zip(acc0.tolist(), w.tolist(), cmps.tolist())]
    from verikern.runtime import launch
    for device in ("cpu", "cpu:native"):
        args = [acc0.copy(), vals.copy(), cmps.copy(), np.zeros(n, t.np_dtype)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            launch(k, n, args, block_dim=n, device=device)
        assert args[3].tolist() == acc0.tolist(), (device, "old values")
        assert args[0].tolist() == pytest.approx(want), (device, op, tname)


def _new(op, old, v, c, t):
    if t.is_int:
        return T.atomic_reference(op, old, v, c, t)
    return {"add": old + v, "sub": old - v, "min": min(old, v), "max": max(old, v), "exch": v,
            "cas": v if old == c else old}[op]


def _ints(t):
    return st.integers(t.min_value, t.max_value)


@pytest.mark.parametrize("tname", INT_TYPES)
def test_simulator_collisions_apply_in_lane_order(tname):
    t = SCALAR_TYPES[tname]

    @settings(max_examples=25, deadline=None)
    @given(st.sampled_from(sorted(T.ATOMIC)), _ints(t),
           st.lists(st.tuples(st.integers(0, 2), _ints(t), _ints(t)), min_size=1, max_size=30))
    def check(op, start, lanes):
        mem = np.full(3, start, t.np_dtype)
        addr = np.array([a for a, _, _ in lanes])
        values = np.array([v for _, v, _ in lanes], t.np_dtype)
        compare = np.array([c for _, _, c in lanes], t.np_dtype) if op == "cas" else None
        with np.errstate(all="ignore"):
            old = apply_atomic(op, mem, addr, values, compare)
        cur = [start] * 3
        want_old = []
        for a, v, c in lanes:
            want_old.append(cur[a])
            cur[a] = T.atomic_reference(op, cur[a], v, c, t)
        assert old.tolist() == want_old and mem.tolist() == cur
    check()
