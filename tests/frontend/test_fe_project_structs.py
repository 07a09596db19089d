"""A `@wp.struct` of another project module whose field annotations use that
module's own names (warp-simdata's `nface_n.DatasetHandle` types a field with
`UGDatasetHandle`, an alias its module imports): the fields are read with the
defining module's imports and aliases, as Python and Warp read them, and an
error in a field names the defining module's file, line and column. Real Warp
on its CPU device runs the same kernels with the same results."""
from __future__ import annotations


import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from shared_helpers import import_from_path
from warp_compat.compat_util import init_warp

wp = pytest.importorskip("warp")

TYPES = """
import warp as wp

Real = wp.float64
"""

INNER = """
import warp as wp


@wp.struct
class Weights:
    w: wp.float32
    idx: wp.array(dtype=wp.int32)
"""

SHAPES = """
import warp as wp

from . import inner
from .inner import Weights as InnerWeights
from .types import Real
from .types import Real as Scalar


@wp.struct
class Part:
    scale: Real
    offset: Scalar
    weights: InnerWeights
    more: inner.Weights
    values: wp.array(dtype=Real)
"""

KERNELS = """
import warp as wp

from . import shapes
from .shapes import Part


@wp.kernel
def weigh(p: Part, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i < out.shape[0] and i < p.values.shape[0] and i < p.weights.idx.shape[0]:
        out[i] = p.values[i] * p.scale + p.offset + wp.float64(p.weights.w * float(p.weights.idx[i]))


@wp.kernel
def weigh_more(p: shapes.Part, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if i < out.shape[0] and i < p.more.idx.shape[0]:
        out[i] = wp.float64(p.more.w) * wp.float64(p.more.idx[i]) + p.scale
"""


def _write(pkg, shapes: str = SHAPES) -> None:
    pkg.mkdir()
    for name, text in (("__init__", ""), ("types", TYPES), ("inner", INNER), ("shapes", shapes),
                       ("kernels", KERNELS)):
        (pkg / f"{name}.py").write_text(text)


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    base = tmp_path_factory.mktemp("projstructs")
    pkg = base / "vk_projstructs_pkg"
    _write(pkg)
    init_warp(wp, tmp_path_factory)
    return pkg, import_from_path(base, f"{pkg.name}.kernels")


def test_struct_fields_read_with_the_defining_modules_names_run_as_under_warp(package):
    pkg, module = package
    module_result = compile_file(pkg / "kernels.py")
    assert not module_result.all_errors, [e.render() for e in module_result.all_errors]
    rng = np.random.default_rng(4)
    values, idx = rng.uniform(-2, 2, 8), rng.integers(0, 9, 8).astype(np.int32)
    inner, more = module.shapes.inner.Weights(), module.shapes.inner.Weights()
    inner.w, inner.idx = 0.5, wp.array(idx, dtype=wp.int32, device="cpu")
    more.w, more.idx = 0.5, wp.array(idx, dtype=wp.int32, device="cpu")     # arrays of one launch are distinct
    part = module.shapes.Part()
    part.scale, part.offset, part.weights, part.more = 3.0, -1.25, inner, more
    part.values = wp.array(values, dtype=wp.float64, device="cpu")
    for name in ("weigh", "weigh_more"):
        theirs = wp.zeros(8, dtype=wp.float64, device="cpu")
        wp.launch(getattr(module, name), dim=8, inputs=[part, theirs], device="cpu")
        mir = module_result.kernel(name).mir
        for dev in ("cpu", "cpu:native"):
            ours = np.zeros(8)
            vk.launch(mir, 8, [part, ours], device=dev)
            np.testing.assert_array_equal(ours, theirs.numpy(), err_msg=f"{name} {dev}")
    np.testing.assert_allclose(theirs.numpy(), 0.5 * idx + 3.0)
    assert {r.kernel: r.status.value for r in prove_file(pkg / "kernels.py")} == {
        "weigh": "proved", "weigh_more": "proved"}


def test_an_error_in_a_field_names_the_defining_modules_file(tmp_path):
    pkg = tmp_path / "vk_projstructs_bad"
    _write(pkg, SHAPES.replace("    values: wp.array(dtype=Real)", "    values: wp.array(dtype=Unknown)"))
    err = compile_file(pkg / "kernels.py").kernel("weigh").error
    assert err is not None and err.rule == "annotation", err
    assert f"{pkg / 'shapes.py'}:16:28: error: unknown" in err.render(), err.render()
    assert "values: wp.array(dtype=Unknown)" in err.render()
