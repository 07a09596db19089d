"""A kernel and funcs generic over a vector's length
(tests/warp_compat/kernels_length_generic.py) under real Warp on its CPU device
and under verikern's simulator and `cpu:native`, for 2- and 3-vectors: equal
results, numpy as an independent reference. Proved per instance: every
instance of equal lengths is proved, one whose `b` is shorter than `a` (Warp
builds it, and `y[k]` reads past `b`'s components) fails, and `spans[...]`,
standing for the lengths not enumerated, stays unknown."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file

from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
DEVICES = ("cpu", "cpu:native")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_length_generic")


@pytest.mark.parametrize("n,vec", [(2, "vec2"), (3, "vec3")])
def test_length_generic_kernel_agrees_with_warp_and_numpy(kernels, n, vec):
    rng = np.random.default_rng(n)
    a = rng.uniform(-2, 2, (5, n)).astype(np.float32)
    b = rng.uniform(-2, 2, (5, n)).astype(np.float32)
    start = rng.uniform(-1, 1, 5).astype(np.float32)
    out = wp.array(start, dtype=wp.float32, device="cpu")
    t = getattr(wp, vec)
    wp.launch(kernels.spans, dim=5, inputs=[wp.array(a, dtype=t, device="cpu"),
                                            wp.array(b, dtype=t, device="cpu"), out], device="cpu")
    want = out.numpy()
    h = 0.5 * (a - b)
    np.testing.assert_allclose(want, (h * h).sum(axis=1) + 0.5 * (start - 1.0) + n, rtol=1e-5)
    for dev in DEVICES:
        got = start.copy()
        vk.launch(kernels.spans, 5, [a.copy(), b.copy(), got], device=dev)
        np.testing.assert_array_equal(got, want, err_msg=dev)


def test_every_equal_length_instance_is_proved_and_a_shorter_b_fails():
    verdicts = {r.kernel: r.status.value for r in prove_file(HERE / "kernels_length_generic.py")}
    for name in ("vec1f", "vec2", "vec3", "vec4"):
        assert verdicts[f"spans[{name}, {name}]"] == "proved", verdicts
    assert verdicts["spans[vec3, vec2]"] == "failed"
    assert verdicts["spans[vec2, vec3]"] == "proved"    # b longer than a: its extra component unread
    assert verdicts["spans[...]"] == "unknown"
    assert len(verdicts) == 17
