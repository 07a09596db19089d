"""Which values of a generic kernel's opaque kernel have a floating-point
scalar type in every instantiation Warp builds (generic_opaque.py, condition
4): a division by a value of a generic type cannot fault when its divisor is
one of them, so the type-oblivious proof may keep it (docs/SOUNDNESS.md,
"Divisions the type-oblivious proof keeps").

The analysis puts the values of the typed body (HIR, typed with the carrier)
into classes of "the same scalar type in every instantiation Warp builds"
(union-find), from Warp's typing rules, each checked against warp-lang 1.19
(tests/warp_compat/test_warp_generic_scalars.py):

- `+ - * / // %` (every overload of Warp's add, sub, mul, div, floordiv and
  mod takes operands of one scalar type: scalars of the same type, a vector,
  matrix or quat and a scalar of its component type, ...) and unary `-`: the
  operands and the result are one class;
- an element loaded from an array has the array's dtype: one class per
  array parameter (a component `v.x` links nothing: a struct instantiation's
  fields have types of their own);
- `min`, `max`, `wp.where` and a conditional expression: the operands
  chosen from and the result are one class;
- a local or a parameter and every value bound to it (Warp refuses to bind
  a name to a value of another type, in straight code, in another branch or
  in a loop), and a conversion `type(x)(...)` of a named `x`: the class of
  `x`; a @func's parameters take the class of the call's arguments, its
  returns the call's (one scope per call);
- a class is *float* when it holds an argument of a builtin whose every Warp
  overload takes only float scalars (FLOAT_ONLY: `wp.exp`, `wp.sqrt`, ...), a
  parameter of a fixed float type or a load of an array with a fixed float
  dtype.

Anything else links nothing (a cast to a fixed type, a literal, a vector
constructor, other builtins, a loop variable), and a value passed to any
call but a linking builtin or a @func takes no class there: the checker
drops a conversion that changes nothing in the carrier's typing (`float(m)`
of a float32 `m`), which converts in an integer instantiation. Fewer links
only make fewer classes float, so fewer divisions kept, never a wrong one.
"""
from __future__ import annotations

import ast
import dataclasses
import typing

from verikern.hir import nodes as H
from verikern.hir.types import ArrayType, ScalarType

#: builtins whose every Warp 1.19 overload takes float scalars only (bfloat16, float16, float32, float64)
FLOAT_ONLY = frozenset({"floor", "ceil", "sqrt", "sin", "cos", "tan", "exp", "log", "erf", "erfc"})
#: builtins whose Warp overloads take their arguments, and give their result, in one scalar type
SAME_TYPE = frozenset({"min", "max"})
#: binary operators whose Warp overloads take operands of one scalar type, the result in it too
SAME_TYPE_OPS = frozenset({"add", "sub", "mul", "div", "floordiv", "mod"})
_EXPRESSIONS = typing.get_args(H.Expr)


def _is_float(t) -> bool:
    return isinstance(t, ScalarType) and t.is_float


def _called_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def converted_places(defs, funcs) -> set[tuple[str, int, int]]:
    """(file, line, col) of each argument of a call in the definitions `defs` other than a
    linking builtin (FLOAT_ONLY, SAME_TYPE, `where`) or a @func of `funcs` (names): the
    checker drops a conversion (`float(x)`, `type(m)(d)`, `wp.vec3(v)`) that is no change
    in the carrier's typing but converts in another instantiation, so the value found
    there (its HIR node starts at the argument) takes no class."""
    linking = FLOAT_ONLY | SAME_TYPE | {"where"}
    out: set[tuple[str, int, int]] = set()
    for d in defs:
        for n in ast.walk(d.node):
            if isinstance(n, ast.Call) and not (_called_name(n) in linking or _called_name(n) in funcs):
                out.update((d.loc.file, a.lineno, a.col_offset + 1) for a in [*n.args, *(k.value for k in n.keywords)])
    return out


def type_conversions(defs) -> dict[tuple[str, int, int], str]:
    """(file, line, col) of each `type(NAME)(...)` conversion of the definitions `defs`
    -> NAME (col 1-based, as HIR locations are)."""
    out = {}
    for d in defs:
        for n in ast.walk(d.node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Call) and isinstance(n.func.func, ast.Name) \
                    and n.func.func.id == "type" and len(n.func.args) == 1 and isinstance(n.func.args[0], ast.Name):
                out[(d.loc.file, n.lineno, n.col_offset + 1)] = n.func.args[0].id
    return out


class ScalarClasses:
    """The classes of `kernel`'s values (module docstring); `generic`: the generic
    parameters' names; `conversions`: `type_conversions` of its definitions.
    `converted`: `converted_places` of them. `unforced(divisions)` gives the
    first division whose divisor is not float."""

    def __init__(self, kernel: H.KernelDef, generic: set[str], conversions: dict, converted: set):
        self.kernel, self.conversions, self.converted = kernel, conversions, converted
        self.funcs = {f.name: f for f in kernel.funcs}
        self.parent: dict = {}
        self.float: set = set()
        self.divisors: dict[int, list] = {}      # id(division) -> the divisor's key in each scope
        self.calls = 0
        scope = ("kernel",)
        env = {}
        for p in kernel.params:
            key = (scope, "param", p.name)
            env[p.name] = key
            if p.name in generic:
                continue
            fixed = p.type.dtype if isinstance(p.type, ArrayType) else p.type
            if _is_float(fixed):
                self.float.add(key)
        self.body(kernel.body, scope, env, None)

    # ---------------------------------------------------------------- union-find
    def find(self, k):
        self.parent.setdefault(k, k)
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def link(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb

    def is_float(self, k) -> bool:
        """Whether `k`'s class holds a value of a float type in every instantiation Warp builds."""
        root = self.find(k)
        return any(self.find(f) == root for f in self.float)

    def unforced(self, divisions) -> H.BinaryExpr | None:
        """The first of `divisions` (BinaryExpr nodes) whose divisor is not float in
        every scope the analysis met it in (or that it never met)."""
        for e in divisions:
            keys = self.divisors.get(id(e))
            if not keys or not all(self.is_float(k) for k in keys):
                return e
        return None

    # ---------------------------------------------------------------- walk
    def body(self, stmts, scope, env: dict, result) -> None:
        unlinked = set()        # loop variables and vk.tid()'s: their types come from no value here
        for st in _statements(stmts):
            if isinstance(st, H.ForRange):
                unlinked.add(st.var)
            elif isinstance(st, H.TidUnpack):
                unlinked.update(st.names)
        for st in _statements(stmts):
            if isinstance(st, H.Assign) and st.name not in env:
                env[st.name] = (scope, "local", st.name)
        for name in unlinked:
            env[name] = (scope, "many", name)
        for st in _statements(stmts):
            self.stmt(st, scope, env, result)

    def stmt(self, st, scope, env, result) -> None:
        if isinstance(st, H.Assign):
            value = self.expr(st.value, scope, env)
            if _one_type(env, st.name):
                self.link(env[st.name], value)
            return
        if isinstance(st, H.ReturnStmt) and st.value is not None:
            value = self.expr(st.value, scope, env)
            if result is not None:
                self.link(result, value)
            return
        for f in dataclasses.fields(st):
            value = getattr(st, f.name)
            for part in value if isinstance(value, tuple) else (value,):
                if isinstance(part, _EXPRESSIONS):
                    self.expr(part, scope, env)

    def expr(self, e, scope, env):
        """The key of `e`'s class (after walking its parts); a fresh one at a converted place."""
        key = self._expr(e, scope, env)
        return (scope, "cut", id(e)) if (e.loc.file, e.loc.line, e.loc.col) in self.converted else key

    def _expr(self, e, scope, env):
        key = (scope, "node", id(e))
        if isinstance(e, H.Literal):
            name = self.conversions.get((e.loc.file, e.loc.line, e.loc.col))
            if name is not None and _one_type(env, name):
                self.link(key, env[name])
            return key
        if isinstance(e, (H.LocalRef, H.ArrayRefExpr)):
            return env[e.name] if _one_type(env, e.name) else key
        if isinstance(e, H.IndexExpr):
            for i in e.indices:
                self.expr(i, scope, env)
            array = env.get(e.array.name)
            return array if array is not None and array[1] == "param" else key
        if isinstance(e, H.FuncCall):
            return self.call(e, scope, env, key)
        parts = [(f.name, getattr(e, f.name)) for f in dataclasses.fields(e)]
        keys = {name: ([self.expr(p, scope, env) for p in value if isinstance(p, _EXPRESSIONS)]
                       if isinstance(value, tuple)
                       else self.expr(value, scope, env) if isinstance(value, _EXPRESSIONS) else None)
                for name, value in parts}
        if isinstance(e, H.BinaryExpr) and e.op in SAME_TYPE_OPS:
            self.link(key, keys["lhs"])
            self.link(key, keys["rhs"])
            if e.op in ("div", "floordiv", "mod"):
                self.divisors.setdefault(id(e), []).append(keys["rhs"])
        elif isinstance(e, H.UnaryExpr) and e.op == "neg":
            self.link(key, keys["operand"])
        elif isinstance(e, H.CondExpr):
            self.link(key, keys["if_true"])
            self.link(key, keys["if_false"])
        elif isinstance(e, H.BuiltinCall) and e.name in FLOAT_ONLY and len(e.args) == 1:
            self.link(key, keys["args"][0])
            self.float.add(key)
        elif isinstance(e, H.BuiltinCall) and e.name in SAME_TYPE:
            for k in keys["args"]:
                self.link(key, k)
        elif isinstance(e, H.BuiltinCall) and e.name == "where" and len(e.args) == 3:
            self.link(key, keys["args"][1])
            self.link(key, keys["args"][2])
        return key

    def call(self, e: H.FuncCall, scope, env, key):
        args = [self.expr(a, scope, env) for a in e.args]
        f = self.funcs.get(e.func)
        self.calls += 1
        if f is None or self.calls > 1000 or len(scope) > 32:
            return key
        inner = scope + (self.calls,)
        inner_env = {}
        for p, a in zip(f.params, args):
            inner_env[p.name] = (inner, "param", p.name)
            self.link(inner_env[p.name], a)
        self.body(f.body, inner, inner_env, key)
        return key



def _one_type(env: dict, name: str) -> bool:
    """Whether `name` has one type in its scope: a parameter or a local (Warp refuses to bind a
    name to a value of another type, in any branch or loop), not a loop variable."""
    return name in env and env[name][1] in ("param", "local")


def _statements(stmts):
    """`stmts` and every statement nested in them, in order."""
    for st in stmts:
        yield st
        for f in dataclasses.fields(st):
            value = getattr(st, f.name)
            if isinstance(value, tuple) and value and all(dataclasses.is_dataclass(v) and hasattr(v, "loc")
                                                           and not isinstance(v, _EXPRESSIONS) for v in value):
                yield from _statements(value)


def integer_division_at(kernel: H.KernelDef, places) -> H.BinaryExpr | None:
    """The first division of `kernel` (an instance's typed body, its funcs included) at one
    of `places` ((file, line, col)) whose divisor has integer components, or None."""
    todo = [st for body in [kernel.body] + [f.body for f in kernel.funcs] for st in _statements(body)]
    seen: list = []
    for st in todo:
        for f in dataclasses.fields(st):
            value = getattr(st, f.name)
            seen += [p for p in (value if isinstance(value, tuple) else (value,)) if isinstance(p, _EXPRESSIONS)]
    while seen:
        e = seen.pop()
        if isinstance(e, H.BinaryExpr) and e.op in ("div", "floordiv", "mod") \
                and (e.loc.file, e.loc.line, e.loc.col) in places and not _is_float(_scalar_of(e.rhs.type)):
            return e
        for f in dataclasses.fields(e):
            value = getattr(e, f.name)
            seen += [p for p in (value if isinstance(value, tuple) else (value,)) if isinstance(p, _EXPRESSIONS)]
    return None


def _scalar_of(t):
    """The scalar (component) type of a scalar, vector, matrix or quat type `t`."""
    return getattr(t, "dtype", None) if not isinstance(t, ScalarType) else t
