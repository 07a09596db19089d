"""A typing of a generic kernel that reads a constant vector component past its type
(check/component_obligations.py), on a kernel shaped like warpSPHCore's
`computeSPHCurlJVP_Kernel` (the corpus kernel
verikern/selftest_corpus/assert_component_range_typing_curl_vec1.py, valid Warp as it is).
Both directions against real Warp 1.19 on the CPU:
- Warp builds and runs the 1-d typing (vec1 values beside `Cloud1`, `g[1]` past the
  vec1), so verikern keeps it as an instance, whose read is an obligation that fails
  (replayed by the simulator) -- never dropped; without the obligation it was an error
  instance, never dropped either;
- Warp refuses the typing with float32 values beside `Cloud1` (`vec1 + float32`), and
  verikern has no instance for it.
The 2-d instance gives Warp's results (numpy the reference) under the simulator and
`cpu:native`, and is proved."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend.check import component_obligations
from verikern.frontend.driver import compile_file

from warp_compat.compat_util import init_warp, warp_module_from_text

wp = pytest.importorskip("warp")

SOURCE = Path(vk.__file__).parent / "selftest_corpus" / "assert_component_range_typing_curl_vec1.py"
ONE, TWO = "curl[Cloud1, vec1f]", "curl[Cloud2, vec2]"


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    init_warp(wp)
    return warp_module_from_text(tmp_path_factory.mktemp("curl"), SOURCE.read_text(),
                                 "verikern_warp_compat_kernels_component_range_typing")


def _cloud(kernels, d, pos, mass):
    vec = kernels.vec1 if d == 1 else wp.vec2
    cloud = getattr(kernels, f"Cloud{d}")()
    cloud.positions = wp.array(pos, dtype=vec, device="cpu")
    cloud.masses = wp.array(mass, dtype=wp.float32, device="cpu")
    return cloud, vec


def test_warp_builds_the_one_dimensional_typing_and_refuses_scalar_values(kernels, tmp_path):
    n = 3
    pos, mass = np.ones((n, 1), np.float32), np.ones(n, np.float32)
    cloud, vec1 = _cloud(kernels, 1, pos, mass)
    out = wp.zeros(n, dtype=wp.float32, device="cpu")
    wp.launch(kernels.curl, dim=n, device="cpu",
              inputs=[cloud, wp.array(pos, dtype=vec1, device="cpu"), out])   # builds and runs
    wp.synchronize_device("cpu")
    # the refused typing in a module of its own: a refused build poisons its module's other builds
    alone = warp_module_from_text(tmp_path, SOURCE.read_text(), "verikern_component_range_refused")
    cloud1, _ = _cloud(alone, 1, pos, mass)
    with pytest.raises(Exception, match="overload for 'add'"):
        wp.launch(alone.curl, dim=n, device="cpu",
                  inputs=[cloud1, wp.array(mass, dtype=wp.float32, device="cpu"), out])


def test_verikern_keeps_the_typing_warp_builds_and_has_none_for_the_one_it_refuses(monkeypatch):
    names = [k.name for k in compile_file(str(SOURCE)).kernels]
    assert names == [ONE, TWO, "curl[...]"], names
    assert not any("float32]" in n for n in names)
    monkeypatch.setattr(component_obligations.ObligingChecker, "component_obligations", False)
    before = {k.name: k for k in compile_file(str(SOURCE)).kernels}
    assert before[ONE].mir is None and before[ONE].error.rule == "component-range", before
    assert before[TWO].mir is not None


def test_the_two_dimensional_instance_agrees_with_warp_and_numpy(kernels):
    rng = np.random.default_rng(2)
    n = 6
    pos = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
    mass = rng.uniform(0.5, 1.5, n).astype(np.float32)
    vals = rng.uniform(-1, 1, (n, 2)).astype(np.float32)
    cloud, vec2 = _cloud(kernels, 2, pos, mass)
    out = wp.zeros(n, dtype=wp.float32, device="cpu")
    wp.launch(kernels.curl, dim=n, device="cpu", inputs=[cloud, wp.array(vals, dtype=vec2, device="cpu"), out])
    x = pos[None, :, :] - pos[:, None, :]
    dv = vals[None, :, :] - vals[:, None, :]
    ref = ((x[..., 0] * dv[..., 1] - x[..., 1] * dv[..., 0]) * mass[None, :]).sum(axis=1)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-5)
    mir = {k.name: k for k in compile_file(str(SOURCE)).kernels}[TWO].mir
    for dev in ("cpu", "cpu:native"):
        got = np.zeros(n, np.float32)
        vk.launch(mir, n, [{"positions": pos.copy(), "masses": mass.copy()}, vals.copy(), got], device=dev)
        np.testing.assert_allclose(got, out.numpy(), rtol=1e-5, atol=1e-6, err_msg=dev)


def test_the_read_past_the_vector_fails_and_the_two_dimensional_instance_is_proved():
    reports = {r.kernel: r for r in prove_file(SOURCE)}
    assert {k: r.status.value for k, r in reports.items()} == \
        {ONE: "failed", TWO: "proved", "curl[...]": "unknown"}
    bad = [o for o in reports[ONE].obligations if o.status.value == "failed"]
    assert bad and all(o.kind == "assert" and "vector index in range" in o.message for o in bad), \
        [(o.kind, o.message) for o in bad]
    assert {(o.loc.line, o.loc.col) for o in bad} == {(30, 19)}, [o.loc for o in bad]
