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


def test_real_warp_builds_and_runs_the_same_instances(tmp_path):
    wp = pytest.importorskip("warp")
    from shared_helpers import import_package_modules, write_package

    write_package(tmp_path, "vkprobed", {"norms": NORMS})
    (mod,) = import_package_modules(tmp_path, "vkprobed.norms")     # real Warp executes it
    r = compile_text(NORMS)
    rng = np.random.default_rng(3)
    for name, vec, scalar, np_t in (("norms[vec3, float32]", wp.vec3f, wp.float32, np.float32),
                                    ("norms[vec3d, float64]", wp.vec3d, wp.float64, np.float64)):
        p = rng.standard_normal((6, 3)).astype(np_t)
        ours = np.zeros(6, np_t)
        vk.launch(r.kernel(name).mir, 6, [p, ours])
        out = wp.zeros(6, dtype=scalar, device="cpu")
        wp.launch(mod.norms, dim=6, device="cpu", inputs=[wp.array(p, dtype=vec, device="cpu"), out])
        theirs = out.numpy()
        assert theirs.dtype == np_t
        np.testing.assert_allclose(ours, theirs, rtol=1e-6 if np_t is np.float32 else 1e-12)
        np.testing.assert_allclose(ours, (p.astype(np.float64) ** 2).sum(axis=1), rtol=1e-5)
