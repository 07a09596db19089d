"""The struct typing search's uniform typings (check/generic_struct_search.py) on a
kernel shaped like warpSPHCore's `computeSPHLaplacianDotJVP_Kernel`
(tests/warp_compat/kernels_struct_uniform.py): four value arrays and an output
that build only all of one vector type. The typings found are the ones Warp
builds -- every array vec2 beside `Cloud2`, vec3 beside `Cloud3` -- and each
instance gives Warp's CPU results under the simulator and `cpu:native` (numpy the
independent reference). Without the uniform typings the search finds none; each
instance is proved, and fails with the contract's `masses` length dropped."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend.check import generic_struct_search
from verikern.frontend.driver import compile_file

from warp_compat.compat_util import load_kernels

wp = pytest.importorskip("warp")

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "kernels_struct_uniform.py"
DEVICES = ("cpu", "cpu:native")
NAMES = ["dot_flux[Cloud2, vec2, vec2, vec2, vec2, vec2]", "dot_flux[Cloud3, vec3, vec3, vec3, vec3, vec3]"]


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_struct_uniform")


@pytest.fixture(scope="module")
def instances():
    module = compile_file(str(SOURCE))
    return {k.name: k for k in module.kernels}


def test_the_uniform_typings_find_each_dimension_and_the_search_alone_none(instances, monkeypatch):
    assert list(instances) == [*NAMES, "dot_flux[...]"], list(instances)
    assert all(instances[n].mir is not None for n in NAMES)
    more = instances["dot_flux[...]"].error.render()
    assert "every other parameter at once" in more and "which found 2" in more, more
    monkeypatch.setattr(generic_struct_search, "MAX_UNIFORM_CHECKS", 0)
    alone = [k.name for k in compile_file(str(SOURCE)).kernels]
    assert alone == ["dot_flux[...]"], alone


def _reference(pos, mass, fq, fr, dq, dr):
    """numpy: out[i] = sum_j qij * (qij . x + dqij . x), qij = (fr[j] - fq[i]) m[j], ..."""
    x = pos[None, :, :] - pos[:, None, :]
    q = (fr[None, :, :] - fq[:, None, :]) * mass[None, :, None]
    dqij = q + (dr[None, :, :] - dq[:, None, :]) * mass[None, :, None]
    s = np.einsum("ijk,ijk->ij", q, x) + np.einsum("ijk,ijk->ij", dqij, x)
    return np.einsum("ijk,ij->ik", q, s)


@pytest.mark.parametrize("d", [2, 3])
def test_each_instance_agrees_with_warp_and_numpy(kernels, instances, d):
    rng = np.random.default_rng(d)
    n = 5
    pos = rng.uniform(-1, 1, (n, d)).astype(np.float32)
    mass = rng.uniform(0.5, 1.5, n).astype(np.float32)
    vals = [rng.uniform(-1, 1, (n, d)).astype(np.float32) for _ in range(4)]
    vec = getattr(wp, f"vec{d}")
    cloud = getattr(kernels, f"Cloud{d}")()
    cloud.positions = wp.array(pos, dtype=vec, device="cpu")
    cloud.masses = wp.array(mass, dtype=wp.float32, device="cpu")
    out = wp.zeros(n, dtype=vec, device="cpu")
    wp.launch(kernels.dot_flux, dim=n, device="cpu",
              inputs=[cloud, *(wp.array(v, dtype=vec, device="cpu") for v in vals), out])
    np.testing.assert_allclose(out.numpy(), _reference(pos, mass, *vals), rtol=1e-4, atol=1e-5)
    mir = instances[NAMES[d - 2]].mir
    for dev in DEVICES:
        got = np.zeros((n, d), np.float32)
        vk.launch(mir, n, [{"positions": pos.copy(), "masses": mass.copy()}, *(v.copy() for v in vals), got],
                  device=dev)
        np.testing.assert_allclose(got, out.numpy(), rtol=1e-5, atol=1e-6, err_msg=dev)


def test_found_instances_are_proved_and_fail_without_the_masses_length(tmp_path):
    verdicts = {r.kernel: r.status.value for r in prove_file(SOURCE)}
    assert verdicts == dict.fromkeys(NAMES, "proved") | {"dot_flux[...]": "unknown"}, verdicts
    text = SOURCE.read_text().replace("q.masses.shape[0] == q.positions.shape[0]\n             and ", "")
    (tmp_path / "near_miss.py").write_text(text)
    reports = {r.kernel: r for r in prove_file(tmp_path / "near_miss.py")}
    assert {k: r.status.value for k, r in reports.items()} == \
        dict.fromkeys(NAMES, "failed") | {"dot_flux[...]": "unknown"}
    for k in NAMES:
        bad = [o for o in reports[k].obligations if o.status.value == "failed"]
        assert bad and all(o.kind == "bounds" and "masses" in o.message for o in bad), \
            [(o.kind, o.message) for o in bad]
