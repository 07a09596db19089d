"""encoders/smt/terms.py: `unseen_children` is `e.children()` without the
children already seen, so the prover's term walks visit the same terms in
the same order as with `e.children()` (the facts they build, and so every
verdict, cannot change)."""
from __future__ import annotations

import random

import z3

from verikern.encoders.smt import geometry
from verikern.encoders.smt.geometry import unseen_apps
from verikern.encoders.smt.terms import is_op, unseen_children


def _random_dag(seed: int, size: int = 300) -> list:
    r = random.Random(seed)
    x, y, n = z3.BitVecs("x y n", 32)
    terms = [x, y, n, z3.BitVecVal(3, 32)]
    for _ in range(size):
        a, b = r.choice(terms), r.choice(terms)
        terms.append(r.choice([a + b, a * b, z3.UDiv(a, b), a & b, z3.If(z3.ULT(a, b), a, b)]))
    return terms


def test_unseen_children_are_the_children_not_seen_in_order_and_with_their_wrappers():
    for seed in range(3):
        terms = _random_dag(seed)
        x = z3.BitVec("x", 32)
        quantified = z3.ForAll([x], terms[-1] == terms[-2] + x)
        seen = {t.get_id() for t in random.Random(seed).sample(terms, 100)}
        for t in [*terms, quantified, quantified.body(), z3.Var(0, z3.BitVecSort(32))]:
            want = [c for c in t.children() if c.get_id() not in seen]
            got = unseen_children(t, seen)
            assert [c.get_id() for c in got] == [c.get_id() for c in want], t
            assert [type(c) for c in got] == [type(c) for c in want], t
            assert all(c.eq(w) for c, w in zip(got, want))
        assert unseen_children(terms[-1], {c.get_id() for c in terms[-1].children()}) == []


def test_a_walk_visits_the_same_terms_in_the_same_order_across_calls(monkeypatch):
    terms = _random_dag(7)
    batches = [terms[-1:], terms[-40:-20], terms[-3:]]       # shared subterms across calls
    seen_new, seen_old = {}, {}
    new = [[e.get_id() for e in unseen_apps(batch, seen_new)] for batch in batches]
    # the walk as it was written before: every child wrapped and pushed
    monkeypatch.setattr(geometry, "unseen_children", lambda e, seen: e.children())
    old = [[e.get_id() for e in unseen_apps(batch, seen_old)] for batch in batches]
    assert new == old and all(new)
    assert seen_new.keys() == seen_old.keys()


def test_is_op_answers_as_is_app_of_for_every_kind_of_term():
    """is_op reads the operator off the raw AST: the same answer as z3.is_app_of
    for products, sums, extensions, divisions, literals, constants, Booleans and
    a quantifier, whatever kind is asked."""
    x, y = z3.BitVecs("x y", 8)
    b = z3.Bool("b")
    terms = [x * y, x + y, x, z3.BitVecVal(3, 8), z3.SignExt(2, x), z3.ZeroExt(2, x), b,
             z3.And(b, b), x / y, z3.UDiv(x, y), z3.ForAll([x], x * y == y * x)]
    kinds = [z3.Z3_OP_BMUL, z3.Z3_OP_BADD, z3.Z3_OP_SIGN_EXT, z3.Z3_OP_ZERO_EXT, z3.Z3_OP_BSDIV,
             z3.Z3_OP_BSDIV_I, z3.Z3_OP_BUDIV, z3.Z3_OP_AND, z3.Z3_OP_BNUM, z3.Z3_OP_UNINTERPRETED]
    answers = [[is_op(e, k) for k in kinds] for e in terms]
    assert answers == [[z3.is_app_of(e, k) for k in kinds] for e in terms]
    assert sum(map(sum, answers)) >= 8        # each term of an operator kind says so
