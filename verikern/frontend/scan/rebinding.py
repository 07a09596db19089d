"""Where a module can rebind its own module-level names (docs/LANGUAGE.md section 1).

A module-level name is a constant only when nothing in the module can rebind
it: Python runs the whole file before Warp builds a kernel, and a function may
run at import time or between two launches, so a kernel reading a name that
can be rebound would be proved for a value it may not see.

Invariant: `find_rebindings` over-approximates, reading the source only (never
executing it). It reports, per name, the first site that can rebind it after
its first unconditional binding:

- a second unconditional binding at module level (an assignment, an augmented
  assignment, an import under that name, a def or class of that name), except
  the same absolute import again right after the first (`from warp.types
  import vector` twice binds one object);
- a `global NAME` statement in a function (at any depth, methods included)
  whose own body binds NAME;
- `globals()[...] = ...`, `globals().update(...)` / `.setdefault` /
  `.__setitem__` / `.pop` / `del globals()[...]` (and `vars()` with no argument,
  which is `globals()` at module level);
- `setattr(M, ...)`, `M.NAME = ...` and `del M.NAME` where M can be the module
  itself (`sys.modules[...]`, `importlib.import_module(...)`, `__import__(...)`,
  or a module-level name bound to one of them);
- a walrus `(NAME := ...)` in a module-level expression;
- `exec(...)` or `eval(...)` anywhere in the file;
- the same through `vars(M)` or `M.__dict__` for M possibly the module.

A literal key names one name; any other key can rebind every name (the
wildcard `ANY`). Bindings under `if` / `for` / `while` / `with` / `try` at
module level are not listed: scan_module already treats those names as values
unknown at proof time (`ModuleInfo.rebound`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from verikern.mir.nodes import SourceLoc

ANY = "*"   # a rebinding whose name cannot be read: every module-level name


@dataclass(frozen=True)
class Rebinding:
    """One site that can rebind a module-level name."""

    loc: SourceLoc
    how: str        # e.g. "`global N` in the function 'setup'"

    def describe(self) -> str:
        return f"{self.how} at {self.loc.file}:{self.loc.line}:{self.loc.col}"


def _loc(filename: str, node: ast.AST) -> SourceLoc:
    return SourceLoc(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + 1)


def _top_level_names(stmt: ast.stmt) -> list[str]:
    """The names an unconditional module-level statement binds."""
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in stmt.names if a.name != "*"]
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign):
        targets = [stmt.target] if stmt.value is not None else []
    elif isinstance(stmt, ast.AugAssign):
        targets = [stmt.target]
    elif isinstance(stmt, ast.Delete):
        targets = stmt.targets
    else:
        return []
    out: list[str] = []
    for t in targets:
        if isinstance(t, ast.Name):
            out.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            out.extend(n.id for n in ast.walk(t) if isinstance(n, ast.Name)
                       and isinstance(n.ctx, (ast.Store, ast.Del)))
        elif isinstance(t, ast.Starred) and isinstance(t.value, ast.Name):
            out.append(t.value.id)
    return out


def _absolute_import(stmt: ast.stmt, name: str) -> tuple | None:
    """(module, name there) when `stmt` binds `name` by an absolute import
    (`from warp.types import vector`, `import numpy as np`): the same import
    again binds the same object (grid_util.py imports `vector` twice), so it
    is no rebinding; None for any other binding."""
    if isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
        return next((("from", stmt.module, a.name) for a in stmt.names if (a.asname or a.name) == name), None)
    if isinstance(stmt, ast.Import):
        return next((("import", a.name) for a in stmt.names if (a.asname or a.name.split(".")[0]) == name), None)
    return None


def _binding_kind(stmt: ast.stmt, name: str) -> str:
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return f"an import that binds {name!r} again"
    if isinstance(stmt, ast.AugAssign):
        return f"the augmented assignment to {name!r}"
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return f"a definition that binds {name!r} again"
    if isinstance(stmt, ast.Delete):
        return f"`del {name}`"
    return f"a second assignment to {name!r}"


def _own_nodes(fn: ast.AST):
    """The nodes of a function's own body, not those of nested functions,
    lambdas and classes (whose `global` statements are their own)."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(n))


def _binds(n: ast.AST) -> list[str]:
    """The names one node of a function body binds (in the function's scope,
    or the module's when declared global)."""
    if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
        return [n.id]
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [n.name]
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in n.names if a.name != "*"]
    if isinstance(n, ast.ExceptHandler) and n.name:
        return [n.name]
    return []


def _is_globals_call(node: ast.AST, handles: set[str]) -> bool:
    """The module's namespace: `globals()`, `vars()` (no argument, at module
    level), `vars(M)` or `M.__dict__` with M possibly the module itself."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return _may_be_module(node.value, handles)
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords):
        return False
    if node.func.id in ("globals", "vars") and not node.args:
        return True
    return node.func.id == "vars" and len(node.args) == 1 and _may_be_module(node.args[0], handles)


_MODULE_HANDLES = ("modules", "import_module", "__import__", "reload")


def _may_be_module(node: ast.AST, handles: set[str]) -> bool:
    """Whether `node` can evaluate to this module object."""
    if isinstance(node, ast.Name):
        return node.id in handles or node.id == "__import__"
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _MODULE_HANDLES:
            return True
        if isinstance(sub, ast.Name) and (sub.id in handles or sub.id in _MODULE_HANDLES):
            return True
    return False


def _key_name(node: ast.AST | None) -> str:
    """A literal string key names one name; anything else may be any name."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ANY


def _module_handles(tree: ast.Module, handles: set[str] | None = None, index=None) -> set[str]:
    """Names bound to something that can be the module itself (`mod =
    sys.modules[__name__]`, or one of `handles`), followed to a fixed point.
    `index`: the tree's outside_index.OutsideIndex, whose walk is read instead."""
    handles = set(handles or ())
    assigns = index.assigns if index is not None else [n for n in ast.walk(tree) if isinstance(n, ast.Assign)]
    may_be_module = index.may_be_module if index is not None else _may_be_module
    changed = True
    while changed:
        changed = False
        for n in assigns:
            if may_be_module(n.value, handles):
                for t in n.targets:
                    if isinstance(t, ast.Name) and t.id not in handles:
                        handles.add(t.id)
                        changed = True
    return handles


def find_rebindings(tree: ast.Module, filename: str) -> dict[str, Rebinding]:
    """name (or ANY) -> the first site that can rebind it (see the module docstring)."""
    out: dict[str, Rebinding] = {}

    def note(name: str, node: ast.AST, how: str) -> None:
        out.setdefault(name, Rebinding(_loc(filename, node), how))

    bound: set[str] = set()
    imported: dict[str, tuple] = {}     # name -> the absolute import that bound it last
    for stmt in tree.body:
        for name in _top_level_names(stmt):
            again = _absolute_import(stmt, name)
            if name in bound and (again is None or imported.get(name) != again):
                note(name, stmt, _binding_kind(stmt, name))
            bound.add(name)
            imported.pop(name, None)
            if again is not None:
                imported[name] = again
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for n in ast.walk(stmt):
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
                note(n.target.id, n, f"the assignment expression `{n.target.id} := ...`")

    handles = _module_handles(tree)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            declared = {name: g for g in _own_nodes(n) if isinstance(g, ast.Global) for name in g.names}
            what = "class" if isinstance(n, ast.ClassDef) else "function"
            for sub in _own_nodes(n) if declared else ():
                for name in _binds(sub):
                    if name in declared:
                        note(name, declared[name], f"`global {name}` in the {what} {n.name!r}")
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                and _is_globals_call(n.value, handles):
            note(_key_name(n.slice), n, "an assignment to globals()[...]")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and _is_globals_call(n.func.value, handles) and n.func.attr in (
                    "update", "setdefault", "__setitem__", "pop", "__delitem__", "clear"):
            key = _key_name(n.args[0]) if n.func.attr != "update" and n.args else ANY
            note(key, n, f"globals().{n.func.attr}(...)")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id in ("setattr", "delattr") and n.args \
                and _may_be_module(n.args[0], handles):
            note(_key_name(n.args[1]) if len(n.args) > 1 else ANY, n,
                 f"{n.func.id}(...) on the module")
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                and _may_be_module(n.value, handles):
            note(n.attr, n, f"an assignment to the module attribute {n.attr!r}")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id in ("exec", "eval"):
            note(ANY, n, f"{n.func.id}(...)")
    return out


_CASTS = {"bool": bool, "int": int, "float": float, "len": int}
_FLOAT_MODULES = ("math", "np", "numpy")


def evident_type(node: ast.AST | None, known: dict) -> type | None:
    """The Python type (bool, int or float) `node` evidently evaluates to, or
    None: literals, names in `known` (name -> a value of their type), casts,
    `len`, one-argument `round`, `math.*` / `np.*` calls and constants (float),
    and arithmetic on those with Python's rules (`/` gives a float)."""
    if isinstance(node, ast.Constant) and type(node.value) in (bool, int, float):
        return type(node.value)
    if isinstance(node, ast.Name) and node.id in known:
        return type(known[node.id])
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id in _FLOAT_MODULES and node.attr in ("pi", "e", "tau", "inf"):
        return float
    if isinstance(node, ast.Call) and not node.keywords:
        f = node.func
        if isinstance(f, ast.Name) and f.id in _CASTS:
            return _CASTS[f.id]
        if isinstance(f, ast.Name) and f.id == "round" and len(node.args) == 1:
            return int
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                and f.value.id in _FLOAT_MODULES and f.attr in (
                    "sqrt", "exp", "log", "sin", "cos", "tan", "atan2", "hypot", "pow"):
            return float
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        t = evident_type(node.operand, known)
        return int if t is bool else t
    if isinstance(node, ast.BinOp) and isinstance(node.op, (
            ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)):
        a, b = evident_type(node.left, known), evident_type(node.right, known)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Div) or float in (a, b):
            return float
        return int
    return None


def _keeps_type(value: ast.AST | None, literal: object, known: dict) -> bool:
    """False when `value` evidently has another Python type than `literal`
    (or binds something that is no number: `value` None). A value whose type
    cannot be read (`N = args.n`) is taken to keep the literal's type: the
    assumption `ModuleInfo.rebound` has always made (Warp's own examples
    rebind their settings so under `if __name__ == "__main__":`)."""
    if value is None:
        return False
    t = evident_type(value, known)
    return t is None or t is type(literal)


_UNREADABLE = ast.Name(id="<unreadable>", ctx=ast.Load())   # a value of a type not read


def _loop_value(it: ast.AST) -> ast.AST:
    """A value standing for the elements of a loop's iterable: an int for
    `range(...)`, the first element of a literal list or tuple whose elements
    all have one evident type, else a value of an unreadable type."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
        return ast.Constant(0)
    if isinstance(it, (ast.List, ast.Tuple)) and it.elts and \
            len({evident_type(e, {}) for e in it.elts}) == 1:
        return it.elts[0]
    return _UNREADABLE


def conditional_rebindings(stmt: ast.stmt, rebound: dict,
                           constants: dict | None = None) -> list[tuple[str, ast.AST]]:
    """(name, node) for each binding, under a module-level if / loop / with /
    try, of a name first bound to a literal (`rebound`: name -> literal) to a
    value of evidently another type (`N = 2.5` after `N = 4`, `import os as
    N`): a kernel reading the name would see a value of another type, so it
    is not the unknown-of-its-type that `ModuleInfo.rebound` stands for. `constants`:
    the module's constants, whose types the values may use."""
    known = {**(constants or {}), **rebound}
    out: list[tuple[str, ast.AST]] = []
    pairs: list[tuple[ast.AST, ast.AST | None]]
    for n in ast.walk(stmt):
        if isinstance(n, ast.Assign):
            pairs = [(t, n.value) for t in n.targets]
        elif isinstance(n, (ast.AnnAssign, ast.NamedExpr)):
            pairs = [(n.target, n.value)]
        elif isinstance(n, ast.AugAssign):   # N += v: the type of N op v
            pairs = [(n.target, ast.BinOp(left=n.target, op=n.op, right=n.value))]
        elif isinstance(n, (ast.For, ast.AsyncFor)):
            pairs = [(n.target, _loop_value(n.iter))]
        else:
            pairs = [(t, None) for t in other_targets(n)]   # whatever they bind: not a literal
        for target, value in pairs:
            if isinstance(target, ast.Name) and target.id in rebound and value is None:
                out.append((target.id, target))
            elif isinstance(target, ast.Name) and target.id in rebound \
                    and not _keeps_type(value, rebound[target.id], known):
                out.append((target.id, target))
            elif not isinstance(target, ast.Name):
                out.extend((t.id, t) for t in ast.walk(target)
                           if isinstance(t, ast.Name) and t.id in rebound)
    return out


def other_targets(n: ast.AST) -> list[ast.Name]:
    """Names bound by a with / except / import / def / class under a compound statement."""
    if isinstance(n, ast.withitem) and n.optional_vars is not None:
        return [t for t in ast.walk(n.optional_vars) if isinstance(t, ast.Name)]
    if isinstance(n, ast.ExceptHandler) and n.name:
        return [ast.Name(id=n.name, ctx=ast.Store(), lineno=n.lineno, col_offset=n.col_offset)]
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [ast.Name(id=n.name, ctx=ast.Store(), lineno=n.lineno, col_offset=n.col_offset)]
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return [ast.Name(id=a.asname or a.name.split(".")[0], ctx=ast.Store(), lineno=n.lineno,
                         col_offset=n.col_offset) for a in n.names]
    return []


def outside_rebindings(index, filename: str, handles: set[str]) -> dict[str, Rebinding]:
    """name (or ANY) -> the first site in ANOTHER module (`index`: the
    outside_index.OutsideIndex of its tree, read once for every module) that can
    rebind a module-level name of the module that `handles` (names that
    module binds to it, or to a package above it) may evaluate to:
    `M.NAME = ...`, `del M.NAME`, `setattr(M, ...)` / `delattr`, and stores
    into `vars(M)` / `M.__dict__`. As `find_rebindings`, an over-approximation:
    `sys.modules[...]`, `importlib.import_module(...)` and names bound from
    them count as the module too."""
    out: dict[str, Rebinding] = {}
    handles = _module_handles(index.tree, handles, index)   # `m = consts` / `m = sys.modules[...]` too
    may_be_module = index.may_be_module

    def note(name: str, node: ast.AST, how: str) -> None:
        out.setdefault(name, Rebinding(_loc(filename, node), how))

    def namespace(node: ast.AST) -> bool:      # vars(M) or M.__dict__
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return may_be_module(node.value, handles)
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars"
                and len(node.args) == 1 and may_be_module(node.args[0], handles))

    for n in index.sites:     # the tree's walk, less the nodes none of the cases below can be
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                and may_be_module(n.value, handles):
            note(n.attr, n, f"an assignment to the module attribute {n.attr!r} in another module")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) \
                and n.func.id in ("setattr", "delattr") and n.args and may_be_module(n.args[0], handles):
            note(_key_name(n.args[1]) if len(n.args) > 1 else ANY, n,
                 f"{n.func.id}(...) on the module in another module")
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) and namespace(n.value):
            note(_key_name(n.slice), n, "a store into the module's namespace in another module")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and namespace(n.func.value) \
                and n.func.attr in ("update", "setdefault", "__setitem__", "pop", "__delitem__", "clear"):
            key = _key_name(n.args[0]) if n.func.attr != "update" and n.args else ANY
            note(key, n, f"the module's namespace .{n.func.attr}(...) in another module")
    return out
