"""Random structured programs (if/elif/else, for, while, break, continue,
early return, func calls): the MIR (SSA construction, phis, loop lowering,
passes) evaluated by mir_eval must agree with running the same source as
plain Python. Values stay non-negative and small, where Python and int32
arithmetic agree."""
from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings, strategies as st

from frontend import mir_eval
from frontend.fe_util import compile_ok
from frontend.test_fe_semantics import _run_python

VARS = ("x", "y", "z")


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def atom(self, scope):
        if self.r.random() < 0.3:
            return str(self.r.randint(0, 9))
        return self.r.choice(scope)

    def expr(self, scope, depth=0):
        if depth > 1 or self.r.random() < 0.4:
            return self.atom(scope)
        op = self.r.choice(["+", "*", "//", "min", "max"])
        a, b = self.expr(scope, depth + 1), self.expr(scope, depth + 1)
        if op in ("min", "max"):
            return f"vk.{op}({a}, {b})"
        if op == "//":
            return f"({a} // ({b} + 1))"
        return f"({a} {op} {b})"

    def cond(self, scope):
        c = f"{self.expr(scope)} {self.r.choice(['<', '<=', '==', '!=', '>'])} {self.expr(scope)}"
        if self.r.random() < 0.3:
            c = f"{c} {self.r.choice(['and', 'or'])} {self.atom(scope)} < {self.r.randint(0, 20)}"
        return c

    def block(self, ind, depth, scope, in_loop, in_func=False):
        lines = []
        for _ in range(self.r.randint(1, 3)):
            lines += self.stmt(ind, depth, scope, in_loop, in_func)
        return lines

    def stmt(self, ind, depth, scope, in_loop, in_func):
        p = "    " * ind
        k = self.r.random()
        if depth >= 3 or k < 0.35:
            v = self.r.choice(VARS)
            return [f"{p}{v} = ({self.expr(scope)}) % 1009"]
        if k < 0.55:
            out = [f"{p}if {self.cond(scope)}:", *self.block(ind + 1, depth + 1, scope, in_loop,
                                                             in_func)]
            if self.r.random() < 0.3:
                out += [f"{p}elif {self.cond(scope)}:",
                        *self.block(ind + 1, depth + 1, scope, in_loop, in_func)]
            if self.r.random() < 0.5:
                out += [f"{p}else:", *self.block(ind + 1, depth + 1, scope, in_loop, in_func)]
            return out
        if k < 0.7:
            lv = f"k{depth}"
            args = self.r.choice([f"{self.r.randint(0, 4)}", f"1, {self.r.randint(1, 5)}",
                                  f"{self.r.randint(3, 6)}, 0, -{self.r.randint(1, 2)}"])
            return [f"{p}for {lv} in range({args}):",
                    *self.block(ind + 1, depth + 1, scope + [lv], True, in_func)]
        if k < 0.8:
            w = f"w{depth}"
            return [f"{p}{w} = 0", f"{p}while {w} < {self.r.randint(0, 4)}:",
                    f"{p}    {w} = {w} + 1",
                    *self.block(ind + 1, depth + 1, scope + [w], True, in_func)]
        if k < 0.9 and in_loop:
            return [f"{p}if {self.cond(scope)}:",
                    f"{p}    {self.r.choice(['break', 'continue'])}"]
        if k < 0.95:
            if in_func:
                return [f"{p}if {self.cond(scope)}:", f"{p}    return {self.atom(scope)}"]
            return [f"{p}if {self.cond(scope)}:", f"{p}    out[3] = 1", f"{p}    return"]
        v = self.r.choice(VARS)
        if in_func:  # no recursion
            return [f"{p}{v} = {self.atom(scope)}"]
        return [f"{p}{v} = f({self.atom(scope)}, {self.atom(scope)})"]

    def program(self):
        func_body = self.block(1, 1, ["a", "b"], False, in_func=True)
        lines = ["import verikern as vk", "", "@vk.func", "def f(a: int, b: int) -> int:",
                 *func_body, "    return (a + b) % 1009", "",
                 "@vk.kernel",
                 "def k(out: vk.array(dtype=vk.int32), p: int):",
                 "    i = vk.tid()", "    x = p", "    y = i", "    z = 3",
                 *self.block(1, 0, ["x", "y", "z", "i", "p"], False),
                 "    out[0] = x", "    out[1] = y", "    out[2] = z"]
        return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30))
def test_random_programs_match_python(seed, p):
    src = _Gen(seed).program()
    mir = compile_ok(src, "k")
    out_mir = np.zeros(4, np.int32)
    out_py = np.zeros(4, np.int32)
    mir_eval.run(mir, (1,), {"out": out_mir}, {"p": p})
    _run_python(src, "k", (1,), {"out": out_py}, {"p": p})
    np.testing.assert_array_equal(out_mir, out_py, err_msg=src)
