"""Configuration choices: a module-level name whose every binding reads, from
source, to one of a finite set of Warp types -- warpsphcore's
`scalar_t = _resolve_precision(os.getenv("warpSPHCore_PRECISION"))`, bound
again under an if, where `_resolve_precision` returns `wp.float32` or a value
of the literal dict `_PRECISION_ALIASES` (float16, float32, float64).

A file whose module, or a project module it reads, holds such a name is
compiled once per *configuration* (one alternative per choice), the default
configuration first (driver.py): the defining module is read with the name
bound once, unconditionally, to the chosen type (`configured_tree`), and a
module-level `if scalar_t == wp.float32: ... elif ...` is replaced by the
branch the configuration takes (`decided_tree`).

Invariants:
- nothing is executed; a binding is read as: a Warp type expression, `a if c
  else b` of such, or a call of a plain module-level function of the same
  module each of whose `return`s is a Warp type or `D[key]` of a module-level
  literal dict `D` bound once whose values are all Warp types. Any other
  binding of the name (a loop, a tuple target, an import, a def, `global`, a
  rebinding from another module, an unreadable value) makes it no choice, and
  it stays the located refusal it was (name_origins.py);
- the alternatives are the distinct types of every binding (a superset of what
  the module can bind: proving a configuration that cannot happen is only work);
- the default is the value of the last unconditional module-level binding with
  every environment variable unset (`os.getenv(...)` is None), read by
  following the function's `if`s on None; when that cannot be read, the
  default is the first alternative in source order (`Choice.default_read`);
- a configuration is a tuple of (Choice, index) pairs; at most
  MAX_CONFIGURATIONS are compiled (the default first), and driver.py reports
  the rest as `unknown`, never as proved.
"""
from __future__ import annotations

import ast
import copy
import itertools
from dataclasses import dataclass

from verikern.hir.types import ScalarType
from .annotations import value_type

#: the most configurations one file is compiled under (3: warpsphcore's precisions)
MAX_CONFIGURATIONS = 4
#: the most alternatives one choice may have (Warp's scalar types and a few more)
MAX_ALTERNATIVES = 16


@dataclass(frozen=True)
class Choice:
    """A configuration choice of the module `filename`: `alternatives` are
    (label, type expression written in that module), the default first."""

    filename: str
    name: str
    alternatives: tuple[tuple[str, ast.expr], ...]
    default_read: bool      # False: the default is the first alternative in source order

    def __hash__(self) -> int:
        return hash((self.filename, self.name))

    def __eq__(self, other) -> bool:
        return isinstance(other, Choice) and (self.filename, self.name) == (other.filename, other.name)


def configuration_label(configuration) -> str:
    """`scalar_t=float64` (several choices: comma-separated, in choice order)."""
    return ",".join(f"{c.name}={c.alternatives[i][0]}" for c, i in configuration)


def configuration_ident(configuration) -> str:
    """An identifier part for MIR names: `scalar_t_float64`."""
    return "__".join(f"{c.name}_{c.alternatives[i][0]}" for c, i in configuration)


def configurations(choices: list[Choice]) -> list[tuple]:
    """Every configuration of `choices`, the default one (every index 0) first."""
    return [tuple(zip(choices, idx)) for idx in
            itertools.product(*(range(len(c.alternatives)) for c in choices))]


def file_choices(info) -> list[Choice]:
    """The choices of the file's module and of every project module it read, by
    module file and name."""
    modules = [info] + ([m for m in info.project.modules.values() if m is not None and m is not info]
                        if info.project is not None else [])
    seen: dict[tuple[str, str], Choice] = {}
    for m in modules:
        for c in module_choices(m):
            seen.setdefault((c.filename, c.name), c)
    return list(seen.values())


_CHOICES_SEEN: dict[tuple[str, str], tuple] = {}


def module_choices(info) -> list[Choice]:
    """The configuration choices the module `info` binds itself (module docstring)."""
    key = (info.filename, info.source)
    if key in _CHOICES_SEEN:
        return list(_CHOICES_SEEN[key])
    out = []
    if "def " in info.source:       # a choice is read through a module function
        try:
            tree = ast.parse(info.source, filename=info.filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            for name in sorted(_candidate_names(tree, info)):
                choice = _choice(tree, info, name)
                if choice is not None:
                    out.append(choice)
    _CHOICES_SEEN[key] = tuple(out)
    return out


def _candidate_names(tree: ast.Module, info) -> set[str]:
    """Module-level names bound by a call of a module function (the start of a choice)."""
    funcs = {s.name for s in tree.body if isinstance(s, ast.FunctionDef)}
    return {s.targets[0].id for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Name) and s.value.func.id in funcs} | \
        {s.target.id for s in tree.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
         and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name) and s.value.func.id in funcs}


def _binding_sites(tree: ast.Module, name: str):
    """(unconditional binding statements, all binding statements) of `name`: a
    single-name `=` or annotated `=` at module level, or inside module-level
    if/try/with blocks; None when anything else binds it (a loop, a tuple
    target, an import, a def or class, `global`, a walrus, `del`)."""
    top, every = [], []

    def visit(stmts, conditional: bool) -> bool:
        for s in stmts:
            if isinstance(s, (ast.Assign, ast.AnnAssign)):
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                names = [n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and n.id == name]
                if names:
                    if len(targets) != 1 or not isinstance(targets[0], ast.Name) or s.value is None:
                        return False
                    every.append(s)
                    if not conditional:
                        top.append(s)
                if any(isinstance(n, ast.NamedExpr) for n in ast.walk(s.value or s)):
                    return False
            elif isinstance(s, ast.If):
                if binds(s.test) or not (visit(s.body, True) and visit(s.orelse, True)):
                    return False
            elif isinstance(s, ast.Try):
                if any(h.name == name or (h.type is not None and binds(h.type)) for h in s.handlers) \
                        or not (visit(s.body, True) and all(visit(h.body, True) for h in s.handlers)
                                and visit(s.orelse, True) and visit(s.finalbody, True)):
                    return False
            elif isinstance(s, ast.With):
                if any(binds(item) for item in s.items) or not visit(s.body, True):
                    return False
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if s.name == name or any(isinstance(n, ast.Global) and name in n.names for n in ast.walk(s)):
                    return False
            elif binds(s):
                return False
        return True

    def binds(node: ast.AST) -> bool:
        """Whether `node` can bind `name` (a store, `del`, an import, a walrus)."""
        return any((isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load))
                   or (isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name)
                   or isinstance(n, ast.NamedExpr) for n in ast.walk(node))

    return (top, every) if visit(tree.body, False) else None


def _choice(tree: ast.Module, info, name: str) -> Choice | None:
    if info.rebinding(name) is not None:
        return None
    sites = _binding_sites(tree, name)
    if sites is None or not sites[0]:
        return None
    top, every = sites
    funcs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef) and not s.decorator_list}
    readings: list[ast.expr] = []
    for s in every:
        read = _read_binding(s.value, info, funcs)
        if read is None:
            return None
        readings.extend(read)
    labelled: dict[str, ast.expr] = {}
    for expr in readings:
        t = value_type(info, expr)
        if t is None:
            return None
        labelled.setdefault(str(t), expr)
    if len(labelled) < 2 or len(labelled) > MAX_ALTERNATIVES:
        return None
    default = _default(top[-1].value, info, funcs)
    order = list(labelled)
    if default is not None and str(default) in labelled:
        order.remove(str(default))
        order.insert(0, str(default))
    return Choice(info.filename, name, tuple((label, labelled[label]) for label in order),
                  default is not None and str(default) in labelled)


def _read_binding(value: ast.expr, info, funcs: dict) -> list[ast.expr] | None:
    """The type expressions a binding's value can be (module docstring), or None."""
    if value_type(info, value) is not None:
        return [value]
    if isinstance(value, ast.IfExp):
        a, b = _read_binding(value.body, info, funcs), _read_binding(value.orelse, info, funcs)
        return None if a is None or b is None else a + b
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in funcs \
            and info.rebinding(value.func.id) is None:
        fn = funcs[value.func.id]
        local = _locals(fn)
        returns = [n for n in _own_nodes(fn) if isinstance(n, ast.Return)]
        out: list[ast.expr] = []
        for r in returns:
            got = _read_return(r.value, info, local) if r.value is not None else None
            if got is None:
                return None
            out.extend(got)
        return out or None
    return None


def _read_return(value: ast.expr, info, local: set[str]) -> list[ast.expr] | None:
    if any(isinstance(n, ast.Name) and n.id in local for n in ast.walk(value)):
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                and value.value.id not in local:
            return _dict_values(value.value.id, info)
        if isinstance(value, ast.IfExp):
            a, b = _read_return(value.body, info, local), _read_return(value.orelse, info, local)
            return None if a is None or b is None else a + b
        return None
    if value_type(info, value) is not None:
        return [value]
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        return _dict_values(value.value.id, info)
    return None


def _dict_values(name: str, info) -> list[ast.expr] | None:
    """The values of the module-level literal dict `name` bound once, when all are Warp types."""
    entry = info.literal_lists.get(name)
    if entry is None or info.rebinding(name) is not None or entry[1] is not info \
            or not isinstance(entry[0], ast.Dict):
        return None
    values = list(entry[0].values)
    if not values or any(value_type(info, v) is None for v in values):
        return None
    return values


def _own_nodes(fn: ast.FunctionDef):
    """The nodes of `fn`'s body outside nested functions, classes and lambdas."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def _locals(fn: ast.FunctionDef) -> set[str]:
    out = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
    out |= {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None}
    out |= {n.id for n in _own_nodes(fn) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return out


# -- the default: the binding with every environment variable unset ------------------------

_UNKNOWN = object()


def _default(value: ast.expr, info, funcs: dict):
    """The HIR type of the unconditional binding `value` with every environment
    variable unset, or None when it cannot be read."""
    t = value_type(info, value)
    if t is not None:
        return t
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in funcs):
        return None
    fn = funcs[value.func.id]
    params = [a.arg for a in fn.args.args]
    if value.keywords or len(value.args) > len(params) or fn.args.vararg or fn.args.kwonlyargs:
        return None
    env = {p: (None if i < len(value.args) and _environment_read(value.args[i]) else _UNKNOWN)
           for i, p in enumerate(params)}
    got = _run(fn.body, env, info, set(params))
    return value_type(info, got) if isinstance(got, ast.expr) else None


def _environment_read(node: ast.expr) -> bool:
    """`os.getenv("X")` or `os.environ.get("X")` with one argument: None when X is unset."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 1 \
        and not node.keywords and (node.func.attr == "getenv" or (
            node.func.attr == "get" and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "environ"))


def _run(stmts, env: dict, info, params: set[str]):
    """The expression the first `return` reached returns, following `if`s whose
    tests read (`p is None`, `not`, `or`, `and`, `isinstance`); None otherwise."""
    for s in stmts:
        if isinstance(s, ast.Return):
            if s.value is None or any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(s.value)):
                return None
            return s.value
        if isinstance(s, ast.If):
            test = _test(s.test, env)
            if test is _UNKNOWN:
                return None
            got = _run(s.body if test else s.orelse, env, info, params)
            if got is not _UNKNOWN:
                return got
            continue
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
            continue      # a docstring
        return None       # anything else may change what follows: not read
    return _UNKNOWN       # fell off this block: the statements after it decide


def _test(node: ast.expr, env: dict):
    """True/False for a test over parameters that are None, else _UNKNOWN."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.Name):
        v = env.get(node.id, _UNKNOWN)
        return _UNKNOWN if v is _UNKNOWN else bool(v)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = _test(node.operand, env)
        return _UNKNOWN if v is _UNKNOWN else not v
    if isinstance(node, ast.BoolOp):
        values = [_test(v, env) for v in node.values]
        want = isinstance(node.op, ast.Or)
        if want in values:
            return want
        return _UNKNOWN if _UNKNOWN in values else not want
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.left, ast.Name) \
            and env.get(node.left.id, _UNKNOWN) is None and isinstance(node.comparators[0], ast.Constant):
        other = node.comparators[0].value
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.Eq)):
            return other is None
        if isinstance(op, (ast.IsNot, ast.NotEq)):
            return other is not None
        return _UNKNOWN
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
            and len(node.args) == 2 and isinstance(node.args[0], ast.Name) \
            and env.get(node.args[0].id, _UNKNOWN) is None:
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        if all(isinstance(k, ast.Name) and k.id in ("str", "int", "float", "bool", "dict", "list", "tuple")
               for k in kinds):
            return False
    return _UNKNOWN


# -- reading a module under a configuration --------------------------------------------------

def configured_tree(tree: ast.Module, filename: str, configuration) -> ast.Module:
    """`tree` with each configured choice of this module bound once, at its last
    unconditional binding, to the configuration's type; its other bindings are
    `pass`. The tree itself is not changed (a copy is returned when needed)."""
    mine = {c.name: c.alternatives[i][1] for c, i in configuration or () if c.filename == filename}
    if not mine:
        return tree
    sites = {name: _binding_sites(tree, name) for name in mine}
    last = {id(s[0][-1]): name for name, s in sites.items() if s is not None and s[0]}
    drop = {id(st) for s in sites.values() if s is not None for st in s[1]}

    def rewrite(stmts):
        out = []
        for s in stmts:
            if id(s) in last:
                new = ast.Assign(targets=[ast.Name(id=last[id(s)], ctx=ast.Store())],
                                 value=copy.deepcopy(mine[last[id(s)]]))
                out.append(ast.copy_location(new, s))
            elif id(s) in drop:
                out.append(ast.copy_location(ast.Pass(), s))
            elif isinstance(s, ast.If):
                out.append(ast.copy_location(ast.If(test=s.test, body=rewrite(s.body),
                                                    orelse=rewrite(s.orelse)), s))
            elif isinstance(s, ast.Try):
                handlers = [ast.copy_location(ast.ExceptHandler(type=h.type, name=h.name, body=rewrite(h.body)), h)
                            for h in s.handlers]
                out.append(ast.copy_location(ast.Try(body=rewrite(s.body), handlers=handlers,
                                                     orelse=rewrite(s.orelse),
                                                     finalbody=rewrite(s.finalbody)), s))
            elif isinstance(s, ast.With):
                out.append(ast.copy_location(ast.With(items=s.items, body=rewrite(s.body),
                                                      type_comment=None), s))
            else:
                out.append(s)
        return out

    return ast.Module(body=rewrite(tree.body), type_ignores=tree.type_ignores)


def decided_tree(tree: ast.Module, info) -> ast.Module | None:
    """`tree` with each module-level `if` whose test compares types the module
    reads as one type each (`scalar_t == wp.float32` under a configuration)
    replaced by the branch taken, and `a, b = T1, T2` of types in a branch
    taken split in two; None when there is no such `if`."""
    changed = False

    def rewrite(stmts, taken: bool):
        nonlocal changed
        out: list[ast.stmt] = []
        for s in stmts:
            if isinstance(s, ast.If):
                test = _type_test(s.test, info)
                if test is not None:
                    changed = True
                    out.extend(rewrite(s.body if test else s.orelse, True))
                    continue
            split = _split_types(s) if taken else None
            if split is not None:
                out.extend(split)
                continue
            out.append(s)
        return out

    body = rewrite(tree.body, False)
    return ast.Module(body=body, type_ignores=tree.type_ignores) if changed else None


def _split_types(s: ast.stmt) -> list[ast.stmt] | None:
    """`a, b = T1, T2` as `a = T1; b = T2` (no name of the targets read on the
    right, so the order changes nothing); None for any other statement."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple)
            and isinstance(s.value, ast.Tuple) and len(s.targets[0].elts) == len(s.value.elts)):
        return None
    names = [t.id for t in s.targets[0].elts if isinstance(t, ast.Name)]
    if len(names) != len(s.value.elts) or set(names) & {
            n.id for n in ast.walk(s.value) if isinstance(n, ast.Name)}:
        return None
    return [ast.copy_location(ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())], value=v), s)
            for n, v in zip(names, s.value.elts)]


def _type_test(node: ast.expr, info):
    """True/False for `A == B`, `A is B`, `!=`, `is not` (and `not`, `and`, `or` of
    them) where A and B each read as one Warp scalar type; else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = _type_test(node.operand, info)
        return None if v is None else not v
    if isinstance(node, ast.BoolOp):
        values = [_type_test(v, info) for v in node.values]
        if None in values:
            return None
        return any(values) if isinstance(node.op, ast.Or) else all(values)
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))):
        return None
    a, b = _one_type(node.left, info), _one_type(node.comparators[0], info)
    if not isinstance(a, ScalarType) or not isinstance(b, ScalarType):
        return None     # Warp's scalar types are one class each; `vector(3, float32) == wp.vec3` is False
    return (a == b) == isinstance(node.ops[0], (ast.Eq, ast.Is))


def _one_type(node: ast.expr, info):
    """The type `node` reads as when every name in it is the DSL or a type
    alias nothing can rebind (a configured choice), else None."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and not (n.id in info.aliases or n.id in info.from_imports or (
                n.id in info.type_aliases and info.rebinding(n.id) is None)):
            return None
    return value_type(info, node)
