"""Suggested contracts (proofs.deciding.suggest, contract_templates): the
templates found for Warp-style kernels written for these tests, the
minimisation, the verdict that stays failed, the work budget, a kernel no
template helps, and the MIR of each template against the frontend's own
compilation of its text."""
from __future__ import annotations

import os
import sys
import textwrap

import pytest

from verikern.frontend import compile_source
from verikern.mir.nodes import Const, Value
from verikern.mir.verifier import verify
from verikern.proofs.deciding.budget import MEGA, fresh_context, kernel_work_limit
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.contract_atoms import (
    ZERO, Atom, Term, param_term, requires_instrs, with_requires,
)
from verikern.proofs.deciding.prover import prove_kernel
from verikern.proofs.deciding.suggest import _minimise, _Search, decorator_lines, suggest_contract
from verikern.proofs.obligations import KernelStatus, ObligationKind, Status
from verikern.proofs.pipeline import prove_mir

sys.path.insert(0, os.path.dirname(__file__))
from prover_helpers import deciding_only  # noqa: E402

HEAD = "import warp as wp\nimport verikern as vk\n\n"
#: the suggestion's own work at the default budget (budget.separate_work: the kernel's)
SUGGEST_WORK = kernel_work_limit(10 * MEGA)

INC = HEAD + textwrap.dedent("""
    @wp.kernel
    def inc(a: wp.array[float]):
        i = wp.tid()
        a[i] = a[i] + 1.0
    """)

PAIRS = HEAD + textwrap.dedent("""
    @wp.kernel
    def pairs(idx: wp.array[int], w: wp.array[float], out: wp.array[float]):
        i = wp.tid()
        out[i] = w[idx[2 * i + 1]]
    """)

FOLD = HEAD + textwrap.dedent("""
    @wp.kernel
    def fold(out: wp.array[float]):
        i = wp.tid()
        if out.shape[0] >= 4:
            out[i % 4] = 1.0
    """)


def _kernel(src: str, name: str):
    k = compile_source(src, f"{name}.py").kernel(name).mir
    assert k is not None
    return k


def _prove(k):
    fresh_context()
    budget = SolverSession()
    obligations = prove_kernel(k, budget=budget)
    return obligations, budget.spent


def test_the_launch_relation_warp_relies_on_is_found_and_proves_the_kernel():
    k = _kernel(INC, "inc")
    obligations, spent = _prove(k)
    assert any(ob.status is Status.FAILED for ob in obligations)
    s = suggest_contract(k, obligations, per_check=10 * MEGA, budget_units=2 * spent)
    assert s is not None and s.proved
    # minimised and weakened: `==` is not needed, `<=` is the weakest template
    assert s.requires == ("vk.launch_dim() <= a.shape[0]",)
    assert s.decorators == ("@vk.requires(lambda a: vk.launch_dim() <= a.shape[0])",)


def test_index_arrays_get_a_range_and_strided_reads_a_multiple_of_the_launch():
    k = _kernel(PAIRS, "pairs")
    obligations, spent = _prove(k)
    s = suggest_contract(k, obligations, per_check=10 * MEGA, budget_units=4 * spent)
    assert s is not None and s.proved
    assert "vk.all_in_range(idx, 0, w.shape[0])" in s.requires
    assert any("2 * vk.launch_dim()" in r and "idx.shape[0]" in r for r in s.requires)
    assert any("out.shape[0]" in r for r in s.requires)
    assert "@vk.requires(lambda idx, w: vk.all_in_range(idx, 0, w.shape[0]))" in s.decorators


def test_the_verdict_stays_failed_and_the_report_carries_the_suggestion():
    k = _kernel(INC, "inc")
    with_it = prove_mir(k, file="inc.py", suggest=True)
    without = prove_mir(k, file="inc.py")
    assert with_it.status is KernelStatus.FAILED is without.status
    assert [ob.status for ob in with_it.obligations] == [ob.status for ob in without.obligations]
    assert with_it.suggested_requires == ("vk.launch_dim() <= a.shape[0]",)
    assert with_it.proved_under_suggestion is True
    assert without.suggested_requires == () and without.proved_under_suggestion is None
    data = with_it.to_json()
    assert data["suggested_requires"] == ["vk.launch_dim() <= a.shape[0]"]
    assert data["proved_under_suggestion"] is True and "suggested_requires" not in without.to_json()


COUNTER = HEAD + textwrap.dedent("""
    @wp.kernel
    def bump(counter: wp.array[int]):
        counter[0] = counter[0] + 1
    """)

PLANE = HEAD + textwrap.dedent("""
    @wp.kernel
    def plane(vol: wp.array3d[float], y: int, out: wp.array2d[float]):
        i, k = wp.tid()
        out[i, k] = vol[i, y, k]
    """)


def test_a_kernel_warp_launches_with_one_thread_gets_that_launch():
    k = _kernel(COUNTER, "bump")
    obligations, spent = _prove(k)
    s = suggest_contract(k, obligations, per_check=10 * MEGA, budget_units=2 * spent)
    assert s is not None and s.proved
    assert set(s.requires) == {"counter.shape[0] > 0", "vk.launch_dim() == 1"}


def test_each_index_of_a_2d_launch_is_tied_to_its_own_launch_dimension():
    k = _kernel(PLANE, "plane")
    obligations, spent = _prove(k)
    s = suggest_contract(k, obligations, per_check=10 * MEGA,
                         budget_units=SUGGEST_WORK)
    assert s is not None and s.proved
    assert set(s.requires) == {"vk.launch_dim(0) <= vol.shape[0]", "vk.launch_dim(1) <= vol.shape[2]",
                               "y < vol.shape[1]", "y >= 0", "vk.launch_dim(0) <= out.shape[0]",
                               "vk.launch_dim(1) <= out.shape[1]"}


def test_no_template_helps_threads_that_write_one_cell():
    k = _kernel(FOLD, "fold")
    obligations, spent = _prove(k)
    failed = {ob.kind for ob in obligations if ob.status is Status.FAILED}
    assert failed == {ObligationKind.RACE}
    assert suggest_contract(k, obligations, per_check=10 * MEGA, budget_units=2 * spent) is None
    report = prove_mir(k, file="fold.py", suggest=True)
    assert report.status is KernelStatus.FAILED and report.suggested_requires == ()


def test_the_budget_bounds_the_search():
    k = _kernel(PAIRS, "pairs")
    obligations, _ = _prove(k)
    fresh_context()
    # too little work for one decision: nothing can be proved, so nothing is suggested
    assert suggest_contract(k, obligations, per_check=10 * MEGA, budget_units=1000) is None
    per_check = MEGA
    s = suggest_contract(k, obligations, per_check=per_check, budget_units=MEGA)
    assert s is None or s.units <= MEGA + 2 * per_check     # the last check may overshoot


def test_minimisation_drops_what_no_proof_needs_and_weakens_equalities():
    k = _kernel(INC, "inc")
    obligations, _ = _prove(k)
    specs = [ob.spec for ob in obligations if ob.status is Status.FAILED]
    a0, launch = Term("shape", "a", 0), Term("launch", index=0)
    needed = Atom("eq", a0, launch, weaker=Atom("le", launch, a0))
    useless = Atom("gt", a0, ZERO, family=7)
    search = _Search(k, None, None, 10 * MEGA, 50 * MEGA, {})
    assert search.proves([needed, useless], specs) is True
    basis = {s: frozenset({needed.key(), useless.key()}) for s in specs}
    out = _minimise(search, [needed, useless], basis, {}, {s: [needed] for s in specs})
    assert [a.key() for a in out] == [Atom("le", launch, a0).key()]
    # and what it kept still proves every obligation that was failing
    assert search.proves(out, specs) is True
    assert search.proves([useless], specs) is False


def _shape_of(instrs):
    """The instructions with value ids replaced by their definition order."""
    ids: dict[int, int] = {}
    out = []
    for ins in instrs:
        row = [type(ins).__name__]
        for f in ("op", "kind", "dim", "array"):
            if hasattr(ins, f):
                v = getattr(ins, f)
                row.append(v.name if hasattr(v, "dtype") else v)
        for o in ins.operands():
            row.append(("v", ids.get(o.id, o.name)) if isinstance(o, Value)
                       else ("c", o.value, o.type.name) if isinstance(o, Const) else o)
        res = getattr(ins, "result", None)
        if res is not None:
            ids[res.id] = len(ids)
            row.append(res.type.name)
        out.append(tuple(row))
    return out


@pytest.mark.parametrize("atoms, params, tid", [
    ([Atom("eq", Term("shape", "x", 0), Term("launch", index=0, scale=3)),
      Atom("le", Term("param", "n"), Term("shape", "y", 0)),
      Atom("gt", Term("shape", "y", 0), ZERO)], "x: wp.array[float], y: wp.array[float], n: int", "i"),
    ([Atom("all_in_range", rhs=Term("shape", "x", 0), array="idx"),
      Atom("all_distinct", array="idx")], "idx: wp.array[int], x: wp.array[float]", "i"),
    ([Atom("le", Term("launch", index=1), Term("shape", "m", 1)),
      Atom("eq", Term("shape", "m", 0), Term("launch", index=0)),
      Atom("eq", Term("launch", index=1), Term("const", index=1))], "m: wp.array2d[float]", "i, j"),
    # a count or CSR end (`+ 1`), a per-world start (`- vk.launch_dim(1) + 1`), `<` of an `off[s + 1]`
    ([Atom("lt", Term("launch", index=0), Term("shape", "off", 0)),
      Atom("gt", Term("shape", "x", 0), Term("const", index=2)),
      Atom("all_in_range", rhs=Term("shape", "x", 0, offset=1), array="off"),
      Atom("all_in_range", rhs=Term("shape", "x", 0, offset=1, minus=Term("launch", index=1)), array="start"),
      Atom("all_sorted", array="off")],
     "off: wp.array[int], start: wp.array[int], x: wp.array[float]", "i, j"),
    # a flat length as the int64 product of int32 parameters, and its weaker form
    ([Atom("eq", Term("shape", "a", 0, wide=True),
           Term("product", factors=(Term("param", "n"), Term("param", "m"), Term("param", "n")))),
      Atom("le", Term("product", factors=(Term("param", "m"), Term("param", "n"))),
           Term("shape", "a", 0, wide=True))], "a: wp.array[float], n: int, m: int", "i"),
    # a flat column `s * 36 + ...` for `s < y.shape[1]`: a length covering a literal times another length
    ([Atom("le", Term("product", factors=(Term("const", index=36), Term("shape", "y", 1))),
           Term("shape", "c", 1, wide=True))], "c: wp.array2d[float], y: wp.array2d[float]", "i"),
    # a chunk per thread: a positive count whose product with the launch fits in int32
    ([Atom("gt", Term("param", "k"), ZERO),
      Atom("le", Term("product", factors=(Term("launch", index=0), Term("param", "k"))),
           Term("const", index=2 ** 31 - 1, wide=True))], "a: wp.array[float], k: int", "i"),
    # a packed layout `x[i + 2 * idx[i]]`: room for the launch's rows and 2 per group, in int64
    ([Atom("le", Term("product", factors=(Term("const", index=2), Term("shape", "g", 0))),
           Term("shape", "x", 0, minus=Term("launch", index=0), wide=True)),
      Atom("all_in_range", rhs=Term("shape", "g", 0), array="idx")],
     "x: wp.array[float], g: wp.array[float], idx: wp.array[int]", "i"),
])
def test_template_text_compiles_to_the_mir_the_search_proves(atoms, params, tid):
    body = f"@wp.kernel\ndef k({params}):\n    {tid} = wp.tid()\n"
    plain = _kernel(HEAD + body, "k")
    lines = decorator_lines(plain, atoms)
    pasted = _kernel(HEAD + "\n".join(lines) + "\n" + body, "k")
    extended, n = with_requires(plain, atoms)
    verify(extended)
    ours = requires_instrs(plain, atoms)
    assert n == len(ours)
    assert _shape_of(pasted.entry.instrs[:len(ours)]) == _shape_of(ours)


def test_a_captured_module_constant_is_named_as_the_module_global():
    """A module setting rebound under __main__ is the hidden param `@N`; the
    decorator names it `N` (not a lambda parameter) and compiles to it."""
    body = "@wp.kernel\ndef k(a: wp.array[float]):\n    i = wp.tid()\n    a[i % N] = 1.0\n"
    tail = "\n\nif __name__ == '__main__':\n    N = 16\n"
    plain = _kernel(HEAD + "N = 8\n\n\n" + body + tail, "k")
    assert "@N" in [p.name for p in plain.params]
    n = param_term(plain, "@N")   # the hidden param's typed origin: captured, shown as N
    assert (n.captured, n.shown) == (True, "N")
    atoms = [Atom("le", n, Term("shape", "a", 0)), Atom("gt", n, ZERO)]
    lines = decorator_lines(plain, atoms)
    assert lines == ("@vk.requires(lambda a: N <= a.shape[0] and N > 0)",)
    pasted = _kernel(HEAD + "N = 8\n\n\n" + "\n".join(lines) + "\n" + body + tail, "k")
    ours = requires_instrs(plain, atoms)
    # both kernels start with the setting's bounds 8 <= N <= 16 (scan/settings.py: N is one
    # of the literals 8, 16), a compare and a requires each; the decorator's come after them
    skip = 4
    assert _shape_of(plain.entry.instrs[:skip]) == _shape_of(pasted.entry.instrs[:skip])
    assert [type(i).__name__ for i in plain.entry.instrs[:skip]] == ["Compare", "Requires"] * 2
    assert _shape_of(pasted.entry.instrs[skip:skip + len(ours)]) == _shape_of(ours)


GUARDED = HEAD + textwrap.dedent("""
    @wp.func
    def lookup(f: wp.array[float], x: int):
        if x < 0 or x >= 64:
            return 0.0
        return f[x]

    @wp.kernel
    def shift(f: wp.array[float], out: wp.array[float]):
        i = wp.tid()
        out[i] = lookup(f, i + 3)
    """)


def test_an_index_guarded_at_a_grid_constant_gets_that_length():
    k = _kernel(GUARDED, "shift")
    obligations, spent = _prove(k)
    s = suggest_contract(k, obligations, per_check=10 * MEGA, budget_units=SUGGEST_WORK)
    assert s is not None and s.proved
    assert set(s.requires) == {"64 <= f.shape[0]", "vk.launch_dim() <= out.shape[0]"}


# an index computed from a float (a back-traced cell, `int(floor(x))`) and
# clamped to the grid [0, CELLS - 1]: no launch bounds it, the grid constant
# does; the prover cannot replay the float, so without a contract these
# reads stay unconfirmed (not proved), and the kernel fails on its other reads
RESAMPLE = HEAD + textwrap.dedent("""
    CELLS = 64

    @wp.func
    def fetch(f: wp.array2d[float], x: int, y: int):
        x = wp.clamp(x, 0, CELLS - 1)
        y = wp.clamp(y, 0, CELLS - 1)
        return f[x, y]

    @wp.kernel
    def resample(vel: wp.array2d[float], src: wp.array2d[float], dst: wp.array2d[float], dt: float):
        i, j = wp.tid()
        lx = int(wp.floor(float(i) - vel[i, j] * dt))
        ly = int(wp.floor(float(j) * 0.5))
        dst[i, j] = fetch(src, lx, ly) + fetch(src, lx + 1, ly + 1)
    """)


def test_a_float_derived_clamped_index_gets_the_grid_length_and_the_pasted_contract_proves():
    k = _kernel(RESAMPLE, "resample")
    report = prove_mir(k, file="resample.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    src_reads = [ob for ob in report.obligations if "src" in (ob.message or "")]
    assert src_reads and all(ob.status is not Status.PROVED for ob in src_reads)
    assert report.proved_under_suggestion is True
    assert {"64 <= src.shape[0]", "64 <= src.shape[1]"} <= set(report.suggested_requires)
    assert not any("src.shape" in r and "launch_dim" in r for r in report.suggested_requires)
    pasted = RESAMPLE.replace("@wp.kernel\n", "\n".join(report.suggested_decorators) + "\n@wp.kernel\n")
    again = prove_mir(_kernel(pasted, "resample"), file="resample.py")
    assert again.status is KernelStatus.PROVED, [ob.message for ob in again.obligations]
    # a grid smaller than the clamp is still a bug under the launch part of the contract
    smaller = pasted.replace("64 <= src.shape[0]", "63 <= src.shape[0]")
    assert prove_mir(_kernel(smaller, "resample"), file="resample.py").status is not KernelStatus.PROVED


# a stencil guarded by a grid parameter (`if j <= n - 2`), as Warp's staggered
# grids are: the guard, not the launch, bounds the neighbour `j + 1`
STAGGERED = HEAD + textwrap.dedent("""
    @wp.kernel
    def diff(f: wp.array2d[float], out: wp.array2d[float], n: int):
        i, j = wp.tid()
        if j <= n - 2:
            out[i, j] = f[i, j + 1] - f[i, j]
    """)


def test_an_index_guarded_at_a_parameter_gets_that_parameter_as_the_length():
    k = _kernel(STAGGERED, "diff")
    report = prove_mir(k, file="diff.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    assert report.proved_under_suggestion is True
    assert "n <= f.shape[1]" in report.suggested_requires
    pasted = STAGGERED.replace("@wp.kernel\n", "\n".join(report.suggested_decorators) + "\n@wp.kernel\n")
    assert prove_mir(_kernel(pasted, "diff"), file="diff.py").status is KernelStatus.PROVED
    # a negative n wraps `n - 2` to a huge guard: the contract must exclude it,
    # and without that conjunct the neighbour read fails again
    assert "n >= 0" in report.suggested_requires
    weaker = pasted.replace(" and n >= 0", "")
    assert weaker != pasted
    assert prove_mir(_kernel(weaker, "diff"), file="diff.py").status is KernelStatus.FAILED


# a periodic stencil (Warp's `cyclic_index`): the same array is read at the
# thread's own cell, which the launch bounds, and at a wrapped neighbour, which
# only the grid constant bounds -- both conjuncts are needed, in one round
PERIODIC = HEAD + textwrap.dedent("""
    CELLS = 64

    @wp.func
    def wrap(k: int):
        r = k % CELLS
        if r < 0:
            r += CELLS
        return r

    @wp.kernel
    def blur(src: wp.array2d[float], dst: wp.array2d[float]):
        i, j = wp.tid()
        dst[i, j] = src[i, j] + src[wrap(i - 1), j] + src[i, wrap(j + 1)]
    """)


def test_a_periodic_neighbour_gets_the_grid_length_next_to_the_launch_relation():
    k = _kernel(PERIODIC, "blur")
    report = prove_mir(k, file="blur.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    assert report.proved_under_suggestion is True
    for dim in (0, 1):
        assert any(f"src.shape[{dim}]" in r and "64" in r for r in report.suggested_requires)
    pasted = PERIODIC.replace("@wp.kernel\n", "\n".join(report.suggested_decorators) + "\n@wp.kernel\n")
    assert prove_mir(_kernel(pasted, "blur"), file="blur.py").status is KernelStatus.PROVED


# a row-major matrix stored flat, indexed `a[i * m + j]` under `i < n`, `j < m`:
# the length is n * m, stated in int64 (in int32 the product can wrap to
# match a small array: `bounds_flat_index_requires_overflow`)
FLAT = HEAD + textwrap.dedent("""
    @wp.kernel
    def fill(a: wp.array[float], n: int, m: int):
        i, j = wp.tid()
        if i < n and j < M:
            a[i * m + j] = 1.0
    """)


def test_a_flat_index_gets_the_int64_product_of_its_extents_and_the_pasted_contract_proves():
    k = _kernel(FLAT.replace("M", "m"), "fill")
    report = prove_mir(k, file="fill.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    assert report.proved_under_suggestion is True
    (req,) = [r for r in report.suggested_requires if "a.shape" in r]
    assert req in ("vk.int64(a.shape[0]) == vk.int64(n) * vk.int64(m)",
                   "vk.int64(n) * vk.int64(m) <= vk.int64(a.shape[0])"), report.suggested_requires
    pasted = FLAT.replace("M", "m").replace(
        "@wp.kernel\n", "\n".join(report.suggested_decorators) + "\n@wp.kernel\n")
    assert prove_mir(_kernel(pasted, "fill"), file="fill.py").status is KernelStatus.PROVED
    # the same contract in int32 wraps (n = 65537, m = 65536 make 65536): not proved -- its
    # index a[i * m + j] fails, replayed (the bounds obligations alone: the wrap is theirs; the
    # writes' race, which the wrap also lets two threads have, was most of the whole proof's time)
    narrow = pasted.replace("vk.int64(a.shape[0])", "a.shape[0]").replace(
        "vk.int64(n) * vk.int64(m)", "n * m")
    assert narrow != pasted
    with deciding_only(ObligationKind.BOUNDS):    # the race, not checked here, cost most of it
        bounds = prove_mir(_kernel(narrow, "fill"), file="fill.py")
    assert bounds.status is KernelStatus.FAILED
    assert [ob.status for ob in bounds.obligations if ob.kind is ObligationKind.BOUNDS] == [Status.FAILED]


def test_a_column_past_the_row_gets_no_proved_product_contract():
    """`j <= m` reaches the next row's first element: no length makes the
    writes race-free, so no suggestion may claim a proof."""
    k = _kernel(FLAT.replace("M", "m + 1"), "fill")
    report = prove_mir(k, file="fill.py", suggest=True)
    assert report.status is KernelStatus.FAILED
    assert report.proved_under_suggestion is not True
