"""Counterexample models on the violating path: the size tiers keep the
violation in the query, and the tier before free scalars lets one scalar sit
near its type's extremes (a wrap-around needs it) while a range loop's trip
count stays small (replay runs every iteration)."""
from __future__ import annotations


import z3

from verikern.encoders.smt.launch import SMALL_MODEL_TIERS, LaunchModel
from verikern.frontend import compile_file, compile_source
from verikern.proofs.obligations import ObligationKind, Status
from verikern.proofs.pipeline import prove_mir

from shared_helpers import CORPUS

SRC = """import verikern as vk


@vk.kernel
def k(x: vk.array(dtype=vk.float32), a: int, b: int, steps: int):
    i = vk.tid()
    for j in range(steps):
        i = i + 1
"""


def _edge_tier(launch):
    (n,) = [k for k, t in enumerate(SMALL_MODEL_TIERS) if t[3] is not None]
    return launch.small_model_tiers()[n]


def _param(launch, kernel, name):
    (p,) = [p for p in kernel.scalar_params if p.name == name]
    return launch.scalars[p.value.id]


def test_the_edge_tier_allows_one_scalar_near_an_extreme_but_no_long_loop():
    (kr,) = compile_source(SRC, "k.py").kernels
    launch = LaunchModel(kr.mir, None, None)
    a, b, steps = (_param(launch, kr.mir, n) for n in ("a", "b", "steps"))
    tier = _edge_tier(launch) + list(launch.facts)

    def sat(*extra):
        s = z3.Solver()
        s.add(*tier, *extra)
        return s.check() == z3.sat

    assert sat(a == 2 ** 31 - 1, b == 5)              # one near the top
    assert sat(a == -2 ** 31 + 3, b == -7)            # or the bottom
    assert not sat(a == 2 ** 31 - 1, b == 2 ** 31 - 1)  # not two at once
    assert not sat(a == 2 ** 30)                      # neither small nor near
    assert not sat(steps == 2 ** 31 - 1)              # a trip count stays small
    assert sat(steps == 1 << 20) and not sat(steps == (1 << 20) + 1)


def _confirmed_bounds_counterexample(case: str):
    """The counterexample of the one bounds obligation of corpus `case`,
    which must be failed and confirmed by replay."""
    path = CORPUS / case
    (kr,) = compile_file(path).kernels
    report = prove_mir(kr.mir, file=str(path))
    (ob,) = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS]
    assert ob.status is Status.FAILED and ob.confirmed is True, ob.reason
    return ob.counterexample


def test_a_wrap_after_a_loop_gets_a_model_replay_reaches():
    cex = _confirmed_bounds_counterexample("bounds_offset_wraps_after_loop.py")
    base, steps = cex.scalars["base"], cex.scalars["steps"]
    assert 0 <= steps <= 1 << 20 and base + 3 * steps >= 2 ** 31     # it really wraps


def test_a_bug_that_needs_a_huge_launch_gets_small_arrays():
    """`2 * i` wraps only past 2**30 threads, so every size tier (at most
    4096 threads) is unsatisfiable; the last attempt keeps the arrays small on
    any launch, and replay (which runs only the offending block) confirms it."""
    cex = _confirmed_bounds_counterexample("bounds_index_overflow_2i.py")
    assert max(cex.shapes["x"]) <= SMALL_MODEL_TIERS[-1][1]
    assert cex.dims[0] > 2 ** 30


def test_a_refinement_the_model_already_satisfies_costs_no_query_unless_its_cap_is_small():
    """solving.first_model: an attempt with the check's whole budget that
    the model in hand satisfies returns that model without asking z3 (it
    cost millions of units on bounds_uint32_product_int64_wraps); attempts
    with a small cap are still asked (smaller, clearer models), and so is
    an attempt the model breaks."""
    from verikern.proofs.deciding.budget import fresh_context
    from verikern.proofs.deciding.session import SolverSession
    from verikern.proofs.deciding.solving import check, first_model

    fresh_context()
    budget = SolverSession(label="t.")
    x = z3.BitVec("x", 32)
    exact = [z3.UGT(x, 5), z3.ULT(x, 1000)]
    res, model, _ = check(budget, exact, None, "exact")
    assert res == z3.sat
    known = model.eval(x).as_long()
    before = budget.queries
    # the small-cap attempt is asked and finds a smaller model
    got = first_model(budget, [(exact + [z3.ULT(x, 7)], 10_000), (exact, None)], "r",
                      known=model, satisfied=exact)
    assert budget.queries == before + 1 and got is not model and got.eval(x).as_long() == 6
    # the whole-budget attempt the model satisfies: no query, the same model
    before = budget.queries
    got = first_model(budget, [(exact + [z3.ULT(x, 3)], 10_000), (exact, None)], "r",
                      known=model, satisfied=exact)
    assert got is model and budget.queries == before + 1      # only the unsat small one
    # a whole-budget attempt the model breaks is asked
    before = budget.queries
    other = exact + [x != known]
    got = first_model(budget, [(other, None)], "r", known=model, satisfied=exact)
    assert budget.queries == before + 1 and got.eval(x).as_long() != known
    # a model already small (found in an earlier counterexample's launch):
    # a small-cap attempt it satisfies is not asked; one it breaks still is
    before = budget.queries
    got = first_model(budget, [(exact + [z3.ULT(x, 3)], 10_000),
                               (exact + [z3.ULT(x, 2000)], 10_000)], "r",
                      known=model, satisfied=exact, known_small=True)
    assert got is model and budget.queries == before + 1      # only the unsat first one


# one thread per block: with a free block size the race's exact search costs
# 7.7 million z3 units (4 s); with block_dim=1 the race is between blocks, and
# its model is found by a probe (both models are still reused the same way)
REUSED = """import verikern as vk


@vk.kernel(block_dim=1)
def pairs(a: vk.array(dtype=vk.float32)):
    i = vk.tid()
    a[i // 2] = a[i // 2] + 1.0
"""


def test_an_earlier_failures_model_decides_a_later_query_it_satisfies(caplog, tmp_path):
    """Threads 2k and 2k+1 both write a[k], so the write/write race's model
    is also one of the read/write race of the same element: that second
    obligation fails with it and no search of its own (ProofContext
    .failure_models); replay confirms both. Likewise for the two bounds
    obligations of a[i // 2]; a model of one kind satisfies no query of the
    other, so each kind is searched once."""
    import logging

    path = tmp_path / "pairs.py"
    path.write_text(REUSED)
    kernel = compile_file(str(path)).kernel("pairs").mir
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(kernel, file=str(path))
    races = [o for o in report.obligations if o.kind is ObligationKind.RACE]
    assert len(races) == 2 and all(o.status is Status.FAILED and o.confirmed for o in races)
    # "pairs.pairs.00006.race@7:5+7:5.abstract: sat (...)" -> "race@7:5+7:5"
    names = [r.getMessage().rsplit(": ", 1)[0].split(".", 3)[-1] for r in caplog.records
             if r.name == "verikern.proofs.solver"]
    searched = {n.rsplit(".", 1)[0] for n in names if "@" in n}
    assert sum(t.startswith("race@") for t in searched) == 1, names
    # a[i // 2] past the end: the store's model (searched) is also the load's;
    # replay confirms the load, which runs first
    bounds = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS]
    assert len(bounds) == 2 and all(o.status is Status.FAILED for o in bounds)
    assert [o.confirmed for o in bounds] == [False, True]
    assert sum(t.startswith("bounds@") for t in searched) == 1, names
    # no model of a race query is one of a bounds query (nor the other way
    # round: the race model keeps i // 2 inside a), so each kind searched once
    assert races[0].counterexample.shapes != bounds[0].counterexample.shapes


def test_a_launch_of_a_model_fixes_what_the_model_chose_and_nothing_fixed_already():
    """LaunchModel.launch_of: one equality per free launch dim, scalar and
    shape, each true in the model it came from; a fixed block size (a
    literal) gets none."""
    (kr,) = compile_file(str(CORPUS / "race_block_segments_one_past_end.py")).kernels
    launch = LaunchModel(kr.mir, None, None)
    s = z3.Solver()
    s.add(*launch.facts, launch.dims[0] == 512, _param(launch, kr.mir, "seg_len") == 3)
    assert s.check() == z3.sat
    m = s.model()
    fixed = launch.launch_of(m)
    assert len(fixed) == 3       # launch_dim0, seg_len, shape_data_0 (block_dim is 256)
    assert all(z3.is_true(m.eval(f)) for f in fixed)
    s2 = z3.Solver()
    s2.add(*fixed, launch.dims[0] == 256)
    assert s2.check() == z3.unsat


def test_a_later_violation_is_looked_for_first_in_the_launch_of_an_earlier_one(caplog):
    """The segment kernel's race query is one its abstraction does not
    prove on the quick budget; the launch of the out-of-bounds read's
    counterexample (dim 512, seg_len 2) also has the race, so the search in
    that launch (an early probe) finds it with no retry of the abstraction
    on the whole cap and no concrete-launch probe -- and the model is one
    replay confirms."""
    import logging

    path = CORPUS / "race_block_segments_one_past_end.py"
    kernel = compile_file(str(path)).kernels[0].mir
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(kernel, file=str(path))
    names = [r.getMessage() for r in caplog.records if r.name == "verikern.proofs.solver"]
    race = [n for n in names if ".race@18:9+18:9." in n]
    assert any(".early-probe: sat" in n for n in race), race
    assert sum(".abstract: " in n for n in race) == 1, race   # the quick attempt only
    assert not any(".probe: " in n for n in race), race
    (ob,) = [o for o in report.obligations
             if o.kind is ObligationKind.RACE and o.status is Status.FAILED][:1]
    assert ob.confirmed


def test_an_earlier_failures_launch_is_searched_only_with_a_clean_path(caplog):
    """The 5-point stencil without a halo: a[i + 1, j] fails in the launch
    of a[i - 1, j]'s counterexample (a.shape[0] == 1), but there a[i - 1, j]
    faults first and replay could not confirm it. The early probe keeps the
    threads' earlier accesses in bounds, so that launch is skipped and every
    failure is one replay confirms."""
    import logging

    path = CORPUS / "bounds_2d_stencil_missing_halo.py"
    kernel = compile_file(str(path)).kernels[0].mir
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(kernel, file=str(path))
    bad = [o for o in report.obligations if o.status is Status.FAILED]
    assert len(bad) == 4 and all(o.kind is ObligationKind.BOUNDS for o in bad)
    assert all(o.confirmed for o in bad), [(o.loc.col, o.counterexample.shapes) for o in bad]
    assert any(".early-probe: " in r.getMessage() for r in caplog.records)


def _many_stores(n: int) -> str:
    params = ", ".join(f"a{k}: vk.array(dtype=vk.float32)" for k in range(n))
    stores = "\n".join(f"    a{k}[i] = {k}.0" for k in range(n))
    return f"import verikern as vk\n\n\n@vk.kernel\ndef many_stores({params}):\n    i = vk.tid()\n{stores}\n"


def test_the_earlier_launches_searched_are_the_latest_distinct_ones_and_at_most_a_few():
    """Early probes are search hints: each earlier counterexample's launch once (two
    counterexamples in one launch would give one query twice), the latest first, and
    at most EARLY_PROBE_LAUNCHES of them, so that a kernel with n failures asks O(n)
    early probes and not O(n**2) (a project kernel of 268 obligations asked 2,160,
    each charged to its total, and its suggestion's re-proof found the total spent)."""
    from verikern.proofs.deciding.prover_context import EARLY_PROBE_LAUNCHES, ProofContext

    (kr,) = compile_source(_many_stores(1), "k.py").kernels
    ctx = ProofContext(kr.mir, None, None)
    shape = ctx.launch.shapes[("a0", 0)]
    models = []
    for n in range(1, EARLY_PROBE_LAUNCHES + 5):
        s = z3.Solver()
        s.add(shape == n)
        assert s.check() == z3.sat
        models.append(s.model())
    ctx.failure_models.extend(models + [models[-2]])    # the latest in a launch seen already
    launches = ctx.earlier_launches([], [])
    assert len(launches) == EARLY_PROBE_LAUNCHES
    ids = [tuple(e.get_id() for e in launch) for launch in launches]
    # the latest first, each launch once: models[-2]'s, then models[-1]'s, then the others'
    order = [models[-2], models[-1]] + models[-3::-1]
    assert ids == [tuple(e.get_id() for e in ctx.launch.launch_of(m)) for m in order][:EARLY_PROBE_LAUNCHES]
    assert len(set(ids)) == len(ids)
    ctx.failure_models[:] = [models[0]] * 3         # three counterexamples in one launch: one probe
    assert len(ctx.earlier_launches([], [])) == 1


def test_a_kernel_with_many_failures_asks_each_query_at_most_a_few_early_probes(caplog):
    """Fourteen unguarded stores fail in fourteen launches (each store's
    counterexample keeps the earlier stores in bounds, so no earlier model is
    one of a later query); a later query is searched in at most
    EARLY_PROBE_LAUNCHES of them, and the last queries reach that cap
    (every earlier launch would be 13)."""
    import logging
    import re
    from collections import Counter

    from verikern.proofs.deciding.prover_context import EARLY_PROBE_LAUNCHES

    (kr,) = compile_source(_many_stores(14), "k.py").kernels
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(kr.mir, file="k.py", replay=False)
    per_query = Counter(m.group(1) for r in caplog.records if r.name == "verikern.proofs.solver"
                        for m in [re.search(r"\.\d{5}\.(.*)early-probe: ", r.getMessage())] if m)
    assert sum(o.status is Status.FAILED and o.kind is ObligationKind.BOUNDS
               for o in report.obligations) == 14
    assert max(per_query.values()) == EARLY_PROBE_LAUNCHES, per_query
