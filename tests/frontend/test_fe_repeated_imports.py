"""The same absolute import twice binds one object (scan/rebinding.py):
warpsphcore's radiusSearch/grid_util.py has `from warp.types import vector,
matrix` on lines 3 and 9, so its funcs, imported elsewhere, still read
`vector` as Warp's; an import of another object under that name is still a
rebinding."""
from __future__ import annotations

import ast

import pytest

from verikern.frontend import compile_source
from verikern.frontend.scan.rebinding import find_rebindings

KERNEL = '''import warp as wp
from warp.types import vector, matrix
{between}
from warp.types import vector, matrix


@wp.kernel
def k(x: wp.array(dtype=vector(length=3, dtype=wp.float32)), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0]:
        out[i] = x[i][2]
'''


@pytest.mark.parametrize("between", ["", "import numpy as np"])
def test_the_same_import_twice_is_no_rebinding(between):
    src = KERNEL.format(between=between)
    assert "vector" not in find_rebindings(ast.parse(src), "t.py")
    r = compile_source(src, "t.py")
    assert r.kernels[0].error is None, r.kernels[0].error


@pytest.mark.parametrize("between", ["vector = None", "from warp.types import matrix as vector",
                                     "from numpy import vector"])
def test_another_binding_between_or_another_object_is_a_rebinding(between):
    src = KERNEL.format(between=between)
    assert "vector" in find_rebindings(ast.parse(src), "t.py")


def test_another_object_under_the_same_name_is_a_rebinding():
    src = KERNEL.format(between="").replace("from warp.types import vector, matrix\n\n\n",
                                            "from warp.types import matrix as vector, matrix\n\n\n")
    assert "vector" in find_rebindings(ast.parse(src), "t.py")
    assert compile_source(src, "t.py").kernels[0].error is not None
