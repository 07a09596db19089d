"""A call argument that chooses between two arrays: warpsphcore's operator
kernels pass `adjacencyState.neighborList if useAdjacency else
gridState.sortIndex` to their per-particle func (`out += f(..., nbrs if c
else order, ...)`). Warp 1.19 evaluates the test, then the chosen branch,
and passes that array.

The statement is checked as `if c: S[a] else: S[b]`, S with the argument
replaced by each branch: the func is inlined once per array, each read
bounds-checked against its own array.

Invariant: taken only for an expression, assignment or augmented assignment
statement with exactly one such argument (a direct argument of a call, both
branches names or attribute chains that are arrays), whose test calls
nothing and binds nothing: evaluating the test first, before the call's
other arguments, then reads the same values, and each branch is evaluated
only on its own path, as in Warp. Anything else returns None and the
conditional expression keeps its located refusal (expressions._expr_IfExp).
"""
from __future__ import annotations

import ast
import copy

from verikern.errors import KernelError
from verikern.hir.types import ArrayType

_PURE = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp,
         ast.Compare, ast.BoolOp, ast.Load, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _array(chk, node: ast.expr) -> bool:
    base = node
    while isinstance(base, ast.Attribute):
        base = base.value
    if not isinstance(base, ast.Name):
        return False
    try:
        return isinstance(chk.check_expr(node).type, ArrayType)
    except KernelError:
        return False


def split_array_choice(chk, s: ast.stmt) -> ast.If | None:
    """`if c: S[a] else: S[b]` for the statement `S` (module docstring), else None."""
    if not isinstance(s, (ast.Expr, ast.Assign, ast.AugAssign)):
        return None
    found = [(call, k) for call in ast.walk(s) if isinstance(call, ast.Call)
             for k, arg in enumerate(call.args) if isinstance(arg, ast.IfExp)]
    if len(found) != 1:
        return None
    call, k = found[0]
    choice = call.args[k]
    assert isinstance(choice, ast.IfExp)
    if not all(isinstance(n, _PURE) for n in ast.walk(choice.test)) \
            or not (_array(chk, choice.body) and _array(chk, choice.orelse)):
        return None
    branches: list[list[ast.stmt]] = []
    for branch in (choice.body, choice.orelse):
        call.args[k] = branch
        branches.append([copy.deepcopy(s)])
    call.args[k] = choice
    return ast.copy_location(ast.If(test=choice.test, body=branches[0], orelse=branches[1]), s)
