"""The prover's Python work done once instead of per query: a model's launch
(`LaunchModel.launch_of`), what an earlier counterexample satisfies
(`solving.ModelTruths`) and a query's assertions (`LoggedSolver.add_all`) give
exactly what the per-query work gave (the same equalities, truths and
assertions, in the same order)."""
from __future__ import annotations

import pytest
import z3

from verikern.encoders.smt.launch import LaunchModel
from verikern.frontend import compile_file
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.solving import ModelTruths, satisfies

from shared_helpers import CORPUS


def _launch_and_model(dim: int):
    (kr,) = compile_file(str(CORPUS / "race_block_segments_one_past_end.py")).kernels
    launch = LaunchModel(kr.mir, None, None)
    s = z3.Solver()
    s.add(*launch.facts, launch.dims[0] == dim)
    assert s.check() == z3.sat
    return launch, s.model()


def test_a_model_launch_is_built_once_and_is_the_same_equalities_each_time():
    """Asked again of the same model, launch_of gives the same equalities (the
    same terms) in a fresh list; another model gets its own; `sizes=False`
    leaves the scalars and shapes out."""
    launch, m = _launch_and_model(512)
    first = launch.launch_of(m)
    again = launch.launch_of(m)
    assert first is not again and [f.get_id() for f in first] == [f.get_id() for f in again]
    first.append(z3.BoolVal(False))           # a caller's list: not the cache's
    assert len(launch.launch_of(m)) == len(again) == 3
    _, other = _launch_and_model(768)
    theirs = launch.launch_of(other)
    assert [str(f) for f in theirs] != [str(f) for f in again]
    assert all(z3.is_true(other.eval(f)) for f in theirs)
    (dim_only,) = launch.launch_of(m, sizes=False)
    assert dim_only.eq(launch.dims[0] == 512) or dim_only.eq(z3.BitVecVal(512, 32) == launch.dims[0])


def test_model_truths_answer_as_satisfies_does_and_stop_at_the_first_false():
    """ModelTruths.satisfies gives satisfies's answer for every list, asked
    once or again, and (like satisfies) evaluates nothing after the first
    formula false in the model."""
    x, y = z3.BitVecs("x y", 8)
    s = z3.Solver()
    s.add(x == 3, y == 200)
    assert s.check() == z3.sat
    m = s.model()
    formulas = [x == 3, z3.ULT(y, 100), x + y == 203, z3.UGT(y, x)]
    truths = ModelTruths()
    lists = [formulas, formulas[::-1], formulas[2:], [formulas[0], formulas[3]], []]
    for fs in lists + lists:
        assert truths.satisfies(m, fs) == satisfies(m, fs)
    fresh = ModelTruths()
    assert not fresh.satisfies(m, [z3.ULT(y, 100), x == 3])
    (seen,) = fresh._truths.values()
    assert len(seen[1]) == 1        # x == 3 never evaluated


def test_add_all_asserts_what_add_asserts_in_the_same_order():
    """A query asserted with add_all has add's assertions, a Python bool and
    a formula of another context included (those take add's path), and the
    same answer."""
    x = z3.BitVec("x", 8)
    other = z3.Context()
    formulas = [z3.UGT(x, 3), True, z3.ULT(x, 9), x != 5]
    session = SolverSession()
    fast = session.solver(None, "fast")
    fast.add_all(formulas)
    slow = z3.Solver()
    slow.add(*formulas)
    assert [str(a) for a in fast.assertions()] == [str(a) for a in slow.assertions()]
    assert fast.check() == slow.check() == z3.sat
    foreign = z3.Bool("p", ctx=other)
    bad = session.solver(None, "foreign")
    with pytest.raises(z3.Z3Exception):     # a formula of another context is refused
        bad.add_all([foreign])
