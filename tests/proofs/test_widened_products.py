"""Narrow twins of widened products (encoders/smt/widened_products.py,
issue 27): an int64 contract `int64(a.shape[0]) == int64(n) * int64(m)`
against an int32 index `a[i * m + j]`. Each fact is a theorem, checked by
z3 at small widths (4-bit values in 8-bit products) where bit-blasting
decides it outright; a product whose wide form wraps gets no twin claim
(the near miss of an over-general lemma); and on kernels the facts prove
the int64 contracts while the near misses stay failed."""
from __future__ import annotations

import os
import sys

import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import assert_verdicts, failing, prove_src  # noqa: E402

from verikern.encoders.smt.widened_products import WidenedProducts  # noqa: E402

K, W = 4, 8           # narrow and wide widths


def _valid(f, facts=()) -> bool:
    s = z3.Solver()
    s.add(*facts, z3.Not(f))
    return s.check() == z3.unsat


def _wide(x):
    return z3.SignExt(W - K, x)


def test_the_facts_of_a_product_and_a_chain_are_theorems():
    n, m, p = z3.BitVecs("n m p", K)
    square = _wide(n) * _wide(m)
    cube = square * _wide(p)
    assert WidenedProducts().for_formulas([cube == 3, square != 1]) == []   # no narrow product
    facts = WidenedProducts().for_formulas([cube == 3, square != 1, n * p == 2])
    # the square: half width, twin, factor below product; the cube: twin and factor below
    assert len(facts) == 5, facts
    for f in facts:
        assert _valid(f), f
    narrow = (n * m) * p                     # the cube's twin, through the square's
    assert any(z3.eq(narrow, t) for f in facts for t in _subterms(f)), facts


def _subterms(f):
    todo = [f]
    while todo:
        e = todo.pop()
        yield e
        todo += e.children()


def test_the_twin_needs_the_wide_product_not_to_wrap():
    """n = 4: n*n = 16 and n*n*n = 64 fit 8 bits, n**4 = 256 wraps to 0,
    within the 4-bit range: a twin claimed without the no-overflow premise
    would say the 4-bit n*n*n*n does not wrap, which is false."""
    n = z3.BitVec("n", K)
    fourth = ((_wide(n) * _wide(n)) * _wide(n)) * _wide(n)
    facts = WidenedProducts().for_formulas([fourth == 0, n * n == 1])
    s = z3.Solver()
    s.add(*facts, n == 4, fourth == 0)
    assert s.check() == z3.sat               # the facts admit the wrapped launch
    # without the premise, "factor below product" would give n**3 <= n**4 <= 7 and
    # the twins down the chain would claim the 4-bit n*n exact: false at n = 4
    over = z3.Implies(z3.And(n >= 0, fourth <= 7), z3.BVMulNoOverflow(n, n, True))
    assert not _valid(over, facts)
    cube = (_wide(n) * _wide(n)) * _wide(n)
    wrong = z3.Implies(z3.And(cube >= 0, _wide(n) >= 0), cube <= fourth)
    assert not _valid(wrong)                 # the fact without its premise is false


def test_zero_extended_and_same_width_operands_get_no_twin():
    a, b = z3.BitVecs("a b", K)
    x, y = z3.BitVecs("x y", W)
    facts = WidenedProducts().for_formulas([z3.ZeroExt(W - K, a) * z3.ZeroExt(W - K, b) == 1,
                                            x * y == 2, a * b == 1])
    assert facts == []


FLAT2D = """
    @vk.kernel
    def fill(a: vk.array(dtype=vk.float32), n: vk.int32, m: vk.int32):
        vk.requires(vk.int64(a.shape[0]) == vk.int64(n) * vk.int64(m))
        i, j = vk.tid()
        if i < n and j < M:
            a[i * m + j] = 1.0
"""


def test_an_int32_flat_index_under_an_int64_contract_is_proved():
    assert_verdicts(prove_src(FLAT2D.replace("M", "m")), kinds={"bounds", "race"})  # unknown before


def test_a_column_past_the_row_fails():
    obs = prove_src(FLAT2D.replace("M", "m + 1"))
    assert {"bounds", "race"} <= failing(obs)


CUBE = """
    @vk.kernel
    def bin3(c: vk.array(dtype=vk.int32, ndim=2), cells: vk.array(dtype=vk.int32), n: vk.int32):
        vk.requires(n > 0 BOUND)
        vk.requires(c.shape[1] == 3)
        vk.requires(vk.int64(cells.shape[0]) == vk.int64(n) * vk.int64(n) * vk.int64(n))
        i = vk.tid()
        if i < c.shape[0]:
            x = vk.clamp(c[i, 0], 0, n - 1)
            y = vk.clamp(c[i, 1], 0, n - 1)
            z = vk.clamp(c[i, 2], 0, n - 1)
            vk.atomic_add(cells, (z * n + y) * n + x, 1)
"""


def test_a_cube_of_a_bounded_side_is_proved():
    # n <= 10**6: n**3 <= 10**18 stays below 2**63, so the int64 contract is exact
    assert_verdicts(prove_src(CUBE.replace("BOUND", "and n <= 1000000")))          # unknown before


UNFLATTEN = """
    @vk.kernel
    def unflatten(flat: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32, ndim=2),
                  rows: vk.int32, cols: vk.int32):
        vk.requires(vk.int64(flat.shape[0]) == vk.int64(rows) * vk.int64(cols))
        r, c = vk.tid()
        if r < rows and c <= cols and r < out.shape[0] and c < out.shape[1]:
            out[r, c] = flat[r * cols + c]
"""


def test_a_flat_index_bug_under_an_int64_contract_is_found_by_the_small_scalar_probe():
    """The model needs rows * cols == flat.shape[0] exactly: the exact query's
    64-bit multipliers ran out of budget (27 s) before the probe that also
    keeps the scalars and lengths small (encoders/smt/launch.py: probes); the
    probe's model is one of the exact query, and the simulator confirms it."""
    obs = prove_src(UNFLATTEN, 2)
    bad = [o for o in obs if o.kind.value == "bounds" and o.status.value == "failed"]
    assert len(bad) == 1 and "flat" in bad[0].message, [o.message for o in obs]
    cex = bad[0].counterexample
    assert all(abs(int(v)) <= 64 for v in cex.scalars.values()), cex.scalars


def test_a_cube_with_a_coordinate_clamped_to_n_fails():
    """cz clamped into [0, n]: one layer past the grid, under the same exact
    int64 contract (the 3-D near miss of the twins)."""
    obs = prove_src(CUBE.replace("BOUND", "and n <= 1024").replace("z = vk.clamp(c[i, 2], 0, n - 1)",
                                                                   "z = vk.clamp(c[i, 2], 0, n)"))
    assert failing(obs) == {"bounds"}


FLAT4D = """
    @vk.kernel
    def fill4(a: vk.array(dtype=vk.float32), n0: vk.int32, n1: vk.int32, n2: vk.int32, n3: vk.int32):
        vk.requires(n0 >= 0 and n0 <= 4096 and n1 >= 0 and n1 <= 4096)
        vk.requires(n2 >= 0 and n2 <= 4096 and n3 >= 0 and n3 <= 4096)
        vk.requires(vk.int64(a.shape[0]) == vk.int64(n0) * vk.int64(n1) * vk.int64(n2) * vk.int64(n3))
        i, j, k = vk.tid()
        if i < N0 and j < n1 and k < n2:
            for l in range(n3):
                a[((i * n1 + j) * n2 + k) * n3 + l] = 1.0
"""


def test_a_4d_int32_flat_index_under_an_int64_contract_is_proved():
    # each side <= 4096: the int64 product stays below 2**48, exact; its twins chain
    assert_verdicts(prove_src(FLAT4D.replace("N0", "n0")))                           # unknown before
