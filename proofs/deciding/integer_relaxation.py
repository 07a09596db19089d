"""Linear bit-vector queries decided by linear integer arithmetic.

Proving `start + i*w + j < n` from `start <= n - w*h`, `i*w <= w*h - w` and
`j < w` costs bit-blasting millions of units (the adders' carries) and
linear integer arithmetic a few thousand. `relax` writes a bit-vector
formula over Int terms, one per bit-vector term, standing for its unsigned
value:

- exactly, for the linear operators: `bvadd`/`bvsub`/`bvneg` and `bvmul` by a
  constant (the integer result less a multiple of 2**n, the multiple a
  fresh bounded Int), unsigned and signed comparisons (the signed value is
  `u - 2**n` when the top bit is set), sign and zero extension, extract and
  concat (division and remainder by powers of two), shifts by a constant,
  `bvudiv`/`bvurem` by a nonzero constant, `and` with a low-bit mask,
  `if-then-else`, equalities and the Boolean connectives;
- by a fresh variable (an Int in [0, 2**n), or a Bool) for every other term,
  which leaves its value unconstrained.

Invariant (an over-approximation): every model of the bit-vector formulas
extends to a model of the relaxed ones (give each variable and fresh term
its term's unsigned value, each multiple the quotient the wrap took), so
`unsat` of the relaxation is `unsat` of the original; `sat` means nothing,
and its models are never used. The same term (by z3 identity) is always
relaxed to the same Int, so equal terms stay equal."""
from __future__ import annotations

import z3

from verikern.encoders.smt.terms import unseen_children

#: Boolean connectives relaxed operand by operand.
_CONNECTIVES = {
    z3.Z3_OP_AND: lambda a: z3.And(*a), z3.Z3_OP_OR: lambda a: z3.Or(*a),
    z3.Z3_OP_NOT: lambda a: z3.Not(a[0]), z3.Z3_OP_IMPLIES: lambda a: z3.Implies(a[0], a[1]),
    z3.Z3_OP_XOR: lambda a: z3.Xor(a[0], a[1]),
}
_UNSIGNED = {
    z3.Z3_OP_ULEQ: lambda x, y: x <= y, z3.Z3_OP_ULT: lambda x, y: x < y,
    z3.Z3_OP_UGEQ: lambda x, y: x >= y, z3.Z3_OP_UGT: lambda x, y: x > y,
}
_SIGNED = {
    z3.Z3_OP_SLEQ: z3.Z3_OP_ULEQ, z3.Z3_OP_SLT: z3.Z3_OP_ULT,
    z3.Z3_OP_SGEQ: z3.Z3_OP_UGEQ, z3.Z3_OP_SGT: z3.Z3_OP_UGT,
}


#: Relaxation wins after which a context relaxes its abstract queries first.
RELAXATION_FIRST_AFTER = 2


class IntegerRelaxation:
    """One relaxation context: the Int for every bit-vector term relaxed so
    far (by z3 id; the terms are kept alive) and the side constraints that
    define the fresh Ints (ranges and wrap multiples)."""

    def __init__(self) -> None:
        self._done: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
        self.side: list[z3.BoolRef] = []
        #: how it fared against the first bit-blasted attempt of this context's
        #: abstract queries (proofs.deciding.solving: which of the two goes first)
        self.wins = 0       # unsat where that attempt was undecided, or asked before it
        self.misses = 0     # asked first, not unsat, where that attempt then was

    @property
    def goes_first(self) -> bool:
        """Whether the next abstract query of this context is relaxed before it
        is bit-blasted: once the relaxation has proved RELAXATION_FIRST_AFTER
        queries the first bit-blasted attempt left undecided, and more than it
        missed since (a kernel whose loop bodies are linear sums over lengths
        and offsets: every such query costs half a million units bit-blasted
        first and tens of thousands relaxed). Only the order of two
        over-approximations changes: an answer is still `unsat` of one of them."""
        return self.wins >= RELAXATION_FIRST_AFTER and self.wins > self.misses

    def relax(self, formulas) -> list[z3.BoolRef]:
        """The relaxed formulas followed by every side constraint made so far.

        One instance may relax many queries over the same terms (each term
        is walked once): the side constraints of terms another query made
        only define fresh Ints of terms over constants of their own, which
        any model of this query extends to, so keeping them is still an
        over-approximation."""
        out = [self._term(f) for f in formulas]
        return out + list(self.side)

    # -- fresh terms (z3 names them apart from every other constant) -------
    def _ranged(self, width: int, what: str = "lia!t") -> z3.ArithRef:
        v = z3.FreshInt(what)
        self.side.append(z3.And(v >= 0, v < 2 ** width))
        return v

    def _wrapped(self, value: z3.ArithRef, width: int, low: int, high: int) -> z3.ArithRef:
        """`value` mod 2**width, given `low * 2**width <= value < (high + 1) * 2**width`."""
        r = self._ranged(width, "lia!r")
        k = z3.FreshInt("lia!k")
        self.side.append(z3.And(r == value - k * 2 ** width, k >= low, k <= high))
        return r

    @staticmethod
    def _signed(u: z3.ArithRef, width: int) -> z3.ArithRef:
        return z3.If(u >= 2 ** (width - 1), u - 2 ** width, u)

    def _unsigned(self, s: z3.ArithRef, width: int) -> z3.ArithRef:
        return z3.If(s < 0, s + 2 ** width, s)

    # -- the walk --------------------------------------------------------
    def _term(self, root: z3.ExprRef) -> z3.ExprRef:
        """Post-order over `root` (iterative: formulas are deep)."""
        stack = [(root, False)]
        while stack:
            e, expanded = stack.pop()
            i = e.get_id()
            if i in self._done:
                continue
            if not expanded and self._descends(e):
                stack.append((e, True))
                stack.extend((c, False) for c in unseen_children(e, self._done))
                continue
            self._done[i] = (e, self._node(e))
        return self._done[root.get_id()][1]

    @staticmethod
    def _descends(e: z3.ExprRef) -> bool:
        return z3.is_app(e) and e.num_args() > 0 and (z3.is_bool(e) or z3.is_bv(e))

    def _arg(self, e: z3.ExprRef, k: int) -> z3.ExprRef:
        return self._done[e.arg(k).get_id()][1]

    def _opaque(self, e: z3.ExprRef) -> z3.ExprRef:
        if z3.is_bool(e):
            return z3.FreshBool("lia!b")
        return self._ranged(e.size()) if z3.is_bv(e) else z3.FreshConst(e.sort(), "lia!o")

    def _node(self, e: z3.ExprRef) -> z3.ExprRef:
        if z3.is_true(e) or z3.is_false(e):
            return z3.BoolVal(z3.is_true(e))
        if z3.is_bv_value(e):
            return z3.IntVal(e.as_long())
        if not z3.is_app(e) or z3.is_quantifier(e) or not (z3.is_bool(e) or z3.is_bv(e)):
            return self._opaque(e)
        k = e.decl().kind()
        if e.num_args() == 0:
            if k != z3.Z3_OP_UNINTERPRETED:
                return self._opaque(e)
            name = e.decl().name()       # one constant per name and sort
            if z3.is_bool(e):
                return z3.Bool(f"lia.{name}")
            v = z3.Int(f"lia.{name}.{e.size()}")
            self.side.append(z3.And(v >= 0, v < 2 ** e.size()))
            return v
        args = [self._arg(e, j) for j in range(e.num_args())]
        if k in _CONNECTIVES:
            return _CONNECTIVES[k](args)
        if k in (z3.Z3_OP_EQ, z3.Z3_OP_IFF):
            if not all(z3.is_bool(c) or z3.is_bv(c) for c in e.children()):
                return self._opaque(e)
            return args[0] == args[1]
        if k == z3.Z3_OP_DISTINCT:
            if not all(z3.is_bool(c) or z3.is_bv(c) for c in e.children()):
                return self._opaque(e)
            return z3.Distinct(*args)
        if k == z3.Z3_OP_ITE:
            return z3.If(args[0], args[1], args[2])
        if k in _UNSIGNED:
            return _UNSIGNED[k](args[0], args[1])
        if k in _SIGNED:
            n = e.arg(0).size()
            return _UNSIGNED[_SIGNED[k]](self._signed(args[0], n), self._signed(args[1], n))
        if z3.is_bv(e):
            value = self._bitvector(e, k, args)
            if value is not None:
                return value
        return self._opaque(e)

    def _bitvector(self, e: z3.BitVecRef, k: int, args: list) -> z3.ExprRef | None:
        """The exact Int of a bit-vector operator, or None (then opaque)."""
        n = e.size()
        if k == z3.Z3_OP_BADD:
            return self._wrapped(z3.Sum(*args), n, 0, len(args) - 1)
        if k == z3.Z3_OP_BSUB:
            return self._wrapped(args[0] - args[1], n, -1, 0)
        if k == z3.Z3_OP_BNEG:
            return self._wrapped(-args[0], n, -1, 0)
        if k == z3.Z3_OP_BNOT:
            return (2 ** n - 1) - args[0]
        if k == z3.Z3_OP_BMUL:
            return self._product(e, args, n)
        if k == z3.Z3_OP_ZERO_EXT:
            return args[0]
        if k == z3.Z3_OP_SIGN_EXT:
            m = e.arg(0).size()
            return z3.If(args[0] >= 2 ** (m - 1), args[0] + (2 ** n - 2 ** m), args[0])
        if k == z3.Z3_OP_EXTRACT:
            hi, lo = e.params()
            if lo == 0 and hi == e.arg(0).size() - 1:
                return args[0]
            return (args[0] / 2 ** lo) % 2 ** (hi - lo + 1)
        if k == z3.Z3_OP_CONCAT:
            value = args[0]
            for j in range(1, len(args)):
                value = value * 2 ** e.arg(j).size() + args[j]
            return value
        return self._by_constant(e, k, args, n)

    def _product(self, e: z3.BitVecRef, args: list, n: int) -> z3.ExprRef | None:
        consts = [c.as_long() for c in e.children() if z3.is_bv_value(c)]
        others = [a for c, a in zip(e.children(), args) if not z3.is_bv_value(c)]
        if len(others) > 1:
            return None
        factor = 1
        for c in consts:
            factor = factor * c % 2 ** n
        if not others:
            return z3.IntVal(factor)
        if factor == 0:
            return z3.IntVal(0)
        return self._wrapped(others[0] * factor, n, 0, factor - 1)

    def _by_constant(self, e: z3.BitVecRef, k: int, args: list, n: int) -> z3.ExprRef | None:
        """Shifts, unsigned division and masks whose second operand is a literal."""
        if e.num_args() != 2 or not z3.is_bv_value(e.arg(1)):
            return None
        c = e.arg(1).as_long()
        if k == z3.Z3_OP_BSHL:
            return z3.IntVal(0) if c >= n else self._wrapped(args[0] * 2 ** c, n, 0, 2 ** c - 1)
        if k == z3.Z3_OP_BLSHR:
            return z3.IntVal(0) if c >= n else args[0] / 2 ** c
        if k == z3.Z3_OP_BASHR:
            shifted = self._signed(args[0], n) / 2 ** min(c, n)    # floor division by 2**c
            return self._unsigned(shifted, n)
        if c != 0 and k in (z3.Z3_OP_BUDIV, z3.Z3_OP_BUDIV_I):
            return args[0] / c
        if c != 0 and k in (z3.Z3_OP_BUREM, z3.Z3_OP_BUREM_I):
            return args[0] % c
        if k == z3.Z3_OP_BAND and c & (c + 1) == 0:        # a low-bit mask 2**m - 1
            return args[0] % (c + 1)
        return None


def relax(formulas) -> list[z3.BoolRef]:
    """`formulas` relaxed to linear integer arithmetic (see module docstring)."""
    return IntegerRelaxation().relax(formulas)


__all__ = ["IntegerRelaxation", "relax"]
