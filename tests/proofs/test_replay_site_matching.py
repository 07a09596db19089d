"""Replay confirms an obligation only by its own violation: the same line and
column (and array for bounds and races; for divergence, the same barrier),
never by a different bug on the same line.

Each kernel has one obligation that can never be violated next to a real
bug on the same source line (found by a red-team review: replay used to
compare only line numbers). The safe obligation must not come back
FAILED and confirmed; the real bug still must."""
from __future__ import annotations

import textwrap

import pytest

from verikern.app.prove import prove_file
from verikern.proofs.obligations import Status

SAME_LINE_BOUNDS = """
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), c: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        vk.requires(c.shape[0] >= 1)
        vk.requires(a.shape[0] == out.shape[0])
        i = vk.tid()
        if i < a.shape[0]:
            a[i] = 0
            out[i] = c[a[i]] + b[i + 1]
"""  # noqa: E501 (the kernel signature stays on one line: the bug sites are pinned by line)

FUNC_BOUNDS = """
    @vk.func
    def get(arr: vk.array(dtype=vk.int32), i: int) -> int:
        return arr[i]

    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), c: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        vk.requires(c.shape[0] >= 1)
        vk.requires(a.shape[0] == out.shape[0])
        i = vk.tid()
        if i < a.shape[0]:
            a[i] = 0
            x = get(c, a[i])
            y = get(b, i + 1)
            out[i] = x + y
"""  # noqa: E501 (as above)

OTHER_BARRIER = """
    @vk.kernel(block_dim=32)
    def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.int32)):
        vk.requires(x.shape[0] >= 1)
        t = vk.thread_idx()
        if x[0] > 0.5:
            vk.sync_threads()
        if t < 3:
            vk.sync_threads()
"""

SAME_LINE_RACE = """
    @vk.kernel
    def k(p: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.int32), a: vk.array(dtype=vk.int32)):
        vk.requires(p.shape[0] == b.shape[0])
        vk.requires(a.shape[0] >= 1)
        i = vk.tid()
        if i < p.shape[0]:
            p[i] = i
            b[p[i]] = 1; a[0] = i
"""

SAME_LINE_DIVISION = """
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), d: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), z: vk.int32):
        vk.requires(a.shape[0] == out.shape[0])
        vk.requires(a.shape[0] == d.shape[0])
        vk.requires(z == 0)
        i = vk.tid()
        if i < a.shape[0]:
            d[i] = 3
            out[i] = a[i] // d[i] + a[i] // z
"""


def _obligations(tmp_path, src):
    path = tmp_path / "kernel.py"
    path.write_text("import verikern as vk\n\n" + textwrap.dedent(src).lstrip("\n"))
    (report,) = prove_file(path)
    return report.obligations


def _failed(obs, kind, line, col, confirmed=True, text=""):
    return [ob for ob in obs if ob.kind.value == kind and (ob.loc.line, ob.loc.col) == (line, col)
            and ob.status is Status.FAILED and ob.confirmed is confirmed and text in ob.message]


# (kernel, kind, safe position, real position, text naming the safe one) -- positions
# count the "import verikern as vk" header and the blank line after it
@pytest.mark.parametrize("src, kind, safe, real, safe_text", [
    (SAME_LINE_BOUNDS, "bounds", (10, 18), (10, 28), "c["),
    (FUNC_BOUNDS, "bounds", (5, 12), (5, 12), "c["),
    (OTHER_BARRIER, "divergence", (8, 9), (10, 9), ""),
    (SAME_LINE_RACE, "race", (10, 9), (10, 22), ""),
    (SAME_LINE_DIVISION, "div-zero", (11, 18), (11, 33), ""),
], ids=["bounds-same-line", "bounds-same-func", "divergence-other-barrier",
        "race-same-line", "div-zero-same-line"])
def test_only_the_obligations_own_violation_confirms_it(tmp_path, src, kind, safe, real, safe_text):
    obs = _obligations(tmp_path, src)
    wrong = _failed(obs, kind, *safe, text=safe_text)
    assert not wrong, "confirmed by another violation:\n" + "\n".join(
        f"{ob.message} | {ob.reason}" for ob in wrong)
    assert _failed(obs, kind, *real), "\n".join(f"{ob.loc.line}:{ob.loc.col} {ob.kind.value} "
                                                f"{ob.status.value} {ob.message}" for ob in obs)


STENCIL_NO_HALO = """
    @vk.kernel
    def k(x: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32)):
        vk.requires(out.shape[0] == x.shape[0])
        i = vk.tid()
        if i < x.shape[0]:
            out[i] = x[i - 1] + x[i] + x[i + 1]
"""


def test_a_violation_hidden_by_another_threads_error_is_confirmed_running_that_thread_alone(tmp_path):
    """Thread 0 always faults on x[i - 1] first; x[i + 1] of the last thread is
    confirmed by running only the offending thread (no barriers, so a legal
    schedule), and the explanation says so."""
    obs = _obligations(tmp_path, STENCIL_NO_HALO)
    right = [ob for ob in obs if ob.kind.value == "bounds" and ob.loc.col == 36]
    assert right and right[0].status is Status.FAILED and right[0].confirmed, right
    assert "only global thread" in right[0].reason


def test_simulating_only_some_threads(tmp_path):
    """The simulator option behind it: only the named threads run (others
    leave their outputs untouched); a kernel with barriers refuses it."""
    import numpy as np

    import verikern.backends.simulator as simulator
    from verikern.errors import LaunchError
    from verikern.frontend import compile_source
    from verikern.runtime import prepare_launch

    src = """
        @vk.kernel
        def k(out: vk.array(dtype=vk.int32)):
            i = vk.tid()
            if i < out.shape[0]:
                out[i] = i + 1
    """
    k = compile_source("import verikern as vk\n" + textwrap.dedent(src), "k.py").kernels[0].mir
    out = np.zeros(8, np.int32)
    mir, config, arrays, scalars = prepare_launch(k, 8, [out], 4)
    simulator.simulate(mir, config, arrays, scalars, threads=(2, 6))
    assert arrays["out"].tolist() == [0, 0, 3, 0, 0, 0, 7, 0]
    barrier = compile_source("import verikern as vk\n" + textwrap.dedent(src).replace(
        "i = vk.tid()", "i = vk.tid()\n    vk.sync_threads()"), "k.py").kernels[0].mir
    mir, config, arrays, scalars = prepare_launch(barrier, 8, [np.zeros(8, np.int32)], 4)
    with pytest.raises(LaunchError, match="barriers or shared memory"):
        simulator.simulate(mir, config, arrays, scalars, threads=(2,))


# ----------------------------------------------- second red-team review
FUNC_SAME_ARRAY = """
    @vk.func
    def get(arr: vk.array(dtype=vk.int32), i: int) -> int:
        return arr[i]

    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        vk.requires(b.shape[0] >= 1)
        vk.requires(a.shape[0] == out.shape[0])
        i = vk.tid()
        if i < a.shape[0]:
            a[i] = 0
            x = get(b, a[i])
            y = get(b, i + 1)
            out[i] = x + y
"""

OTHER_DIMENSION = """
    @vk.kernel
    def k(m: vk.array(dtype=vk.int32, ndim=2), a: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
        vk.requires(m.shape[0] >= 1)
        vk.requires(a.shape[0] == out.shape[0])
        i = vk.tid()
        if i < a.shape[0]:
            a[i] = 0
            out[i] = m[a[i], i + 1]
"""

# every thread toggles u an even number of times: all reach the barrier loop;
# the launch then stops at the division by z == 0 after every barrier
UNIFORM_AFTER_PEELED_LOOP = """
    @vk.kernel(block_dim=32)
    def k(a: vk.array(dtype=vk.int32), z: vk.int32):
        vk.requires(a.shape[0] >= 64)
        vk.requires(z == 0)
        t = vk.thread_idx()
        u = 0
        for q in range(2 * (t % 4)):
            u = 1 - u
        s = 0
        if u == 0:
            for j in range(4):
                s = s + j
                vk.sync_threads()
        a[vk.tid()] = s // z
"""


def test_two_calls_of_one_func_on_one_array_are_not_told_apart(tmp_path):
    """Both inlined accesses stand at 5:12 on array b; the simulator's error
    cannot say which call failed, so neither is confirmed by it."""
    obs = _obligations(tmp_path, FUNC_SAME_ARRAY)
    at = [ob for ob in obs if ob.kind.value == "bounds" and (ob.loc.line, ob.loc.col) == (5, 12)]
    # one finding for the source access (pipeline.one_per_access), still unconfirmed
    assert len(at) == 1 and not any(ob.confirmed for ob in at), [ob.reason for ob in at]
    assert any(ob.status is Status.FAILED for ob in at)
    assert all("inlined copies" in (ob.reason or "") for ob in at if ob.status is Status.FAILED)


def test_chained_divisions_at_one_position_are_not_told_apart(tmp_path):
    """`n // d // e`: both divisions stand at one position; a zero e is found
    but the simulator's error cannot say which division failed."""
    obs = _obligations(tmp_path, """
        @vk.kernel
        def k(a: vk.array(dtype=vk.int32), n: vk.int32, d: vk.int32, e: vk.int32):
            vk.requires(d != 0)
            i = vk.tid()
            if i < a.shape[0]:
                a[i] = n // d // e
    """)
    divs = [ob for ob in obs if ob.kind.value == "div-zero"]
    # one finding per position and property (pipeline.one_per_access): failed, unconfirmed
    assert len(divs) == 1 and divs[0].status.value == "failed" and not divs[0].confirmed
    failed = [ob for ob in divs if ob.status is Status.FAILED]
    assert len(failed) == 1 and "chained operations" in failed[0].reason


def test_a_bounds_failure_in_one_dimension_does_not_confirm_another(tmp_path):
    obs = _obligations(tmp_path, OTHER_DIMENSION)
    at = [ob for ob in obs if ob.kind.value == "bounds" and (ob.loc.line, ob.loc.col) == (10, 18)]
    by_dim = {ob.counterexample.facts["dim"]: ob for ob in at if ob.counterexample is not None}
    assert 0 not in by_dim or not by_dim[0].confirmed
    assert by_dim[1].status is Status.FAILED and by_dim[1].confirmed


def test_peeled_search_never_takes_a_thread_cut_off_at_a_loop_for_one_that_skips_a_barrier(tmp_path):
    obs = _obligations(tmp_path, UNIFORM_AFTER_PEELED_LOOP)
    barrier = [ob for ob in obs if ob.kind.value == "divergence"]
    assert barrier and all(ob.status is not Status.FAILED for ob in barrier), \
        [f"{ob.message} | {ob.reason}" for ob in barrier]
    assert any(ob.kind.value == "div-zero" and ob.status is Status.FAILED and ob.confirmed
               for ob in obs)


def test_a_race_claimed_through_a_barrier_loop_path_needs_a_replay(tmp_path):
    """The barrier runs in the last iteration of every launch (n >= 1), so
    the store before the loop and the load after it never share an interval.
    The interval analysis sees a barrier-free path around the loop (the
    `continue`); the race found through it is marked abstracted, replay
    shows nothing, and it ends unknown -- never failed (third red-team review)."""
    obs = _obligations(tmp_path, """
        @vk.kernel(block_dim=32)
        def k(a: vk.array(dtype=vk.int32), n: vk.int32):
            vk.requires(n >= 1 and n < 100)
            s = vk.shared.array(shape=(32,), dtype=vk.int32)
            t = vk.thread_idx()
            s[t] = t
            for r in range(n):
                if r < n - 1:
                    continue
                vk.sync_threads()
            i = vk.tid()
            if i < a.shape[0]:
                a[i] = s[(t + 1) % 32]
    """)
    races = [ob for ob in obs if ob.kind.value == "race"]
    assert races and not any(ob.status is Status.FAILED for ob in races), \
        [f"{ob.status.value}: {ob.message} | {ob.reason}" for ob in races]
