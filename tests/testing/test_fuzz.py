"""Differential runs: a deliberately wrong backend (test-only) is caught and
shrunk to a small case; differences are diagnosed as kernel bugs (a race,
an uninitialised shared read) or backend disagreements; comparisons follow
docs/LANGUAGE.md section 6; a mismatch replays from its saved launch."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from verikern.testing import Backend, Launch, compile_kernels, fuzz
from verikern.testing.backends import run_device
from verikern.testing.compare import RunError, Tolerance, first_difference
from verikern.testing.explain import diagnose, load_launch, save_launch

HERE = Path(__file__).resolve().parent
KERNELS = {k.name: k for k in compile_kernels(HERE / "kernels_fuzz.py")}
_cpu = run_device("cpu")


def _off_by_one_at_3(target, launch):
    """The simulator, except that element 3 of every float output is one too big."""
    out = _cpu(target, launch)
    if not isinstance(out, RunError):
        for a in out.values():
            if a.dtype.kind == "f" and a.size > 3:
                a.reshape(-1)[3] += np.float32(1.0)
    return out


WRONG = Backend("wrong", _off_by_one_at_3)


def test_a_wrong_backend_is_caught_and_shrunk(tmp_path):
    r = fuzz(KERNELS["scale"], ["cpu", WRONG], examples=100, seed=5, replay_dir=str(tmp_path))
    m = r.mismatch
    assert r.status == "mismatch" and m is not None, r
    assert (m.left, m.right) == ("cpu", "wrong")
    # shrunk to a small case: 4 elements (the fewest that show it), at most 4 threads
    assert m.launch.dims[0] <= 4 and m.launch.block_dim <= 4, m.launch
    assert m.difference.array in ("x", "y") and m.difference.index == (3,)
    assert m.launch.values[m.difference.array].shape == (4,)
    assert not m.diagnosis.kernel_bug and "backend disagreement" in m.diagnosis.text
    text = m.report("verikern fuzz k.py --replay x.npz")
    assert "kernels_fuzz.py:" in text and "cpu: " in text and "wrong: " in text
    # the saved launch reproduces it
    again = fuzz(KERNELS["scale"], ["cpu", WRONG], launch=load_launch(m.replay), diagnose=False)
    assert again.mismatch is not None and again.mismatch.difference == m.difference


def test_correct_backends_agree():
    r = fuzz(KERNELS["scale"], ["cpu", "cpu:native"], examples=25, seed=1)
    assert r.status == "agree" and r.examples == 25 and r.compared == ("cpu", "cpu:native")


def test_unavailable_backends_drop_out_with_a_note():
    gone = Backend("gone", _cpu, lambda target: "not installed here")
    r = fuzz(KERNELS["scale"], ["cpu", gone, "cpu:native"], examples=5, seed=1)
    assert r.status == "agree" and r.compared == ("cpu", "cpu:native")
    assert r.dropped == (("gone", "not installed here"),)
    assert any("gone dropped out: not installed here" in n for n in r.notes)
    alone = fuzz(KERNELS["scale"], ["cpu", gone], examples=5)
    assert alone.status == "skipped" and alone.examples == 0


def test_a_race_is_diagnosed_as_a_kernel_bug():
    x = np.arange(1, 9, dtype=np.float32)
    launch = Launch((8,), 4, {"x": x, "out": np.zeros(1, np.float32)})
    d = diagnose(KERNELS["racy_sum"], launch, prove=False)
    assert d.kernel_bug and "data race" in d.text
    assert "kernels_fuzz.py:" in d.text and "out[0]" in d.text


def test_an_uninitialised_shared_read_is_diagnosed():
    launch = Launch((4,), 4, {"x": np.ones(4, np.float32), "out": np.zeros(4, np.float32)})
    d = diagnose(KERNELS["uninit_shared"], launch, prove=False)
    assert d.kernel_bug and "uninitialised shared memory" in d.text
    assert "buf[1]" in d.text and "thread 1" in d.text


def test_a_clean_kernel_is_not_blamed():
    launch = Launch((3,), 2, {"x": np.ones(3, np.float32), "y": np.zeros(3, np.float32),
                              "a": np.float32(2.0)})
    d = diagnose(KERNELS["scale"], launch, prove=True)
    assert not d.kernel_bug and "verikern prove finds no race" in d.text


def test_comparison_rules():
    tol = Tolerance()
    f = np.float32
    same = {"a": np.array([np.nan, 0.0, 1.0, np.inf], f)}
    near = {"a": np.array([np.nan, -0.0, np.nextafter(f(1), f(2)), np.inf], f)}
    assert first_difference(same, near, tol) is None                    # NaN==NaN, +-0, 1 ULP
    far = {"a": np.array([np.nan, 0.0, 1.001, np.inf], f)}
    d = first_difference(same, far, tol)
    assert d.array == "a" and d.index == (2,) and "1.00" in d.right
    assert first_difference({"a": np.array([1.0], f)}, {"a": np.array([-np.inf], f)}, tol) is not None
    ints = first_difference({"k": np.array([5, 7], np.int32)}, {"k": np.array([5, 8], np.int32)}, tol)
    assert ints.index == (1,) and ints.left == "7" and ints.right == "8"
    assert first_difference(RunError("assert", "x"), RunError("assert", "y"), tol) is None
    assert first_difference(RunError("assert", "x"), same, tol).array is None
    # fast_math widens the tolerance (64 ULP)
    wide = {"a": np.array([np.nan, 0.0, f(1) + 20 * np.finfo(f).eps, np.inf], f)}
    assert first_difference(same, wide, tol) is not None
    assert first_difference(same, wide, Tolerance(1e-5, 64)) is None


def test_saved_launches_read_back_exactly(tmp_path):
    launch = Launch((2, 3), 6, {"m": np.array([[np.nan, -0.0]], np.float32), "n": np.int32(-7),
                                "v[0]": np.float32(1.5), "flag": np.bool_(True)})
    back = load_launch(save_launch(launch, tmp_path / "l.npz"))
    assert back.dims == (2, 3) and back.block_dim == 6 and list(back.values) == list(launch.values)
    assert back.values["m"].tobytes() == launch.values["m"].tobytes()
    assert back.values["n"] == -7 and back.values["n"].dtype == np.int32
    assert back.values["flag"] == np.bool_(True)


def test_an_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        fuzz(KERNELS["scale"], ["cpu", "tpu"], examples=1)


def test_a_racy_kernel_is_reported_as_a_kernel_bug_end_to_end():
    r = fuzz(KERNELS["racy_sum"], ["cpu", "cpu:native"], examples=100, seed=2)
    # the simulator and cpu:native order the racing read-modify-writes differently
    assert r.mismatch is not None, r
    assert r.mismatch.diagnosis.kernel_bug and "data race" in r.mismatch.diagnosis.text
    assert "kernels_fuzz.py:41:9" in r.mismatch.diagnosis.text


def test_a_seed_draws_the_same_launches_whatever_modules_were_imported(monkeypatch):
    # Hypothesis mixes the constants of every local module imported so far into its
    # draws; fuzz pins that pool (verikern.testing.reproducible), so --seed reproduces
    # on an editable install, a wheel, or after other imports
    from hypothesis.internal.conjecture import providers

    def recorded_launches():
        seen = []

        def record(target, launch):
            seen.append(repr(sorted((k, np.asarray(v).tolist()) for k, v in launch.values.items())))
            return _cpu(target, launch)

        r = fuzz(KERNELS["scale"], [Backend("recorder", record), "cpu"], examples=20, seed=4)
        assert r.mismatch is None and r.examples == 20
        return seen

    first = recorded_launches()
    pool = providers.Constants()
    pool.integers.update(range(-5000, 5000, 7))
    pool.floats.update(x / 4 for x in range(-3000, 3000, 11))
    monkeypatch.setattr(providers, "_get_local_constants", lambda: pool)
    providers.CONSTANTS_CACHE.cache.clear()     # as a newly imported module does
    try:
        assert recorded_launches() == first
    finally:
        providers.CONSTANTS_CACHE.cache.clear()
