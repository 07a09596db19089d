"""Literal bounds of products of bounded terms, stated as facts on the very
terms the encoder builds so that they survive the nonlinear abstraction
(encoders/smt/abstraction.py): `(cz * n + cy) * n + cx` against a contract
`cells.shape[0] == n * n * n` with `n <= 1024` needs `n * n * n` not to wrap,
which the abstraction (n * n a fresh variable) cannot see, and the exact
query pays a multiplier circuit per product to see it.

The fact for a product `a * b` (both operands non-literal, n bits):

    0 <= a <= A  and  0 <= b <= B  =>  a * b without signed overflow
                                        and 0 <= a * b <= A * B

for literal bounds A, B >= 0 with A * B <= 2**(n-1) - 1. As integers
0 <= a*b <= A*B < 2**(n-1), so the n-bit product equals the integer one and
is nonnegative: a theorem of bit-vector arithmetic whatever A and B are
(tests/proofs/test_product_bounds.py proves instances at 8 bits). The bounds
are only candidates: every literal `x <= c` / `x < c` (either side, signed or
unsigned) met in the formulas proposes `c` (or `c - 1`) for `x`, a product
given a fact proposes `A * B` for itself (so `n * n * n` is bounded through
`n * n`), and a sign or zero extension of `x` takes `x`'s. Where a premise does
not hold (a bound proposed by a branch condition), the fact says nothing.

Invariant: every formula returned is a theorem (it holds in every
interpretation of its free terms), so adding it changes no answer of an
exact solver.
"""
from __future__ import annotations

import z3

from .geometry import unseen_apps
from .terms import is_op

#: upper-bound candidates kept per term (the smallest ones): a premise a
#: branch proposes may not hold where the product is used
BOUNDS_PER_TERM = 2

_UPPER = {   # comparison kind -> (index of the bounded operand, offset of the literal)
    z3.Z3_OP_SLEQ: (0, 0), z3.Z3_OP_SLT: (0, -1), z3.Z3_OP_SGEQ: (1, 0), z3.Z3_OP_SGT: (1, -1),
    z3.Z3_OP_ULEQ: (0, 0), z3.Z3_OP_ULT: (0, -1), z3.Z3_OP_UGEQ: (1, 0), z3.Z3_OP_UGT: (1, -1),
}


def _nonneg_literal(e: z3.ExprRef) -> int | None:
    """The value of a bit-vector literal that is nonnegative as a signed value."""
    if not z3.is_bv_value(e):
        return None
    v = e.as_signed_long()
    return v if v >= 0 else None


def _is_product(e: z3.ExprRef) -> bool:
    return is_op(e, z3.Z3_OP_BMUL) and e.num_args() == 2 and \
        not any(z3.is_bv_value(a) for a in e.children())


class ProductBounds:
    """The product-bound facts (module docstring) of every product of two
    non-literal terms met in the formulas given so far, at most MAX_FACTS
    per instance (one instance per proof context)."""

    MAX_FACTS = 64

    def __init__(self) -> None:
        self._seen: dict[int, z3.ExprRef] = {}
        self._upper: dict[int, set[int]] = {}        # term id -> proposed upper bounds
        self._derived: dict[int, list[int]] = {}     # product id -> bounds its facts state
        self._facts: list[z3.BoolRef] = []

    def _record_comparison(self, e: z3.ExprRef) -> None:
        spec = _UPPER.get(e.decl().kind()) if z3.is_app(e) else None
        if spec is None or e.num_args() != 2:
            return
        side, offset = spec
        term, lit = e.arg(side), _nonneg_literal(e.arg(1 - side))
        if lit is None or z3.is_bv_value(term) or lit + offset < 0:
            return
        self._upper.setdefault(term.get_id(), set()).add(lit + offset)

    def _bounds(self, e: z3.ExprRef) -> list[int]:
        """Upper-bound candidates of `e`, smallest first."""
        lit = _nonneg_literal(e)
        if lit is not None:
            return [lit]
        out = set(self._upper.get(e.get_id(), ()))
        if is_op(e, z3.Z3_OP_SIGN_EXT) or is_op(e, z3.Z3_OP_ZERO_EXT):
            out |= set(self._bounds(e.arg(0)))
        elif _is_product(e):
            out |= set(self._product(e))
        return sorted(out)[:BOUNDS_PER_TERM]

    def _product(self, p: z3.ExprRef) -> list[int]:
        """State the facts of `p = a * b` (once) and return the bounds they give."""
        done = self._derived.get(p.get_id())
        if done is not None:
            return done
        self._derived[p.get_id()] = []     # no cycles in a term DAG; a guard all the same
        a, b = p.children()
        limit = (1 << (p.size() - 1)) - 1
        zero = z3.BitVecVal(0, p.size())
        out = []
        for ba in self._bounds(a):
            for bb in self._bounds(b):
                if ba * bb > limit or len(self._facts) >= self.MAX_FACTS:
                    continue
                big_a, big_b = z3.BitVecVal(ba, p.size()), z3.BitVecVal(bb, p.size())
                self._facts.append(z3.Implies(
                    z3.And(a >= zero, a <= big_a, b >= zero, b <= big_b),
                    z3.And(z3.BVMulNoOverflow(a, b, signed=True), p >= zero,
                           p <= z3.BitVecVal(ba * bb, p.size()))))
                out.append(ba * bb)
        self._derived[p.get_id()] = sorted(set(out))
        return self._derived[p.get_id()]

    def for_formulas(self, formulas) -> list[z3.BoolRef]:
        """The facts of every product in `formulas` (and in every formula
        given before)."""
        new = list(unseen_apps(formulas, self._seen))
        for e in new:
            self._record_comparison(e)
        for e in new:
            if _is_product(e):
                self._product(e)
        return list(self._facts)
