"""Plain classes that hold int constants (`class VTKCellTypes:` with
`VTK_TETRA = 10`, read in kernels as `VTKCellTypes.VTK_TETRA`), read from
source and never executed, like an IntEnum's members (scan/module.py).

Warp 1.19 evaluates `VTKCellTypes.VTK_TETRA` when it builds the module and
uses the int it finds. A plain class, unlike an IntEnum, can be changed later
(`VTKCellTypes.VTK_TETRA = 11`, `setattr(VTKCellTypes, ...)`, through an
alias or a subclass), so its attributes are constants only where nothing can
change them.

Invariant: a class is taken only when its body is a docstring and `NAME = <int
constant>` lines (no methods, decorators, bases other than `object`,
metaclass or private names), and every use of its name in its module and in
every source file of the project is a read of one of its attributes
(`VTKCellTypes.X`, `vtk_shapes.VTKCellTypes.X` in a load), `vars(VTKCellTypes)` (a class's
namespace is a read-only mappingproxy), an import of it, or its `__all__`
entry; any other use (a store or delete of an attribute, a
call, an alias, a base class, an argument, the name as a string) leaves it
unread (an over-approximation: each such use might change it).
"""
from __future__ import annotations

import ast
import copy

from .constants import NotConstant, eval_module_constant
from verikern.mir.nodes import SourceLoc
from .project import PROJECT_SOURCES, _project_data
from .rebinding import Rebinding


def plain_int_class_members(cls: ast.ClassDef, info) -> dict[str, int] | None:
    """{attribute: int} of a plain class of int constants, else None."""
    if cls.decorator_list or cls.keywords or len(cls.bases) > 1 or getattr(cls, "type_params", None):
        return None
    if cls.bases and not (isinstance(cls.bases[0], ast.Name) and cls.bases[0].id == "object"
                          and "object" not in info.own_names):
        return None
    members: dict[str, int] = {}
    for k, stmt in enumerate(cls.body):
        if k == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)):
            return None
        name = stmt.targets[0].id
        if name in members or name.startswith("_"):
            return None
        try:     # the class body's own earlier names first, as Python's class scope reads them
            v = eval_module_constant(_with_members(stmt.value, members), info)
        except NotConstant:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            return None
        members[name] = v
    return members or None


class _Members(ast.NodeTransformer):
    def __init__(self, members: dict[str, int]):
        self.members = members

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.members:
            return ast.copy_location(ast.Constant(self.members[node.id]), node)
        return node


def _with_members(node: ast.expr, members: dict[str, int]) -> ast.expr:
    """A copy of `node` with the class's earlier attributes as their values."""
    return _Members(members).visit(copy.deepcopy(node)) if members else node


def _in_all(parents: dict, node: ast.AST) -> bool:
    """A string inside `__all__ = [...]` (or `+=`)."""
    p = parents.get(id(node))
    while p is not None and not isinstance(p, ast.stmt):
        p = parents.get(id(p))
    targets = p.targets if isinstance(p, ast.Assign) else [p.target] if isinstance(p, ast.AugAssign) else []
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def escaping_use(tree: ast.Module, name: str) -> ast.AST | None:
    """The first use of the class `name` in `tree` that might change it (the
    module docstring's rule), or None."""
    names = {name} | {a.asname for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                      for a in n.names if a.name == name and a.asname}
    own = {t.id for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
           for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)} \
        | {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))} \
        | {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
           for a in n.names}
    parents: dict[int, ast.AST] = {}
    for n in ast.walk(tree):
        for child in ast.iter_child_nodes(n):
            parents[id(child)] = n
    for n in ast.walk(tree):
        if (isinstance(n, ast.Name) and n.id in names) or (isinstance(n, ast.Attribute) and n.attr == name):
            p = parents.get(id(n))
            if isinstance(n.ctx, ast.Load) and isinstance(p, ast.Attribute) and p.value is n \
                    and isinstance(p.ctx, ast.Load):
                continue                        # Cls.X read
            if isinstance(n.ctx, ast.Load) and isinstance(p, ast.Call) and p.args == [n] \
                    and not p.keywords and isinstance(p.func, ast.Name) and p.func.id == "vars" \
                    and "vars" not in own:
                continue                        # vars(Cls): a class's is a read-only mappingproxy
            return n
        elif isinstance(n, ast.Constant) and n.value in names and not _in_all(parents, n):
            return n
    return None


#: (class name, project digest) -> whether some project file other than its own may change it
_PROJECT_SEEN: dict = {}


def changing_use(tree: ast.Module, info, name: str) -> Rebinding | None:
    """Where the class `name` of the module `tree` (`info`) may be changed:
    in the module itself, or in another source file of its project (every
    file is read, as project.rebindings_from_outside reads them: a change of
    any file is a change of the proof-cache key); None where nothing may."""
    site = escaping_use(tree, name)
    if site is not None:
        return Rebinding(SourceLoc(info.filename, getattr(site, "lineno", 0),
                                   getattr(site, "col_offset", -1) + 1),
                         f"a use of the class {name!r} that may change its attributes")
    if info.project is None:
        return None
    found = _changed_elsewhere(info, name)
    return None if found is None else Rebinding(SourceLoc(found[0], found[1], found[2]), (
        f"a use of the class {name!r} in another module that may change its attributes"))


def _changed_elsewhere(info, name: str) -> tuple | None:
    data = _project_data(info.project)
    key = (name, info.module_name, info.project.files.get(PROJECT_SOURCES))
    if key not in _PROJECT_SEEN:
        found = None
        for path, module, source in data:
            if module == info.module_name or name.encode() not in source:
                continue
            try:
                tree = ast.parse(source.decode("utf-8", "replace"), filename=path)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            site = escaping_use(tree, name)
            if site is not None:
                found = (path, getattr(site, "lineno", 0), getattr(site, "col_offset", -1) + 1)
                break
        _PROJECT_SEEN[key] = found
    return _PROJECT_SEEN[key]
