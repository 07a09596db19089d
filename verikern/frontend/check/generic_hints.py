"""Which generic parameters a refusal points at: the parameters whose types the
statement the checker refused reads or writes (generic_start.py's directed
step tries other types for those first).

A generic kernel's body types in source order and stops at the first
expression it refuses, so the refused statement names the values whose types
did not fit: `P_diff = P[0] - P_ext[0]` with `P = pressure_tensors[s]` and
`P_ext = target_pressures[s]` points at `pressure_tensors` and
`target_pressures`; `eff_d[i] = gg_d[i] + q[i] * gp` at `eff_d`, `gg_d`, `q`
and (through `gp = gg_pos[i]`) `gg_pos`.

A local points at the parameters of every assignment to it, followed through
other locals; the parameters a statement names directly, or through a local
that is only ever a parameter's element (`P = pressure_tensors[s]`), come
first, the ones reached further after them.

Invariant: this only orders what the start search tries; every typing it
leads to is still type-checked by the caller (generic_start.py), so a wrong
hint costs checks, never soundness. A refusal outside the kernel's own body
(inside a func it calls) points at nothing.
"""
from __future__ import annotations

import ast


def refused_statement(kernel: ast.FunctionDef, line: int) -> ast.stmt | None:
    """The innermost statement of the kernel's body that spans `line`, or None."""
    found = None
    body = list(kernel.body)
    while body:
        stmt = body.pop(0)
        if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            found = stmt
            body = [s for f in ("body", "orelse", "finalbody") for s in getattr(stmt, f, [])
                    if isinstance(s, ast.stmt)]
    return found


def _assignments(kernel: ast.FunctionDef) -> dict[str, list[ast.AST]]:
    """local name -> the values assigned to it (`x = e`, `x: T = e`, `x += e`, a for's iterable)."""
    out: dict[str, list[ast.AST]] = {}
    for node in ast.walk(kernel):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.For):
            targets, value = [node.target], node.iter
        else:
            continue
        for t in targets:
            for name in _assigned_names(t):
                out.setdefault(name, []).append(value)
    return out


def _assigned_names(target: ast.AST) -> list[str]:
    """The names a target assigns: `x`, each of `x, y`, the root of `v[k]` or `v.x` (not `k`)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in _assigned_names(t)]
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    return [target.id] if isinstance(target, ast.Name) else []


def _element_of(value: ast.AST, generic: set[str]) -> str | None:
    """The parameter whose element `value` is (`p[i]`, `p[i, j]`), else None."""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in generic:
        return value.value.id
    return None


def implicated(kernel: ast.FunctionDef, generic: list[str], filename: str, loc) -> list[list[str]]:
    """The generic parameters the refusal at `loc` points at (module docstring), as
    tiers: [the direct ones, the ones reached further], each in the order of
    `generic`; [] when `loc` is not in the kernel's body."""
    if loc is None or loc.file != filename:
        return []
    stmt = refused_statement(kernel, loc.line)
    if stmt is None:
        return []
    names = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    if isinstance(stmt, (ast.If, ast.While, ast.For)):    # only its header was being typed
        header = stmt.test if not isinstance(stmt, ast.For) else stmt.iter
        names = {n.id for n in ast.walk(header) if isinstance(n, ast.Name)}
    params, assigned = set(generic), _assignments(kernel)
    direct = {n for n in names if n in params}
    for n in names - params:
        values = assigned.get(n, [])
        elements = [_element_of(v, params) for v in values]
        if values and None not in elements:
            direct |= {e for e in elements if e is not None}
    further: set[str] = set()
    todo, seen = list(names - params), set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for v in assigned.get(n, []):
            for m in ast.walk(v):
                if isinstance(m, ast.Name):
                    (further.add if m.id in params else todo.append)(m.id)
    return [[p for p in generic if p in direct], [p for p in generic if p in further - direct]]
