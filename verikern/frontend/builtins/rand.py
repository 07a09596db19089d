"""Warp's random numbers: `rand_init`, `randi`, `randu`, `randf`, `randn` with
exactly the PCG sequence of Warp's rand.h (Jarzynski and Olano's hash);
`randn` is Warp's Box-Muller form, two `randf` draws (the one under the log
first, as Warp's CPU build evaluates them) and float32 sqrt, log and cos.

Invariant: every call is rewritten, before its statement is checked, into
statements of the core language that run before that statement, in Python's
(and Warp's codegen's) left-to-right evaluation order: the hash steps
`state = pcg(state)` on the caller's uint32 state variable (Warp passes it
by reference) and a temporary holding the result, which replaces the call.
So the simulator and every backend produce Warp's exact sequence, and the
prover sees exact uint32 arithmetic (an unconstrained-looking but exact
value, never an assumption). A call where hoisting could change what runs
(inside `x if c else y`, `and`/`or`, a while test, a loop header or a
requires) is a `rand-position` error asking for a variable.
"""
from __future__ import annotations

import ast

from verikern.hir.types import U32
from .warp import _ALIAS
from .warp import positional_args
from .table import RAND_BUILTINS

_PCG_MUL, _PCG_INC, _PCG_MUL2 = 747796405, 2891336453, 277803737
#: rand.h's RANDN_EPSILON (5.96e-8f) and 2.f * M_PI_F, as the float32 values C gives them
_RANDN_EPSILON = 5.960000137861243e-08
_TWO_PI_F32 = 6.2831854820251465
#: the attribute marking the literals of the rewriting (not the user's: Warp's literal rule
#: for generic typings, check/expressions.py, does not apply to them)
DESUGARED = "_verikern_desugared"
_HOISTED_FIELDS = {"Assign": ("value",), "AnnAssign": ("value",), "AugAssign": ("value",),
                   "Expr": ("value",), "Return": ("value",), "If": ("test",),
                   "Assert": ("test",)}


def _is_rand(chk, node) -> bool:
    return isinstance(node, ast.Call) and chk.info.dsl_name(node.func) in RAND_BUILTINS


def has_rand(chk, node) -> bool:
    return any(_is_rand(chk, n) for n in ast.walk(node))


class _Hoister:
    def __init__(self, chk, stmt):
        self.chk = chk
        self.stmt = stmt
        self.pre: list[ast.stmt] = []

    def at(self, node):
        for n in ast.walk(node):
            ast.copy_location(n, self.stmt)
            n.lineno, n.col_offset = self.stmt.lineno, self.stmt.col_offset
        return node

    def name(self, ident, store=False):
        return self.at(ast.Name(id=ident, ctx=ast.Store() if store else ast.Load()))

    def dsl(self, fn, *args):
        self.chk.info.aliases.add(_ALIAS)
        func = ast.Attribute(value=ast.Name(id=_ALIAS, ctx=ast.Load()), attr=fn, ctx=ast.Load())
        return self.at(ast.Call(func=func, args=list(args), keywords=[]))

    def assign(self, target: str, value):
        self.pre.append(self.at(ast.Assign(targets=[self.name(target, True)], value=value)))

    def num(self, v):
        node = self.at(ast.Constant(v))
        setattr(node, DESUGARED, True)    # typed as the arithmetic around it needs, not as Warp's literal
        return node

    def binop(self, a, op, b):
        return self.at(ast.BinOp(left=a, op=op, right=b))

    def pcg(self, var: str) -> None:
        """var = rand_pcg(var), on a uint32 variable."""
        b, c = self.chk.temp(), self.chk.temp()
        self.assign(b, self.binop(self.binop(self.name(var), ast.Mult(), self.num(_PCG_MUL)),
                                  ast.Add(), self.num(_PCG_INC)))
        shift = self.binop(self.binop(self.name(b), ast.RShift(), self.num(28)), ast.Add(),
                           self.num(4))
        mixed = self.binop(self.binop(self.name(b), ast.RShift(), shift), ast.BitXor(),
                           self.name(b))
        self.assign(c, self.binop(mixed, ast.Mult(), self.num(_PCG_MUL2)))
        self.assign(var, self.binop(self.binop(self.name(c), ast.RShift(), self.num(22)),
                                    ast.BitXor(), self.name(c)))

    def args(self, call, name):
        """The call's arguments in Warp's order (table.py gives the parameter names)."""
        return positional_args(self.chk, call, name)

    def rewrite(self, node):
        """`node` with every rand call replaced by a temporary (post-order)."""
        if isinstance(node, (ast.IfExp, ast.BoolOp, ast.Lambda)) and has_rand(self.chk, node):
            raise self.chk.error("a random-number call inside a conditional expression", node,
                                 "rand-position", "assign the random number to a variable first")
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST):
                setattr(node, field, self.rewrite(value))
            elif isinstance(value, list):
                setattr(node, field, [self.rewrite(v) if isinstance(v, ast.AST) else v
                                      for v in value])
        if not _is_rand(self.chk, node):
            return node
        return self.call(node, self.chk.info.dsl_name(node.func))

    def unit_float(self, state):
        """randf's value of the advanced state: float32(state >> 8) * 2**-24."""
        return self.binop(self.dsl("float32", self.binop(state, ast.RShift(), self.num(8))),
                          ast.Mult(), self.num(1.0 / 16777216.0))

    def draw_unit(self, var: str) -> str:
        """A temporary holding randf(var) (the state advanced first)."""
        self.pcg(var)
        out = self.chk.temp()
        self.assign(out, self.unit_float(self.name(var)))
        return out

    def randn(self, var: str):
        """sqrt(-2 log(u1 + RANDN_EPSILON)) * cos(2 pi u2), u1 drawn before u2, in float32."""
        u1, u2 = self.draw_unit(var), self.draw_unit(var)
        radius = self.dsl("sqrt", self.binop(self.num(-2.0), ast.Mult(), self.dsl(
            "log", self.binop(self.name(u1), ast.Add(), self.num(_RANDN_EPSILON)))))
        angle = self.dsl("cos", self.binop(self.num(_TWO_PI_F32), ast.Mult(), self.name(u2)))
        out = self.chk.temp()
        self.assign(out, self.binop(radius, ast.Mult(), angle))
        return self.name(out)

    def state_var(self, node, name):
        if not isinstance(node, ast.Name) or node.id not in self.chk.local_names \
                or self.chk.var_types.get(node.id) != U32:
            raise self.chk.error(f"wp.{name}() needs the random state variable (from "
                                 "wp.rand_init) as its first argument", node, "rand-state",
                                 "write state = wp.rand_init(seed) and pass state")
        return node.id

    def call(self, node, name):
        chk = self.chk
        if name == "rand_init":
            a = self.args(node, name)
            if len(a) not in (1, 2):
                raise chk.error("wp.rand_init() takes seed[, offset]", node, "arity")
            s = chk.temp()
            self.assign(s, self.dsl("uint32", self.dsl("int32", a[0])))
            if len(a) == 2:
                o = chk.temp()
                self.assign(o, self.dsl("uint32", self.dsl("int32", a[1])))
                self.pcg(o)
                self.assign(s, self.binop(self.name(s), ast.Add(), self.name(o)))
            self.pcg(s)
            return self.name(s)
        a = self.args(node, name)
        if name == "randn":
            if len(a) != 1:
                raise chk.error("wp.randn() takes the state only", node, "arity")
            return self.randn(self.state_var(a[0], name))
        if len(a) not in (1, 3):
            raise chk.error(f"wp.{name}() takes state or state, min, max", node, "arity")
        var = self.state_var(a[0], name)
        lo = hi = None
        if len(a) == 3:   # bounds are evaluated before the call advances the state
            lo, hi = chk.temp(), chk.temp()
            cast = "float32" if name == "randf" else ("int32" if name == "randi" else "uint32")
            self.assign(lo, self.dsl(cast, a[1]))
            self.assign(hi, self.dsl(cast, a[2]))
        self.pcg(var)
        out = chk.temp()
        st = self.name(var)
        if name == "randf":   # (state >> 8) * 2**-24, then (max - min) * r + min
            r = self.unit_float(st)
            if lo is not None:
                r = self.binop(self.binop(self.binop(self.name(hi), ast.Sub(), self.name(lo)),
                                          ast.Mult(), r), ast.Add(), self.name(lo))
        elif lo is None:
            r = self.dsl("int32", st) if name == "randi" else st
        else:   # C: state % (max - min) + min, in uint32, then back to the result type
            span = self.dsl("uint32", self.binop(self.name(hi), ast.Sub(), self.name(lo)))
            r = self.binop(self.binop(st, ast.Mod(), span), ast.Add(),
                           self.dsl("uint32", self.name(lo)))
            if name == "randi":
                r = self.dsl("int32", r)
        self.assign(out, r)
        return self.name(out)


def hoist(chk, stmt):
    """(statements to check first, the rewritten statement) for `stmt`."""
    kind = type(stmt).__name__
    fields = _HOISTED_FIELDS.get(kind)
    if fields is None:
        for field in ("test", "iter"):
            sub = getattr(stmt, field, None)
            if sub is not None and has_rand(chk, sub):
                raise chk.error("a random-number call in a loop header", sub, "rand-position",
                                "draw it into a variable inside the loop body")
        return [], stmt
    h = _Hoister(chk, stmt)
    for field in fields:
        sub = getattr(stmt, field, None)
        if sub is not None and has_rand(chk, sub):
            if kind == "Expr" and chk.info.dsl_name(getattr(sub, "func", None)) in (
                    "requires", "invariant"):
                raise chk.error("a random-number call in a contract", sub, "rand-position")
            setattr(stmt, field, h.rewrite(sub))
    return h.pre, stmt
