"""`__all__` entries written as a comprehension over a literal list of strings:
warpsphcore's kernels/kernelFunctions/__init__.py has `suffixes = ["_k",
"_dkdq", ...]` and, after each star import, `__all__.extend(["B7" + suffix
for suffix in suffixes])`.

Invariant: read only from source, never run: the comprehension has one
`for NAME in LIST` with no `if`, LIST is a module-level name bound exactly
once in the whole module (no other store, `del`, `global` or import of it)
to a literal list or tuple of strings before this statement, and the element
is a concatenation (`+`) of string literals and NAME; anything else gives
None (the `__all__` stays unreadable, as before).
"""
from __future__ import annotations

import ast


def literal_string_lists(tree: ast.Module) -> dict[str, tuple[int, list[str]]]:
    """name -> (line, strings) for each module-level name bound exactly once in
    the whole module, at module level, to a literal list or tuple of strings."""
    stores: dict[str, int] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                stores[name] = stores.get(name, 0) + 2
        elif isinstance(n, ast.alias):
            name = n.asname or n.name.split(".")[0]
            stores[name] = stores.get(name, 0) + 2
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores[n.name] = stores.get(n.name, 0) + 2
    out: dict[str, tuple[int, list[str]]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stores.get(stmt.targets[0].id) == 1 and isinstance(stmt.value, (ast.List, ast.Tuple)) \
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in stmt.value.elts):
            out[stmt.targets[0].id] = (stmt.lineno, [e.value for e in stmt.value.elts])  # type: ignore[attr-defined]
    return out


def _concatenation(node: ast.expr, variable: str, value: str) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id == variable:
        return value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _concatenation(node.left, variable, value)
        right = _concatenation(node.right, variable, value)
        return None if left is None or right is None else left + right
    return None


def comprehension_strings(node: ast.AST, lists: dict[str, tuple[int, list[str]]],
                          line: int) -> list[str] | None:
    """The strings `[PREFIX + v for v in LIST]` makes (module docstring), for a
    statement at `line`; None when it is not such a comprehension."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp)) or len(node.generators) != 1:
        return None
    gen = node.generators[0]
    if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name) or not isinstance(gen.iter, ast.Name):
        return None
    found = lists.get(gen.iter.id)
    if found is None or found[0] >= line:
        return None
    out = []
    for value in found[1]:
        s = _concatenation(node.elt, gen.target.id, value)
        if s is None:
            return None
        out.append(s)
    return out
