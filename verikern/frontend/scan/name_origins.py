"""Why a module-level name a kernel's annotation reads is no type verikern
can read: the module that binds it (followed through the project's imports,
star imports included) and its bindings there, with the environment variables
they read (`scalar_t = _resolve_precision(os.getenv("warpSPHCore_PRECISION"))`,
bound again under an if: warpsphcore's precision, chosen when the module is
imported). Used only to word errors; nothing here decides a type.

Invariant: the source is read, never executed; `explain` returns None when it
finds nothing to say (the error keeps its own words).
"""
from __future__ import annotations

import ast

#: how many import links are followed to the module that binds a name
MAX_LINKS = 12


def defining_module(info, name: str):
    """(ModuleInfo, name there) of the module that binds `name` itself, following
    `ModuleInfo.name_origins` (the project imports that brought it in)."""
    for _ in range(MAX_LINKS):
        origin = info.name_origins.get(name)
        if origin is None:
            return info, name
        info, name = origin
    return info, name


def _environment_reads(node: ast.AST) -> list[str]:
    """The environment variables an expression reads by a literal name
    (`os.getenv("X")`, `os.environ.get("X")`, `os.environ["X"]`)."""
    out = []
    for n in ast.walk(node):
        key = None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args \
                and (n.func.attr == "getenv" or (n.func.attr == "get" and isinstance(n.func.value, ast.Attribute)
                                                 and n.func.value.attr == "environ")):
            key = n.args[0]
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "environ":
            key = n.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            out.append(key.value)
    return out


def _built_by(info, value: ast.expr) -> str | None:
    """For a binding to the call of a project function (`m.get_library(...)`,
    warp-simdata's `sids_shapes.get_shapes_library()`): what it is and where
    that function is defined, else None."""
    from .project import module_member   # lazy: import cycle with .project
    if not isinstance(value, ast.Call):
        return None
    if isinstance(value.func, ast.Name):
        found = (info, value.func.id)
    else:
        found = module_member(info, value.func)
    fn = found[0].project_funcs.get(found[1]) if found is not None else None
    if fn is None:
        return None
    line = getattr(fn.node, "lineno", 0)
    return (f"its value is what the function {found[1]!r} ({fn.info.filename}:{line}) returns "
            "when the module runs (funcs, classes and constants a function builds at run time "
            "are not in the source)")


def explain(info, node: ast.AST) -> str | None:
    """Why the names `node` (an annotation) reads are no types verikern can read,
    for the first such name with bindings it can describe, else None."""
    for n in ast.walk(node):
        if not isinstance(n, ast.Name) or n.id not in info.nonconstant:
            continue
        site = info.rebinding(n.id)
        if site is not None:
            return f"`{n.id}` can be bound again ({site.describe()})"
        owner, name = defining_module(info, n.id)
        try:
            tree = ast.parse(owner.source, filename=owner.filename)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        sites: list[tuple[int, ast.expr]] = []     # (line, value) of each binding of the name
        for stmt in ast.walk(tree):
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and any(
                    isinstance(t, ast.Name) and t.id == name
                    for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                    for t in ast.walk(target)):
                sites.append((stmt.lineno, stmt.value))
        if not sites:
            continue
        where = "; ".join(f"{owner.filename}:{line}: `{ast.unparse(value)}`" for line, value in sites[:3])
        env = sorted({v for _, value in sites for v in _environment_reads(value)})
        why = (f"its value is chosen when the module runs, from the environment variable"
               f"{'s' if len(env) > 1 else ''} {', '.join(env)}" if env else
               _built_by(owner, sites[0][1]) or "its value is computed when the module runs"
               if len(sites) == 1 else "it is bound more than once")
        return (f"`{n.id}` is bound by {where}: {why}, and verikern reads the source "
                "without running it")
    return None
