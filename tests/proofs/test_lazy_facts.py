"""Lazy launch facts (encoders.smt.launch.LazyFact): the array-size bound of
a multi-dimensional array is left out of a query until a model breaks it
(proofs.deciding.solving.check). The answer must be the whole query's: a
model that breaks a lazy fact is never returned, and a query that is unsat
only because of a lazy fact stays unsat. Expected answers are worked out by
hand below."""
from __future__ import annotations

import logging
import os
import sys

import z3

from verikern.encoders.smt.launch import LaunchModel, LazyFact
from verikern.proofs.deciding.budget import fresh_context
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.solving import check

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, prove_src  # noqa: E402

TWO_ARRAYS = """
@vk.kernel
def two(a: vk.array(dtype=vk.float32), b: vk.array(dtype=vk.float32, ndim=3)):
    i = vk.tid()
    a[i] = b[0, 0, 0]
"""

# The product of the dims of `b` is at least 2**31 only for an array of more
# than 8 GiB of float32; the assert needs the (lazy) size bound to be proved.
PRODUCT_3D = """
@vk.kernel
def product3(b: vk.array(dtype=vk.float32, ndim=3)):
    i = vk.tid()
    n = b.shape[0] * b.shape[1] * b.shape[2]
    assert n >= 0
"""


def _names(caplog) -> list[str]:
    return [r.getMessage().split(":")[0] for r in caplog.records
            if r.name == "verikern.proofs.solver"]


def test_a_broken_lazy_fact_is_added_and_decides(caplog):
    fresh_context()
    x = z3.BitVec("x", 32)
    budget = SolverSession(label="t.")
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        # x > 5 alone is sat with some x >= 6; x < 3 then rules every model out
        res, model, _ = check(budget, [z3.UGT(x, 5), LazyFact.of(z3.ULT(x, 3))], purpose="q")
    assert res == z3.unsat and model is None
    assert _names(caplog)[-1].endswith("q+lazy")


def test_a_model_of_the_whole_query_is_returned():
    fresh_context()
    x, y = z3.BitVecs("x y", 32)
    budget = SolverSession()
    lazy = LazyFact.of(z3.ULE(x * y, 1000))
    res, model, _ = check(budget, [z3.UGT(x, 5), z3.UGT(y, 5), lazy])
    assert res == z3.sat
    xv, yv = model.eval(x).as_long(), model.eval(y).as_long()
    assert xv > 5 and yv > 5 and (xv * yv) % 2 ** 32 <= 1000


def test_a_lazy_fact_the_first_model_keeps_costs_no_second_query(caplog):
    fresh_context()
    x = z3.BitVec("x", 32)
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        res, model, _ = check(SolverSession(label="t."), [x == 7, LazyFact.of(z3.ULT(x, 100))],
                              purpose="q")
    assert res == z3.sat and model.eval(x).as_long() == 7
    assert [n for n in _names(caplog) if "q" in n] == ["t.00001.q"]


def test_a_short_look_undecided_without_its_lazy_facts_is_not_asked_again(caplog):
    """`escalate=False` (Houdini's short exact look): an undecided first
    attempt answers unknown, with no second query; the default asks the
    whole query again (and here decides it)."""
    fresh_context()
    x, y = z3.BitVecs("x y", 64)
    # factoring a 64-bit semiprime: no answer within a handful of units
    hard = [x * y == 0xFFFFFFFB * 0xFFFFFFEF, z3.UGT(x, 1), z3.UGT(y, 1)]
    lazy = LazyFact.of(x == 0)                # with it, unsat at once (x > 1)
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        res, model, _ = check(SolverSession(label="t."), hard + [lazy], 40_000, purpose="short",
                              escalate=False)
        assert res == z3.unknown and model is None
        assert [n for n in _names(caplog) if "short" in n] == ["t.00001.short"]
        res, _, _ = check(SolverSession(label="u."), hard + [lazy], 40_000, purpose="whole")
    assert [n for n in _names(caplog) if "whole" in n] == ["u.00001.whole", "u.00002.whole+lazy"]
    assert res == z3.unsat


def test_only_multi_dimensional_size_bounds_are_lazy():
    fresh_context()
    launch = LaunchModel(compile_kernel(TWO_ARRAYS), None, None, 1 << 20)
    lazy = [f for f in launch.facts if isinstance(f, LazyFact)]
    assert len(lazy) == 1
    assert "shape_b_0" in str(lazy[0]) and "shape_a_0" not in str(lazy[0])
    # the 1-D bound (2**20 bytes = 2**18 float32) is an ordinary fact
    assert any("shape_a_0" in str(f) and not isinstance(f, LazyFact) for f in launch.facts)


def test_a_three_dimensional_product_is_proved_through_the_lazy_bound():
    def assert_status(obligations, status):
        (ob,) = [o for o in obligations if o.kind.value == "assert"]
        assert ob.status.value == status, ob.message
        return ob

    # 2**32 bytes: at most 2**30 float32 elements, the int32 product never wraps
    assert_status(prove_src(PRODUCT_3D, 10, max_array_bytes=1 << 32), "proved")
    # 2**34 bytes: 2**32 elements fit, and a product of 2**31 or more wraps negative
    ob = assert_status(prove_src(PRODUCT_3D, 10, max_array_bytes=1 << 34), "failed")
    n, m, k = ob.counterexample.shapes["b"]
    assert n * m * k * 4 <= 1 << 34 and (n * m * k) % 2 ** 32 >= 2 ** 31
