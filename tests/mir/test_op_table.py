"""The op table (verikern.mir.ops) is the one source of op facts.

- Every backend and encoder dispatch table covers exactly the (op, type
  class) pairs the table allows, and a failure names the table and the pairs
  it lacks or has in excess (BACKEND_TABLES: add a row for a new backend).
- The reference semantics match hand-computed values and numpy; the
  simulator's, the SMT encoder's (z3 evaluation of its terms on constants)
  and cpu:native's integer semantics match the reference for every integer
  and bool op and type (hypothesis).
- The verifier rejects every op/type pair the table does not allow.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from verikern.backends.llvm import ops as llvm_ops
from verikern.backends.semantics import ops as sim_ops
from verikern.encoders.c import ops as c_ops
from verikern.encoders.smt import semantics as smt
from verikern.mir import facts, nodes
from verikern.mir import ops as T
from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import (
    ArrayRef, BinOp, Compare, Const, Jump, Load, Return, SourceLoc, Store, UnaryOp,
)
from verikern.mir.types import BOOL, F32, I8, I16, I32, I64, SCALAR_TYPES, U32
from verikern.mir.verifier import MirVerifyError, verify

ALL = T.TYPE_CLASSES
INT_TYPES = [t for t in SCALAR_TYPES.values() if t.is_int]
EXACT_TYPES = INT_TYPES + [BOOL]
LOC = SourceLoc("op_table.py", 1, 1)


# ------------------------------------------------------------ table coverage
def _triples(table: dict, kind: str) -> set:
    """(op, class) pairs of a simulator table op -> (int_fn, float_fn, bool_fn)."""
    out = set()
    for op, fns in table.items():
        int_fn, float_fn, bool_fn = fns
        for cls, fn in ((T.INT_CLASS, int_fn), (T.FLOAT_CLASS, float_fn), (T.BOOL_CLASS, bool_fn)):
            if fn is not None:
                out.add((op, cls))
    return out


def _by_class(**tables) -> set:
    """(op, class) pairs of per-class tables: class name -> iterable of op names."""
    return {(op, cls) for cls, table in tables.items() for op in table}


# (table name, op kind, type classes it is responsible for, pairs it provides).
# The SMT encoder abstracts every float op to a fresh variable, so its tables
# hold the exact int and bool semantics only. A new backend or encoder (the C
# encoder) adds its rows here.
BACKEND_TABLES = [
    ("simulator BINARY_SEMANTICS", "binary", ALL,
     lambda: _triples(sim_ops.BINARY_SEMANTICS, "binary")),
    ("simulator UNARY_SEMANTICS", "unary", ALL,
     lambda: _triples(sim_ops.UNARY_SEMANTICS, "unary")),
    ("simulator COMPARE_SEMANTICS", "compare", ALL,
     lambda: {(op, c) for op in sim_ops.COMPARE_SEMANTICS for c in ALL}),
    ("SMT INT_BINARY/BOOL_BINARY", "binary", (T.INT_CLASS, T.BOOL_CLASS),
     lambda: _by_class(int=smt.INT_BINARY, bool=smt.BOOL_BINARY)),
    ("SMT INT_UNARY/BOOL_UNARY", "unary", (T.INT_CLASS, T.BOOL_CLASS),
     lambda: _by_class(int=smt.INT_UNARY, bool=smt.BOOL_UNARY)),
    ("SMT COMPARE", "compare", (T.INT_CLASS, T.BOOL_CLASS),
     lambda: _by_class(int=smt.COMPARE, bool=smt.COMPARE)),
    ("LLVM INT_BINARY/BOOL_BINARY/FLOAT_BINARY", "binary", ALL,
     lambda: _by_class(int=llvm_ops.INT_BINARY, bool=llvm_ops.BOOL_BINARY,
                       float=llvm_ops.FLOAT_BINARY)),
    ("LLVM INT_UNARY/BOOL_UNARY/FLOAT_UNARY", "unary", ALL,
     lambda: _by_class(int=llvm_ops.INT_UNARY, bool=llvm_ops.BOOL_UNARY,
                       float=llvm_ops.FLOAT_UNARY)),
    ("LLVM INT_COMPARE/FLOAT_COMPARE", "compare", ALL,
     lambda: _by_class(int=llvm_ops.INT_COMPARE, bool=llvm_ops.INT_COMPARE,
                       float=llvm_ops.FLOAT_COMPARE)),
    ("C INT_BINARY/BOOL_BINARY/FLOAT_BINARY", "binary", ALL,
     lambda: _by_class(int=c_ops.INT_BINARY, bool=c_ops.BOOL_BINARY, float=c_ops.FLOAT_BINARY)),
    ("C INT_UNARY/BOOL_UNARY/FLOAT_UNARY", "unary", ALL,
     lambda: _by_class(int=c_ops.INT_UNARY, bool=c_ops.BOOL_UNARY, float=c_ops.FLOAT_UNARY)),
    ("C COMPARE", "compare", ALL,
     lambda: _by_class(int=c_ops.COMPARE, bool=c_ops.COMPARE, float=c_ops.COMPARE)),
]


def coverage_problems(name: str, kind: str, classes, provided) -> list[str]:
    """What a backend table lacks or has beyond the op table, as sentences."""
    want = T.pairs(kind, classes)
    have = {p for p in provided() if p[1] in classes}
    out = []
    missing = sorted(want - have)
    extra = sorted(have - want)
    if missing:
        out.append(f"{name} lacks " + ", ".join(f"{op} on {c}" for op, c in missing))
    if extra:
        out.append(f"{name} defines " + ", ".join(f"{op} on {c}" for op, c in extra)
                   + " which the op table (verikern.mir.ops) does not allow")
    return out


@pytest.mark.parametrize("row", BACKEND_TABLES, ids=[r[0] for r in BACKEND_TABLES])
def test_backend_table_covers_exactly_the_op_table(row):
    problems = coverage_problems(*row)
    assert not problems, "\n".join(problems)


def test_a_new_op_is_reported_missing_from_every_backend_table(monkeypatch):
    """Adding an op to the table alone makes every table of its kind fail,
    naming the table and the missing (op, type class) pairs."""
    monkeypatch.setitem(T.BINARY, "rotl", T.OpInfo(
        "rotl", "binary", frozenset({T.INT_CLASS}), "rotate left",
        int_ref=lambda a, b, t: a))
    reports = {name: coverage_problems(name, kind, classes, provided)
               for name, kind, classes, provided in BACKEND_TABLES if kind == "binary"}
    assert len(reports) == 4
    for name, problems in reports.items():
        assert problems == [f"{name} lacks rotl on int"], problems


def test_a_backend_entry_the_table_forbids_is_reported(monkeypatch):
    monkeypatch.setitem(smt.BOOL_BINARY, "min", lambda a, b, t: z3.And(a, b))
    problems = coverage_problems(*BACKEND_TABLES[3])
    assert problems == ["SMT INT_BINARY/BOOL_BINARY defines min on bool which the op "
                        "table (verikern.mir.ops) does not allow"]


def test_node_op_names_come_from_the_table_and_facts_cover_every_class():
    assert nodes.BINARY_OPS == tuple(T.BINARY)
    assert nodes.UNARY_OPS == tuple(T.UNARY)
    assert nodes.COMPARE_OPS == tuple(T.COMPARE)
    assert set(T.INSTRUCTION_FACTS) == {c.OPCODE for c in nodes.INSTRUCTION_CLASSES}


def test_bool_rule():
    """Bool admits and/or/xor, not and the comparisons; nothing else."""
    assert {op for op, c in T.pairs("binary", (T.BOOL_CLASS,))} == {"and", "or", "xor"}
    assert {op for op, c in T.pairs("unary", (T.BOOL_CLASS,))} == {"not"}
    assert {op for op, c in T.pairs("compare", (T.BOOL_CLASS,))} == set(T.COMPARE)


# ------------------------------------------------------------ instruction facts
def _binop(op, t, rhs):
    return BinOp(nodes.Value(0, t), op, nodes.Value(1, t), rhs, LOC)


def test_trap_and_memory_facts():
    arr = ArrayRef("a", I32, 1)
    idx = (Const(0, I32),)
    assert facts.may_trap(_binop("div", I32, nodes.Value(2, I32)))
    assert facts.may_trap(_binop("mod", U32, Const(0, U32)))
    assert not facts.may_trap(_binop("floordiv", I32, Const(-3, I32)))
    # INT_MIN / -1 faults on int32/int64: a -1 divisor traps unless the dividend is
    # a constant other than INT_MIN; int8/int16 wrap, unsigned types never overflow
    assert facts.may_trap(_binop("div", I32, Const(-1, I32)))
    assert facts.may_trap(_binop("mod", I64, Const(-1, I64)))
    assert not facts.may_trap(BinOp(nodes.Value(0, I32), "div", Const(5, I32), Const(-1, I32), LOC))
    assert facts.may_trap(BinOp(nodes.Value(0, I32), "div", Const(-2**31, I32), Const(-1, I32), LOC))
    assert not facts.may_trap(_binop("floordiv", I8, Const(-1, I8)))
    assert not facts.may_trap(_binop("div", U32, Const(2**32 - 1, U32)))
    assert facts.may_overflow(_binop("div", I32, nodes.Value(2, I32)))
    assert not facts.may_overflow(_binop("div", I16, nodes.Value(2, I16)))
    assert not facts.may_divide_by_zero(_binop("div", I32, Const(-1, I32)))
    assert facts.is_int_division(_binop("floordiv", I32, Const(-3, I32)))
    assert not facts.is_int_division(_binop("div", F32, nodes.Value(2, F32)))
    assert not facts.is_int_division(_binop("mul", I32, nodes.Value(2, I32)))
    load = Load(nodes.Value(3, I32), arr, idx, LOC)
    store = Store(arr, idx, Const(1, I32), LOC)
    atomic = nodes.Atomic(nodes.Value(4, I32), "add", arr, idx, Const(1, I32), LOC)
    assert [facts.reads_memory(i) for i in (load, store, atomic)] == [True, False, True]
    assert [facts.writes_memory(i) for i in (load, store, atomic)] == [False, True, True]
    assert facts.is_barrier(nodes.Barrier(LOC)) and not facts.is_barrier(load)
    assert facts.removable_if_unused(_binop("div", I32, Const(2, I32)))
    assert not facts.removable_if_unused(_binop("div", I32, nodes.Value(2, I32)))
    assert not any(facts.removable_if_unused(i) for i in (load, store, atomic))


def test_definitions_map_every_result_to_its_instruction():
    k = _kernel_with(lambda bld, a, b, r: BinOp(r, "add", a, b, LOC), I32, I32)
    defs = facts.definitions(k)
    for b in k.blocks:
        for ins in (*b.phis, *b.instrs):
            r = getattr(ins, "result", None)
            if r is not None:
                assert defs[r.id] is ins
    assert len(defs) == sum(1 for _, i in k.instructions() if getattr(i, "result", None))


# ------------------------------------------------------------ verifier
def _kernel_with(make, in_t, out_t):
    bld = MirBuilder("k", LOC)
    x = bld.array_param(ArrayRef("x", in_t, 1))
    y = bld.array_param(ArrayRef("y", out_t, 1))
    entry, done = bld.new_block("entry"), bld.new_block("done")
    bld.set_block(entry)
    zero = Const(0, I32)
    a, b = bld.new_value(in_t), bld.new_value(in_t)
    bld.emit(Load(a, x, (zero,), LOC))
    bld.emit(Load(b, x, (zero,), LOC))
    r = bld.new_value(out_t)
    bld.emit(make(bld, a, b, r))
    bld.emit(Store(y, (zero,), r, LOC))
    bld.terminate(Jump(done, LOC))
    bld.set_block(done)
    bld.terminate(Return(LOC))
    return bld.finish()


def _instr(kind, op):
    if kind == "binary":
        return lambda bld, a, b, r: BinOp(r, op, a, b, LOC)
    if kind == "compare":
        return lambda bld, a, b, r: Compare(r, op, a, b, LOC)
    return lambda bld, a, b, r: UnaryOp(r, op, a, LOC)


@pytest.mark.parametrize("kind", ["binary", "unary", "compare"])
def test_verifier_accepts_exactly_the_table(kind):
    for tname, t in SCALAR_TYPES.items():
        for op, info in T.OPS_BY_KIND[kind].items():
            k = _kernel_with(_instr(kind, op), t, BOOL if kind == "compare" else t)
            if info.allows(t):
                verify(k)
            else:
                with pytest.raises(MirVerifyError, match=f"{op}.*not defined on {tname}"):
                    verify(k)


def test_verifier_rejects_bool_min_max_neg_by_name():
    for op in ("min", "max"):
        with pytest.raises(MirVerifyError, match=f"binary op '{op}' is not defined on bool"):
            verify(_kernel_with(_instr("binary", op), BOOL, BOOL))
    with pytest.raises(MirVerifyError, match="unary op 'neg' is not defined on bool"):
        verify(_kernel_with(_instr("unary", "neg"), BOOL, BOOL))
    with pytest.raises(MirVerifyError, match="unknown binary op 'rotl'"):
        verify(_kernel_with(_instr("binary", "rotl"), I32, I32))


# ------------------------------------------------------------ reference
def test_reference_by_hand():
    b = T.binary_reference
    lo = -2**31
    for op in ("div", "floordiv", "mod"):      # INT_MIN / -1 faults on int32 and int64
        for t in (I32, I64):
            with pytest.raises(T.DivisionOverflow):
                b(op, t.min_value, -1, t)
    assert b("div", -128, -1, I8) == -128 and b("floordiv", -2**15, -1, I16) == -2**15
    assert b("mod", -128, -1, I8) == 0          # int8/int16 wrap (Warp's C++ divides in int)
    assert b("div", lo + 1, -1, I32) == 2**31 - 1 and b("div", lo, 1, I32) == lo
    assert b("div", 2**32 - 1, 2**32 - 1, U32) == 1      # unsigned: no overflow
    assert (b("div", -7, 2, I32), b("floordiv", -7, 2, I32), b("mod", -7, 2, I32)) == (-3, -4, -1)
    assert (b("div", 7, -2, I32), b("floordiv", 7, -2, I32), b("mod", 7, -2, I32)) == (-3, -4, 1)
    assert b("add", 127, 1, I8) == -128 and b("mul", 16, 16, I8) == 0
    assert b("shl", 1, 33, I32) == 2 and b("shl", 1, 7, I8) == -128
    assert b("shr", -16, 2, I32) == -4 and b("shr", 0xFFFFFFFF, 4, U32) == 0x0FFFFFFF
    assert b("shr", 5, -1, I8) == 0          # amount -1 & 7 == 7
    assert b("min", 3, -4, I32) == -4 and b("max", 2**32 - 1, 0, U32) == 2**32 - 1
    assert b("xor", True, True, BOOL) is False and b("or", False, True, BOOL) is True
    assert T.unary_reference("abs", lo, I32) == lo and T.unary_reference("neg", lo, I32) == lo
    assert T.unary_reference("invert", 0, U32) == 2**32 - 1
    assert T.compare_reference("lt", False, True, BOOL) and not T.compare_reference("lt", 1, 0, U32)
    for op in ("div", "floordiv", "mod"):
        with pytest.raises(ZeroDivisionError):
            b(op, 5, 0, I32)
    with pytest.raises(T.UndefinedOp):
        b("min", True, False, BOOL)
    with pytest.raises(T.UndefinedOp):
        b("add", 1.0, 2.0, F32)


def ints(t):
    return st.integers(t.min_value, t.max_value)


# numpy has MIR's semantics for these (wrapping ints, floor division, C fmod)
_NUMPY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "floordiv": np.floor_divide,
    "mod": np.fmod, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
    "or": np.bitwise_or, "xor": np.bitwise_xor,
}


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_reference_against_numpy(t):
    @settings(max_examples=60, deadline=None)
    @given(st.lists(st.tuples(ints(t), ints(t)), min_size=1, max_size=30))
    def check(pairs):
        a = np.array([p[0] for p in pairs], t.np_dtype)
        b = np.array([p[1] if p[1] != 0 and not T.division_overflows(p[0], p[1], t) else 1
                      for p in pairs], t.np_dtype)
        with np.errstate(all="ignore"):
            for op, fn in _NUMPY.items():
                want = fn(a, b).astype(t.np_dtype).tolist()
                got = [T.binary_reference(op, int(x), int(y), t) for x, y in zip(a, b)]
                if op == "floordiv" and t.is_signed:   # numpy gives 0 for INT_MIN // -1
                    want = [w if not (x == t.min_value and y == -1) else t.min_value
                            for w, x, y in zip(want, a.tolist(), b.tolist())]
                assert got == want, op
    check()


# ------------------------------------------------------------ backends
def _exact_ops(t):
    """(kind, op) of every op with a reference on t."""
    return [(kind, op) for kind, table in T.OPS_BY_KIND.items()
            for op, info in table.items() if info.allows(t)
            and (info.int_ref if t.is_int else info.bool_ref) is not None]


def _reference(kind, op, t, a, b):
    if kind == "binary":
        return T.binary_reference(op, a, b, t)
    if kind == "compare":
        return T.compare_reference(op, a, b, t)
    return T.unary_reference(op, a, t)


def _divisor(kind, op, a, b, t):
    """b, or 1 where the division a op b faults (zero, or INT_MIN / -1 on int32/int64)."""
    faults = b == 0 or T.division_overflows(a, b, t)
    return 1 if kind == "binary" and T.BINARY[op].traps and faults else b


def values(t):
    return st.booleans() if t.is_bool else ints(t)


@pytest.mark.parametrize("t", EXACT_TYPES, ids=str)
def test_simulator_matches_reference(t):
    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.tuples(values(t), values(t)), min_size=1, max_size=40))
    def check(pairs):
        a = np.array([p[0] for p in pairs], t.np_dtype)
        for kind, op in _exact_ops(t):
            bs = [_divisor(kind, op, p[0], p[1], t) for p in pairs]
            b = np.array(bs, t.np_dtype)
            with np.errstate(all="ignore"):
                if kind == "binary":
                    got = sim_ops.binary_function(op, t)(a, b)
                elif kind == "compare":
                    got = sim_ops.compare_function(op, t)(a, b)
                else:
                    got = sim_ops.unary_function(op, t)(a)
            want = [_reference(kind, op, t, x, y) for x, y in zip(a.tolist(), bs)]
            assert np.asarray(got).tolist() == want, f"simulator {kind} {op} on {t}"
    check()


def _smt_value(term, t):
    v = z3.simplify(term)
    return z3.is_true(v) if t.is_bool else t.wrap(v.as_long())


@pytest.mark.parametrize("t", EXACT_TYPES, ids=str)
def test_smt_semantics_match_reference(t):
    @settings(max_examples=30, deadline=None)
    @given(values(t), values(t))
    def check(a, b):
        for kind, op in _exact_ops(t):
            y = _divisor(kind, op, a, b, t)
            ta, tb = smt.const_term(a, t), smt.const_term(y, t)
            if kind == "binary":
                term = smt.int_binop(op, ta, tb, t)
            elif kind == "compare":
                term = smt.int_compare(op, ta, tb, t)
            else:
                term = smt.int_unop(op, ta, t)
            out_t = BOOL if kind == "compare" else t
            assert _smt_value(term, out_t) == _reference(kind, op, t, a, y), \
                f"SMT {kind} {op} on {t}: {a}, {y}"
    check()


N_NATIVE = 40


@functools.lru_cache(maxsize=None)
def _native_kernel(kind, op, tname):
    from mir_kernels import elementwise
    k = {"binary": "binop", "compare": "cmp", "unary": "unop"}[kind]
    return elementwise(k, op, SCALAR_TYPES[tname])


@pytest.mark.parametrize("tname", ["bool", "int8", "uint32", "int64"])
def test_native_matches_reference(tname):
    from verikern.runtime import launch
    t = SCALAR_TYPES[tname]

    @settings(max_examples=3, deadline=None)
    @given(st.lists(st.tuples(values(t), values(t)), min_size=N_NATIVE, max_size=N_NATIVE))
    def check(pairs):
        a = np.array([p[0] for p in pairs], t.np_dtype)
        for kind, op in _exact_ops(t):
            bs = [_divisor(kind, op, p[0], p[1], t) for p in pairs]
            k = _native_kernel(kind, op, tname)
            out = np.zeros(N_NATIVE, k.params[2].dtype.np_dtype)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                launch(k, N_NATIVE, [a, np.array(bs, t.np_dtype), out], block_dim=32,
                       device="cpu:native")
            want = [_reference(kind, op, t, x, y) for x, y in zip(a.tolist(), bs)]
            assert out.tolist() == want, f"cpu:native {kind} {op} on {tname}"
    check()
