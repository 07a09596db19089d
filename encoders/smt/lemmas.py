"""Instances of remainder theorems that bit-blasting cannot find on its own.

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

import z3

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
    if z3.is_app_of(n, z3.Z3_OP_BADD) and n.num_args() == 2:
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
            stack.extend(e.children())
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
