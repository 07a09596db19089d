"""The launch-geometry facts (encoders/smt/geometry.py) are theorems of the
hardware limits, checked by z3 at 8 bits (where bit-blasting decides them
outright) and against a brute-force enumeration; a product with a repeated
dim gets none; and with them multi-dimensional launches are decided quickly
both ways (proved, or failed with the bug)."""
from __future__ import annotations

import itertools
import os
import sys

import pytest
import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import assert_verdicts, failing, prove_src, prove_src_only  # noqa: E402

from verikern.encoders.smt.abstraction import NonlinearAbstraction  # noqa: E402
from verikern.encoders.smt.geometry import (  # noqa: E402
    DimProducts, leading_component_bounds, same_block_facts, tid_component_facts,
    tid_components, tid_injectivity,
)
from verikern.mir.types import I8  # noqa: E402
from verikern.proofs.obligations import ObligationKind  # noqa: E402

W = 8                        # bit width of the small-width model
LIMIT = 1 << (W - 1)         # the analogue of "fewer than 2**31 threads"


def _launch(n: int):
    """n symbolic 8-bit launch dims, their size and the hardware facts
    (each dim >= 1, the product without unsigned overflow, size < 2**7)."""
    dims = [z3.BitVec(f"D{k}", W) for k in range(n)]
    facts = [d >= 1 for d in dims]
    prod = dims[0]
    for d in dims[1:]:
        facts.append(z3.BVMulNoOverflow(prod, d, signed=False))
        prod = prod * d
    size = z3.BitVec("size", W)
    facts += [size == prod, z3.ULT(size, LIMIT)]
    return dims, size, facts


def _valid(f, facts) -> bool:
    s = z3.Solver()
    s.add(*facts, z3.Not(f))
    return s.check() == z3.unsat


@pytest.mark.parametrize("n", [2, 3])
def test_tid_component_and_injectivity_facts_are_theorems(n):
    dims, size, facts = _launch(n)
    l1, l2 = z3.BitVecs("L1 L2", W)
    facts += [z3.ULT(l1, size), z3.ULT(l2, size)]
    lemmas = tid_component_facts(l1, dims, I8) + tid_injectivity(l1, l2, dims, I8)
    assert len(lemmas) == n + 1
    for lemma in lemmas:
        assert _valid(lemma, facts), lemma


@pytest.mark.parametrize("n", [2, 3])
def test_leading_component_bounds_are_theorems_and_need_a_nonnegative_id(n):
    """At 8 bits the shift 5 applies: P_0 >= 32 leaves i_0 <= L >> 5. The
    bound rests on 0 <= L (L < size < 2**7): a negative L (as a signed
    value) floors below its shift, so the lemma fails without it."""
    dims, size, facts = _launch(n)
    l1 = z3.BitVec("L1", W)
    (lemma,) = leading_component_bounds(l1, dims, I8)
    assert _valid(lemma, facts + [z3.ULT(l1, size)])
    assert not _valid(lemma, facts)


def test_the_facts_need_what_they_rest_on():
    """Negative cases: without L < size the first component may reach D_0;
    and equal leading components alone do not mean equal threads."""
    dims, size, facts = _launch(3)
    l1, l2 = z3.BitVecs("L1 L2", W)
    first = tid_component_facts(l1, dims, I8)[0]
    assert not _valid(first, facts)
    assert _valid(first, facts + [z3.ULT(l1, size)])
    c1, c2 = tid_components(l1, dims, I8), tid_components(l2, dims, I8)
    partial = z3.Implies(z3.And(c1[0] == c2[0], c1[1] == c2[1]), l1 == l2)
    assert not _valid(partial, facts + [z3.ULT(l1, size), z3.ULT(l2, size)])


@pytest.mark.parametrize("n, block", [(2, None), (2, 12), (3, 4), (3, 3)],
                         ids=["2-None", "2-12", "3-4", "3-3"])
def test_same_block_facts_are_theorems_and_need_the_aligned_last_dim(n, block):
    """Two threads of one block share the leading components when the last
    launch dim is a multiple of the block size, threads of different blocks
    differ in a leading component or in the last one's block column, and a
    leading component is at most the block index; without the alignment (a
    block straddling a row) each conclusion is false, so the premise is
    needed. The prover states them only for a literal block size; in 2-d
    they are checked for every block size (a symbolic one: the dearest case)
    and for a literal 12 (no power of two), in 3-d (dearer) for two."""
    dims, size, facts = _launch(n)
    b1, t1, b2, t2 = z3.BitVecs("b1 t1 b2 t2", W)
    bd = z3.BitVec("B", W) if block is None else z3.BitVecVal(block, W)
    facts += [z3.UGE(bd, 1)]
    for b, t in ((b1, t1), (b2, t2)):
        # as ThreadIdentity.fresh states them; at 32 bits b*B + t cannot wrap
        # (b*B < size < 2**31, t < B <= 1024), at 8 bits it must be said
        facts += [z3.ULT(t, bd), z3.BVMulNoOverflow(b, bd, signed=False),
                  z3.ULT(b * bd, size), z3.ULT(b * bd + t, size),
                  z3.BVAddNoOverflow(b * bd, t, signed=False)]
    lemmas = same_block_facts((b1, t1), (b2, t2), bd, dims, I8)
    assert len(lemmas) == 3          # same block; different blocks; components <= block
    for lemma in lemmas:
        assert _valid(lemma, facts), lemma
        premise, conclusion = lemma.children()
        unaligned = z3.substitute(premise, (z3.URem(dims[-1], bd) == 0, z3.BoolVal(True)))
        assert not _valid(z3.Implies(unaligned, conclusion), facts), lemma


def test_tid_components_match_a_brute_force_decomposition():
    """The terms are the frontend's lowering (docs/MIR.md): evaluated on
    concrete launches they give numpy-style unravelled indices."""
    import numpy as np
    for shape in [(2, 3), (3, 1, 4), (2, 2, 3, 2)]:
        dims = [z3.BitVecVal(d, 32) for d in shape]
        for linear in range(int(np.prod(shape))):
            comps = tid_components(z3.BitVecVal(linear, 32), dims)
            got = tuple(z3.simplify(c).as_signed_long() for c in comps)
            assert got == tuple(int(v) for v in np.unravel_index(linear, shape)), (shape, linear)


def test_dim_product_facts_are_theorems_and_skip_repeated_dims():
    dims, size, facts = _launch(3)
    d0, d1, d2 = dims
    formulas = [(d1 * d2) * d0 == 5, d2 * d0 != 7, d1 * d1 == 9]
    lemmas = DimProducts(dims, size).for_formulas(formulas)
    # (d1*d2)*d0, its sub-product d1*d2, and d2*d0: never d1*d1
    assert len(lemmas) == 3
    for lemma in lemmas:
        assert _valid(lemma, facts), lemma
    assert not any("D1*D1" in str(lemma).replace(" ", "") for lemma in lemmas)
    repeated = z3.And(d1 * d1 >= 1, z3.ULE(d1 * d1, size))
    assert not _valid(repeated, facts)          # the fact a repeat would get is false


def test_dim_products_of_a_fixed_launch_give_nothing():
    dims = [z3.BitVecVal(4, 32), z3.BitVecVal(8, 32)]
    assert DimProducts(dims, z3.BitVecVal(32, 32)).for_formulas([dims[0] * dims[1] == 32]) == []


FILL3D = """
    @vk.kernel
    def fill(a: vk.array(dtype=vk.float32, ndim=3)):
        i, j, k = vk.tid()
        if i < a.shape[0] and j < a.shape[1] and k < a.shape[2]:
            a[i, j, k] = 1.0
"""


#: Half a million z3 units per check: enough for the queries under the
#: nonlinear abstraction, far too little for the exact ones these kernels
#: needed before (budget-exhausted at 10 million).
SMALL_BUDGET = 0.5


def test_a_3d_launch_filling_a_3d_array_is_proved_in_the_abstraction():
    assert_verdicts(prove_src(FILL3D, SMALL_BUDGET), kinds={"bounds", "race"})


TILE_ROWS = """
    @vk.kernel
    def rows(a: vk.array(dtype=vk.float32, ndim=2)):
        vk.requires(vk.launch_dim(1) % 256 == 0)
        by, j = vk.tid()
        row = by * 16 + (j % 256) // 16
        if row < a.shape[0] and j < a.shape[1]:
            a[row, j] = 1.0
"""


def test_a_tile_row_of_a_launch_with_a_wide_last_dim_is_proved_in_the_abstraction():
    """`by * 16` cannot wrap: the last dim is a multiple of 256, so by < 2**23
    (`leading_component_bounds`); the abstraction alone has no bound on it."""
    # 2.5 million units per check: with 0.5 the check that some launch satisfies
    # `launch_dim(1) % 256 == 0` is undecided, and an undecided admissibility is `unknown`,
    # never a proof; it needs 2.12 million units, the same in every process
    # (test_unit_determinism.py; it was raised to 3 million while a direct proof's
    # units depended on the tests run before it in the process; 1.97 million until
    # session 30 asked the unit launch, which the requires exclude, before it)
    obs = prove_src(TILE_ROWS, 2.5)
    assert [o.status.value for o in obs if o.kind.value == "bounds"] == ["proved", "proved"]


def test_a_tile_row_of_a_narrow_launch_may_wrap():
    """The negative case: with no lower bound on the last dim, by reaches
    2**27 and `by * 16` wraps negative, a real out-of-bounds write (only the
    bounds obligations decided: the race is not checked here)."""
    obs = prove_src_only(TILE_ROWS.replace("vk.requires(vk.launch_dim(1) % 256 == 0)", "pass"),
                         ObligationKind.BOUNDS)
    (bad,) = [o for o in obs if o.kind.value == "bounds" and o.status.value == "failed"]
    assert bad.counterexample.dims[0] * 16 > 2 ** 31


def test_a_3d_launch_writing_a_2d_array_races():
    """Equal components mean equal threads -- not equal (i, j) alone: the
    threads of one column (same i, j) race (only the race obligations decided)."""
    src = FILL3D.replace("a[i, j, k] = 1.0", "a[i, j, 0] = 1.0")
    assert "race" in failing(prove_src_only(src, ObligationKind.RACE))


def test_a_repeated_launch_dim_product_is_not_bounded_by_the_launch():
    """D1*D1 may exceed the launch size (D1 > D0): the dim-product fact must
    not cover it, so the access fails."""
    src = """
    @vk.kernel
    def k(a: vk.array(dtype=vk.float32)):
        vk.requires(a.shape[0] == vk.launch_dim(0) * vk.launch_dim(1))
        i, j = vk.tid()
        a[vk.launch_dim(1) * vk.launch_dim(1) - 1] = 0.0
    """
    assert "bounds" in failing(prove_src(src))


def test_a_product_of_distinct_launch_dims_is_within_the_launch():
    src = """
    @vk.kernel
    def k(a: vk.array(dtype=vk.float32)):
        vk.requires(a.shape[0] == vk.launch_dim(0) * vk.launch_dim(1))
        i, j = vk.tid()
        a[vk.launch_dim(1) * vk.launch_dim(0) - 1] = 0.0
    """
    assert "bounds" not in failing(prove_src(src))


def test_brute_force_agrees_with_injectivity_on_small_launches():
    """Independent reference: distinct linear ids below the size never share
    all components (enumerated for every launch of up to 24 threads)."""
    for shape in itertools.product(range(1, 4), repeat=3):
        seen = set()
        dims = [z3.BitVecVal(d, 32) for d in shape]
        for linear in range(shape[0] * shape[1] * shape[2]):
            comps = tuple(z3.simplify(c).as_signed_long()
                          for c in tid_components(z3.BitVecVal(linear, 32), dims))
            assert comps not in seen and all(0 <= c < d for c, d in zip(comps, shape))
            seen.add(comps)


def test_an_overflow_predicate_by_a_literal_stays_exact_in_the_abstraction():
    """b * 256 without overflow bounds b (block_idx under a fixed block
    size); with a variable factor the predicate is abstracted (sound: the
    abstraction keeps every real model)."""
    b, c = z3.BitVecs("b c", 32)
    kept = NonlinearAbstraction().apply([z3.BVMulNoOverflow(b, z3.BitVecVal(256, 32), False),
                                         z3.UGT(b, 1 << 24)])
    s = z3.Solver()
    s.add(*kept)
    assert s.check() == z3.unsat
    free = NonlinearAbstraction().apply([z3.BVMulNoOverflow(b, c, False), c == 256,
                                         z3.UGT(b, 1 << 24)])
    s = z3.Solver()
    s.add(*free)
    assert s.check() == z3.sat


TILES_1D = """
    @vk.kernel(block_dim=256)
    def k(src: vk.array(dtype=vk.float32, ndim=2), dst: vk.array(dtype=vk.float32, ndim=2), tiles_x: vk.int32):
        vk.requires(tiles_x >= 1)
        vk.requires(dst.shape[0] == src.shape[0] and dst.shape[1] == src.shape[1])
        b = vk.block_idx()
        t = vk.thread_idx()
        row = (b // tiles_x) * 16 + t // 16
        col = (b % tiles_x) * WIDTH + t % 16
        if row < src.shape[0] and col < src.shape[1]:
            dst[row, col] = src[row, col]
"""


def test_a_1d_launch_tiled_by_block_idx_is_proved_in_the_abstraction():
    assert_verdicts(prove_src(TILES_1D.replace("WIDTH", "16"), SMALL_BUDGET),
                    kinds={"bounds", "race"})


def test_overlapping_tiles_of_a_1d_launch_race():
    assert "race" in failing(prove_src(TILES_1D.replace("WIDTH", "8")))


def test_monotone_product_lemmas_are_theorems():
    """Flat-index monotonicity, congruence and the overflow guards, at 8
    bits under the hardware facts of a 2-d launch."""
    from verikern.encoders.smt.geometry import MonotoneProducts
    dims, size, facts = _launch(2)
    y, w, h, y2 = z3.BitVecs("y w h y2", W)
    x, x2 = z3.BitVecs("x x2", W)
    formulas = [y * w + 1 == 3, w * h == 9, y2 * w == 4, y * w + x == x2 + y2 * w]
    lemmas = MonotoneProducts(dims).for_formulas(formulas)
    assert len(lemmas) >= 9
    assert any("x2" in str(lemma) for lemma in lemmas)          # flat-index injectivity
    for lemma in lemmas:
        assert _valid(lemma, facts), lemma
    # products of values sign-extended from half the width (4 of W = 8 bits:
    # at 16 bits the two monotonicity lemmas cost z3 two seconds each)
    y4, w4, h4 = z3.BitVecs("y4 w4 h4", W // 2)
    wide = MonotoneProducts([]).for_formulas(
        [z3.SignExt(W // 2, y4) * z3.SignExt(W // 2, w4) == 3,
         z3.SignExt(W // 2, w4) * z3.SignExt(W // 2, h4) != 0])
    assert wide and all(_valid(lemma, []) for lemma in wide)


def test_congruence_links_a_product_to_the_launch_size_only():
    """`w*h == D0*D1` once `h == D0, w == D1` (either order): a theorem, and
    stated only between a product of launch dims and another product (two
    products of parameters get none; the exact query never needs it)."""
    from verikern.encoders.smt.geometry import MonotoneProducts
    dims, size, facts = _launch(2)
    w, h, a, b = z3.BitVecs("w h a b", W)
    lemmas = MonotoneProducts(dims).for_formulas([w * h == 5, dims[0] * dims[1] == size,
                                                  a * b == 7])
    congruences = [lemma for lemma in lemmas if z3.is_app_of(lemma, z3.Z3_OP_IMPLIES)
                   and z3.is_app_of(lemma.arg(0), z3.Z3_OP_OR)]
    assert len(congruences) == 2                 # w*h and a*b, each with D0*D1
    for lemma in congruences:
        assert _valid(lemma, facts), lemma
    between = {(c.arg(1).arg(0).get_id(), c.arg(1).arg(1).get_id()) for c in congruences}
    assert ((w * h).get_id(), (a * b).get_id()) not in between
    assert ((a * b).get_id(), (w * h).get_id()) not in between
    # the premise is needed: w*h is not the launch size when w is not a dim
    assert not _valid(z3.Implies(h == dims[0], w * h == dims[0] * dims[1]), facts)


def test_a_product_is_monotone_against_the_launch_size_once_a_factor_is_a_dim():
    """`0 <= i < D0, w == D1  =>  0 <= i*w <= D0*D1 - D1` (no shared term, so
    stated with the equality as a premise): a theorem at 8 bits under the
    launch facts, and false without the equality."""
    from verikern.encoders.smt.geometry import MonotoneProducts
    dims, size, facts = _launch(2)
    i, w = z3.BitVecs("i w", W)
    lemmas = MonotoneProducts(dims).for_formulas([i * w == 3, dims[0] * dims[1] == size])
    keyed = [lemma for lemma in lemmas if z3.is_app_of(lemma, z3.Z3_OP_IMPLIES)
             and z3.is_app_of(lemma.arg(0), z3.Z3_OP_AND)
             and any(z3.is_app_of(c, z3.Z3_OP_EQ) for c in lemma.arg(0).children())]
    assert len(keyed) == 4          # each factor of i*w against each launch dim
    for lemma in lemmas:
        assert _valid(lemma, facts), lemma
    unkeyed = z3.Implies(z3.And(i >= 0, i < dims[0]), i * w <= dims[0] * dims[1] - dims[1])
    assert not _valid(unkeyed, facts)


def test_a_segment_below_the_quotient_lies_inside_the_dividend():
    """`0 <= b < x / s, x >= 0, s > 0  =>  0 <= b*s <= x - s` (segments of
    blocks below `x // s`): a theorem at 8 bits, false without `b < x / s`
    (`b <= x / s` lets the last segment leave `x`)."""
    from verikern.encoders.smt.geometry import MonotoneProducts
    b, s, x = z3.BitVecs("b s x", W)
    lemmas = MonotoneProducts([]).for_formulas([b * s == 3, z3.ULT(b, x / s)])
    assert len(lemmas) == 1
    assert _valid(lemmas[0], [])
    zero = z3.BitVecVal(0, W)
    weaker = z3.Implies(z3.And(b >= zero, b <= x / s, x >= zero, s > zero), b * s <= x - s)
    assert not _valid(weaker, [])
    # a literal divisor is no quotient of this kind (bit-blasting handles it)
    assert MonotoneProducts([]).for_formulas([b * s == 3, z3.ULT(b, x / 4)]) == []


def test_zero_extended_factors_are_not_half_width():
    """Two values zero-extended from half the width (uint32 widened to int64)
    may wrap as a signed product (0x3F * 0x3F in 12 bits is negative): no
    unconditional no-overflow guard for them (once a false `proved`: corpus
    bounds_uint32_product_int64_wraps); narrower or mixed ones keep it."""
    from verikern.encoders.smt.geometry import MonotoneProducts
    # at 12 bits (6-bit values), cheaper to bit-blast than 16 and the same shapes
    y6, w6, h6 = z3.BitVecs("y6 w6 h6", 6)
    y5, w5, h5 = z3.BitVecs("y5 w5 h5", 5)
    for ext in ([z3.ZeroExt(6, y6), z3.ZeroExt(6, w6), z3.ZeroExt(6, h6)],
                [z3.ZeroExt(7, y5), z3.ZeroExt(7, w5), z3.ZeroExt(7, h5)],
                [z3.SignExt(6, y6), z3.ZeroExt(6, w6), z3.SignExt(6, h6)]):
        y, w, h = ext
        lemmas = MonotoneProducts([]).for_formulas([y * w == 3, w * h != 0])
        assert lemmas and all(_valid(lemma, []) for lemma in lemmas), lemmas


def test_monotonicity_needs_its_overflow_guard():
    """Negative cases: without `h*w` free of overflow, `y < h` does not bound
    `y*w` below `h*w`; and products of a repeated launch dim get no guard."""
    y, w, h = z3.BitVecs("y w h", W)
    unguarded = z3.Implies(z3.And(y >= 0, y < h, w >= 0), y * w <= h * w - w)
    assert not _valid(unguarded, [])
    x, x2, y2 = z3.BitVecs("x x2 y2", W)
    no_remainder_bound = z3.Implies(
        z3.And(y * w + x == y2 * w + x2, x >= 0, x2 >= 0, y >= 0, y2 >= 0,
               z3.BVMulNoOverflow(y, w, True), z3.BVMulNoOverflow(y2, w, True),
               z3.BVAddNoOverflow(y * w, x, True), z3.BVAddNoOverflow(y2 * w, x2, True)),
        y == y2)
    assert not _valid(no_remainder_bound, [])        # x < w is what makes it unique
    from verikern.encoders.smt.geometry import MonotoneProducts
    dims, size, facts = _launch(2)
    lemmas = MonotoneProducts(dims).for_formulas([y * dims[1] == 1, dims[1] * dims[1] == 2])
    assert not any(z3.is_app_of(lemma, z3.Z3_OP_IMPLIES)
                   and "launch_dim" in str(lemma.arg(0)) and str(lemma.arg(0)).count("D1") > 1
                   for lemma in lemmas)
    for lemma in lemmas:
        assert _valid(lemma, facts), lemma


FLAT_IMAGE = """
    @vk.kernel
    def k(f: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32, ndim=2), width: vk.int32, height: vk.int32):
        vk.requires(vk.launch_dim(0) == height and vk.launch_dim(1) == width)
        vk.requires(out.shape[0] == height and out.shape[1] == width)
        vk.requires(f.shape[0] == SIZE)
        y, x = vk.tid()
        out[y, x] = f[y * width + x]
"""


def test_a_flat_index_with_a_symbolic_width_is_in_bounds():
    assert_verdicts(prove_src(FLAT_IMAGE.replace("SIZE", "width * height")))   # unknown before


def test_a_flat_index_one_row_too_far_fails():
    obs = prove_src(FLAT_IMAGE.replace("SIZE", "width * height - width"))
    assert "bounds" in failing(obs)
