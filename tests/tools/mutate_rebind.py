"""The `rebind-constant` mutation operator: a module-level constant that a
kernel reads, rebound by the module after its first binding.

Python runs the whole file before Warp builds a kernel, so the kernel sees
the rebound value; a prover that read the first literal would prove the
kernel for a value it never runs with. The expected outcome is a refusal
(docs/LANGUAGE.md section 1): the frontend reports a located error at the
kernel's read and no verdict (`tools.mutate.REFUSAL_KINDS`).

The rebinding is written in one of the three spellings the red team used,
chosen by the constant's name (the sum of its characters' codes, modulo 3:
deterministic, and spread over the sources' constants):

- a function that runs at import time and rebinds it through `global`;
- a later `from errno import ENOENT as NAME` (NAME becomes 2);
- `globals()["NAME"] = ...`.

Invariant: a site is the first load, in one function, of a name bound
exactly once at module level to an int literal and never bound inside that
function; `apply` only appends statements at the end of the module.
"""
from __future__ import annotations

import ast


def module_int_constants(tree: ast.Module) -> list[str]:
    """Names bound exactly once at module level, by `NAME = <int literal>`
    (in source order)."""
    bound: dict[str, int] = {}
    literal: list[str] = []
    for stmt in tree.body:
        targets = []
        if isinstance(stmt, ast.Assign):
            targets = [t for t in stmt.targets if isinstance(t, ast.Name)]
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            targets = [stmt.target]
        for t in targets:
            bound[t.id] = bound.get(t.id, 0) + 1
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Constant) and type(stmt.value.value) is int:
            literal.append(stmt.targets[0].id)
    return [name for name in literal if bound[name] == 1]


def _locally_bound(fn: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _rebinding(name: str, style: int) -> list[ast.stmt]:
    """Module-level statements that rebind `name` (one of three spellings)."""
    if style == 0:
        text = f"def _reconfigure_{name}():\n    global {name}\n    {name} = {name} * 2 + 1\n\n\n" \
               f"_reconfigure_{name}()\n"
    elif style == 1:
        text = f"from errno import ENOENT as {name}\n"
    else:
        text = f"globals()[{name!r}] = {name} * 2 + 1\n"
    return ast.parse(text).body


def sites_rebind_constant(fn, info):
    """The first load in `fn` of each module-level int constant (see the
    module doc); applying it appends that constant's rebinding to the module."""
    if info.tree is None:
        return
    constants = module_int_constants(info.tree)
    local = _locally_bound(fn)
    loads = sorted((node for node in ast.walk(fn)
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
                    and node.id in constants and node.id not in local),
                   key=lambda n: (n.lineno, n.col_offset))
    seen: set[str] = set()
    for node in loads:
        if node.id in seen:
            continue
        seen.add(node.id)
        style = sum(map(ord, node.id)) % 3
        statements = _rebinding(node.id, style)

        def apply(statements=statements):
            info.tree.body.extend(statements)
        how = ("a `global` rebinding at import time", "a later `from errno import ENOENT as`",
               "`globals()[...] =`")[style]
        yield node, f"{node.id} rebound by {how}", apply
