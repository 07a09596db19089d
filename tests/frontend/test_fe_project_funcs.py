"""Project funcs as released Warp libraries write them, read from source and
run under real Warp's CPU device, verikern's simulator and `cpu:native` with
the same results: funcs re-exported by a package `__init__` that imports no
Warp alias, helper funcs and constants of the defining module that the kernel
file does not import (each func reads its own module's names, as in Python),
a func overloaded by two `@wp.func` definitions of one name, results
annotated `tuple[Any, ...]` (Warp matches them against what is returned), and a
`@wp.struct` of another module named through a module alias (`results.Result`)."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from shared_helpers import import_from_path
from warp_kernel_cache import init_warp_quietly

wp = pytest.importorskip("warp")

CORE = """
from typing import Any

import warp as wp

SCALE = 2.0 / 3.0
vec4d = wp.types.vector(length=4, dtype=wp.float64)


@wp.func
def poly(t: Any) -> Any:
    return t * (type(t)(0.25) + t * type(t)(0.5))


@wp.func
def erfc_fast(x: Any) -> Any:
    t = type(x)(1.0) / (type(x)(1.0) + type(x)(0.33) * wp.abs(x))
    return poly(t) * wp.exp(-x * x)


@wp.func
def by_precision(x: wp.float64) -> wp.float64:
    return wp.exp(-x)


@wp.func
def by_precision(x: wp.float32) -> wp.float32:  # noqa: F811
    return erfc_fast(x)


@wp.func
def scaled(x: float) -> float:
    return x * float(SCALE)


@wp.func
def split(x: Any) -> tuple[Any, Any, wp.int32]:
    return x * type(x)(2.0), x - type(x)(1.0), wp.int32(7)


@wp.func
def spread(x: wp.float64) -> vec4d:
    return vec4d(x, x + wp.float64(1.0), x * x, wp.float64(SCALE))
"""

INIT = "from .core import by_precision, erfc_fast, scaled, split, spread\n"

RESULTS = """
import warp as wp


@wp.struct
class Result:
    positions: wp.array(ndim=2, dtype=wp.vec3f)
    counts: wp.array(dtype=wp.int32)
    scale: wp.float32
"""

KERNELS = """
import warp as wp

from {pkg} import results
from {pkg}.mathx import by_precision, erfc_fast, scaled, split, spread

SCALE = 100.0


@wp.kernel
def project_funcs(x: wp.array(dtype=wp.float32), xd: wp.array(dtype=wp.float64),
                  out: wp.array(dtype=wp.float32), outd: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i < x.shape[0] and i < xd.shape[0] and i < out.shape[0] and i < outd.shape[0]:
        a, b, c = split(x[i])
        out[i] = erfc_fast(x[i]) + by_precision(x[i]) + scaled(a) + b * float(c)
        v = spread(xd[i])
        outd[i] = by_precision(xd[i]) + erfc_fast(xd[i]) + v[1] * v[3] + wp.float64(SCALE)


@wp.kernel
def last_positions(res: results.Result, out: wp.array(dtype=wp.vec3f)):
    i = wp.tid()
    if i < res.counts.shape[0] and i < res.positions.shape[0] and i < out.shape[0]:
        k = res.counts[i]
        if k > 0 and k <= res.positions.shape[1]:
            out[i] = res.positions[i, k - 1] * res.scale
"""


def write_package(pkg, core: str = CORE):
    """The package: mathx/ (funcs re-exported by its __init__), results.py, kernels.py."""
    (pkg / "mathx").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "mathx" / "__init__.py").write_text(INIT)
    (pkg / "mathx" / "core.py").write_text(textwrap.dedent(core))
    (pkg / "results.py").write_text(RESULTS)
    (pkg / "kernels.py").write_text(KERNELS.format(pkg=pkg.name))


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    base = tmp_path_factory.mktemp("projfuncs")
    pkg = base / "vk_projfuncs_pkg"
    write_package(pkg)
    init_warp_quietly(wp)
    return pkg, import_from_path(base, f"{pkg.name}.kernels")


def test_project_funcs_run_as_under_warp(package):
    pkg, module = package
    rng = np.random.default_rng(4)
    x = rng.uniform(-2, 2, 64).astype(np.float32)
    xd = rng.uniform(-2, 2, 64)
    out, outd = wp.zeros(64, dtype=wp.float32, device="cpu"), wp.zeros(64, dtype=wp.float64,
                                                                        device="cpu")
    wp.launch(module.project_funcs, dim=64, device="cpu",
              inputs=[wp.array(x, device="cpu"), wp.array(xd, dtype=wp.float64, device="cpu"),
                      out, outd])
    mir = compile_file(pkg / "kernels.py").kernels[0].mir
    for dev in ("cpu", "cpu:native"):
        o, od = np.zeros(64, np.float32), np.zeros(64)
        vk.launch(mir, 64, [x, xd, o, od], device=dev)
        np.testing.assert_allclose(o, out.numpy(), rtol=1e-6, atol=1e-6, err_msg=dev)
        np.testing.assert_allclose(od, outd.numpy(), rtol=1e-12, err_msg=dev)
    # independent reference: the formulas in float64 (helpers read their own SCALE = 2/3)
    t = 1.0 / (1.0 + 0.33 * np.abs(xd))
    erfc = t * (0.25 + t * 0.5) * np.exp(-xd * xd)
    np.testing.assert_allclose(outd.numpy(), np.exp(-xd) + erfc + (xd + 1.0) * (2 / 3) + 100.0,
                               rtol=1e-12)


def test_project_funcs_kernel_is_proved(package):
    pkg, _ = package
    assert {r.kernel: r.status.value for r in prove_file(pkg / "kernels.py")} == {
        "project_funcs": "proved", "last_positions": "proved"}


def test_a_struct_named_through_a_module_alias_runs_as_under_warp(package):
    pkg, module = package
    rng = np.random.default_rng(9)
    positions = rng.uniform(-1, 1, (10, 5, 3)).astype(np.float32)
    counts = rng.integers(0, 7, 10).astype(np.int32)     # 0 and 6 take neither branch
    res = module.results.Result()
    res.positions = wp.array(positions, dtype=wp.vec3f, device="cpu")
    res.counts = wp.array(counts, dtype=wp.int32, device="cpu")
    res.scale = 2.5
    theirs = wp.zeros(10, dtype=wp.vec3f, device="cpu")
    wp.launch(module.last_positions, dim=10, inputs=[res, theirs], device="cpu")
    mir = compile_file(pkg / "kernels.py").kernel("last_positions").mir
    want = np.array([positions[i, c - 1] * 2.5 if 0 < c <= 5 else np.zeros(3)
                     for i, c in enumerate(counts)], np.float32)
    np.testing.assert_allclose(theirs.numpy(), want, rtol=1e-6)
    for dev in ("cpu", "cpu:native"):
        ours = np.zeros((10, 3), np.float32)
        vk.launch(mir, 10, [res, ours], device=dev)
        np.testing.assert_array_equal(ours, theirs.numpy(), err_msg=dev)


def test_a_tuple_any_result_must_match_its_concrete_elements(tmp_path):
    src = CORE.replace("return x * type(x)(2.0), x - type(x)(1.0), wp.int32(7)",
                       "return x * type(x)(2.0), x - type(x)(1.0), wp.float64(7.0)")
    pkg = tmp_path / "pkg_tuple"
    write_package(pkg, src)
    err = compile_file(pkg / "kernels.py").kernels[0].error
    assert err is not None and err.rule == "return-type"
    assert "tuple[Any, Any, int32]" in err.render() and "core.py" in err.render()
