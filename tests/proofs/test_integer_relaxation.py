"""The integer relaxation of bit-vector queries (proofs.deciding.
integer_relaxation): it must over-approximate (a satisfiable bit-vector
formula never relaxes to an unsatisfiable one, or a proof would be false)
and, on the operators it models exactly, agree with bit-vector semantics
value for value. The reference is z3's own bit-vector evaluation of each
term on every assignment of two 4-bit variables."""
from __future__ import annotations

import itertools
import logging
import os
import random
import sys

import pytest
import z3

from verikern.proofs.deciding.budget import MEGA
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.integer_relaxation import IntegerRelaxation, relax
from verikern.proofs.deciding.solving import relaxed_unsat
from verikern.proofs.obligations import ObligationKind

sys.path.insert(0, os.path.dirname(__file__))
from prover_helpers import prove_src, prove_src_only  # noqa: E402

W = 4

#: operators modelled exactly, as builders over two operands
EXACT = [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: -a, lambda a, b: ~a,
    lambda a, b: a * 3, lambda a, b: a * 15, lambda a, b: a + b + 7,
    lambda a, b: a << 1, lambda a, b: a << 5, lambda a, b: z3.LShR(a, 2), lambda a, b: a >> 1,
    lambda a, b: a >> 3, lambda a, b: z3.UDiv(a, 3), lambda a, b: z3.URem(a, 5),
    lambda a, b: a & 3, lambda a, b: z3.If(z3.ULT(a, b), a, b), lambda a, b: z3.If(a < b, b, a),
    lambda a, b: z3.Extract(3, 0, z3.SignExt(4, a) + z3.ZeroExt(4, b)),
    lambda a, b: z3.Extract(3, 0, z3.Concat(z3.Extract(1, 0, a), z3.Extract(3, 2, b))),
    lambda a, b: z3.Extract(3, 0, z3.SignExt(3, a) >> 2),
]
#: operators the relaxation leaves opaque
OPAQUE = [lambda a, b: a * b, lambda a, b: a ^ b, lambda a, b: a | b, lambda a, b: a / b,
          lambda a, b: z3.SRem(a, b), lambda a, b: a << b, lambda a, b: a & 5]


def _variables():
    """x and y, made in the current z3 context (other tests replace it)."""
    return z3.BitVecs("x y", W)


def _random_term(rng: random.Random, ops, depth: int) -> z3.BitVecRef:
    if depth == 0:
        return rng.choice([*_variables(), z3.BitVecVal(rng.randrange(16), W)])
    return rng.choice(ops)(_random_term(rng, ops, depth - 1), _random_term(rng, ops, depth - 1))


def _random_atom(rng: random.Random, ops, depth: int) -> z3.BoolRef:
    a, b = _random_term(rng, ops, depth), _random_term(rng, ops, depth)
    return rng.choice([a == b, a != b, a < b, a <= b, a > b, a >= b, z3.ULT(a, b),
                       z3.ULE(a, b), z3.UGT(a, b), z3.UGE(a, b)])


def _sat(formulas) -> z3.CheckSatResult:
    s = z3.Solver()
    s.set("rlimit", 5 * MEGA)
    s.add(*formulas)
    return s.check()


CORNERS = [(a, b) for a, b in itertools.product((0, 1, 7, 8, 15), repeat=2)]


@pytest.mark.parametrize("seed", range(3))
def test_exact_operators_relax_to_their_unsigned_value(seed):
    """For random terms over the exact operators and assignments (every
    pair of corner values, and random ones): the relaxation admits the true
    value and no other."""
    rng = random.Random(seed)
    X, Y = _variables()
    for _ in range(4):
        t = _random_term(rng, EXACT, 2)
        for xv, yv in CORNERS + [(rng.randrange(16), rng.randrange(16)) for _ in range(6)]:
            fixed = [X == xv, Y == yv]
            value = z3.simplify(z3.substitute(t, (X, z3.BitVecVal(xv, W)),
                                              (Y, z3.BitVecVal(yv, W)))).as_long()
            assert _sat(relax(fixed + [t == value])) == z3.sat, (t, xv, yv, value)
            assert _sat(relax(fixed + [t != value])) == z3.unsat, (t, xv, yv, value)


def test_relaxation_never_refutes_a_satisfiable_formula():
    """Random conjunctions mixing exact and opaque operators: whenever the
    bit-vector formula is satisfiable, so is its relaxation; and whenever the
    relaxation is unsatisfiable the formula is (the direction a proof uses)."""
    rng = random.Random(100)
    refuted = 0
    for _ in range(60):
        f = [_random_atom(rng, EXACT + OPAQUE, 2) for _ in range(rng.randrange(1, 4))]
        bv, lia = _sat(f), _sat(relax(f))
        assert not (bv == z3.sat and lia == z3.unsat), f
        refuted += lia == z3.unsat
    assert refuted >= 3          # the property was exercised, not vacuously true


def test_signed_wrap_is_not_lost():
    """`x + 1 > x` fails in bit-vectors at the largest signed value; a
    relaxation that forgot the wrap would call its negation unsatisfiable."""
    x = z3.BitVec("x", 32)
    assert _sat(relax([z3.Not(x + 1 > x)])) == z3.sat
    assert _sat(relax([z3.Not(z3.Implies(x < 100, x + 1 > x))])) == z3.unsat


def test_same_name_different_width_are_different_constants():
    a8, a16 = z3.BitVec("a", 8), z3.BitVec("a", 16)
    # a8 == 200 and a16 == 300 is satisfiable: two different constants
    assert _sat(relax([a8 == 200, a16 == 300])) == z3.sat


def test_flat_index_with_offset_is_linear_there():
    """The proof of `start + i*w + j < n` from `start <= n - w*h`,
    `0 <= i*w <= w*h - w` and `0 <= j < w` (products as opaque terms, as the
    nonlinear abstraction leaves them): a few thousand units relaxed; the
    same query bit-blasted needs millions (recorded in docs/PROVER.md)."""
    start, iw, j, w, wh, n = z3.BitVecs("start iw j w wh n", 32)
    facts = [start >= 0, start <= n - wh, n >= 0, wh >= 1, z3.ULT(wh, 2 ** 31),
             iw >= 0, iw <= wh - w, j >= 0, j < w]
    idx = start + iw + j
    budget = SolverSession()
    assert relaxed_unsat(budget, facts + [z3.Or(idx < 0, idx >= n)], "t", IntegerRelaxation())
    # without the offset bound the index can leave the array: never unsat
    assert not relaxed_unsat(budget, facts[1:] + [z3.Or(idx < 0, idx >= n)], "t",
                             IntegerRelaxation())


def test_one_relaxation_serves_many_queries():
    """Side constraints of another query's terms never refute this one."""
    r = IntegerRelaxation()
    x, y = z3.BitVecs("x y", 8)
    assert _sat(r.relax([x + y == 3, x * 5 == 1])) == z3.sat
    assert _sat(r.relax([x - y == 250])) == z3.sat
    assert _sat(r.relax([x + y == 3, x - y == 1, z3.ULT(x, 10)])) == z3.sat   # x = 2, y = 1


RAYS = """
@vk.kernel
def fill_rays(rays: vk.array(dtype=vk.float32), start: vk.int32, w: vk.int32):
    vk.requires(vk.launch_dim(1) == w)
    vk.requires(start >= 0 and start <= rays.shape[0] - vk.launch_dim(0) * vk.launch_dim(1){extra})
    i, j = vk.tid()
    rays[start + i * w + j] = 1.0
"""


def test_probes_come_before_the_whole_cap_retry_when_the_relaxation_is_satisfiable(caplog):
    """The off-by-one room: the quick abstract attempt runs out, the
    relaxation has a model, so the concrete probes are asked next and one
    finds the failure (no whole-cap abstract retry spent first); the
    correct twin, whose relaxation is sat too, is still proved by the retry."""
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):   # its bounds alone
        obs = prove_src_only(RAYS.format(extra=" + 1"), ObligationKind.BOUNDS)
    assert [o.status.value for o in obs if o.kind.value == "bounds"] == ["failed"]
    kinds = [r.getMessage().split(": ")[0].rsplit(".", 1)[-1] for r in caplog.records
             if ".bounds@" in r.getMessage()]
    lia = kinds.index("abstract-lia")
    assert kinds[lia + 1] == "probe", kinds
    assert "abstract" not in kinds[lia:], kinds
    assert all(o.status.value == "proved" for o in prove_src(RAYS.format(extra="")))


def _flat_index_query(with_offset_bound: bool = True):
    """`start + i*w + j` leaves [0, n) (products opaque, as the nonlinear
    abstraction leaves them): unsat with `start <= n - w*h`, sat without."""
    start, iw, j, w, wh, n = z3.BitVecs("start iw j w wh n", 32)
    facts = [start >= 0, start <= n - wh, n >= 0, wh >= 1, z3.ULT(wh, 2 ** 31),
             iw >= 0, iw <= wh - w, j >= 0, j < w]
    idx = start + iw + j
    return (facts if with_offset_bound else facts[1:]) + [z3.Or(idx < 0, idx >= n)]


def test_relaxation_goes_first_once_it_has_won_twice(monkeypatch):
    """A proof context whose abstract queries the first bit-blasted attempt
    leaves undecided and the relaxation proves (a loop body of linear sums):
    after two such wins the relaxation is asked first, so a third query costs
    its relaxation only. Near misses: in that mode a satisfiable query (the
    offset bound dropped) and a signed wrap are still not proved, and a
    relaxation that misses where bit-blasting proves loses the first place."""
    from verikern.proofs.deciding import solving
    from verikern.proofs.deciding.budget import fresh_context, rlimit_count

    fresh_context()
    monkeypatch.setattr(solving, "ABSTRACT_FIRST_RLIMIT", 50)   # every bit-blasted first try undecided
    budget, relaxation = SolverSession(per_check=2 * MEGA), IntegerRelaxation()
    for _ in range(2):
        assert not relaxation.goes_first
        proved, _, _ = solving._abstract_quick(budget, _flat_index_query(), None, relaxation, "t.")
        assert proved is True
    assert relaxation.wins == 2 and relaxation.goes_first
    start = rlimit_count()
    proved, solver, _ = solving._abstract_quick(budget, _flat_index_query(), None, relaxation, "t.")
    assert proved is True and solver is None          # no bit-blasted attempt was made
    assert relaxation.wins == 3
    assert rlimit_count() - start < 200_000
    # near misses, relaxed first: not proved
    proved, _, likely_sat = solving._abstract_quick(budget, _flat_index_query(False), None, relaxation, "t.")
    assert proved is not True and likely_sat
    x = z3.BitVec("x", 32)
    proved, _, _ = solving._abstract_quick(budget, [z3.Not(x + 1 > x)], None, relaxation, "t.")
    assert proved is not True
    # bit-blasting proves what the relaxation (first) does not: a miss each, until
    # the misses catch up with the wins and bit-blasting goes first again
    monkeypatch.setattr(solving, "ABSTRACT_FIRST_RLIMIT", MEGA // 2)
    y = z3.BitVec("y", 8)
    nonlinear = [y * y == 2]                      # no 8-bit square is 2; the relaxation cannot see it
    while relaxation.goes_first:
        misses = relaxation.misses
        proved, solver, _ = solving._abstract_quick(budget, nonlinear, None, relaxation, "t.")
        assert proved is True and relaxation.misses == misses + 1
    proved, solver, _ = solving._abstract_quick(budget, nonlinear, None, relaxation, "t.")
    assert proved is True and solver is not None
