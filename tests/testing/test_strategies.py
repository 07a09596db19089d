"""verikern.testing.launches: generated launches satisfy every contract
(checked by hand here, independently of the solver), edge values appear,
and hypothesis shrinks launches to minimal ones."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings

import verikern as vk
from verikern.testing import Launch, compile_kernels, launches

HERE = Path(__file__).resolve().parent
KERNELS = {k.name: k for k in compile_kernels(HERE / "kernels_fuzz.py")}
# derandomized: the tests assert what a run of draws covers (variety), not only per-draw facts
FAST = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


def tight_contracts_hold(launch: Launch) -> None:
    """The contracts of kernels_fuzz.tight, written out by hand."""
    v = launch.values
    b, (d0, d1) = launch.block_dim, launch.dims
    assert b >= 64 and b & (b - 1) == 0
    assert d1 % 4 == 0 and d0 * d1 <= 1024
    assert int(v["n"]) == v["idx"].shape[0] * 3 + 1
    assert v["hist"].shape == (7,)
    assert v["m"].shape == (d0, d1)
    assert ((v["idx"] >= 5) & (v["idx"] < 12)).all()
    assert len(np.unique(v["perm"])) == v["perm"].size


def test_tight_contracts_are_never_broken_and_still_varied():
    seen = []

    @FAST
    @given(launches(KERNELS["tight"]))
    def check(launch):
        tight_contracts_hold(launch)
        # and the runtime's own check agrees (independently of the generator)
        vk.check_launch(KERNELS["tight"].mir, launch.dim, launch.inputs(), block_dim=launch.block_dim)
        seen.append((launch.dims, launch.block_dim, launch.values["idx"].shape[0]))

    check()
    assert len({s[0] for s in seen}) > 3 and len({s[1] for s in seen}) > 1
    assert len({s[2] for s in seen}) > 3


def test_edge_values_are_drawn():
    found = set()

    # derandomized: the test asserts what a run of 100 draws covers
    @settings(max_examples=100, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(launches(KERNELS["copy_all"]))
    def collect(launch):
        f, s, u = launch.values["f"], launch.values["s"], launch.values["u"]
        c = float(launch.values["c"])
        floats = np.concatenate([f.astype(np.float64), [c]])
        found.update({"nan"} if np.isnan(floats).any() else set())
        found.update({"+inf"} if (floats == np.inf).any() else set())
        found.update({"-inf"} if (floats == -np.inf).any() else set())
        found.update({"-0.0"} if ((floats == 0) & np.signbit(floats)).any() else set())
        tiny = np.finfo(np.float32).tiny
        found.update({"subnormal"} if ((f != 0) & (np.abs(f) < tiny)).any() else set())
        found.update({"INT_MIN"} if (s == np.iinfo(np.int32).min).any() else set())
        found.update({"INT_MAX"} if (s == np.iinfo(np.int32).max).any() else set())
        found.update({"u0"} if (u == 0).any() else set())
        found.update({"u1"} if (u == 1).any() else set())
        found.update({"u255"} if (u == 255).any() else set())
        found.update({"empty"} if f.size == 0 else set())
        k = int(launch.values["k"])
        found.update({"k=INT_MIN/MAX"} if k in (np.iinfo(np.int32).min, np.iinfo(np.int32).max) else set())

    collect()
    assert found >= {"nan", "+inf", "-inf", "-0.0", "subnormal", "INT_MIN", "INT_MAX", "u0", "u1",
                     "u255", "empty", "k=INT_MIN/MAX"}, found


def test_shrinking_reaches_the_minimal_launch():
    k = KERNELS["scale"]
    cfg = settings(max_examples=200, deadline=None, database=None,
                   suppress_health_check=list(HealthCheck))
    big = find(launches(k), lambda launch: launch.dims[0] >= 37, settings=cfg)
    assert big.dims == (37,) and big.block_dim == 1
    assert big.values["x"].shape == big.values["y"].shape
    assert big.values["x"].shape[0] in (0, 37)  # arrays shrink to empty or the launch's length
    nan = find(launches(k), lambda launch: np.isnan(launch.values["x"]).any(), settings=cfg)
    assert nan.values["x"].shape == (1,) and nan.dims == (1,)
    assert not np.isnan(nan.values["y"]).any()


def test_fixed_sizes_params_and_dims_are_kept():
    k = KERNELS["scale"]

    # facts of every draw (no variety asserted): 20 draws, not FAST's 60
    @settings(FAST, max_examples=20)
    @given(launches(k, dims=50, sizes={"x": 60}, params={"a": 2.5}))
    def check(launch):
        assert launch.dims == (50,) and launch.values["x"].shape == (60,)
        assert launch.values["y"].shape == (60,)       # solved from the requires
        assert launch.values["a"] == np.float32(2.5)

    check()


def test_cover_gives_one_thread_per_element():
    # a fact of every draw (no variety asserted): 20 draws, not FAST's 60
    @settings(FAST, max_examples=20)
    @given(launches(KERNELS["tight"], cover="m"))
    def check(launch):
        assert launch.dims == launch.values["m"].shape

    check()


def test_unknown_names_are_reported_with_the_kernel_location():
    from verikern.testing import TestingError

    with pytest.raises(TestingError, match=r"kernels_fuzz.py:\d+: kernel scale has no array parameter 'z'"):
        launches(KERNELS["scale"], sizes={"z": 3})


def test_block_kernels_keep_the_barrier_rule():
    k = KERNELS["uninit_shared"]

    # a fact of every draw (no variety asserted): 20 draws, not FAST's 60
    @settings(FAST, max_examples=20)
    @given(launches(k))
    def check(launch):
        assert math.prod(launch.dims) % launch.block_dim == 0 and launch.block_dim <= 256

    check()
