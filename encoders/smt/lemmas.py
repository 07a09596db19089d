"""Instances of arithmetic theorems that bit-blasting finds slowly or not at all.

Per MIR instruction (stated by the encoder on the very terms it builds, so
they survive the nonlinear abstraction): the range of a division or
remainder, products of half-width factors that cannot wrap, the narrow
product inside a widened one, nested remainders, and equal quotient and
remainder meaning equal dividends across two thread copies.

Per formula (`RemainderLemmas`):

Invariant: every formula `RemainderLemmas.for_formulas` returns is a theorem
of bit-vector arithmetic about remainder terms (`bvsrem` / `bvurem` by a
non-constant divisor) occurring in formulas given to it, so adding it to any
query changes no answer of an exact solver. They matter for the nonlinear
abstraction (which replaces each remainder by a fresh variable) and for
64-bit remainders that z3 times out on:

- identity:    0 <= n < d                    =>  n % d == n
- shift:       n == x + d, no overflow, ...  =>  n % d == x % d
- congruence:  n1 == n2 (same divisor)       =>  n1 % d == n2 % d
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import z3

from verikern.mir.nodes import Cast, Const, Value

from .terms import is_op, unseen_children

if TYPE_CHECKING:                     # the encoder imports this module
    from .encoder import ThreadEncoding

_REMAINDERS = {z3.Z3_OP_BSREM, z3.Z3_OP_BUREM, z3.Z3_OP_BSREM_I, z3.Z3_OP_BUREM_I}
_SIGNED = {z3.Z3_OP_BSREM, z3.Z3_OP_BSREM_I}


def _rem(signed: bool, n, d):
    return z3.SRem(n, d) if signed else z3.URem(n, d)


def _single_lemmas(r: z3.ExprRef) -> tuple[list[z3.BoolRef], list[z3.ExprRef]]:
    """Identity and shift lemmas of one remainder term, and the new
    remainder terms the shift lemma mentions."""
    signed = r.decl().kind() in _SIGNED
    n, d = r.arg(0), r.arg(1)
    zero = z3.BitVecVal(0, n.size())
    lemmas, new = [], []
    if signed:
        lemmas.append(z3.Implies(z3.And(n >= zero, n < d), r == n))
    else:
        lemmas.append(z3.Implies(z3.ULT(n, d), r == n))
    if is_op(n, z3.Z3_OP_BADD) and n.num_args() == 2:
        for x, y in ((n.arg(0), n.arg(1)), (n.arg(1), n.arg(0))):
            if not y.eq(d):
                continue
            base = _rem(signed, x, d)
            new.append(base)
            if signed:
                guard = z3.And(x >= zero, d > zero, z3.BVAddNoOverflow(x, d, True))
            else:
                guard = z3.And(d != zero, z3.BVAddNoOverflow(x, d, False))
            lemmas.append(z3.Implies(guard, r == base))
            break
    return lemmas, new


class RemainderLemmas:
    """Lemma instances for every remainder term met so far.

    One instance serves one proof context: each formula node is walked once
    (nodes are kept alive, so z3 ids stay unique), and `for_formulas` returns
    the lemmas of every remainder term seen in any formula given so far -- a
    superset of those the current formulas need, all of them theorems."""

    def __init__(self):
        self._seen: dict[int, z3.ExprRef] = {}
        self._terms: dict[int, z3.ExprRef] = {}
        self._lemmas: list[z3.BoolRef] = []

    def _walk(self, root: z3.ExprRef) -> list[z3.ExprRef]:
        found, stack = [], [root]
        while stack:
            e = stack.pop()
            i = e.get_id()
            if i in self._seen or not z3.is_app(e):
                continue
            self._seen[i] = e
            if e.decl().kind() in _REMAINDERS and not z3.is_bv_value(e.arg(1)):
                found.append(e)
            stack.extend(unseen_children(e, self._seen))
        return found

    def _add(self, r: z3.ExprRef) -> None:
        if r.get_id() in self._terms:
            return
        self._seen.setdefault(r.get_id(), r)
        single, extra = _single_lemmas(r)
        for other in self._terms.values():
            if r.decl().kind() == other.decl().kind() and r.arg(1).eq(other.arg(1)) \
                    and r.arg(0).sort() == other.arg(0).sort():
                self._lemmas.append(z3.Implies(r.arg(0) == other.arg(0), r == other))
        self._terms[r.get_id()] = r
        self._lemmas += single
        for e in extra:
            self._add(e)

    def for_formulas(self, formulas) -> list[z3.BoolRef]:
        for f in formulas:
            for r in self._walk(f):
                self._add(r)
        return list(self._lemmas)


# ------------------------------------------------------ per-instruction lemmas
def _value_bits(enc, op) -> int | None:
    """Bits the operand's value really needs: the source width of a widening
    cast, or the width of a literal; None when it may use its whole type."""
    if isinstance(op, Const):
        if int(op.value) < 0 and not op.type.is_signed:
            return None
        return max(1, abs(int(op.value)).bit_length() + 1)
    ins = enc.shape.defining.get(op.id)
    if isinstance(ins, Cast) and ins.operand.type.is_int and \
            ins.operand.type.bits < ins.result.type.bits:
        if ins.operand.type.is_signed and not ins.result.type.is_signed:
            return None             # sign-extended into an unsigned type: may be huge
        return ins.operand.type.bits + (0 if ins.operand.type.is_signed else 1)
    return None


def widening_product_lemmas(enc, ins, a, b, r, t) -> list:
    """A product of two values that fit in half the width cannot wrap: it is
    non-negative (positive) when both factors are, and bounded (true theorems
    that survive the nonlinear abstraction)."""
    ba, bb = _value_bits(enc, ins.lhs), _value_bits(enc, ins.rhs)
    if ba is None or bb is None:
        return []
    magnitude = (ba - 1) + (bb - 1)          # |a| < 2**(ba-1), |b| < 2**(bb-1)
    if magnitude > t.bits - (1 if t.is_signed else 0):
        return []
    zero = z3.BitVecVal(0, t.bits)
    limit = z3.BitVecVal((1 << magnitude) - 1, t.bits)
    out = _narrow_product_lemma(enc, ins, r)
    if not t.is_signed:
        return out + [z3.ULE(r, limit), z3.Implies(z3.And(a != zero, b != zero), r != zero)]
    return out + [z3.Implies(z3.And(a >= zero, b >= zero), z3.And(r >= zero, r <= limit)),
                  z3.Implies(z3.And(a > zero, b > zero), r > zero)]


def _narrow_product_lemma(enc, ins, r) -> list:
    """The low w bits of a product of two values widened from w-bit integers
    are the w-bit product of the originals (multiplication is compatible with
    reduction mod 2**w), e.g. int64(g) * int64(b) restates g * b of the launch."""
    narrow = []
    for op in (ins.lhs, ins.rhs):
        d = enc.shape.defining.get(op.id) if isinstance(op, Value) else None
        if not (isinstance(d, Cast) and d.operand.type.is_int and
                d.operand.type.bits < d.result.type.bits):
            return []
        narrow.append(d.operand)
    w = narrow[0].type.bits
    if narrow[1].type.bits != w:
        return []
    return [z3.Extract(w - 1, 0, r) == enc.term(narrow[0]) * enc.term(narrow[1])]


def division_lemmas(op: str, a, b, r, t) -> list:
    """Theorems about one division/remainder result that bit-blasting finds
    slowly (they restate its range, nothing more). Each is guarded by a
    non-zero divisor: z3 gives division by zero its own values, and a lemma
    must never exclude them (the div-zero obligation asks for exactly that)."""
    zero = z3.BitVecVal(0, t.bits)
    if not t.is_signed:
        if op == "mod":
            return [z3.Implies(b != zero, z3.And(z3.ULT(r, b), z3.ULE(r, a)))]
        return [z3.Implies(b != zero, z3.ULE(r, a))]
    pos = z3.And(a >= zero, b > zero)
    if op == "mod":
        return [z3.Implies(pos, z3.And(r >= zero, r < b))]
    return [z3.Implies(pos, z3.And(r >= zero, r <= a))]


def nested_mod_lemma(a, m, k, r, t):
    """(a % m) % k == a % k when k divides m (a >= 0, m, k > 0): a theorem that
    keeps, e.g., (tid % D1) % 256 == tid % 256 under the nonlinear abstraction."""
    zero = z3.BitVecVal(0, t.bits)
    if t.is_signed:
        guard = z3.And(a >= zero, m > zero, k > zero, z3.SRem(m, k) == zero)
        return z3.Implies(guard, r == z3.SRem(a, k))
    guard = z3.And(m != zero, k != zero, z3.URem(m, k) == zero)
    return z3.Implies(guard, r == z3.URem(a, k))


def divmod_lemmas(e1: "ThreadEncoding", e2: "ThreadEncoding") -> list:
    """n == q*d + r: equal quotients and remainders by one positive divisor
    mean equal non-negative dividends (for each div/mod pair on the same operands)."""
    out = []
    for key, (n1, d1, q1, r1, t) in e1.divmods.items():
        other = e2.divmods.get(key)
        if other is None or q1 is None or r1 is None:
            continue
        n2, d2, q2, r2, _ = other
        zero = z3.BitVecVal(0, t.bits)
        if t.is_signed:
            guard = z3.And(d1 == d2, d1 > zero, n1 >= zero, n2 >= zero, q1 == q2, r1 == r2)
        else:
            guard = z3.And(d1 == d2, d1 != zero, q1 == q2, r1 == r2)
        out.append(z3.Implies(guard, n1 == n2))
    return out
