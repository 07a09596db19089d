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
from .type_names import value_type_by_name

#: the most statements and calls the evaluator follows for one top-level statement
MAX_STEPS = 20000
#: the most it follows for a whole module (nvalchemi's pme_multipole_kernels.py, 9449
#: lines, reads its last `register_overloads` after about 60000)
MAX_MODULE_STEPS = 400000
#: how deep calls into the project's functions are followed
MAX_DEPTH = 6
#: Warp's array types, whose element type a spec written in another module carries
ARRAY_TYPES = frozenset({"array", "array1d", "array2d", "array3d", "array4d"})
#: methods that change the list or dict they are called on: it is read no more
MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear",
                      "remove", "sort", "reverse", "__setitem__", "__delitem__"})


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
class Mapping:
    """A dict read from the source: its (key, value) pairs in order (a later
    equal key replaces an earlier one when it is looked up: `lookup`)."""

    pairs: tuple


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
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):      # `{**other}`
                return UNKNOWN
            return Mapping(tuple((self.value(k, env, info), self.value(v, env, info))
                                 for k, v in zip(node.keys, node.values)))
        if isinstance(node, (ast.ListComp, ast.DictComp)):
            return self.comprehension(node, env, info)
        if isinstance(node, ast.IfExp):
            taken = self.test(node.test, env, info)
            return UNKNOWN if taken is None else self.value(node.body if taken else node.orelse, env, info)
        if isinstance(node, ast.Subscript):
            return lookup(self.value(node.value, env, info), self.value(node.slice, env, info))
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
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS \
                and isinstance(node.func.value, ast.Name):
            for a in [*node.args, *(k.value for k in node.keywords)]:
                self.value(a, env, info)        # `d.update(register_overloads(...))` declares them
            env[node.func.value.id] = UNKNOWN   # `d` read no more
            return UNKNOWN
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "keys", "values") \
                and not node.args and not node.keywords:
            m = self.value(node.func.value, env, info)
            if isinstance(m, Mapping):
                pairs = _distinct(m.pairs)
                if pairs is None:
                    return UNKNOWN
                return [list(p) for p in pairs] if node.func.attr == "items" else \
                    [p[0] if node.func.attr == "keys" else p[1] for p in pairs]
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
        if isinstance(f, Leaf):      # a type constructor such as wp.array(dtype=t, ndim=4): substituted
            parts = [self.argument(self.value(a, env, info), f.info) for a in node.args]
            kws = [self.argument(self.value(k.value, env, info), f.info) for k in node.keywords]
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

    def comprehension(self, node, env: dict, info):
        """`[e for x in xs]` / `{k: v for x in xs}` over a list read (one `for`,
        no `if`), each element read in a scope of its own; else UNKNOWN."""
        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
            return UNKNOWN
        gen = node.generators[0]
        items = self.value(gen.iter, env, info)
        if not isinstance(items, list):
            return UNKNOWN
        out = []
        for item in items:
            scope = dict(env)
            self.bind(gen.target, item, scope)
            if isinstance(node, ast.DictComp):
                out.append((self.value(node.key, scope, info), self.value(node.value, scope, info)))
            else:
                out.append(self.value(node.elt, scope, info))
        return Mapping(tuple(out)) if isinstance(node, ast.DictComp) else out

    def bind(self, target: ast.AST, v, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)):
            ok = isinstance(v, list) and len(v) == len(target.elts)
            for i, t in enumerate(target.elts):
                self.bind(t, v[i] if ok else UNKNOWN, env)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            env[target.value.id] = UNKNOWN      # `d[k] = v`: `d` read no more
        else:
            _forget_target(target, env)

    def test(self, node: ast.expr, env: dict, info) -> bool | None:
        """The branch `if node:` takes, when it is `x is None` / `x is not None` on a
        read value, `t == wp.float64` / `!=` / `is` / `is not` between two of Warp's
        named types (same_type), or a read int or bool; else None (not decided)."""
        if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) \
                and not (isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None):
            same = same_type(self.value(node.left, env, info), self.value(node.comparators[0], env, info))
            return None if same is None else same == isinstance(node.ops[0], (ast.Eq, ast.Is))
        if not isinstance(node, (ast.Compare, ast.Constant, ast.Name)):
            return None
        if not isinstance(node, ast.Compare):
            v = self.value(node, env, info)
            return bool(v) if isinstance(v, int) else None
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

    def argument(self, v, info) -> Leaf | None:
        """`v` as an argument of a type constructor of module `info`: a Leaf
        (`into`), or an int read as a literal (`ndim=4`, `length=3`) as that literal."""
        if isinstance(v, int) and not isinstance(v, bool):
            return Leaf(ast.Constant(v), info)
        return self.into(v, info)

    @staticmethod
    def into(v, info) -> Leaf | None:
        """`v` as a Leaf of module `info`: itself, the value type it names in
        its own module spelled with `info`'s DSL alias, or an array type
        (`wp.array(dtype=t, ndim=2)`, `wp.array2d(dtype=t)`) written there,
        its element type so translated; else None."""
        if not isinstance(v, Leaf):
            return None
        if v.info is info:
            return v
        if isinstance(v.node, ast.Call) and v.info.dsl_name(v.node.func) in ARRAY_TYPES \
                and all(k.arg is not None for k in v.node.keywords):
            func = _dsl(info, v.info.dsl_name(v.node.func) or "")
            parts = [_translated(a, v.info, info) for a in v.node.args]
            kws = [_translated(k.value, v.info, info) for k in v.node.keywords]
            args = [p for p in parts if p is not None]
            values = [p for p in kws if p is not None]
            if func is None or len(args) < len(parts) or len(values) < len(kws):
                return None
            return Leaf(ast.Call(func=func, args=args, keywords=[
                ast.keyword(arg=k.arg, value=p) for k, p in zip(v.node.keywords, values)]), info)
        t = value_type(v.info, v.node)
        node = _dsl(info, t.name) if t is not None else None
        return Leaf(node, info) if node is not None else None


def _literal_int(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)


def _translated(node: ast.expr, home, info) -> ast.expr | None:
    """An argument of an array type written in module `home`, as an expression
    of module `info` (an int literal as it is; a type as `_Evaluator.into`)."""
    if _literal_int(node):
        return node
    leaf = _Evaluator.into(Leaf(node, home), info)
    return leaf.node if leaf is not None else None


def named_type(v):
    """The HIR type `v` names when it is one of Warp's own types written by
    name (`wp.float64`, `wp.vec3`, `_I32` bound to `wp.int32`), else None.
    Warp's named types are one class each (`wp.vec3 is wp.vec3f`), so two
    such names are equal exactly when they name the same type; a type made
    by a call (`wp.types.vector(3, float)`) is a class of its own, and
    Python's `float` is not `wp.float32`: neither is compared."""
    if not isinstance(v, Leaf):
        return None
    node, seen = v.node, 0
    while isinstance(node, ast.Name) and node.id in v.info.type_aliases and seen < 8:
        node, seen = v.info.type_aliases[node.id], seen + 1
    name = v.info.dsl_name(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    return value_type_by_name(name) if name is not None else None


def same_type(a, b) -> bool | None:
    """Whether two values read are the same type of Warp's (named_type), or None."""
    ta, tb = named_type(a), named_type(b)
    return None if ta is None or tb is None else ta == tb


def _distinct(pairs: tuple) -> list | None:
    """A dict's pairs as Python keeps them (a repeated key: its last value, in
    its first place), or None when two keys may or may not be equal."""
    out: list = []
    for k, v in pairs:
        for i, (k2, _) in enumerate(out):
            same = _same_key(k, k2)
            if same is None:
                return None
            if same:
                out[i] = (k2, v)
                break
        else:
            out.append((k, v))
    return out


def _same_key(a, b) -> bool | None:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, list) and isinstance(b, list):   # tuple keys: (t, t)
        if len(a) != len(b):
            return False
        parts = [_same_key(x, y) for x, y in zip(a, b)]
        return False if False in parts else (None if None in parts else True)
    return same_type(a, b)


def lookup(m, key):
    """`m[key]` of a Mapping read, or of a list by an int; UNKNOWN when it
    cannot be decided (or Python would raise: then Warp never ran the rest)."""
    if isinstance(m, list) and isinstance(key, int) and not isinstance(key, bool) and -len(m) <= key < len(m):
        return m[key]
    if not isinstance(m, Mapping):
        return UNKNOWN
    for k, v in _distinct(m.pairs) or ():
        same = _same_key(k, key)
        if same is None:
            return UNKNOWN
        if same:
            return v
    return UNKNOWN


def _dsl(info, name: str) -> ast.expr | None:
    """`<alias>.name` with one of the module's DSL aliases (None without one)."""
    alias = min(info.aliases) if info.aliases else None
    if alias is None:
        return None
    return ast.Attribute(value=ast.Name(id=alias, ctx=ast.Load()), attr=name, ctx=ast.Load())


def _forget(stmt: ast.AST, env: dict) -> None:
    """Names `stmt` may bind become unknown (a statement the evaluator does not model)."""
    for name in _bound_names(stmt):
        env[name] = UNKNOWN


#: id(statement) -> (the statement, the names it may bind in `ast.walk` order), for one
#: `declared_overloads` call (emptied when it ends): a project function's body is evaluated
#: once per call of it (one per registered dtype), and walking its statements each time was
#: two thirds of declared_overloads' time on pme_multipole_kernels.py
_BOUND: dict[int, tuple[ast.AST, tuple[str, ...]]] = {}


def _bound_names(stmt: ast.AST) -> tuple[str, ...]:
    """The names a store or `del` under `stmt` binds, each once, in walk order (`_forget`)."""
    hit = _BOUND.get(id(stmt))
    if hit is not None and hit[0] is stmt:
        return hit[1]
    names = tuple(dict.fromkeys(n.id for n in ast.walk(stmt)
                                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)))
    _BOUND[id(stmt)] = (stmt, names)
    return names


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
    try:
        _declared_overloads(tree, info)
    finally:
        _BOUND.clear()


def _declared_overloads(tree: ast.Module, info) -> None:
    ev = _Evaluator(info)
    env: dict = {}
    for stmt in tree.body:
        if not isinstance(stmt, (ast.For, ast.Expr, ast.Assign, ast.AnnAssign, ast.If)) \
                or _has_direct_overload(stmt, info):
            continue
        ev.site = stmt
        spent, ev.steps = ev.steps, 0
        try:
            ev.block([stmt], env, info)
        except (_Budget, RecursionError):
            _forget(stmt, env)      # this statement's overloads are skipped; the later ones are read
        except _Return:
            pass
        ev.steps += spent
        if ev.steps > MAX_MODULE_STEPS:
            return
