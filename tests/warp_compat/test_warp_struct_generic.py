"""A generic kernel whose `Any` parameter is a struct with array fields, passed on
to an overloaded func through a generic one (tests/warp_compat/kernels_struct_generic.py),
under real Warp on its CPU device and under verikern's simulator and `cpu:native`,
per struct: equal results, numpy as an independent reference (the 3-d overload
doubles the mass, so an instance compiled with the other overload would differ).
Proved per struct instance, `spread[...]` unknown; without the contract on the
positions' length every instance fails on the read through the struct's field."""
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


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_struct_generic")


@pytest.fixture(scope="module")
def instances():
    module = compile_file(str(HERE / "kernels_struct_generic.py"))
    return {k.name: k.mir for k in module.kernels if k.mir is not None}


@pytest.mark.parametrize("d,weight", [(2, 1.0), (3, 2.0)])
def test_struct_instance_agrees_with_warp_and_numpy(kernels, instances, d, weight):
    rng = np.random.default_rng(d)
    n = 7
    pos = rng.uniform(-3, 3, (n, d)).astype(np.float32)
    mass = rng.uniform(0.5, 2.0, n).astype(np.float32)
    cloud = getattr(kernels, f"Cloud{d}")()
    cloud.positions = wp.array(pos, dtype=getattr(wp, f"vec{d}"), device="cpu")
    cloud.masses = wp.array(mass, dtype=wp.float32, device="cpu")
    out = wp.zeros(n, dtype=wp.float32, device="cpu")
    wp.launch(kernels.spread, dim=n, inputs=[cloud, out], device="cpu")
    want = out.numpy()
    ref = weight * mass * np.linalg.norm(pos - np.roll(pos, -1, axis=0), axis=1)
    np.testing.assert_allclose(want, ref, rtol=1e-5)
    mir = instances[f"spread[Cloud{d}]"]
    for dev in DEVICES:
        got = np.zeros(n, np.float32)
        vk.launch(mir, n, [{"positions": pos.copy(), "masses": mass.copy()}, got], device=dev)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=dev)


def test_struct_instances_are_proved_and_fail_without_the_contract(tmp_path):
    names = ["spread[Cloud2]", "spread[Cloud3]"]
    verdicts = {r.kernel: r.status.value for r in prove_file(HERE / "kernels_struct_generic.py")}
    assert verdicts == dict.fromkeys(names, "proved") | {"spread[...]": "unknown"}, verdicts
    text = (HERE / "kernels_struct_generic.py").read_text().replace(
        "q.positions.shape[0] == q.masses.shape[0] and ", "")
    (tmp_path / "near_miss.py").write_text(text)
    reports = {r.kernel: r for r in prove_file(tmp_path / "near_miss.py")}
    assert {k: r.status.value for k, r in reports.items()} == \
        dict.fromkeys(names, "failed") | {"spread[...]": "unknown"}
    for k in names:
        bad = [o for o in reports[k].obligations if o.status.value == "failed"]
        assert bad and all(o.kind == "bounds" and "positions" in o.message for o in bad), \
            [(o.kind, o.message) for o in bad]
