"""`wp.static(int(...))`, `float(...)`, `bool(...)` of values read from source
(warp-simdata's `wp.static(int(vtk_shapes.VTKCellTypes.VTK_POLYHEDRON))`):
folded with Python's own conversions, as Warp folds them when it builds the
module; a conversion of a run-time value, or one whose name the module rebinds,
stays a located `static-not-constant` error."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk

from frontend.fe_util import compile_ok, first_error, marker_loc

W = "import warp as wp\n\n\nclass Kinds:\n    HEX = 12\n    POLY = 42\n\n\nSCALE = 2.75\n\n\n"


def test_conversions_of_constants_fold_as_python_folds_them():
    src = W + ("@wp.kernel\ndef k(out: wp.array(dtype=float), kinds: wp.array(dtype=int)):\n"
               "    out[0] = float(wp.static(int(Kinds.POLY)))\n"
               "    out[1] = float(wp.static(int(SCALE * -1.0)))\n"
               "    out[2] = wp.static(float(Kinds.HEX) / 8.0)\n"
               "    if wp.static(bool(Kinds.HEX - 12)):\n        out[3] = 1.0\n"
               "    if kinds[0] == wp.static(int(Kinds.HEX)):\n        out[4] = 5.0\n")
    k = compile_ok(src)
    out = np.zeros(5, np.float32)
    vk.launch(k, 1, [out, np.array([12], np.int32)])
    assert out.tolist() == [42.0, float(int(2.75 * -1.0)), 12 / 8.0, 0.0, 5.0]


@pytest.mark.parametrize("prelude, body, needle", [
    ("", "out[0] = float(wp.static(int(n)))", "int(n)"),            # a run-time value
    ("int = float\n\n\n", "out[0] = float(wp.static(int(Kinds.POLY)))", "int(Kinds.POLY)"),
    ("", "out[0] = float(wp.static(int(Kinds.POLY, 10)))", "int(Kinds.POLY, 10)"),
])
def test_conversions_of_run_time_or_rebound_names_are_located_errors(prelude, body, needle):
    src = W + prelude + f"@wp.kernel\ndef k(out: wp.array(dtype=float), n: int):\n    {body}\n"
    err = first_error(src)
    assert err.rule == "static-not-constant", err.render()
    assert (err.loc.line, err.loc.col) == marker_loc(src, needle), err.render()
