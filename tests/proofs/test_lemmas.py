"""The remainder and widening-product lemmas are theorems (checked by z3 at
small widths, where bit-blasting decides them outright), and they let the
prover decide grid-stride loops."""
from __future__ import annotations

import os
import sys

import pytest
import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import assert_verdicts, prove_src  # noqa: E402

from verikern.encoders.smt.lemmas import RemainderLemmas  # noqa: E402


def _valid(f: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(z3.Not(f))
    return s.check() == z3.unsat


@pytest.mark.parametrize("rem", [z3.SRem, z3.URem])
def test_every_remainder_lemma_is_a_theorem(rem):
    x, d, y, i = z3.BitVecs("x d y i", 8)
    formulas = [rem(x + d, d) == rem(i, d), rem(d + y, d) != rem(x, d), rem(i, d) == i]
    lemmas = RemainderLemmas().for_formulas(formulas)
    # identity for every term, shift for both orders of x + d, congruences
    assert len(lemmas) >= 8
    for lemma in lemmas:
        assert _valid(lemma), lemma


def test_shift_lemma_is_stated_only_when_the_divisor_is_the_summand():
    x, d, e = z3.BitVecs("x d e", 8)
    lemmas = RemainderLemmas().for_formulas([z3.SRem(x + e, d) == 0])
    assert len(lemmas) == 1          # the identity lemma only


def test_a_wrong_shift_lemma_would_be_caught():
    """The overflow guard matters: without it the shift 'lemma' is false."""
    x, d = z3.BitVecs("x d", 8)
    unguarded = z3.Implies(z3.And(x >= 0, d > 0), z3.SRem(x + d, d) == z3.SRem(x, d))
    assert not _valid(unguarded)


def test_narrow_product_lemma_is_a_theorem():
    a, b = z3.BitVecs("a b", 8)
    wide = z3.SignExt(8, a) * z3.SignExt(8, b)
    assert _valid(z3.Extract(7, 0, wide) == a * b)
    wide_u = z3.ZeroExt(8, a) * z3.ZeroExt(8, b)
    assert _valid(z3.Extract(7, 0, wide_u) == a * b)


GRID_STRIDE = """
    @vk.kernel
    def k(a: vk.array(dtype=vk.float32)):
        REQUIRES
        i = vk.tid()
        stride = vk.grid_dim() * vk.block_dim()
        k = i
        while k < a.shape[0]:
            a[k] = 2.0 * a[k]
            k += stride
"""


def test_grid_stride_loop_with_bounded_sizes_is_race_free():
    """k % stride == i % stride is inferred (cong_sym) and proved inductive."""
    src = GRID_STRIDE.replace(
        "REQUIRES", "vk.requires(vk.launch_dim() <= 1 << 29 and a.shape[0] <= 1 << 29)")
    assert_verdicts(prove_src(src))


def test_grid_stride_loop_with_a_step_that_can_alias_races():
    """A stride of half the grid makes threads i and i + stride share
    elements: a real race, never proved."""
    src = GRID_STRIDE.replace(
        "REQUIRES", "vk.requires(vk.launch_dim() <= 1 << 29 and a.shape[0] <= 1 << 29)").replace(
        "stride = vk.grid_dim() * vk.block_dim()", "stride = vk.grid_dim() * vk.block_dim() // 2 + 1")
    obs = prove_src(src)
    assert any(o.kind.value == "race" and o.status.value == "failed" for o in obs), \
        [o.message for o in obs]
