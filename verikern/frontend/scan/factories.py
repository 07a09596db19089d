"""Kernel factories: @kernel / @func definitions inside plain functions, and
the names they capture (docs/LANGUAGE.md section 1).

Invariant: a captured name is either a literal constant (bound exactly once
in its function, to a literal expression: its value is known) or an unknown
constant of a type read from the source (a parameter annotation, an
annotated assignment `width: int = ...` with `int`, `float` or `bool`,
literal assignments of one kind, a cast such as `wp.float32(...)`, or `+ - *`
of int constants: a Python int, int32 as Warp reads it); the kernel gets it
as a hidden scalar parameter `@name`, so one proof covers every value it can
take, and launches read its value from the function's closure. A name whose
type cannot be read stays a `Capture` with type None, an error only where a
kernel reads it. Nothing is executed.

Relations: a name bound once to `+ - *` (or an int32 cast, which keeps the
exact value in Warp) of int captures and literals, `width = 2 * radius + 1`,
keeps that expression (`Capture.relation`); a kernel that reads it and every
unknown name in it gets `requires(int64(@width) == 2 * int64(@radius) + 1)`
at its entry (`relation_requires`), in int64, only when no int32 values can
make that int64 arithmetic wrap (an interval bound): Python computes the
exact integer and a launch passes only values that fit int32, so the fact
holds in every launch there is, and no wrapped value is admitted that no
launch can pass. A relation the kernel cannot state is left out (fewer
facts, never wrong ones). Launches check it like any requires: it holds by
construction.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from verikern.hir.types import BOOL, F32, I32, I64, ScalarType
from .annotations import value_type
from .constants import NotConstant, eval_module_constant
from .definitions import register_definition
from .module import ModuleInfo
from verikern.hir import nodes as H

CAPTURE_PREFIX = "@"


@dataclass(frozen=True)
class Capture:
    """A name a nested definition sees from an enclosing function."""

    name: str
    origin: str                  # the enclosing function's name
    value: object = None         # the literal value when `known`
    known: bool = False
    type: ScalarType | None = None
    relation: object = None      # the int expression (ast) it is bound to, see module docstring


def capture_of(chk, name: str):
    """The Capture a definition sees for `name` (enclosing functions first,
    then a module-level name rebound at run time), or None."""
    scope = chk.defn.scope
    if scope is not None and name in scope:
        return scope[name]
    if name in chk.info.rebound and name not in chk.info.constants:
        v = chk.info.rebound[name]
        return Capture(name, "<module>", type=literal_type(v))
    return None


def capture_ref(chk, cap: Capture, node):
    """A read of an unknown captured constant: the hidden parameter `@name`."""

    if cap.type is None:
        where = "the module (rebound at run time)" if cap.origin == "<module>" \
            else f"the enclosing function {cap.origin!r}"
        raise chk.error(f"the kernel reads {cap.name!r} from {where}, and verikern cannot "
                        "read its type from the source", node, "capture-type",
                        f"annotate it ({cap.name}: int), bind it to a literal, or to a cast "
                        f"such as wp.int32(...)")
    chk.captures[cap.name] = cap.type
    return H.LocalRef(CAPTURE_PREFIX + cap.name, cap.type, chk.loc(node))


def literal_type(value) -> ScalarType | None:
    """The kernel type of a captured Python literal (Warp: int32, float32, bool)."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return I32 if I32.min_value <= value <= I32.max_value else None
    if isinstance(value, float):
        return F32
    return None


#: Annotations of an assignment a capture's type is read from: the Python
#: types whose values Warp reads as int32, float32 and bool.
_ANNOTATED = {"int": I32, "float": F32, "bool": BOOL}
_RELATION_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul"}


def _relational(node, info: ModuleInfo, scope: dict) -> bool:
    """`node` is `+ - *` (unary `-` `+`, a cast to int32) of int literals, int
    module constants and captures of `scope` (int32 unknowns, int literals),
    reading at least one unknown capture."""
    return _reads_unknown(node, info, scope) is True


def _reads_unknown(node, info: ModuleInfo, scope: dict) -> bool | None:
    """None when `node` is not such an expression, else whether it reads an unknown."""
    if isinstance(node, ast.Constant):
        return False if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.Name):
        cap = scope.get(node.id)
        value = cap.value if cap is not None and cap.known else \
            info.constants.get(node.id) if cap is None else None
        if cap is not None and not cap.known:
            return True if cap.type == I32 else None
        return False if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _RELATION_OPS:
        parts = (_reads_unknown(node.left, info, scope), _reads_unknown(node.right, info, scope))
        return None if None in parts else any(parts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _reads_unknown(node.operand, info, scope)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
            and value_type(info, node.func) == I32:
        return _reads_unknown(node.args[0], info, scope)
    return None


def _int(value: object) -> int:
    assert isinstance(value, int)       # `_relational` admits int values only
    return value


def _magnitude(node, info: ModuleInfo, scope: dict) -> int:
    """A bound on |value| of a `_relational` expression over int32 unknowns."""
    if isinstance(node, ast.Constant):
        return abs(_int(node.value))
    if isinstance(node, ast.Name):
        cap = scope.get(node.id)
        if cap is not None and not cap.known:
            return 1 << 31
        return abs(_int(cap.value if cap is not None else info.constants[node.id]))
    if isinstance(node, ast.BinOp):
        a, b = _magnitude(node.left, info, scope), _magnitude(node.right, info, scope)
        return a * b if isinstance(node.op, ast.Mult) else a + b
    if isinstance(node, ast.UnaryOp):
        return _magnitude(node.operand, info, scope)
    return _magnitude(node.args[0], info, scope)       # an int32 cast (keeps the value)


def _relation_hir(chk, node, scope: dict):
    """The relation expression `node` in int64 (its unknown names the
    hidden int32 parameters the kernel already reads, widened), or None when
    the kernel cannot state it."""
    loc = chk.loc(node)
    if isinstance(node, ast.Constant):
        return H.Literal(node.value, I64, loc)
    if isinstance(node, ast.Name):
        cap = scope.get(node.id)
        if cap is None:
            return H.Literal(chk.info.constants[node.id], I64, loc)
        if cap.known:
            return H.Literal(cap.value, I64, loc)
        if chk.captures.get(node.id) != I32:
            return None                 # not read by the kernel: launches do not pass it
        return H.CastExpr(H.LocalRef(CAPTURE_PREFIX + node.id, I32, loc), I64, loc)
    if isinstance(node, ast.BinOp):
        lhs, rhs = _relation_hir(chk, node.left, scope), _relation_hir(chk, node.right, scope)
        if lhs is None or rhs is None:
            return None
        return H.BinaryExpr(_RELATION_OPS[type(node.op)], lhs, rhs, I64, loc)
    if isinstance(node, ast.UnaryOp):
        inner = _relation_hir(chk, node.operand, scope)
        if inner is None or isinstance(node.op, ast.UAdd):
            return inner
        return H.BinaryExpr("sub", H.Literal(0, I64, loc), inner, I64, loc)
    return _relation_hir(chk, node.args[0], scope)      # an int32 cast (keeps the value)


def relation_requires(chk) -> list:
    """`requires(int64(@name) == expr)` for each capture the kernel reads
    that is bound to a relation over captures it also reads (module
    docstring), in name order."""
    scope = chk.defn.scope or {}
    out = []
    for name in sorted(chk.captures):
        cap = scope.get(name)
        if not isinstance(cap, Capture) or cap.relation is None or chk.captures[name] != I32 \
                or _magnitude(cap.relation, chk.info, scope) >= 1 << 62:
            continue
        expr = _relation_hir(chk, cap.relation, scope)
        if expr is None:
            continue
        loc = chk.loc(cap.relation)
        own = H.CastExpr(H.LocalRef(CAPTURE_PREFIX + name, I32, loc), I64, loc)
        out.append(H.RequiresStmt(H.CompareExpr("eq", own, expr, BOOL, loc), loc))
    return out


def _own_nodes(body):
    """The statements and expressions of a function body, not those of the
    functions, lambdas and classes nested in it."""
    stack = list(body)
    while stack:
        n = stack.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                stack.append(c)


def _nested_defs(body):
    """The function definitions directly inside `body` (through if/for/with/try)."""
    stack = list(body)
    out = []
    while stack:
        n = stack.pop(0)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(n)
            continue
        if isinstance(n, ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(n, field, []) or [])
    return out


def _value_kind_type(node, info: ModuleInfo, scope: dict):
    """The type of a value expression, when the source shows it."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        name = info.dsl_name(node.func)
        if name == "constant":
            return _value_kind_type(node.args[0], info, scope)
        t = value_type(info, node.func)
        if isinstance(t, ScalarType):
            return t
    try:
        return literal_type(_eval(node, info, scope))
    except NotConstant:
        return None


def _eval(node, info: ModuleInfo, scope: dict):
    """eval_module_constant, refusing names the enclosing functions rebind."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in scope:
            cap = scope[n.id]
            if not cap.known:
                raise NotConstant
    saved = dict(info.constants)
    try:
        info.constants.update({k: c.value for k, c in scope.items() if c.known})
        return eval_module_constant(node, info)
    finally:
        info.constants.clear()
        info.constants.update(saved)


def collect_calls(tree: ast.Module, info: ModuleInfo) -> None:
    """Record every call `name(...)` of a plain name in the file and (under
    the key "def NAME", never an identifier) every function definition, each
    as (node, the tuple of its enclosing function definitions, outermost first)."""
    def walk(node, outer):
        for c in ast.iter_child_nodes(node):
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name):
                info.calls.setdefault(c.func.id, []).append((c, outer))
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info.calls.setdefault("def " + c.name, []).append((c, outer))
                walk(c, outer + (c,))
            else:
                walk(c, outer)
    walk(tree, ())


def _calls_of(fn, info: ModuleInfo) -> list | None:
    """The calls in the file that name this very definition of `fn`: those
    inside the scope that defines it and not inside a nested scope that
    defines the name again; None when the defining scope defines the name
    more than once (which call means which is then a matter of order)."""
    defs = info.calls.get("def " + fn.name, [])
    mine = next((outer for d, outer in defs if d is fn), None)
    if mine is None or sum(1 for _, o in defs if o == mine) != 1:
        return None
    nearer = [o for d, o in defs if len(o) > len(mine) and o[:len(mine)] == mine]
    return [call for call, outer in info.calls.get(fn.name, [])
            if outer[:len(mine)] == mine
            and not any(outer[:len(o)] == o for o in nearer)]


def _call_site_type(fn, arg, info: ModuleInfo) -> ScalarType | None:
    """The type of an unannotated factory parameter, read from the file's
    calls of the factory: only when there is at least one and every call
    passes (or leaves to the default) a literal or a cast of one and the
    same type; otherwise None (never a guess)."""
    a = fn.args
    calls = _calls_of(fn, info)
    if arg in (a.vararg, a.kwarg) or not calls:
        return None
    positional = [*a.posonlyargs, *a.args]
    pos = positional.index(arg) if arg in positional else None
    defaults = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):],
                        a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    kinds = set()
    for call in calls:
        if any(isinstance(x, ast.Starred) for x in call.args) or \
                any(k.arg is None for k in call.keywords):
            return None
        node = next((k.value for k in call.keywords if k.arg == arg.arg), None)
        if node is None and pos is not None and pos < len(call.args):
            node = call.args[pos]
        if node is None:
            node = defaults.get(arg.arg)
        if node is None:
            return None
        kinds.add(_value_kind_type(node, info, {}))
    return kinds.pop() if len(kinds) == 1 else None


def scan_factory(fn: ast.FunctionDef | ast.AsyncFunctionDef, info: ModuleInfo, outer: dict) -> None:
    """Record the @kernel/@func definitions inside `fn` (at any depth), each
    with the names it can capture (see module docstring)."""
    scope = dict(outer)
    a = fn.args
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if arg is None:
            continue
        t = value_type(info, arg.annotation) if arg.annotation is not None \
            else _call_site_type(fn, arg, info)
        scope[arg.arg] = Capture(arg.arg, fn.name,
                                 type=t if isinstance(t, ScalarType) else None)
    simple: dict[str, list] = {}
    annotated: dict[str, ScalarType] = {}
    other: set[str] = set()
    inner = _nested_defs(fn.body)
    inner_names = {d.name for d in inner}
    simple_targets: set[int] = set()
    for n in _own_nodes(fn.body):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            simple.setdefault(n.targets[0].id, []).append(n.value)
            simple_targets.add(id(n.targets[0]))
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
            simple.setdefault(n.target.id, []).append(n.value)
            simple_targets.add(id(n.target))
            if isinstance(n.annotation, ast.Name) and n.annotation.id in _ANNOTATED:
                annotated[n.target.id] = _ANNOTATED[n.annotation.id]
    for n in _own_nodes(fn.body):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in simple_targets:
            other.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            other.update((al.asname or al.name).split(".")[0] for al in n.names)
    for name in other - set(simple):
        scope[name] = Capture(name, fn.name)
    # in source order: a name bound from names bound before it sees what they are
    for name, values in sorted(simple.items(), key=lambda kv: min((v.lineno, v.col_offset) for v in kv[1])):
        if name in inner_names:
            continue
        if name in other or len(values) > 1:
            kinds = {_value_kind_type(v, info, scope) for v in values}
            t = kinds.pop() if len(kinds) == 1 and name not in other else None
            scope[name] = Capture(name, fn.name, type=t)
            continue
        try:
            v = _eval(values[0], info, scope)
        except NotConstant:
            relation = values[0] if _relational(values[0], info, scope) else None
            t = _value_kind_type(values[0], info, scope) or \
                (I32 if relation is not None else None)
            if name in annotated and annotated[name] != t:
                # the value's type as Warp reads it decides; an annotation only fills a gap
                t = annotated[name] if t is None else t
            if relation is not None and t != I32:
                relation = None
            scope[name] = Capture(name, fn.name, type=t, relation=relation)
            continue
        if isinstance(v, (bool, int, float, tuple)):
            scope[name] = Capture(name, fn.name, value=v, known=True, type=literal_type(v))
        else:
            scope[name] = Capture(name, fn.name)
    for name in inner_names:
        scope.pop(name, None)
    for d in inner:
        if not register_definition(d, info, scope):
            scan_factory(d, info, scope)


def local_type_aliases(tree: ast.Module, info: ModuleInfo) -> None:
    """Type aliases bound inside functions (`dtype = wp.float16` in a test
    function, read by a kernel defined there): a name that the file binds
    only ever by `name = <type>` in functions, always to the same type
    expression, and never at module level or as a parameter, is an alias of
    that type for the definitions of the file."""
    seen: dict[str, list] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        a = fn.args
        for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
            if p is not None:
                seen.setdefault(p.arg, []).append(None)
        body = list(_own_nodes(fn.body if isinstance(fn.body, list) else [fn.body]))
        simple = set()
        for n in body:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], ast.Name):
                seen.setdefault(n.targets[0].id, []).append(n.value)
                simple.add(id(n.targets[0]))
        for n in body:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in simple:
                seen.setdefault(n.id, []).append(None)
    for name, values in seen.items():
        if name in info.type_aliases or name in info.constants or name in info.nonconstant \
                or any(v is None for v in values):
            continue
        dumps = {ast.dump(v) for v in values}
        if len(dumps) == 1 and value_type(info, values[0]) is not None:
            info.type_aliases[name] = values[0]
