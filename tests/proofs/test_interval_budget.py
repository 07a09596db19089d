"""The barrier-interval map's count (proofs.analysis.intervals, budget.interval_steps):
a map cut short answers conservatively -- every pair of accesses possibly concurrent --,
so a racy kernel is never proved and a correct barrier kernel is proved or unknown with
the map's reason, the same twice; the walk's smaller states keep barrier-free kernels of
many loops linear."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import compile_kernel, prove_src  # noqa: E402
from verikern.proofs.analysis.intervals import ENTRY, IntervalMap  # noqa: E402
from verikern.proofs.deciding import budget  # noqa: E402

# threads read the neighbours' elements after a barrier: correct
SEPARATED = """
    @vk.kernel(block_dim=64)
    def k(x: vk.array(dtype=vk.float32)):
        vk.requires(vk.grid_dim() == 1)
        vk.requires(x.shape[0] >= 64)
        sh = vk.shared.array(shape=(64,), dtype=vk.float32)
        t = vk.thread_idx()
        sh[t] = 1.0
        vk.sync_threads()
        x[t] = sh[63 - t]
"""

# the near miss: the read of the neighbour's element comes before the barrier
NEAR_MISS = """
    @vk.kernel(block_dim=64)
    def k(x: vk.array(dtype=vk.float32)):
        vk.requires(vk.grid_dim() == 1)
        vk.requires(x.shape[0] >= 64)
        sh = vk.shared.array(shape=(64,), dtype=vk.float32)
        t = vk.thread_idx()
        sh[t] = 1.0
        x[t] = sh[63 - t]
        vk.sync_threads()
        sh[t] = 2.0
"""

# a barrier in a loop: tiles loaded, synchronised, read, synchronised again
TILED = """
    @vk.kernel(block_dim=64)
    def k(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), n: int):
        vk.requires(n >= 0)
        vk.requires(n <= 16)
        vk.requires(vk.grid_dim() == 1)
        vk.requires(x.shape[0] >= 64 * n)
        vk.requires(y.shape[0] >= 64)
        sh = vk.shared.array(shape=(64,), dtype=vk.float32)
        t = vk.thread_idx()
        acc = float(0.0)
        i = int(0)
        while i < n:
            sh[t] = x[64 * i + t]
            vk.sync_threads()
            acc += sh[63 - t]
            vk.sync_threads()
            i += 1
        y[t] = acc
"""


@pytest.fixture
def cut_map(monkeypatch):
    """Every proof context's map gets one step: spent at its first state."""
    monkeypatch.setattr(budget, "MIN_INTERVAL_STEPS", 1)
    monkeypatch.setattr(budget, "INTERVAL_CHECKS", 1e-12)


def _races(obs):
    return [o for o in obs if o.kind.value == "race"]


def test_default_budget_keeps_the_verdicts():
    assert {o.status.value for o in prove_src(SEPARATED)} == {"proved"}
    assert {o.status.value for o in prove_src(TILED)} == {"proved"}
    near = prove_src(NEAR_MISS)
    assert {(o.kind.value, o.status.value) for o in near if o.status.value != "proved"} == {
        ("race", "failed"), ("uninit", "failed")}


@pytest.mark.parametrize("src", [SEPARATED, TILED], ids=["separated", "tiled"])
def test_correct_barrier_kernel_on_a_cut_map_is_unknown_with_the_reason(cut_map, src):
    runs = [[(o.loc.line, o.status.value, o.message) for o in _races(prove_src(src))]
            for _ in range(2)]
    assert runs[0] == runs[1]                                 # deterministic
    statuses = {status for _, status, _ in runs[0]}
    assert statuses <= {"proved", "unknown"} and "unknown" in statuses, runs[0]
    assert all("barrier-interval map" in msg and "raise --budget" in msg
               for _, status, msg in runs[0] if status == "unknown")


def test_racy_near_miss_on_a_cut_map_is_never_proved(monkeypatch):
    key = lambda o: (o.loc.line, o.other_loc.line if o.other_loc else None)  # noqa: E731
    racy = {key(o) for o in _races(prove_src(NEAR_MISS)) if o.status.value == "failed"}
    assert racy
    monkeypatch.setattr(budget, "MIN_INTERVAL_STEPS", 1)
    monkeypatch.setattr(budget, "INTERVAL_CHECKS", 1e-12)
    cut = {key(o): o.status.value for o in _races(prove_src(NEAR_MISS))}
    assert racy <= set(cut) and all(cut[r] in ("failed", "unknown") for r in racy), cut


def test_cut_map_answers_every_pair_concurrent():
    k = compile_kernel(TILED)
    whole, cut = IntervalMap(k), IntervalMap(k, limit=1)
    assert not whole.spent and cut.spent and cut.sites_from == {}
    sites = sorted({s for m in whole.sites_from.values() for s in m})
    assert len(whole.starts) == 3 and len(sites) >= 4
    for s1 in sites:
        for s2 in sites:
            exact = whole.common_starts(s1, s2)
            assert set(exact) <= set(cut.common_starts(s1, s2))
            assert cut.common_starts(s1, s2) == whole.starts
            assert cut.same_iteration_loops(s1, s2, cut.starts) == frozenset()
            assert cut.through_barrier_loop(s1, s2, cut.starts)
    # some pair the whole map separates (a barrier between) is concurrent on the cut one
    assert any(not whole.common_starts(a, b) for a in sites for b in sites)
    # the walk's limit is a count: the same steps every time, and a limit of
    # exactly that many keeps the whole map
    again = IntervalMap(k, limit=whole.steps)
    assert not again.spent and again.steps == whole.steps
    assert again.sites_from == whole.sites_from
    assert IntervalMap(k, limit=whole.steps - 1).spent


def test_barrier_free_loops_do_not_multiply_the_walk():
    # twelve loops one after another: the old states (every loop's marks) made
    # one state per subset of the loops crossed, 2**12 at the last access
    body = "\n".join(f"""
        j{i} = int(0)
        while j{i} < n:
            x[j{i}] = x[j{i}] + 1.0
            j{i} += 1""" for i in range(12))
    k = compile_kernel(f"""
    @vk.kernel
    def k(x: vk.array(dtype=vk.float32), n: int):
        {body.strip()}
        x[0] = 0.0
""")
    im = IntervalMap(k)
    instrs = sum(len(b.instrs) + 1 for b in k.blocks)
    assert len(k.loops) == 12 and im.starts[0].point == ENTRY
    assert im.steps <= 2 * instrs, (im.steps, instrs)
    assert all(cs == {frozenset()} for m in im.sites_from.values() for cs in m.values())
