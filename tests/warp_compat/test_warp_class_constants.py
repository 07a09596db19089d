"""Plain classes of int constants (`VTKCellTypes.VTK_TETRA`, warp-simdata's
vtk_shapes.py), read from source like IntEnum members
(verikern/frontend/scan/class_constants.py): the values reach the kernel as
real Warp reads them, in the file and through a project module, and a class
something may change (a store into it here or in another module of the
project, setattr, an alias, a subclass, a method) is no constant, with a
located error naming the site."""
from __future__ import annotations


import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_file, compile_source
from shared_helpers import write_package
from warp_compat.compat_util import warp_module_from_text

SOURCE = '''import warp as wp


class CellTypes:
    """VTK's cell type codes (a plain class, no IntEnum)."""
    TRIANGLE = 5
    QUAD = 9
    TETRA = 10
    PYRAMID = TETRA + 4


_NAMES = {v: k for k, v in vars(CellTypes).items() if not k.startswith("_")}
__all__ = ["CellTypes", "count_cells"]


@wp.kernel
def count_cells(types: wp.array(dtype=wp.uint8), out: wp.array(dtype=int)):
    i = wp.tid()
    if i < types.shape[0] and out.shape[0] >= 2:
        t = int(types[i])
        if t == CellTypes.TETRA or t == CellTypes.PYRAMID:
            wp.atomic_add(out, 0, 1)
        if types[i] == wp.uint8(CellTypes.QUAD):
            wp.atomic_add(out, 1, CellTypes.TRIANGLE)
'''


def test_class_constants_are_read_as_warp_reads_them(warp_cpu, tmp_path):
    wp = warp_cpu
    module = warp_module_from_text(tmp_path, SOURCE, "verikern_class_constants")
    types = np.array([10, 14, 9, 5, 9, 0, 10], np.uint8)
    w_out = wp.zeros(2, dtype=int, device="cpu")
    wp.launch(module.count_cells, dim=len(types), inputs=[wp.array(types, device="cpu"), w_out], device="cpu")
    ours = compile_source(SOURCE, "cells.py")
    assert not ours.all_errors, [e.render() for e in ours.all_errors]
    out = np.zeros(2, np.int32)
    vk.launch(ours.kernels[0].mir, len(types), [types, out])
    assert out.tolist() == w_out.numpy().tolist() == [3, 10]


@pytest.mark.parametrize("change, site", [
    ("CellTypes.QUAD = 4\n", "CellTypes.QUAD = 4"),
    ("setattr(CellTypes, 'QUAD', 4)\n", "CellTypes, 'QUAD'"),
    ("Alias = CellTypes\n", "CellTypes\n"),
    ("class More(CellTypes):\n    HEX = 12\n", "CellTypes):"),
    ("def reset(c=CellTypes):\n    pass\n", "CellTypes):"),
])
def test_a_class_something_may_change_is_no_constant(change, site):
    text = SOURCE + "\n\n" + change
    err = compile_source(text, "cells.py").kernels[0].error
    assert err is not None and err.rule == "closure", err
    line = text[:text.index(site)].count("\n") + 1
    assert f"may change its attributes at cells.py:{line}:" in err.message, err.message


@pytest.mark.parametrize("body", [
    "    X = 1\n    def f(self):\n        return 2\n",        # a method
    "    X = 1.5\n",                                           # not an int
    "    X = 1\n    _Y = 2\n",                                 # a private name
])
def test_a_class_that_is_more_than_int_constants_is_no_constant(body):
    text = f"import warp as wp\n\n\nclass C:\n{body}\n\n@wp.kernel\ndef k(out: wp.array(dtype=int)):\n" \
           "    out[0] = C.X\n"
    err = compile_source(text, "c.py").kernels[0].error
    assert err is not None and err.rule == "closure", err


SHAPES = '''
class CellTypes:
    TETRA = 10
    HEXAHEDRON = 12
'''
USER = '''
import warp as wp
from pkg import shapes


@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = shapes.CellTypes.HEXAHEDRON - shapes.CellTypes.TETRA
'''


def test_a_class_of_another_project_module_reaches_the_kernel(tmp_path):
    pkg = write_package(tmp_path, "pkg", {"shapes": SHAPES, "k": USER,
                                          "other": "from pkg.shapes import CellTypes\nN = CellTypes.TETRA\n"})
    mir = compile_file(pkg / "k.py").kernels[0].mir
    out = np.zeros(2, np.int32)
    vk.launch(mir, 2, [out])
    assert out.tolist() == [2, 2]


@pytest.mark.parametrize("other", ["from pkg.shapes import CellTypes\nCellTypes.TETRA = 11\n",
                                   "from pkg.shapes import CellTypes as T\nT.TETRA = 11\n",
                                   "from pkg import shapes\nshapes.CellTypes.TETRA = 11\n"])
def test_a_store_into_the_class_from_another_module_makes_it_no_constant(tmp_path, other):
    pkg = write_package(tmp_path, "pkg", {"shapes": SHAPES, "k": USER, "other": other})
    err = compile_file(pkg / "k.py").kernels[0].error
    assert err is not None and err.rule == "closure", err
    assert "in another module" in err.message and str(pkg / "other.py") in err.message, err.message
