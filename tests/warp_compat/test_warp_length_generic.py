"""A kernel and funcs generic over a vector's length
(tests/warp_compat/kernels_length_generic.py) under real Warp on its CPU device
and under verikern's simulator and `cpu:native`, for 2- and 3-vectors: equal
results, numpy as an independent reference. Proved per instance: the instance
of each length 1 to 4 is proved, `spans[...]` (other and mixed lengths) stays
unknown, and without the contract on `b`'s length every instance fails."""
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


def test_every_length_instance_is_proved_and_fails_without_the_contract(tmp_path):
    names = [f"spans[{n}, {n}]" for n in ("vec1f", "vec2", "vec3", "vec4")] + ["spans[...]"]
    verdicts = {r.kernel: r.status.value for r in prove_file(HERE / "kernels_length_generic.py")}
    assert verdicts == dict.fromkeys(names[:4], "proved") | {"spans[...]": "unknown"}, verdicts
    text = (HERE / "kernels_length_generic.py").read_text().replace("a.shape[0] == b.shape[0] and ", "")
    (tmp_path / "near_miss.py").write_text(text)
    verdicts = {r.kernel: r.status.value for r in prove_file(tmp_path / "near_miss.py")}
    assert verdicts == dict.fromkeys(names[:4], "failed") | {"spans[...]": "unknown"}, verdicts
