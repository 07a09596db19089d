"""Generic kernels that no declared or scalar typing builds (check/generic_probed.py):
the vector-like typing the enumeration found and its float64 twin become instances,
each only when the checker accepts it, and `kernel[...]` stays for every other
instantiation, so the kernel is never proved as a whole unless the type-oblivious
proof covers it. Real Warp builds and runs the same instances with the same results."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_source
from verikern.frontend.check import generic_kernels
from verikern.frontend.check.generic_probed import float64_of, probed_typings
from verikern.hir.types import F16, F64, I32, MATRIX_TYPES, QUAT, VECTOR_TYPES, ArrayType, vector_type
from verikern.proofs.obligations import KernelStatus
from frontend.fe_util import compile_text

HEAD = "from typing import Any\n\nimport warp as wp\n\n\n"

#: nvalchemi-style: positions of dtype Any read component by component, a per-atom scalar out
NORMS = HEAD + '''@wp.kernel
def norms(positions: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < positions.shape[0] and i < out.shape[0]:
        p = positions[i]
        out[i] = p[0] * p[0] + p[1] * p[1] + p[2] * p[2]
'''


def test_a_vector_only_body_gets_the_vec3_typing_and_its_float64_twin_beside_the_remainder():
    r = compile_text(NORMS)
    assert r.kernel_names == ["norms[vec3, float32]", "norms[vec3d, float64]", "norms[...]"]
    assert r.kernel("norms[vec3, float32]").ok and r.kernel("norms[vec3d, float64]").ok
    assert not r.kernel("norms[vec3d, float64]").declared      # found, not declared
    more = r.kernel("norms[...]")
    assert more.unknown and "other vector, matrix, quat, struct or array types than norms[vec3, " \
        "float32], norms[vec3d, float64]" in more.error.message


def test_a_twin_the_checker_refuses_is_no_instance():
    # Warp keeps a literal's own type (float32): a float64 component times 0.5 builds in no typing
    src = NORMS.replace("p[2] * p[2]\n", "p[2] * p[2] * 0.5\n")
    assert compile_text(src).kernel_names == ["norms[vec3, float32]", "norms[...]"]


def test_a_kernel_with_a_scalar_instance_gets_no_probed_ones():
    src = HEAD + ("@wp.kernel\ndef twice(a: wp.array(dtype=Any)):\n    i = wp.tid()\n"
                  "    if i < a.shape[0]:\n        a[i] = a[i] + a[i]\n")
    names = compile_text(src).kernel_names
    assert "twice[float32]" in names and not any("vec" in n for n in names)


def test_too_many_linked_typings_keep_the_typing_they_started_from(monkeypatch):
    src = HEAD + '''@wp.kernel
def shift(positions: wp.array(dtype=Any), offsets: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < positions.shape[0] and i < offsets.shape[0] and i < out.shape[0]:
        out[i] = positions[i] + offsets[i]
'''
    monkeypatch.setattr(generic_kernels, "MAX_ASSIGNMENTS", 20)     # 17 ** 3 typings, one linked group
    r = compile_text(src)
    # the first typing giving every parameter one type that type-checks (int8: bool does not
    # add); nothing float32 in it, so no float64 twin
    assert r.kernel_names == ["shift[int8, int8, int8]", "shift[...]"]
    assert r.kernel("shift[int8, int8, int8]").ok
    more = r.kernel("shift[...]")
    assert more.unknown and "depend on each other" in more.error.message
    assert "(its typings shift[int8, int8, int8] are proved one by one)" in more.error.message


def test_the_float64_twin_changes_float32_components_only():
    assert float64_of(VECTOR_TYPES["vec3"]) == vector_type(3, F64)
    assert float64_of(MATRIX_TYPES["mat33"]).name == "mat33d" and float64_of(QUAT).name == "quatd"
    assert float64_of(vector_type(3, I32)) == vector_type(3, I32) and float64_of(F16) == F16
    assert float64_of(ArrayType(VECTOR_TYPES["vec3"], 2)) == ArrayType(vector_type(3, F64), 2)
    found = {"p": ArrayType(VECTOR_TYPES["vec3"], 1), "k": I32}
    assert probed_typings(found, {}) == [found, {"p": ArrayType(vector_type(3, F64), 1), "k": I32}]
    assert probed_typings(found, {"p": [ArrayType(VECTOR_TYPES["vec3"], 1)]}) == [found]   # pinned to vec3f
    assert probed_typings({"k": I32}, {}) == [{"k": I32}]        # nothing float32: no twin


def test_the_found_instances_are_proved_and_the_kernel_is_not_proved_whole_without_the_remainder():
    reports = {r.kernel: r for r in prove_source(NORMS, "t.py", suggest=False)}
    assert reports["norms[vec3, float32]"].status is KernelStatus.PROVED
    assert reports["norms[vec3d, float64]"].status is KernelStatus.PROVED
    # a constant component index: no type-oblivious proof (a vec2 reads past p[2]), so never proved whole
    assert reports["norms[...]"].status is KernelStatus.UNKNOWN


def test_a_near_miss_fails_in_the_found_instances():
    src = NORMS.replace("i < positions.shape[0]", "i <= positions.shape[0]")
    reports = {r.kernel: r for r in prove_source(src, "t.py", suggest=False)}
    for name in ("norms[vec3, float32]", "norms[vec3d, float64]"):
        assert reports[name].status is KernelStatus.FAILED, name
    assert reports["norms[...]"].status is not KernelStatus.PROVED


def test_the_start_search_changes_two_parameters_at_once_when_no_single_change_goes_further():
    """A toy checker: `v` and `out` must become vectors together (either alone is refused
    as far in as neither), as when `v + dt * a` is stored into `out`."""
    from verikern.frontend.check.generic_start import search_typing

    def attempt(combo):
        return ("hir", None) if combo[0] == combo[2] == "vec" else (None, 1 if combo[1] == "f" else 0)

    pools = [["f", "vec"], ["i", "f"], ["f", "vec"]]
    assert search_typing(pools, attempt, 40) == (["vec", "f", "vec"], "hir")
    assert search_typing(pools, attempt, 4) is None                 # out of checks before the pair


#: NPT-style: the cell is read as a mat33 inside a func, after which the velocity is indexed
#: there, and `v + dt * drag` is stored into `out`: v and out must be vec3 together
HALF_STEP = HEAD + '''@wp.func
def drag(h: Any, v: Any) -> Any:
    tr = h[0, 0] + h[1, 1] + h[2, 2]
    return type(v)(tr * v[0], tr * v[1], tr * v[2])


@wp.kernel
def half_step(velocities: wp.array(dtype=Any), cells: wp.array(dtype=Any), dt: wp.array(dtype=Any),
              out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < velocities.shape[0] and i < out.shape[0] and cells.shape[0] > 0 and dt.shape[0] > 0:
        if dt[0] > 0.0:
            v = velocities[i]
            out[i] = v + dt[0] * drag(cells[0], v)
'''


def test_a_typing_refused_further_into_a_func_and_a_linked_pair_are_found():
    r = compile_text(HALF_STEP)
    assert r.kernel_names == ["half_step[vec3, mat33, float32, vec3]", "half_step[vec3d, mat33d, float64, vec3d]",
                              "half_step[...]"]
    assert r.kernel("half_step[vec3d, mat33d, float64, vec3d]").ok and r.kernel("half_step[...]").unknown


def test_a_vector_type_the_module_names_is_tried_for_the_start():
    src = HEAD + '''vec6f = wp.types.vector(length=6, dtype=wp.float32)


@wp.kernel
def stress_trace(stress: wp.array(dtype=Any), scale: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < stress.shape[0] and i < out.shape[0] and scale.shape[0] > 0:
        s = stress[i]
        if scale[0] > 0.0:
            out[i] = (s[0] + s[1] + s[2] + s[5]) * scale[0]
'''
    names = compile_text(src).kernel_names
    assert names == ["stress_trace[vec6f, float32, float32]", "stress_trace[vec6d, float64, float64]",
                     "stress_trace[...]"]
    # without the module's name for it, vec6 is a type no candidate has: nothing to start from
    assert compile_text(src.replace("vec6f = wp.types.vector(length=6, dtype=wp.float32)\n", "")
                        ).kernel_names == ["stress_trace[...]"]


def test_real_warp_builds_and_runs_the_same_instances(tmp_path):
    wp = pytest.importorskip("warp")
    from shared_helpers import import_package_modules, write_package

    source = NORMS + "\n\n" + HALF_STEP[len(HEAD):]
    write_package(tmp_path, "vkprobed", {"kernels": source})
    (mod,) = import_package_modules(tmp_path, "vkprobed.kernels")     # real Warp executes it
    r = compile_text(source)
    rng = np.random.default_rng(3)
    for vec, mat, scalar, np_t, tol in ((wp.vec3f, wp.mat33f, wp.float32, np.float32, 1e-6),
                                        (wp.vec3d, wp.mat33d, wp.float64, np.float64, 1e-12)):
        v_name, m_name = ("vec3", "mat33") if np_t is np.float32 else ("vec3d", "mat33d")
        p = rng.standard_normal((6, 3)).astype(np_t)
        ours = np.zeros(6, np_t)
        vk.launch(r.kernel(f"norms[{v_name}, {scalar.__name__}]").mir, 6, [p, ours])
        out = wp.zeros(6, dtype=scalar, device="cpu")
        wp.launch(mod.norms, dim=6, device="cpu", inputs=[wp.array(p, dtype=vec, device="cpu"), out])
        assert out.numpy().dtype == np_t
        np.testing.assert_allclose(ours, out.numpy(), rtol=tol)
        np.testing.assert_allclose(ours, (p.astype(np.float64) ** 2).sum(axis=1), rtol=1e-5)

        cells = rng.standard_normal((1, 3, 3)).astype(np_t)
        dt = np.array([0.25], np_t)
        ours_v = np.zeros((6, 3), np_t)
        name = f"half_step[{v_name}, {m_name}, {scalar.__name__}, {v_name}]"
        vk.launch(r.kernel(name).mir, 6, [p, cells, dt, ours_v])
        out_v = wp.zeros(6, dtype=vec, device="cpu")
        wp.launch(mod.half_step, dim=6, device="cpu", inputs=[
            wp.array(p, dtype=vec, device="cpu"), wp.array(cells, dtype=mat, device="cpu"),
            wp.array(dt, dtype=scalar, device="cpu"), out_v])
        np.testing.assert_allclose(ours_v, out_v.numpy(), rtol=tol, atol=tol)
        tr = np.trace(cells[0].astype(np.float64))
        np.testing.assert_allclose(ours_v, p + 0.25 * tr * p, rtol=1e-5, atol=1e-5)


def test_found_instances_proved_only_under_their_contract_give_a_premise_beside_it():
    """HALF_STEP without its guard: both found instances fail as written, each proved under
    its suggested shape contract; the typing premise built from the instances that compiled,
    beside that contract, proves the kernel (`half_step[...]` included) once both are pasted,
    and the premise alone does not (the near miss still fails)."""
    from verikern.proofs.reporting.paste import pasted, suggestion_inserts

    src = HALF_STEP.replace(
        "    if i < velocities.shape[0] and i < out.shape[0] and cells.shape[0] > 0 and dt.shape[0] > 0:\n"
        "        if dt[0] > 0.0:\n", "    if dt[0] > 0.0:\n        if True:\n")
    reports = {r.kernel: r for r in prove_source(src, "t.py", suggest=True)}
    assert reports["half_step[vec3, mat33, float32, vec3]"].status is KernelStatus.FAILED
    more = reports["half_step[...]"]
    assert more.status is KernelStatus.UNKNOWN and more.proved_under_suggestion
    premise, contract = more.suggested_decorators
    assert ("(velocities.dtype, cells.dtype, dt.dtype, out.dtype) in ((wp.vec3f, wp.mat33f, wp.float32, wp.vec3f), "
            "(wp.vec3d, wp.mat33d, wp.float64, wp.vec3d))") in premise
    assert ".dtype" not in contract and "shape" in contract
    line = next(n for n, text in enumerate(src.splitlines(), 1) if text.startswith("def half_step("))
    # the premise alone: no `[...]` kernel is left, and the near miss still fails (its float32
    # instance proved alone: proving the float64 one too would double the cost of the check)
    alone = pasted(src, suggestion_inserts(src, line, [premise]))
    assert not any(name.endswith("[...]") for name in compile_text(alone).kernel_names)
    f32 = "half_step[vec3, mat33, float32, vec3]"
    assert [(r.kernel, r.status) for r in prove_source(alone, "t.py", kernel=f32, suggest=False)] == \
        [(f32, KernelStatus.FAILED)]
    both = prove_source(pasted(src, suggestion_inserts(src, line, [premise, contract])), "t.py", suggest=False)
    assert both and {r.status for r in both} == {KernelStatus.PROVED}
