"""`wp.overload` declarations a kernel file makes in module-level loops and
through the project's helper functions, read from the source, never executed:

    _T = [wp.float32, wp.float64]
    _V = [wp.vec3f, wp.vec3d]
    for t, v in zip(_T, _V):
        _k_overload[t] = wp.overload(_k, [wp.array(dtype=v), wp.array(dtype=t)])

    overloads = register_overloads(_k, lambda v, t: [wp.array(dtype=v), ...],
                                   dtype_pairs=DEFAULT_DTYPE_PAIRS)   # a project function

A small evaluator walks the module's top-level statements with values that
are lists and tuples of type expressions (literal ones, `zip`, `+`, `*`
by an int), lambdas, the project's own functions (their defaults and
module-level lists read from their modules, calls followed to a fixed depth)
and `if x is None` / `is not None` on them. Each `wp.overload(kernel, spec)`
it reaches with a literal spec is recorded in `info.overloads` as a
`wp.overload` call written in the kernel's own module.

Invariants:
- declared overloads only ADD instances (generic_kernels.py enumerates the
  typings Warp can create at launch whatever is declared), so what the
  evaluator cannot read (an unknown value, a branch it cannot decide, a
  statement it does not model, the step budget spent) is skipped, never
  guessed: a missed declaration costs an instance, never soundness;
- a type written in another module of the project enters a recorded spec
  only as the type it names there (`wp.vec3d`, spelled with the kernel
  module's own DSL alias), so a name that means something else in the kernel
  file never leaks in; anything else from another module is unknown;
- a direct `wp.overload` statement at the top level is module.py's (not
  recorded twice).
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import Any

from .annotations import value_type

#: the most statements and calls the evaluator follows per module
MAX_STEPS = 20000
#: how deep calls into the project's functions are followed
MAX_DEPTH = 6


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
NONE = None     # the value None, as read


@dataclass(frozen=True)
class Leaf:
    """A type expression (or other opaque expression) written in `info`'s module."""

    node: ast.expr
    info: Any


@dataclass(frozen=True)
class Closure:
    """A lambda and the names it sees."""

    node: ast.Lambda
    env: dict
    info: Any


@dataclass(frozen=True)
class Fn:
    """A module-level function of the project, read from its source."""

    node: ast.FunctionDef
    info: Any


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Budget(Exception):
    """The reading of one top-level statement took more than MAX_STEPS steps:
    the statement declares no overloads verikern can read (never run further)."""


class _Evaluator:
    def __init__(self, root):
        self.root, self.steps, self.depth = root, 0, 0
        self.site: ast.stmt | None = None      # the top-level statement being read

    def step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget

    # ------------------------------------------------------------ values
    def name(self, n: str, env: dict, info):
        if n in env:
            return env[n]
        if n in info.literal_lists:       # (node, the module it is written in)
            node, home = info.literal_lists[n]
            return self.value(node, {}, home)
        if n in info.project_funcs:
            return info.project_funcs[n]
        if n == "None":
            return NONE
        return Leaf(ast.Name(id=n, ctx=ast.Load()), info)

    def value(self, node: ast.AST | None, env: dict, info):
        self.step()
        if node is None:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            return NONE if node.value is None else (node.value if isinstance(node.value, int) else UNKNOWN)
        if isinstance(node, ast.Name):
            return self.name(node.id, env, info)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(e, env, info) for e in node.elts]
            return UNKNOWN if any(isinstance(e, ast.Starred) for e in node.elts) else items
        if isinstance(node, ast.Lambda):
            return Closure(node, env, info)
        if isinstance(node, ast.BinOp):
            return self.binop(node, env, info)
        if isinstance(node, ast.Call):
            return self.call(node, env, info)
        if isinstance(node, ast.Attribute):
            base = self.value(node.value, env, info)
            if isinstance(base, Leaf):
                return Leaf(ast.Attribute(value=base.node, attr=node.attr, ctx=ast.Load()), base.info)
        return UNKNOWN

    def binop(self, node: ast.BinOp, env: dict, info):
        a, b = self.value(node.left, env, info), self.value(node.right, env, info)
        if isinstance(node.op, ast.Add) and isinstance(a, list) and isinstance(b, list):
            return a + b
        if isinstance(node.op, ast.Mult):
            if isinstance(a, list) and isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 64:
                return a * b
            if isinstance(b, list) and isinstance(a, int) and not isinstance(a, bool) and 0 <= a <= 64:
                return b * a
        return UNKNOWN

    def call(self, node: ast.Call, env: dict, info):
        if info.dsl_name(node.func) == "overload" and len(node.args) == 2 and not node.keywords:
            self.overload(node, env, info)
            return UNKNOWN
        f = self.value(node.func, env, info)
        if isinstance(f, Leaf) and isinstance(f.node, ast.Name) and f.node.id == "range" \
                and "range" not in info.nonconstant and not node.keywords and 1 <= len(node.args) <= 3:
            bounds = [self.value(a, env, info) for a in node.args]
            if all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) and 0 not in bounds[2:]:
                items = range(*bounds)
                return list(items) if len(items) <= 256 else UNKNOWN
            return UNKNOWN
        if isinstance(f, Leaf) and isinstance(f.node, ast.Name) and f.node.id in ("tuple", "list") \
                and f.node.id not in info.nonconstant and len(node.args) == 1 and not node.keywords:
            items = self.value(node.args[0], env, info)
            return items if isinstance(items, list) else UNKNOWN
        if isinstance(f, Leaf) and isinstance(f.node, ast.Name) and f.node.id == "zip" \
                and "zip" not in info.nonconstant and not node.keywords:
            lists = [self.value(a, env, info) for a in node.args]
            if lists and all(isinstance(x, list) for x in lists):
                return [list(t) for t in zip(*lists)]
            return UNKNOWN
        if isinstance(f, (Closure, Fn)):
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                return UNKNOWN
            args = [self.value(a, env, info) for a in node.args]
            kwargs = {k.arg: self.value(k.value, env, info) for k in node.keywords}
            return self.apply(f, args, kwargs)
        if isinstance(f, Leaf):      # a type constructor such as wp.array(dtype=t): substituted
            parts = [self.into(self.value(a, env, info), f.info) for a in node.args]
            kws = [self.into(self.value(k.value, env, info), f.info) for k in node.keywords]
            args = [p.node for p in parts if p is not None]
            values = [v.node for v in kws if v is not None]
            if len(args) == len(parts) and len(values) == len(kws) \
                    and all(k.arg is not None for k in node.keywords):
                return Leaf(ast.Call(func=f.node, args=args,
                                     keywords=[ast.keyword(arg=k.arg, value=v)
                                               for k, v in zip(node.keywords, values)]), f.info)
        return UNKNOWN

    def apply(self, f, args: list, kwargs: dict):
        params = f.node.args
        if params.vararg is not None or (params.kwarg is not None and isinstance(f, Closure)):
            return UNKNOWN
        names = [a.arg for a in params.posonlyargs + params.args]
        kw_names = [a.arg for a in params.kwonlyargs]
        if len(args) > len(names) or any(k not in names + kw_names for k in kwargs):
            return UNKNOWN
        outer = f.env if isinstance(f, Closure) else {}
        env: dict = dict(outer)
        defaults = params.defaults
        for i, n in enumerate(names):
            if i < len(args):
                env[n] = args[i]
            elif n in kwargs:
                env[n] = kwargs[n]
            elif i >= len(names) - len(defaults):
                env[n] = self.value(defaults[i - (len(names) - len(defaults))], outer, f.info)
            else:
                return UNKNOWN
        for a, d in zip(params.kwonlyargs, params.kw_defaults):
            env[a.arg] = kwargs[a.arg] if a.arg in kwargs else self.value(d, outer, f.info)
        if params.kwarg is not None:
            env[params.kwarg.arg] = UNKNOWN
        if isinstance(f, Closure):
            return self.value(f.node.body, env, f.info)
        if self.depth >= MAX_DEPTH:
            return UNKNOWN
        self.depth += 1
        try:
            self.block(f.node.body, env, f.info)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
        return NONE

    # ------------------------------------------------------------ statements
    def block(self, body: list, env: dict, info) -> None:
        for stmt in body:
            self.step()
            if isinstance(stmt, ast.Return):
                raise _Return(self.value(stmt.value, env, info))
            if isinstance(stmt, ast.Expr):
                self.value(stmt.value, env, info)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                v = self.value(stmt.value, env, info) if stmt.value is not None else UNKNOWN
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    self.bind(t, v, env)
            elif isinstance(stmt, ast.For) and not stmt.orelse:
                items = self.value(stmt.iter, env, info)
                if not isinstance(items, list):
                    _forget(stmt, env)
                    continue
                for item in items:
                    self.bind(stmt.target, item, env)
                    self.block(stmt.body, env, info)
            elif isinstance(stmt, ast.If):
                taken = self.test(stmt.test, env, info)
                if taken is None:
                    _forget(stmt, env)
                else:
                    self.block(stmt.body if taken else stmt.orelse, env, info)
            else:
                _forget(stmt, env)

    def bind(self, target: ast.AST, v, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)):
            ok = isinstance(v, list) and len(v) == len(target.elts)
            for i, t in enumerate(target.elts):
                self.bind(t, v[i] if ok else UNKNOWN, env)
        else:
            _forget_target(target, env)

    def test(self, node: ast.expr, env: dict, info) -> bool | None:
        """The branch `if node:` takes, when it is `x is None` / `x is not None` on a read value."""
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            v = self.value(node.left, env, info)
            if v is UNKNOWN:
                return None
            return (v is NONE) == isinstance(node.ops[0], ast.Is)
        return None

    # ------------------------------------------------------------ overloads
    def overload(self, call: ast.Call, env: dict, info) -> None:
        kernel = self.value(call.args[0], env, info)
        if not (isinstance(kernel, Leaf) and kernel.info is self.root and isinstance(kernel.node, ast.Name)):
            return
        written = call.args[1]
        spec_node: ast.expr
        if isinstance(written, ast.Dict):     # {"param": type, ...}
            keys = [k for k in written.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            read = [self.in_root(self.value(v, env, info)) for v in written.values]
            values = [v for v in read if v is not None]
            if len(keys) != len(written.keys) or len(values) != len(read):
                return
            spec_node = ast.Dict(keys=[ast.Constant(k.value) for k in keys], values=list(values))
        else:
            spec = self.value(written, env, info)
            if not isinstance(spec, list):
                return
            read = [self.in_root(s) for s in spec]
            nodes = [n for n in read if n is not None]
            if len(nodes) != len(read):
                return
            spec_node = ast.List(elts=list(nodes), ctx=ast.Load())
        if self.site is None:
            return
        func = copy.deepcopy(call.func) if info is self.root else _dsl(self.root, "overload")
        if func is None:
            return
        made = ast.Call(func=func, args=[ast.Name(id=kernel.node.id, ctx=ast.Load()), spec_node], keywords=[])
        for n in ast.walk(made):          # errors point at the statement that declared it
            ast.copy_location(n, self.site)
        self.root.overloads.setdefault(kernel.node.id, []).append(made)

    def in_root(self, v) -> ast.expr | None:
        """`v` as an expression of the kernel's module, or None (module docstring)."""
        leaf = self.into(v, self.root)
        return copy.deepcopy(leaf.node) if leaf is not None else None

    @staticmethod
    def into(v, info) -> Leaf | None:
        """`v` as a Leaf of module `info`: itself, or the value type it names in
        its own module spelled with `info`'s DSL alias; else None."""
        if not isinstance(v, Leaf):
            return None
        if v.info is info:
            return v
        t = value_type(v.info, v.node)
        node = _dsl(info, t.name) if t is not None else None
        return Leaf(node, info) if node is not None else None


def _dsl(info, name: str) -> ast.expr | None:
    """`<alias>.name` with one of the module's DSL aliases (None without one)."""
    alias = min(info.aliases) if info.aliases else None
    if alias is None:
        return None
    return ast.Attribute(value=ast.Name(id=alias, ctx=ast.Load()), attr=name, ctx=ast.Load())


def _forget(stmt: ast.AST, env: dict) -> None:
    """Names `stmt` may bind become unknown (a statement the evaluator does not model)."""
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            env[n.id] = UNKNOWN


def _forget_target(target: ast.AST, env: dict) -> None:
    if isinstance(target, ast.Name):
        env[target.id] = UNKNOWN


def _has_direct_overload(stmt: ast.stmt, info) -> bool:
    value = getattr(stmt, "value", None)
    return isinstance(value, ast.Call) and info.dsl_name(value.func) == "overload"


def declared_overloads(tree: ast.Module, info) -> None:
    """Add to `info.overloads` the `wp.overload`s that the module's top-level
    loops and calls of project functions make (module docstring)."""
    if not info.kernels:
        return
    ev = _Evaluator(info)
    env: dict = {}
    for stmt in tree.body:
        if not isinstance(stmt, (ast.For, ast.Expr, ast.Assign, ast.AnnAssign, ast.If)) \
                or _has_direct_overload(stmt, info):
            continue
        ev.site = stmt
        try:
            ev.block([stmt], env, info)
        except (_Budget, RecursionError):
            return
        except _Return:
            continue
