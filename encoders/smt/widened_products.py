"""Narrow twins of widened products: a contract stated in int64 over int32
values (`int64(a.shape[0]) == int64(n) * int64(m)`, the sound form of a flat
length, where the int32 product could wrap to match a small shape) against
an index the kernel computes in int32 (`a[i * m + j]`, `i < n`, `j < m`).
The flat-index facts (`geometry.MonotoneProducts`) bound `i * m + j` by the
int32 product `n * m` once that product does not wrap; these facts supply
that product and tie it to the int64 one, on terms that survive the
nonlinear abstraction (encoders/smt/abstraction.py).

For a K-bit product `Q = X * Y` (both operands non-literal) whose operands
are the sign extensions of k-bit terms `x`, `y` (k < K), or K-bit products
that have such a twin themselves (`int64(n) * int64(n) * int64(n)`: the
inner product's twin is `n * n`), with `q = x * y` the k-bit twin:

- **twin**:  `X == sext(x)`, `Y == sext(y)`, `X >= 0`, `Y >= 0`, `X * Y`
  without signed K-bit overflow and `Q <= 2**(k-1) - 1`  =>  `x * y`
  without signed k-bit overflow and `sext(q) == Q`. As integers X = x >= 0,
  Y = y >= 0 and Q = x*y (no K-bit wrap: with both factors non-negative
  only overflow, never underflow, can wrap); Q below 2**(k-1) means the
  k-bit product does not wrap either and has the value Q. Every premise is explicit: a twin whose
  K-bit product wraps (`n * n * n` in int64 with n = 2**22 is 0) says
  nothing, so a wrapping contract stays failed.
- **factor below product**: `X >= 0`, `Y >= 0`, `X * Y` without signed
  K-bit overflow  =>  `(Y == 0 or X <= Q)` and `(X == 0 or Y <= Q)` (a
  non-negative integer times at least 1 is at least itself): the inner
  product of a chain is in the k-bit range when the outer one is.
- **half width**: `X * Y` without signed K-bit overflow when both are
  sign extensions from at most K/2 bits (`geometry._half_width_product`),
  stated once per such product.

Overflow of the outer K-bit products is never assumed: it comes from the
half-width fact or from literal bounds (`product_bounds.py`, `n <= 1000000`
bounds `n * n * n` below 2**60).

Invariant: every formula returned is a theorem of bit-vector arithmetic
(it holds in every interpretation of its free terms; tests/proofs/
test_widened_products.py proves each kind at small widths), so adding it to
a query changes no answer of an exact solver.
"""
from __future__ import annotations

import z3

from .geometry import _half_width_product, _no_overflow, unseen_apps
from .terms import is_op


def _is_product(e: z3.ExprRef) -> bool:
    return is_op(e, z3.Z3_OP_BMUL) and e.num_args() == 2 and \
        not any(z3.is_bv_value(a) for a in e.children())


class WidenedProducts:
    """The facts (module docstring) of every K-bit product of sign-extended
    terms (or of products with a twin) met in the formulas given so far, at
    most MAX_TWINS products per instance (one instance per proof context)."""

    MAX_TWINS = 32

    def __init__(self) -> None:
        self._seen: dict[int, z3.ExprRef] = {}
        self._twins: dict[int, z3.ExprRef] = {}    # wide term id -> its narrow twin
        self._facts: list[z3.BoolRef] = []
        self._factors: set[int] = set()            # ids of the factors of products seen
        self._pending: list[z3.ExprRef] = []       # products whose facts are not stated yet
        self._made: set[int] = set()               # ids of the twins built here

    def _twin(self, e: z3.ExprRef) -> z3.ExprRef | None:
        """The narrow term `e` may equal sign-extended: the operand of a sign
        extension, or the twin of a product (stated by a fact, not assumed)."""
        if is_op(e, z3.Z3_OP_SIGN_EXT):
            return e.arg(0)
        if _is_product(e):
            return self._product(e)
        return None

    def _product(self, p: z3.ExprRef) -> z3.ExprRef | None:
        """State the facts of the wide product `p` (once) and return its twin."""
        if p.get_id() in self._twins:
            return self._twins[p.get_id()]
        x_wide, y_wide = p.children()
        x, y = self._twin(x_wide), self._twin(y_wide)
        if x is None or y is None or x.size() != y.size() or x.size() >= p.size() \
                or len(self._twins) >= self.MAX_TWINS:
            return None
        k, big = x.size(), p.size()
        q = x * y
        self._twins[p.get_id()] = q
        self._made.add(q.get_id())
        zero = z3.BitVecVal(0, big)
        exact = _no_overflow(x_wide, y_wide)
        if _half_width_product(x_wide, y_wide):
            self._facts.append(exact)
        high = z3.BitVecVal((1 << (k - 1)) - 1, big)
        self._facts.append(z3.Implies(
            z3.And(x_wide == z3.SignExt(big - k, x), y_wide == z3.SignExt(big - k, y),
                   x_wide >= zero, y_wide >= zero, exact, p <= high),
            z3.And(_no_overflow(x, y), z3.SignExt(big - k, q) == p)))
        self._facts.append(z3.Implies(
            z3.And(x_wide >= zero, y_wide >= zero, exact),
            z3.And(z3.Or(y_wide == zero, x_wide <= p), z3.Or(x_wide == zero, y_wide <= p))))
        return q

    def _leaves(self, e: z3.ExprRef) -> list[z3.ExprRef]:
        """The narrow terms a wide product chain sign-extends."""
        if is_op(e, z3.Z3_OP_SIGN_EXT):
            return [e.arg(0)]
        if _is_product(e):
            return self._leaves(e.arg(0)) + self._leaves(e.arg(1))
        return []

    def for_formulas(self, formulas) -> list[z3.BoolRef]:
        """The facts of every wide product in `formulas` (and in every formula
        given before) one of whose extended terms is a factor of a narrow
        product there too (`m` of `i * m` for `int64(n) * int64(m)`): only
        then can a twin bound that product, and elsewhere its multiplier would
        only cost the exact query work."""
        for e in list(unseen_apps(formulas, self._seen)):
            if _is_product(e) and e.get_id() not in self._made:
                self._factors |= {a.get_id() for a in e.children()}
                self._pending.append(e)
        waiting = []
        for e in self._pending:
            if any(x.get_id() in self._factors for x in self._leaves(e)):
                self._product(e)
            else:
                waiting.append(e)
        self._pending = waiting
        return list(self._facts)
