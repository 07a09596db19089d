"""Random integer expressions: compile (checker, lowering, constant folding)
and evaluate the MIR, against an independent evaluator of the same source
with machine semantics (wrap-around, C `/` and `%`, floor `//`, shift amounts
modulo the width)."""
from __future__ import annotations

import ast
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from frontend import mir_eval
from frontend.fe_util import compile_ok
from verikern.mir.types import I32, U32

OPS = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>"]


def _exprs(lits):
    leaf = st.one_of(st.sampled_from(["a", "b", "c"]), lits.map(str))

    def extend(inner):
        return st.one_of(
            st.tuples(inner, st.sampled_from(OPS), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            inner.map(lambda e: f"(-{e})"),
            inner.map(lambda e: f"(~{e})"),
            st.tuples(st.sampled_from(["min", "max"]), inner, inner).map(
                lambda t: f"vk.{t[0]}({t[1]}, {t[2]})"),
            # a typed left operand: `0 < 2147483648` alone would be two int32 literals
            st.tuples(inner, st.sampled_from(["a", "b", "c"]), inner).map(
                lambda t: f"({t[0]} if {t[1]} < {t[2]} else {t[0]})"),
        )
    return st.recursive(leaf, extend, max_leaves=8)


def _c_div(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def reference(expr: str, env: dict, t):
    """Evaluate `expr` with the machine semantics of type `t`."""
    def ev(n):
        if isinstance(n, ast.Constant):
            return t.wrap(n.value)
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            if isinstance(n.op, ast.USub):
                # `-5` written as a literal is the literal -5
                if isinstance(n.operand, ast.Constant):
                    return t.wrap(-n.operand.value)
                return t.wrap(-v)
            return t.wrap(~v)
        if isinstance(n, ast.IfExp):
            return ev(n.body) if ev(n.test.left) < ev(n.test.comparators[0]) else ev(n.orelse)
        if isinstance(n, ast.Call):
            x, y = ev(n.args[0]), ev(n.args[1])
            return min(x, y) if n.func.attr == "min" else max(x, y)
        x, y = ev(n.left), ev(n.right)
        op = type(n.op)
        if op in (ast.Div, ast.FloorDiv, ast.Mod) and y == 0:
            raise ZeroDivisionError
        s = y & (t.bits - 1)
        r = {ast.Add: lambda: x + y, ast.Sub: lambda: x - y, ast.Mult: lambda: x * y,
             ast.Div: lambda: _c_div(x, y), ast.FloorDiv: lambda: x // y,
             ast.Mod: lambda: x - _c_div(x, y) * y, ast.BitAnd: lambda: x & y,
             ast.BitOr: lambda: x | y, ast.BitXor: lambda: x ^ y,
             ast.LShift: lambda: x << s,
             ast.RShift: lambda: x >> s}[op]()
        return t.wrap(r)
    return ev(ast.parse(expr, mode="eval").body)


def _check(expr, env, t, tname):
    src = (f"import verikern as vk\n@vk.kernel\ndef k(out: vk.array(dtype=vk.{tname}), "
           f"a: vk.{tname}, b: vk.{tname}, c: vk.{tname}):\n    out[0] = {expr}\n")
    mir = compile_ok(src)
    out = np.zeros(1, t.np_dtype)
    try:
        want = reference(expr, env, t)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            mir_eval.run(mir, (1,), {"out": out}, env)
        return
    mir_eval.run(mir, (1,), {"out": out}, env)
    assert int(out[0]) == want, (expr, env)


SMALL = st.one_of(st.integers(-9, 9), st.integers(-2**31, 2**31 - 1))


@settings(max_examples=40, deadline=None)
@given(_exprs(st.integers(0, 2**31 - 1) | st.integers(0, 9)), SMALL, SMALL, SMALL)
def test_int32_expressions_match_machine_semantics(expr, a, b, c):
    _check(expr, {"a": a, "b": b, "c": c}, I32, "int32")


@settings(max_examples=30, deadline=None)
@given(_exprs(st.integers(0, 2**32 - 1) | st.integers(0, 9)).filter(
    lambda e: not re.search(r"\(-\d", e)),  # `-5` is a negative literal: not a uint32
    st.integers(0, 2**32 - 1), st.integers(0, 9), st.integers(0, 2**32 - 1))
def test_uint32_expressions_match_machine_semantics(expr, a, b, c):
    _check(expr, {"a": a, "b": b, "c": c}, U32, "uint32")
