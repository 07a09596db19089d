"""Whether a name a file binds both by a star import and by a statement of its
own is one and the same object: warpsphcore's kernels/kernel.py has `from
..type_config import *`, `from .eval_kernel import *` (which star-imports
type_config too) and `from ..type_config import scalar_t, dim_t`; each binds
type_config's own `scalar_t`, so the name is bound to one value, whatever
the order.

Invariant: True only when every statement of the file that binds the name
is a module-level `from M import name` (no `as` to another name, no other
binding anywhere: no assignment, def, class, loop, global, or import of
another name) of a project module M, and M's name, followed through the
project's imports (name_origins.defining_module), is the very binding the
star import's name is (the same defining module, the same name there);
anything else is False and the star import's rule stands (a rebinding).
"""
from __future__ import annotations

import ast

from .name_origins import defining_module


def _origin(info, name: str):
    owner, there = defining_module(info, name)
    return (owner.filename, there)


def same_object_imports(info, tree: ast.Module | None, defining, name: str) -> bool:
    """Whether the file's own bindings of `name` are all imports of the binding
    `defining`'s `name` is (module docstring)."""
    from .project import read_module, target_module   # lazy: import cycle with .project
    project = info.project
    if tree is None or project is None or defining is None:
        return False
    want = _origin(defining, name)
    found = False
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return False
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
            return False
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return False
        if isinstance(n, ast.Import) and any((a.asname or a.name.split(".")[0]) == name for a in n.names):
            return False
        if not isinstance(n, ast.ImportFrom):
            continue
        for a in n.names:
            if (a.asname or a.name) != name:
                continue
            if a.name != name or n not in tree.body:
                return False
            target = target_module(n, info.module_name, info.is_package)
            if target is None:
                return False
            path = project.locate(target)[0]
            source = read_module(project, target, path) if path is not None else None
            if source is None or _origin(source, name) != want:
                return False
            found = True
    return found
