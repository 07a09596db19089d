"""Walks of a body's statements that depend on the statement alone, made once
per statement object.

Every statement is walked by each check of it and by the check of every
statement it is nested in, and a body is checked many times over: a generic
kernel once per typing it may take (generic_kernels.enumerated: hundreds of
BodyCheckers over the same `ast` statements), a func once per specialization.
The results below are remembered per statement object, weakly: an entry dies
with its statement, and a statement made by a rewrite (the hoisting of random
draws, struct field names, `Any` annotations, wp.static: each works on a
`copy.deepcopy`) is a new object with an entry of its own. Not per function:
an inlined or rewritten body's statements are not the function's.

Invariant: the frontend never changes a statement in place once it was parsed
(the rewrites above change only their own copies), so a remembered walk is the
walk of the statement as it is. Results are immutable (frozensets, tuples).
"""
from __future__ import annotations

import ast
import weakref
from typing import Callable, TypeVar

T = TypeVar("T")


def _memo(compute: Callable[[ast.AST], T]) -> Callable[[ast.AST], T]:
    """`compute`, remembered per node object (weakly keyed)."""
    seen: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def remembered(node: ast.AST) -> T:
        try:
            return seen[node]
        except KeyError:
            value = seen[node] = compute(node)
            return value
    remembered.__doc__ = compute.__doc__
    return remembered


@_memo
def calls_in(stmt: ast.AST) -> tuple[ast.Call, ...]:
    """Every call in `stmt` (itself included), in ast.walk's order."""
    return tuple(n for n in ast.walk(stmt) if isinstance(n, ast.Call))


@_memo
def bindings_in(stmt: ast.AST) -> tuple[ast.stmt, ...]:
    """Every `x = v` and `x: T = v` statement in `stmt` (itself included), in
    ast.walk's order (the struct locals' first binding is the first in it)."""
    return tuple(n for n in ast.walk(stmt) if isinstance(n, (ast.Assign, ast.AnnAssign)))


@_memo
def conditional_calls(stmt: ast.AST) -> frozenset[int]:
    """The ids of the calls in `stmt` that Warp evaluates only under a condition: in
    an operand after the first of `and`/`or` (Warp short-circuits) or in a branch of
    a conditional expression (its test is always evaluated). The ids stay those of
    live calls while the statement lives (it holds them)."""
    out: set[int] = set()
    for n in ast.walk(stmt):
        parts = n.values[1:] if isinstance(n, ast.BoolOp) else \
            [n.body, n.orelse] if isinstance(n, ast.IfExp) else []
        out.update(id(c) for p in parts for c in ast.walk(p) if isinstance(c, ast.Call))
    return frozenset(out)


@_memo
def stored_names(fn: ast.AST) -> frozenset[str]:
    """The names `fn`'s body assigns (every Name in a Store context)."""
    return frozenset(n.id for stmt in getattr(fn, "body", ()) for n in ast.walk(stmt)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
