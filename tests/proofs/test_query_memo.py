"""A session answers a query asked again from memory (SolverSession.recall):
only the same formulas -- the same live terms of the same z3 context -- get
an earlier answer, only sat (with its model, while it lives) and unsat are
remembered, and a session that dumps, cross-checks or captures its queries
asks each one.

The near misses below are proved with the memory in use: their bug is
visible only through a constraint far from the access (a shape stated by
`vk.requires` on another array), and they must still fail."""
from __future__ import annotations

import os
import sys

import z3

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, verdicts  # noqa: E402
from verikern.proofs import prove_kernel  # noqa: E402
from verikern.proofs.deciding.session import SolverSession, SolverSettings  # noqa: E402
from verikern.proofs.deciding.solving import check  # noqa: E402


def _query():
    x, y = z3.BitVecs("memo_x memo_y", 32)
    return [z3.ULT(x, y), y == 5], x, y


def test_a_query_asked_again_gets_the_same_answer_and_model_without_a_solver():
    session = SolverSession()
    formulas, x, y = _query()
    res, model, solver = check(session, formulas)
    assert res == z3.sat and solver is not None and session.queries == 1
    again, model2, solver2 = check(session, list(reversed(formulas)))   # any order
    assert again == z3.sat and model2 is model and solver2 is None
    assert session.queries == 1 and session.recalled == 1
    assert z3.is_true(model2.eval(z3.And(formulas)))


def test_one_more_formula_is_another_query():
    """The near miss of the memory: a constraint added to a satisfiable query
    makes it unsat, and the earlier sat answer must not be given."""
    session = SolverSession()
    formulas, x, y = _query()
    assert check(session, formulas)[0] == z3.sat
    seven = x == 7
    res, model, _ = check(session, formulas + [seven])
    assert res == z3.unsat and model is None and session.recalled == 0
    assert check(session, formulas + [seven])[0] == z3.unsat
    assert session.recalled == 1


def test_a_query_whose_formula_was_freed_is_asked_again():
    """A term id names a term only while it lives: once a remembered formula
    (or a sat answer's model) is freed, its query is asked again, and the
    memory keeps no term alive (it would change z3's later searches)."""
    session = SolverSession()
    formulas, x, y = _query()
    assert check(session, formulas + [x == 7])[0] == z3.unsat   # `x == 7` freed after
    res, _, solver = check(session, formulas + [x == 7])
    assert res == z3.unsat and solver is not None and session.recalled == 0
    res, model, _ = check(session, formulas)
    del model                                                  # the only reference
    res, model, solver = check(session, formulas)
    assert res == z3.sat and solver is not None and session.recalled == 0


def test_an_undecided_answer_is_not_remembered():
    """`unknown` within a small cap says nothing of the query: asked again with
    the whole budget it is decided."""
    session = SolverSession()
    a, b, c = z3.BitVecs("memo_a memo_b memo_c", 64)
    hard = [a * b * c == 0x1234567890ABCDEF, a > 1, b > 1, c > 1, a * b < c]
    assert check(session, hard, cap=1)[0] == z3.unknown
    res, _, solver = check(session, hard)
    assert res in (z3.sat, z3.unsat) and solver is not None and session.recalled == 0


def test_the_same_formulas_in_a_later_context_are_asked_again():
    session = SolverSession()
    formulas, _, _ = _query()
    assert check(session, formulas)[0] == z3.sat
    old = z3.main_ctx()
    z3.z3._main_ctx = None        # what budget.fresh_context does
    try:
        formulas2, _, _ = _query()
        res, _, solver = check(session, formulas2)
        assert res == z3.sat and solver is not None and session.recalled == 0
    finally:
        z3.z3._main_ctx = old


def test_a_session_that_captures_or_cross_checks_asks_every_query(tmp_path):
    """An exported or cross-checked obligation lists every query it rests on."""
    captured = SolverSession()
    captured.captured = []
    dumping = SolverSession(settings=SolverSettings(dump_smt=str(tmp_path)))
    for session in (captured, dumping):
        formulas, _, _ = _query()
        check(session, formulas)
        check(session, formulas)
        assert session.queries == 2 and session.recalled == 0
    assert len(captured.captured) == 2 and len(list(tmp_path.iterdir())) == 2


PAIRED_ROWS = """
    @vk.kernel
    def k(src: vk.array(dtype=vk.float32), dst: vk.array(dtype=vk.float32)):
        vk.requires(dst.shape[0] == 2 * src.shape[0])
        i = vk.tid()
        if i < src.shape[0]:
            dst[2 * i] = src[i]
            dst[2 * i + 1] = src[i]
"""
#: dst one element short, stated only by the requires on another array's shape
PAIRED_ROWS_ONE_SHORT = PAIRED_ROWS.replace("== 2 * src.shape[0]", "== 2 * src.shape[0] - 1")


def _prove(src: str):
    session = SolverSession()
    obligations = prove_kernel(compile_kernel(src), budget=session)
    return obligations, session


def test_a_shape_stated_on_another_array_still_fails_its_near_miss_with_queries_recalled():
    ok, ok_session = _prove(PAIRED_ROWS)
    assert verdicts(ok) == {"bounds": {"proved"}, "race": {"proved"}}
    near, near_session = _prove(PAIRED_ROWS_ONE_SHORT)
    failed = [o for o in near if o.status.value == "failed"]
    stores = sorted({o.loc.line for o in near if o.kind.value == "bounds"})
    # of dst[2 * i] and dst[2 * i + 1] (the last two accesses), only the second fails
    assert [(o.kind.value, o.loc.line) for o in failed] == [("bounds", stores[-1])], \
        [(o.kind.value, o.loc.line, o.status.value, o.message) for o in near]
    assert failed[0].counterexample is not None
    # the memory was in use in both proofs (an answer given again)
    assert ok_session.recalled >= 1 and near_session.recalled >= 1
