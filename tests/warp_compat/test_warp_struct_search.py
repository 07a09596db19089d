"""The struct typing search (check/generic_struct_search.py) on a kernel shaped like
warpSPHCore's `computeCRKMoments_Kernel` (tests/warp_compat/kernels_struct_search.py):
the typings it finds are the ones Warp builds -- vec2/mat22 outputs beside `Cloud2`,
vec3/mat33 beside `Cloud3` -- and each instance gives Warp's CPU results under the
simulator and `cpu:native` (numpy the independent reference). Each is proved; with
the contract's `masses` length dropped (a near miss), each fails on `q.masses[j]`."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend.driver import compile_file

from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
DEVICES = ("cpu", "cpu:native")
NAMES = ["moments[Cloud2, float32, vec2, mat22]", "moments[Cloud3, float32, vec3, mat33]"]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_struct_search")


@pytest.fixture(scope="module")
def instances():
    module = compile_file(str(HERE / "kernels_struct_search.py"))
    return {k.name: k for k in module.kernels}


def test_the_search_finds_the_typings_of_each_dimension(instances):
    assert list(instances) == [*NAMES, "moments[...]"], list(instances)
    assert all(instances[n].mir is not None for n in NAMES)
    more = instances["moments[...]"].error.render()
    assert "searched one parameter at a time" in more and "which found 2" in more, more


@pytest.mark.parametrize("d", [2, 3])
def test_each_instance_agrees_with_warp_and_numpy(kernels, instances, d):
    rng = np.random.default_rng(d)
    n = 6
    pos = rng.uniform(-2, 2, (n, d)).astype(np.float32)
    mass = rng.uniform(0.5, 2.0, n).astype(np.float32)
    cloud = getattr(kernels, f"Cloud{d}")()
    cloud.positions = wp.array(pos, dtype=getattr(wp, f"vec{d}"), device="cpu")
    cloud.masses = wp.array(mass, dtype=wp.float32, device="cpu")
    vec, mat = getattr(wp, f"vec{d}"), getattr(wp, f"mat{d}{d}")
    w0, w1, w2 = (wp.zeros(n, dtype=t, device="cpu") for t in (wp.float32, vec, mat))
    wp.launch(kernels.moments, dim=n, inputs=[cloud, w0, w1, w2], device="cpu")
    x = pos[None, :, :] - pos[:, None, :]                        # x[i, j] = pos[j] - pos[i]
    np.testing.assert_allclose(w0.numpy(), np.full(n, mass.sum()), rtol=1e-5)
    np.testing.assert_allclose(w1.numpy(), np.einsum("ijk,j->ik", x, mass), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w2.numpy(), np.einsum("ijk,ijl,j->ikl", x, x, mass), rtol=1e-4, atol=1e-5)
    mir = instances[NAMES[d - 2]].mir
    for dev in DEVICES:
        got = [np.zeros(n, np.float32), np.zeros((n, d), np.float32), np.zeros((n, d, d), np.float32)]
        vk.launch(mir, n, [{"positions": pos.copy(), "masses": mass.copy()}, *got], device=dev)
        for g, w in zip(got, (w0, w1, w2)):
            np.testing.assert_array_equal(g, w.numpy(), err_msg=dev)


def test_found_instances_are_proved_and_fail_without_the_masses_length(tmp_path):
    verdicts = {r.kernel: r.status.value for r in prove_file(HERE / "kernels_struct_search.py")}
    assert verdicts == dict.fromkeys(NAMES, "proved") | {"moments[...]": "unknown"}, verdicts
    text = (HERE / "kernels_struct_search.py").read_text().replace(
        "q.masses.shape[0] == q.positions.shape[0]\n             and ", "")
    (tmp_path / "near_miss.py").write_text(text)
    reports = {r.kernel: r for r in prove_file(tmp_path / "near_miss.py")}
    assert {k: r.status.value for k, r in reports.items()} == \
        dict.fromkeys(NAMES, "failed") | {"moments[...]": "unknown"}
    for k in NAMES:
        bad = [o for o in reports[k].obligations if o.status.value == "failed"]
        assert bad and all(o.kind == "bounds" and "masses" in o.message for o in bad), \
            [(o.kind, o.message) for o in bad]
