"""Walking z3 terms without wrapping the subterms a walk has already seen.

The fact builders (geometry, product_bounds, widened_products, lemmas) and
the nonlinear abstraction walk every formula of a query, each remembering
the ids of the terms it visited; queries share most of their terms, so most
children a walk meets are visited already. `z3.ExprRef.children()` wraps
every child in a Python object (several calls into z3 each: its kind, its
sort, a reference count) before the walk can look at its id;
`unseen_children` reads each child's id from the raw AST first and wraps
only the children not yet seen.

`is_op(e, kind)` is `z3.is_app_of(e, kind)` read off the raw AST, without
wrapping the term's declaration in a Python object (the fact builders ask it
of every term they visit, several kinds each).

Every walk's size is counted (`walked`): `unseen_children` adds the number of
children it looked at to a process-wide count that the prover's budget drains
into the kernel's total (proofs.deciding.budget: "terms walked"), so the
Python work of the fact builders and the abstraction -- which grows with the
kernel's terms, not with z3's units -- is bounded by the kernel's work budget
too. A count of children, never seconds: the same walks count the same.

Invariant: `unseen_children(e, seen)` is `[c for c in e.children() if
c.get_id() not in seen]`, in the same order and with the same wrappers, so
a walk that pushes it instead of `e.children()` (and still checks `seen`
when it pops a term) visits the same terms in the same order.
"""
from __future__ import annotations

import z3
from z3 import z3core
from z3.z3 import _to_expr_ref


#: The children `unseen_children` has looked at since the count was last taken
#: (`take_walked`); one cell, mutated in place.
_WALKED = [0]


def take_walked() -> int:
    """The children looked at since the last call (the count restarts at 0)."""
    n, _WALKED[0] = _WALKED[0], 0
    return n


def unseen_children(e: z3.ExprRef, seen) -> list:
    """The children of `e` whose ids are not in `seen` (a dict or set of
    term ids), in argument order."""
    if not z3.is_app(e):           # a quantifier's body, a bound variable's none
        children = e.children()
        _WALKED[0] += 1 + len(children)
        return [c for c in children if c.get_id() not in seen]
    ctx, ast = e.ctx, e.as_ast()
    ref = ctx.ref()
    out = []
    n = z3core.Z3_get_app_num_args(ref, ast)
    _WALKED[0] += 1 + n
    for k in range(n):
        child = z3core.Z3_get_app_arg(ref, ast, k)
        if z3core.Z3_get_ast_id(ref, child) not in seen:
            out.append(_to_expr_ref(child, ctx))
    return out


def is_op(e, kind: int) -> bool:
    """`z3.is_app_of(e, kind)`: `e` is an application of an operator of `kind`
    (z3.Z3_OP_*)."""
    if not z3.is_app(e):
        return False
    ref = e.ctx_ref()
    return z3core.Z3_get_decl_kind(ref, z3core.Z3_get_app_decl(ref, e.as_ast())) == kind
