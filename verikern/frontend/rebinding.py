"""Where a module can rebind its own module-level names (docs/LANGUAGE.md section 1).

A module-level name is a constant only when nothing in the module can rebind
it: Python runs the whole file before Warp builds a kernel, and a function may
run at import time or between two launches, so a kernel reading a name that
can be rebound would be proved for a value it may not see.

Invariant: `find_rebindings` over-approximates, reading the source only (never
executing it). It reports, per name, the first site that can rebind it after
its first unconditional binding:

- a second unconditional binding at module level (an assignment, an augmented
  assignment, an import under that name, a def or class of that name);
- a `global NAME` statement in a function (at any depth, methods included)
  whose own body binds NAME;
- `globals()[...] = ...`, `globals().update(...)` / `.setdefault` /
  `.__setitem__` / `.pop` / `del globals()[...]` (and `vars()` with no argument,
  which is `globals()` at module level);
- `setattr(M, ...)`, `M.NAME = ...` and `del M.NAME` where M can be the module
  itself (`sys.modules[...]`, `importlib.import_module(...)`, `__import__(...)`,
  or a module-level name bound to one of them);
- a walrus `(NAME := ...)` in a module-level expression;
- `exec(...)` anywhere in the file.

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


def _is_globals_call(node: ast.AST) -> bool:
    """`globals()` or `vars()` (no argument: the module's namespace at module level)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id in ("globals", "vars") and not node.args and not node.keywords


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


def _module_handles(tree: ast.Module) -> set[str]:
    """Module-level names bound to something that can be the module itself
    (`mod = sys.modules[__name__]`), followed to a fixed point."""
    handles: set[str] = set()
    changed = True
    while changed:
        changed = False
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and _may_be_module(n.value, handles):
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
    for stmt in tree.body:
        for name in _top_level_names(stmt):
            if name in bound:
                note(name, stmt, _binding_kind(stmt, name))
            bound.add(name)
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
                and _is_globals_call(n.value):
            note(_key_name(n.slice), n, "an assignment to globals()[...]")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and _is_globals_call(n.func.value) and n.func.attr in (
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
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "exec":
            note(ANY, n, "exec(...)")
    return out
