"""Flat indices from products of bounded parameters (issue 27): the
product-bound facts (encoders/smt/product_bounds.py), the nested-product
overflow guard and the mixed-radix sum bound (encoders/smt/geometry.py:
MonotoneProducts) are theorems, checked by z3 at 8 bits where bit-blasting
decides them outright; the facts a wrong bound would give are not; and with
them 3-D and 4-D flat indices are proved while their buggy twins fail."""
from __future__ import annotations

import itertools
import os
import sys

import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import assert_verdicts, failing, prove_src, prove_src_only  # noqa: E402

from verikern.encoders.smt.geometry import MonotoneProducts  # noqa: E402
from verikern.encoders.smt.product_bounds import ProductBounds  # noqa: E402
from verikern.proofs.obligations import ObligationKind  # noqa: E402

W = 8
LIMIT = 1 << (W - 1)


def _valid(f, facts=()) -> bool:
    s = z3.Solver()
    s.add(*facts, z3.Not(f))
    return s.check() == z3.unsat


def _launch(n: int):
    """n symbolic 8-bit launch dims and the hardware facts (each >= 1, the
    product without unsigned overflow, below 2**7)."""
    dims = [z3.BitVec(f"D{k}", W) for k in range(n)]
    facts = [d >= 1 for d in dims]
    prod = dims[0]
    for d in dims[1:]:
        facts.append(z3.BVMulNoOverflow(prod, d, signed=False))
        prod = prod * d
    return dims, facts + [z3.ULT(prod, LIMIT)]


def test_product_bound_facts_are_theorems_and_chain_through_a_cube():
    n, m = z3.BitVecs("n m", W)
    formulas = [n <= 4, n > 0, m < 3, (n * n) * n == 7, n * m != 1]
    facts = ProductBounds().for_formulas(formulas)
    # n*n (bound 16), (n*n)*n (bound 64 = 16*4), n*m (bound 4*2)
    bounds = {x.as_long() for f in facts for x in f.arg(1).arg(2).children() if z3.is_bv_value(x)}
    assert bounds == {16, 64, 8}, facts
    for f in facts:
        assert _valid(f), f


def test_a_product_over_the_signed_range_gets_no_fact():
    n = z3.BitVec("n", W)
    facts = ProductBounds().for_formulas([n <= 12, (n * n) * n == 7])
    # n*n <= 144 > 127: no fact, so none for the cube either
    assert facts == []
    wrong = z3.Implies(z3.And(n >= 0, n <= 12), z3.BVMulNoOverflow(n, n, True))
    assert not _valid(wrong)                 # the fact such a bound would state is false


def test_extended_terms_take_the_bounds_of_what_they_extend():
    n, m = z3.BitVecs("n m", W)
    wn, wm = z3.SignExt(8, n), z3.SignExt(8, m)
    facts = ProductBounds().for_formulas([n <= 10, m <= 10, (wn * wm) * wn == 1])
    assert len(facts) == 2
    for f in facts:
        assert _valid(f), f


def test_nested_product_guard_and_sum_bound_are_theorems():
    dims, facts = _launch(3)
    a, b, c, i, j, k = z3.BitVecs("a b c i j k", W)
    formulas = [a * b * c == 100, ((i * b + j) * c + k) * 1 == 3, i * b == 1, a * b == 2]
    lemmas = MonotoneProducts(dims).for_formulas(formulas)
    sums = [f for f in lemmas if "i*b + j < a*b" in str(f.arg(0)).replace("\n", " ")]
    assert sums, lemmas                       # (i*b + j) < a*b from i < a, j < b
    for f in lemmas:
        assert _valid(f, facts), f


def test_the_nested_guard_of_a_32_bit_launch_is_a_theorem():
    """The overflow guard of `(a*b)*c` once a, b, c equal distinct launch
    dims: stated for 32-bit terms only (one per assignment of distinct
    dims), and the same statement is a theorem at 8 bits, where z3 decides
    it outright; with a repeated dim it is not."""
    dims32 = [z3.BitVec(f"L{k}", 32) for k in range(3)]
    a, b, c, i = z3.BitVecs("a b c i", 32)
    lemmas = MonotoneProducts(dims32).for_formulas([a * b * c == 100, i * c == 1])
    nested = [f for f in lemmas if z3.is_app_of(f, z3.Z3_OP_IMPLIES)
              and "a*b" in str(f.arg(1)).replace(" ", "") and "L2" in str(f.arg(0))]
    assert len(nested) == 6, lemmas
    dims, facts = _launch(3)
    a8, b8, c8 = z3.BitVecs("a8 b8 c8", W)
    for ds in itertools.permutations(dims, 3):
        guard = z3.Implies(z3.And(a8 == ds[0], b8 == ds[1], c8 == ds[2]),
                           z3.BVMulNoOverflow(a8 * b8, c8, True))
        assert _valid(guard, facts), guard
    repeated = z3.Implies(z3.And(a8 == dims[0], b8 == dims[0], c8 == dims[1]),
                          z3.BVMulNoOverflow(a8 * b8, c8, True))
    assert not _valid(repeated, facts)        # a repeated dim is not within the launch


def test_the_sum_bound_needs_its_remainder_bound_and_guard():
    a, h, w, x = z3.BitVecs("a h w x", W)
    zero = z3.BitVecVal(0, W)
    e = a * w + x
    no_rem = z3.Implies(z3.And(a >= zero, a < h, x >= zero, w >= zero,
                               z3.BVMulNoOverflow(h, w, True)), e < h * w)
    assert not _valid(no_rem)
    no_guard = z3.Implies(z3.And(a >= zero, a < h, x >= zero, x < w, w >= zero), e < h * w)
    assert not _valid(no_guard)


FLAT3D = """
    @vk.kernel
    def fill3(x: vk.array(dtype=vk.float32), nx: vk.int32, ny: vk.int32, nz: vk.int32):
        vk.requires(vk.launch_dim(0) == nz and vk.launch_dim(1) == ny and vk.launch_dim(2) == nx)
        vk.requires(x.shape[0] == nz * ny * nx)
        z, y, xx = vk.tid()
        x[INDEX] = 1.0
"""


def test_a_3d_flat_index_over_launch_dims_is_proved():
    assert_verdicts(prove_src(FLAT3D.replace("INDEX", "(z * ny + y) * nx + xx")))   # unknown before


def test_a_3d_flat_index_one_past_fails():
    """Only its bounds obligations decided (the race, not checked here, costs
    more than they do)."""
    obs = prove_src_only(FLAT3D.replace("INDEX", "(z * ny + y) * nx + xx + 1"), ObligationKind.BOUNDS)
    assert "bounds" in failing(obs)


FLAT4D = """
    @vk.kernel
    def scale4(x: vk.array(dtype=vk.float32), a: vk.int32, b: vk.int32, c: vk.int32, d: vk.int32):
        vk.requires(vk.launch_dim(0) == a and vk.launch_dim(1) == b and vk.launch_dim(2) == c DIM3)
        vk.requires(x.shape[0] == a * b * c * d)
        i, j, k, l = vk.tid()
        x[((i * b + j) * c + k) * d + l] = 2.0
"""


def test_a_4d_flat_index_over_launch_dims_is_proved():
    assert_verdicts(prove_src(FLAT4D.replace("DIM3", "and vk.launch_dim(3) == d")))  # unknown before


def test_a_4d_flat_index_whose_last_dim_is_not_the_launch_fails():
    """Only its bounds obligations decided (the race, not checked here, costs
    more than they do)."""
    obs = prove_src_only(FLAT4D.replace("DIM3", ""), ObligationKind.BOUNDS)
    assert "bounds" in failing(obs)


FLAT3D64 = """
    @vk.kernel
    def fill3(x: vk.array(dtype=vk.float32), nx: vk.int32, ny: vk.int32, nz: vk.int32):
        vk.requires(nx >= 0 and ny >= 0 and nz >= 0 and nx <= 2048 and ny <= 2048 and nz <= 2048)
        vk.requires(vk.int64(x.shape[0]) == vk.int64(nz) * vk.int64(ny) * vk.int64(nx))
        z, y, xx = vk.tid()
        if z < nz and y < ny and xx < nx:
            idx = (vk.int64(z) * vk.int64(ROW) + vk.int64(y)) * vk.int64(nx) + vk.int64(xx)
            x[idx] = 1.0
"""


def test_a_3d_int64_flat_index_with_bounded_sides_is_proved():
    # 2048**3 = 2**33: past int32, within int64; the literal bounds give the guard
    assert_verdicts(prove_src(FLAT3D64.replace("ROW", "ny")))                      # unknown before
