"""The directed start search (check/generic_hints.py, check/generic_start.py): a
generic kernel that no declared, scalar or probe typing builds gets the typing
found by changing the parameters the refused statement reads or writes (a vec9
pressure tensor the module names, a mat33 cell, vec3 dipoles stored into a vec3
output, a vec2 structure factor) and its float64 twin as instances, each checked;
`kernel[...]` stays for every other instantiation, so the kernel is never proved
whole unless the type-oblivious proof covers it. A float16 typing is the last
one-type start. Real Warp 1.19 builds and runs the same instances."""
from __future__ import annotations

import ast

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.errors import SourceLoc
from verikern.frontend.check import generic_kernels
from verikern.frontend.check.generic_hints import implicated
from verikern.proofs.obligations import KernelStatus
from frontend.fe_util import compile_text

HEAD = "from typing import Any\n\nimport warp as wp\n\nvec9f = wp.types.vector(length=9, dtype=wp.float32)\n\n\n"

#: nvalchemi's NPT triclinic update, reduced: a mat33 cell rate, vec9 pressure tensors, float32 scalars
CELL_RATE = HEAD + '''@wp.kernel
def cell_rate(cell_velocities: wp.array(dtype=Any), pressures: wp.array(dtype=Any),
              targets: wp.array(dtype=Any), volumes: wp.array(dtype=Any), masses: wp.array(dtype=Any),
              dt: wp.array(dtype=Any)):
    s = wp.tid()
    if s < cell_velocities.shape[0] and s < pressures.shape[0] and s < targets.shape[0] \\
            and s < volumes.shape[0] and s < masses.shape[0] and s < dt.shape[0]:
        h = cell_velocities[s]
        P = pressures[s]
        P_ext = targets[s]
        V = volumes[s]
        d0 = P[0] - P_ext[0]
        d4 = P[4] - P_ext[4]
        d8 = P[8] - P_ext[8]
        half = dt[s] * V / masses[s] * type(V)(0.5)
        cell_velocities[s] = type(h)(h[0, 0] + half * d0, h[0, 1], h[0, 2], h[1, 0], h[1, 1] + half * d4,
                                     h[1, 2], h[2, 0], h[2, 1], h[2, 2] + half * d8)
'''

#: nvalchemi's _compute_scalar_pressure_kernel: two parameters, few enough typings to enumerate
SCALAR_PRESSURE = HEAD + '''@wp.kernel
def scalar_pressure(tensors: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    s = wp.tid()
    if s < tensors.shape[0] and s < out.shape[0]:
        P = tensors[s]
        trace = P[0] + P[4] + P[8]
        out[s] = trace / type(trace)(3.0)
'''

#: nvalchemi's _pme_effective_moments_kernel: an outer product and stores that fix the outputs' types
EFFECTIVE_MOMENTS = HEAD + '''@wp.kernel
def effective_moments(charges: wp.array(dtype=Any), dipoles: wp.array(dtype=Any), gg_pos: wp.array(dtype=Any),
                      gg_dipoles: wp.array(dtype=Any), gg_quadrupoles: wp.array(dtype=Any),
                      eff_d: wp.array(dtype=Any), eff_q: wp.array(dtype=Any)):
    i = wp.tid()
    if i < charges.shape[0] and i < dipoles.shape[0] and i < gg_pos.shape[0] and i < gg_dipoles.shape[0] \\
            and i < gg_quadrupoles.shape[0] and i < eff_d.shape[0] and i < eff_q.shape[0]:
        gp = gg_pos[i]
        om = wp.outer(gp, dipoles[i])
        eff_d[i] = gg_dipoles[i] + charges[i] * gp
        eff_q[i] = gg_quadrupoles[i] + om + wp.transpose(om)
'''

#: nvalchemi's _multipole_reciprocal_rho_energy_backward_kernel: a two-component structure factor
RHO_BACKWARD = HEAD + '''@wp.kernel
def rho_backward(grad_out: wp.array(dtype=Any), rho: wp.array(dtype=Any), factor: wp.array(dtype=Any),
                 grad_rho: wp.array(dtype=Any)):
    k = wp.tid()
    if k < rho.shape[0] and k < factor.shape[0] and k < grad_rho.shape[0] and grad_out.shape[0] > 0:
        r = rho[k]
        a = grad_out[0] * factor[k]
        grad_rho[k] = type(r)(a * r[0], a * r[1])
'''


def test_a_vec9_the_module_names_is_found_where_every_typing_is_enumerated():
    r = compile_text(SCALAR_PRESSURE)
    assert r.kernel_names == ["scalar_pressure[vec9f, float32]", "scalar_pressure[vec9d, float64]",
                              "scalar_pressure[...]"]
    assert r.kernel("scalar_pressure[vec9d, float64]").ok and r.kernel("scalar_pressure[...]").unknown


def test_stores_and_an_outer_product_give_vec3_and_mat33_parameters():
    r = compile_text(EFFECTIVE_MOMENTS)
    assert r.kernel_names == [
        "effective_moments[float32, vec3, vec3, vec3, mat33, vec3, mat33]",
        "effective_moments[float64, vec3d, vec3d, vec3d, mat33d, vec3d, mat33d]", "effective_moments[...]"]


def test_a_two_component_constructor_gets_a_vec2():
    assert compile_text(RHO_BACKWARD).kernel_names == [
        "rho_backward[float32, vec2, float32, vec2]", "rho_backward[float64, vec2d, float64, vec2d]",
        "rho_backward[...]"]


def test_the_directed_search_finds_in_fewer_checks_what_the_plain_one_runs_out_of(monkeypatch):
    """With 200 checks the plain search (every parameter, every candidate per step) does not
    reach the mat33/vec9/vec9 typing; the directed one, changing only what the refused
    statement reads, does."""
    monkeypatch.setattr(generic_kernels, "MAX_START_CHECKS", 200)
    plain = generic_kernels._Enumerator.start_typing

    def plain_only(self, pools, directed=False):
        return None if directed else plain(self, pools)

    found = ["cell_rate[mat33, vec9f, vec9f, float32, float32, float32]",
             "cell_rate[mat33d, vec9d, vec9d, float64, float64, float64]", "cell_rate[...]"]
    assert compile_text(CELL_RATE).kernel_names == found
    monkeypatch.setattr(generic_kernels._Enumerator, "start_typing", plain_only)
    assert compile_text(CELL_RATE).kernel_names == ["cell_rate[...]"]


def test_an_index_past_every_candidate_gets_no_instance():
    """Near miss: P[9] fits no vector type tried (the module's vec9f is the longest), so
    there is no typing, no instance, and nothing is proved."""
    src = SCALAR_PRESSURE.replace("P[8]", "P[9]")
    r = compile_text(src)
    assert r.kernel_names == ["scalar_pressure[...]"] and r.kernel("scalar_pressure[...]").mir is None
    assert KernelStatus.PROVED not in {x.status for x in prove_source(src, "t.py", suggest=False)}


def test_the_found_instances_are_proved_and_a_near_miss_fails_in_them():
    reports = {r.kernel: r for r in prove_source(SCALAR_PRESSURE, "t.py", suggest=False)}
    assert reports["scalar_pressure[vec9f, float32]"].status is KernelStatus.PROVED
    assert reports["scalar_pressure[vec9d, float64]"].status is KernelStatus.PROVED
    assert reports["scalar_pressure[...]"].status is KernelStatus.UNKNOWN    # P[8]: a vec2 reads past it
    src = SCALAR_PRESSURE.replace("s < tensors.shape[0]", "s <= tensors.shape[0]")
    reports = {r.kernel: r for r in prove_source(src, "t.py", suggest=False)}
    for name in ("scalar_pressure[vec9f, float32]", "scalar_pressure[vec9d, float64]"):
        assert reports[name].status is KernelStatus.FAILED, name
    assert reports["scalar_pressure[...]"].status is not KernelStatus.PROVED


def test_float16_is_the_last_one_type_start(monkeypatch):
    src = HEAD + '''@wp.kernel
def rescale(eta: wp.array(dtype=Any), dt_chain: wp.array(dtype=Any), scale: wp.array(dtype=Any)):
    s = wp.tid()
    if s < eta.shape[0] and s < dt_chain.shape[0] and s < scale.shape[0]:
        half_dt = type(dt_chain[s])(0.5) * dt_chain[s]
        scale[s] = wp.exp(-half_dt * eta[s])
'''
    monkeypatch.setattr(generic_kernels, "MAX_ASSIGNMENTS", 20)     # 17 ** 3 typings, one linked group
    # float16 type-checks too and comes first among Warp's scalars; float32 is preferred
    assert compile_text(src).kernel_names == [
        "rescale[float32, float32, float32]", "rescale[float64, float64, float64]", "rescale[...]"]


def test_the_refused_statement_points_at_the_parameters_it_reads_and_writes():
    kernel = ast.parse(CELL_RATE).body[-1]
    params = ["cell_velocities", "pressures", "targets", "volumes", "masses", "dt"]
    line = next(n for n, text in enumerate(CELL_RATE.splitlines(), 1) if "d4 = P[4]" in text)
    assert implicated(kernel, params, "t.py", SourceLoc("t.py", line, 15)) == [
        ["pressures", "targets"], []]
    half = next(n for n, text in enumerate(CELL_RATE.splitlines(), 1) if "half = dt[s]" in text)
    assert implicated(kernel, params, "t.py", SourceLoc("t.py", half, 9)) == [["volumes", "masses", "dt"], []]
    store = next(n for n, text in enumerate(CELL_RATE.splitlines(), 1) if "cell_velocities[s] = " in text)
    direct, further = implicated(kernel, params, "t.py", SourceLoc("t.py", store + 1, 10))   # its 2nd line
    assert direct == ["cell_velocities"] and set(further) == {"pressures", "targets", "volumes", "masses", "dt"}
    # a refusal in another file (a func imported from elsewhere), or outside the body: nothing
    assert implicated(kernel, params, "t.py", SourceLoc("other.py", line, 1)) == []
    assert implicated(kernel, params, "t.py", SourceLoc("t.py", 1, 1)) == []


def test_real_warp_builds_and_runs_the_found_instances(tmp_path):
    wp = pytest.importorskip("warp")
    from shared_helpers import import_package_modules, write_package

    source = SCALAR_PRESSURE + "\n\n" + EFFECTIVE_MOMENTS[len(HEAD):] + "\n\n" + RHO_BACKWARD[len(HEAD):]
    write_package(tmp_path, "vkdirected", {"kernels": source})
    (mod,) = import_package_modules(tmp_path, "vkdirected.kernels")     # real Warp executes it
    r = compile_text(source)
    rng = np.random.default_rng(5)
    for np_t, names, tol in ((np.float32, ("vec9f", "vec3", "mat33", "vec2", "float32"), 1e-5),
                             (np.float64, ("vec9d", "vec3d", "mat33d", "vec2d", "float64"), 1e-12)):
        v9, v3, m33, v2, f = names
        wv9 = mod.vec9f if np_t is np.float32 else wp.types.vector(length=9, dtype=wp.float64)
        wv3, wm33, wv2, wf = (getattr(wp, n) for n in (("vec3f", "mat33f", "vec2f", "float32") if np_t is np.float32
                                                       else ("vec3d", "mat33d", "vec2d", "float64")))
        n = 5
        tensors = rng.standard_normal((n, 9)).astype(np_t)
        ours = np.zeros(n, np_t)
        vk.launch(r.kernel(f"scalar_pressure[{v9}, {f}]").mir, n, [tensors, ours])
        out = wp.zeros(n, dtype=wf, device="cpu")
        wp.launch(mod.scalar_pressure, dim=n, device="cpu", inputs=[wp.array(tensors, dtype=wv9, device="cpu"), out])
        np.testing.assert_allclose(ours, out.numpy(), rtol=tol)
        np.testing.assert_allclose(ours, tensors[:, [0, 4, 8]].sum(axis=1) / 3, rtol=1e-5)

        q, d, gp, gd = (rng.standard_normal(s).astype(np_t) for s in ((n,), (n, 3), (n, 3), (n, 3)))
        gq = rng.standard_normal((n, 3, 3)).astype(np_t)
        eff_d, eff_q = np.zeros((n, 3), np_t), np.zeros((n, 3, 3), np_t)
        name = f"effective_moments[{f}, {v3}, {v3}, {v3}, {m33}, {v3}, {m33}]"
        vk.launch(r.kernel(name).mir, n, [q, d, gp, gd, gq, eff_d, eff_q])
        w_d, w_q = wp.zeros(n, dtype=wv3, device="cpu"), wp.zeros(n, dtype=wm33, device="cpu")
        wp.launch(mod.effective_moments, dim=n, device="cpu", inputs=[
            wp.array(q, dtype=wf, device="cpu"), wp.array(d, dtype=wv3, device="cpu"),
            wp.array(gp, dtype=wv3, device="cpu"), wp.array(gd, dtype=wv3, device="cpu"),
            wp.array(gq, dtype=wm33, device="cpu"), w_d, w_q])
        np.testing.assert_allclose(eff_d, w_d.numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(eff_q, w_q.numpy(), rtol=tol, atol=tol)
        om = np.einsum("ni,nj->nij", gp.astype(np.float64), d.astype(np.float64))
        np.testing.assert_allclose(eff_q, gq + om + om.transpose(0, 2, 1), rtol=1e-4, atol=1e-5)

        g, rho, fac = (rng.standard_normal(s).astype(np_t) for s in ((1,), (n, 2), (n,)))
        grad = np.zeros((n, 2), np_t)
        vk.launch(r.kernel(f"rho_backward[{f}, {v2}, {f}, {v2}]").mir, n, [g, rho, fac, grad])
        w_g = wp.zeros(n, dtype=wv2, device="cpu")
        wp.launch(mod.rho_backward, dim=n, device="cpu", inputs=[
            wp.array(g, dtype=wf, device="cpu"), wp.array(rho, dtype=wv2, device="cpu"),
            wp.array(fac, dtype=wf, device="cpu"), w_g])
        np.testing.assert_allclose(grad, w_g.numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(grad, g[0] * fac[:, None] * rho, rtol=1e-5, atol=1e-6)


def test_no_directed_search_after_a_refusal_no_type_can_satisfy(monkeypatch):
    """A tile refuses every typing alike: once the plain search stops there, the directed
    search is not run (its checks would be spent for nothing); a type refusal runs it."""
    calls = []
    start = generic_kernels._Enumerator.start_typing

    def recorded(self, pools, directed=False):
        calls.append(directed)
        return start(self, pools, directed)

    monkeypatch.setattr(generic_kernels._Enumerator, "start_typing", recorded)
    monkeypatch.setattr(generic_kernels, "MAX_ASSIGNMENTS", 20)     # 17 ** 3 typings: the start search
    body = '''@wp.kernel
def tiled(a: wp.array(dtype=Any), b: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    p = a[i]
    out[i] = p[0] * b[i]
    t = wp.tile(p)
'''
    # a tile Warp always builds: the kernel is that error before any search (outside_language.py)
    assert compile_text(HEAD + body).kernel_names == ["tiled[...]"] and calls == []
    # one in a branch Warp may drop is left to the search, which stops at it
    guarded = body.replace("    t = wp.tile(p)\n", "    if wp.static(TILED):\n        t = wp.tile(p)\n")
    assert compile_text(HEAD + "TILED = True\n" + guarded).kernel_names == ["tiled[...]"] and calls == [False]
    calls.clear()
    assert compile_text(HEAD + body.replace("    t = wp.tile(p)\n", "    t = p[9]\n")
                        ).kernel_names == ["tiled[...]"] and calls == [False, True]
