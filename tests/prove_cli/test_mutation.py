"""Mutation testing of the prover: a typical bug injected into a correct
kernel must never be reported PROVED, and most must be caught (some
obligation FAILED); the mutation score (caught / compiled mutants) is
printed at the end of the session and must reach SCORE_FLOOR
(tests/prove_cli/conftest.py checks it once every mutant of a set ran).

The mutants and their outcomes are defined in `mutation_set.py`. A mutant
still PROVED is a test failure unless ALLOWED names it with the reason it
is still a correct kernel (every entry reviewed by reading the mutant); an
ALLOWED mutant is proved again on every run, and the entry must go once it
is no longer PROVED or no longer generated. An `unknown` mutant (the budget
ran out) passes its test but is not caught: it lowers the score.
"""
from __future__ import annotations

import json

import pytest

from prove_cli.mutation_set import (
    EXTRA_SOURCES, MUTANT_BUDGET, SCORE_FLOOR, candidates_and_drops, mutation_set, outcome,
)
from prove_cli.prove_args import driver_kwargs

# (file stem, mutant ident) -> why the mutant is still a correct kernel.
ALLOWED: dict[tuple[str, str], str] = {
    ("block_reduce", "drop-requires@17:5"):
        "the requires only asks for a power-of-two block_dim, which the SUM needs; memory "
        "safety does not: threads t < s read buf[t + s] < 2*s <= block_dim <= 1024 and write "
        "buf[t], disjoint index ranges, with a barrier after every halving step",
    ("matmul", "guard-bound@37:24"):
        "range(0, kdim + 1, TILE) may run one more tile, but every load is still guarded by "
        "k0 + tx < kdim / k0 + ty < kdim and kdim <= 2**30 keeps the counter from wrapping",
    ("ok_swap_pairs_no_overflow", "index-shift@10:15"):
        "t = x[2 * i + 1] reads the thread's own odd element, in bounds under the guard "
        "i < x.shape[0] // 2; a wrong swap, but no out-of-bounds access and no race",
    ("ok_vec3_cross_next_guarded", "index-shift@11:13"):
        "out[i + 1] is in bounds under the guard i + 1 < v.shape[0] == out.shape[0], and "
        "distinct threads still write distinct elements; a wrong result, but memory-safe",
    ("ok_barrier_block_uniform_branch", "drop-requires@8:5"):
        "without out.shape[0] == x.shape[0] each global access is still guarded by its own "
        "array's shape (i < x.shape[0], i < out.shape[0]); the requires only makes the copy whole",
    ("ray_triangle", "guard-bound@21:22"):
        "the guard vk.abs(det) > EPS_DET only protects the float division 1.0 / det (a float "
        "division by zero is no obligation); every array access is in intersect, guarded by i < n",
    ("ray_triangle", "lt-to-le@21:8"):
        "vk.abs(det) >= EPS_DET guards only the float division 1.0 / det (no obligation); the "
        "kernel's accesses are guarded by i < origins.shape[0] and the shape requires",
    ("transpose", "drop-requires@19:5"):
        "every global access is guarded by its own array's shape (row < a.shape[0] and col < "
        "a.shape[1]; orow < out.shape[0] and ocol < out.shape[1]); tile indices are < 32 by "
        "construction; the requires only makes the transpose whole",
    ("ok_2d_stencil_5pt_halo", "index-shift@11:13"):
        "out[i + 1, j] is in bounds under the guard i + 1 < a.shape[0] == out.shape[0], and "
        "distinct threads still write distinct elements; a wrong result, but memory-safe",
    ("ok_barrier_after_divergent_branch", "drop-requires@8:5"):
        "x[i] and out[i] are each guarded by their own array's shape, and the shared buffer is "
        "indexed by t and t ^ 1 < 64 = block_dim; the requires only makes the exchange whole",
    ("ok_shared_prove_args_block_dim", "drop-requires@9:5"):
        "x[i] and out[i] are each guarded by their own array's shape, and buf[t], buf[127 - t] "
        "stay in 0..127 under --block-dim 128; the requires only makes the reversal whole",
    ("ok_stencil_halo_guard", "index-shift@11:13"):
        "out[i + 1] is in bounds under the guard i + 1 < x.shape[0] == out.shape[0], and "
        "distinct threads still write distinct elements; a wrong result, but memory-safe",
}
ALWAYS = frozenset(ALLOWED)


def _params(name):
    marks = [pytest.mark.slow] if name == "full" else []
    return [pytest.param(p, id=p.test_id, marks=marks) for p in mutation_set(name, ALWAYS)]


def _prove(planned):
    from verikern.proofs.driver import prove_source

    kwargs = driver_kwargs(planned.source.prove_args, budget=MUTANT_BUDGET)
    if kwargs["kernel"] is None:
        kwargs["kernel"] = planned.mutant.kernels
    return prove_source(planned.mutant.source, f"{planned.source.path.stem}.mutant.py", **kwargs)


def _check(planned, set_name, record_property):
    import time

    from verikern.proofs.report import render_text

    start = time.process_time()
    reports = _prove(planned)
    result, failed_kinds = outcome(reports)
    m = planned.mutant
    record_property("mutant", json.dumps({
        "set": set_name, "size": len(mutation_set(set_name, ALWAYS)), "key": list(planned.key),
        "kind": m.kind, "outcome": result, "failed": failed_kinds, "allowed": planned.key in ALLOWED,
        "cpu_s": round(time.process_time() - start, 3)}))
    where = f"{m.description} at {planned.source.path.name}:{m.loc.line}:{m.loc.col} ({m.kind})"
    if planned.key in ALLOWED:
        assert result == "proved", (f"ALLOWED lists {planned.key}, but the mutant is now {result}: "
                                    f"remove the entry\n" + render_text(reports))
        return
    assert result != "proved", f"mutant survived: {where} is reported PROVED\n" + render_text(reports)
    assert result != "error", f"a compiled mutant got no verdict: {where}\n" + render_text(reports)


@pytest.mark.parametrize("planned", _params("fast"))
def test_fast_mutant_is_not_proved(planned, record_property):
    _check(planned, "fast", record_property)


@pytest.mark.parametrize("planned", _params("full"))
def test_full_mutant_is_not_proved(planned, record_property):
    _check(planned, "full", record_property)


def test_allow_list_entries_are_generated_compiled_mutants_with_reasons():
    keys = {p.key for name in ("fast", "full") for p in mutation_set(name, ALWAYS)}
    for key, reason in ALLOWED.items():
        assert key in keys, f"ALLOWED names a mutant that is not generated (or does not compile): {key}"
        assert len(reason) > 40
    assert all(p.key in ALLOWED or p.key not in ALWAYS for p in mutation_set("fast", ALWAYS))
    assert ALWAYS <= {p.key for p in mutation_set("fast", ALWAYS)}


def test_every_kind_is_in_the_fast_set_and_only_benign_candidates_are_dropped(record_property):
    from tools.mutate import KINDS

    fast = mutation_set("fast", ALWAYS)
    kinds = {p.mutant.kind for p in fast}
    assert kinds == set(KINDS), sorted(set(KINDS) - kinds)
    total, drops = candidates_and_drops()
    record_property("mutation-drops", json.dumps({"candidates": total, "drops": dict(drops)}))
    # a dropped requires leaves the others first in the body: never illegal
    assert not [r for r in drops if r.startswith("drop-requires")], drops
    assert sum(drops.values()) <= total // 20, drops
    assert set(SCORE_FLOOR) == {"fast", "full"}


@pytest.mark.parametrize("path", sorted(EXTRA_SOURCES.glob("*.py")), ids=lambda p: p.stem)
def test_mutation_sources_are_proved(path):
    """A mutant means something only if the kernel it mutates is proved."""
    from verikern.proofs.driver import prove_file
    from verikern.proofs.obligations import KernelStatus
    from verikern.proofs.report import render_text

    reports = prove_file(path, **driver_kwargs((), budget=MUTANT_BUDGET))
    assert reports and all(r.status is KernelStatus.PROVED for r in reports), render_text(reports)
