"""Instances of remainder theorems that bit-blasting cannot find on its own.

Invariant: every formula `RemainderLemmas.for_formulas` returns is a theorem
of bit-vector arithmetic about remainder terms (`bvsrem` / `bvurem` by a
non-constant divisor) occurring in the given formulas, so adding it to any
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


def _remainder_terms(root: z3.ExprRef, seen: set[int]) -> list[z3.ExprRef]:
    """Remainders by a non-constant divisor inside `root` (iterative walk)."""
    out, stack = [], [root]
    while stack:
        e = stack.pop()
        i = e.get_id()
        if i in seen or not z3.is_app(e):
            continue
        seen.add(i)
        if e.decl().kind() in _REMAINDERS and not z3.is_bv_value(e.arg(1)):
            out.append(e)
        stack.extend(e.children())
    return out


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
    """Lemma instances for the remainder terms of formulas (cached per formula)."""

    def __init__(self):
        self._terms: dict[int, tuple[z3.ExprRef, list[z3.ExprRef]]] = {}
        self._single: dict[int, tuple[list, list]] = {}

    def _terms_of(self, f: z3.ExprRef) -> list[z3.ExprRef]:
        hit = self._terms.get(f.get_id())
        if hit is None:
            hit = self._terms[f.get_id()] = (f, _remainder_terms(f, set()))
        return hit[1]

    def for_formulas(self, formulas) -> list[z3.BoolRef]:
        terms: dict[int, z3.ExprRef] = {}
        for f in formulas:
            for r in self._terms_of(f):
                terms.setdefault(r.get_id(), r)
        if not terms:
            return []
        out = []
        for r in list(terms.values()):
            hit = self._single.get(r.get_id())
            if hit is None:
                hit = self._single[r.get_id()] = (*_single_lemmas(r), r)
            out += hit[0]
            for extra in hit[1]:
                terms.setdefault(extra.get_id(), extra)
        rems = list(terms.values())
        for i, r1 in enumerate(rems):
            for r2 in rems[i + 1:]:
                if r1.decl().kind() == r2.decl().kind() and r1.arg(1).eq(r2.arg(1)) \
                        and r1.arg(0).sort() == r2.arg(0).sort():
                    out.append(z3.Implies(r1.arg(0) == r2.arg(0), r1 == r2))
        return out
