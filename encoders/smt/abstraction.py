"""Cheap first attempt at a proof: nonlinear bit-vector terms replaced by fresh
variables.

Invariant: `NonlinearAbstraction.apply` maps formulas to formulas in which every
product of two non-constant terms, every division/remainder by a non-constant
term and every product-overflow predicate of two non-constant terms is replaced,
consistently across all formulas given to the same
abstraction, by one fresh variable. Any model of the original formulas extends
to a model of the abstracted ones (give each fresh variable the value of the
term it replaces), so `unsat` for the abstracted formulas proves `unsat` for
the originals. A `sat` answer means nothing and must be re-checked exactly.
"""
from __future__ import annotations

import z3
from z3.z3 import _to_expr_ref

from .terms import unseen_children

_NONLINEAR = {
    z3.Z3_OP_BMUL, z3.Z3_OP_BSDIV, z3.Z3_OP_BUDIV, z3.Z3_OP_BSREM, z3.Z3_OP_BUREM,
    z3.Z3_OP_BSMOD, z3.Z3_OP_BSDIV_I, z3.Z3_OP_BUDIV_I, z3.Z3_OP_BSREM_I,
    z3.Z3_OP_BUREM_I, z3.Z3_OP_BSMOD_I,
}
_DIVISIONS = _NONLINEAR - {z3.Z3_OP_BMUL}
# overflow predicates of products bit-blast to multipliers too
_OVERFLOW_PREDICATES = {
    getattr(z3, name) for name in ("Z3_OP_BUMUL_NO_OVFL", "Z3_OP_BSMUL_NO_OVFL",
                                   "Z3_OP_BSMUL_NO_UDFL") if hasattr(z3, name)}


class NonlinearAbstraction:
    """One consistent term -> fresh-variable map (see module docstring)."""

    def __init__(self):
        self._vars: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
        self._cache: dict[int, bool] = {}

    def _is_nonlinear(self, e: z3.ExprRef) -> bool:
        if not z3.is_app(e):
            return False
        k = e.decl().kind()
        if k in _OVERFLOW_PREDICATES:   # by a literal: a bound, cheap to bit-blast
            return not any(z3.is_bv_value(a) for a in e.children())
        if k not in _NONLINEAR:
            return False
        args = e.children()
        if k in _DIVISIONS:
            return not z3.is_bv_value(args[1])
        return sum(1 for a in args if not z3.is_bv_value(a)) >= 2

    def _collect(self, roots) -> None:
        stack = list(roots)
        while stack:
            e = stack.pop()
            i = e.get_id()
            if i in self._cache:
                continue
            self._cache[i] = True
            if self._is_nonlinear(e):
                if i not in self._vars:
                    self._vars[i] = (e, z3.FreshConst(e.sort(), "nl"))
                # the operands keep their own structure, so abstract inside too
            stack.extend(unseen_children(e, self._cache))

    def apply(self, formulas: list) -> list:
        self._collect(formulas)
        if not self._vars:
            return list(formulas)
        return substitute_all(formulas, list(self._vars.values()))


def substitute_all(formulas: list, pairs: list) -> list:
    """`z3.substitute(f, *pairs)` for each f, the pair arrays built once
    (`z3.substitute` checks and copies every pair for every formula: with
    hundreds of pairs that was most of an abstraction's cost). Every pair's
    two sides have the same sort (the fresh variable is made of its term's
    sort)."""
    n = len(pairs)
    src, dst = (z3.Ast * n)(), (z3.Ast * n)()
    for i, (t, v) in enumerate(pairs):
        src[i], dst[i] = t.as_ast(), v.as_ast()
    out = []
    for f in formulas:
        ctx = f.ctx
        out.append(_to_expr_ref(z3.Z3_substitute(ctx.ref(), f.as_ast(), n, src, dst), ctx))
    return out
