"""`wp.overload`s declared in module-level loops and through the project's
helper functions (verikern/frontend/scan/overload_decls.py), in the shapes
nvalchemi-toolkit-ops uses: `for t, v in zip(_T, _V)`, `register_overloads(k,
lambda v, t: [...], dtype_pairs=...)` defined in another module with a default
pair list there, `[wp.array(dtype=t)] * 2 + [...]` specs. Read from source,
never executed; real Warp, which does execute the package, launches the same
declared overloads with the same results."""
from __future__ import annotations


import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_file, compile_source
from shared_helpers import import_package_modules, write_package

DISPATCH = '''
import warp as wp

DEFAULT_PAIRS = ((wp.vec3f, wp.float32), (wp.vec3d, wp.float64))
SCALARS = tuple(zip([wp.float16], [wp.float16]))


def register_overloads(kernel, build, dtype_pairs=DEFAULT_PAIRS, *, dtypes=None):
    """Flat mode with `dtypes`, else one overload per (vector, scalar) pair."""
    out = {}
    if dtypes is not None:
        for dt in dtypes:
            out[dt] = wp.overload(kernel, build(dt))
        return out
    for v, t in dtype_pairs:
        out[v] = wp.overload(kernel, build(v, t))
    return out


def family(kernel, build, pairs=DEFAULT_PAIRS):
    return register_overloads(kernel, build, pairs)
'''

KERNELS = '''
from typing import Any

import warp as w2

from .dispatch import SCALARS, family, register_overloads


@w2.kernel
def shift(a: w2.array(dtype=Any), b: w2.array(dtype=Any), out: w2.array(dtype=Any)):
    i = w2.tid()
    if i < a.shape[0] and i < b.shape[0] and i < out.shape[0]:
        out[i] = a[i] + b[i]


@w2.kernel
def scaled(v: w2.array(dtype=Any), s: w2.array(dtype=Any), out: w2.array(dtype=Any)):
    i = w2.tid()
    if i < v.shape[0] and i < s.shape[0] and i < out.shape[0]:
        out[i] = v[i] * s[i]


_T = [w2.int32, w2.float64]
_K = {}
for t in _T:
    _K[t] = w2.overload(shift, [w2.array(dtype=t)] * 2 + [w2.array(dtype=t)])
for t, u in zip([w2.int64], [w2.int64]):
    for _ in range(1):
        w2.overload(shift, {"a": w2.array(dtype=t), "b": w2.array(dtype=u), "out": w2.array(dtype=t)})

_flat = register_overloads(shift, lambda t: [w2.array(dtype=t)] * 3, dtypes=[w2.uint8])
_pairs = family(scaled, lambda v, t: [w2.array(dtype=v), w2.array(dtype=t), w2.array(dtype=v)])
_half = register_overloads(scaled, lambda v, t: [w2.array(dtype=v), w2.array(dtype=t), w2.array(dtype=v)],
                           dtype_pairs=SCALARS)
'''


def _package(tmp_path, name: str):
    return write_package(tmp_path, name, {"dispatch": DISPATCH, "kernels": KERNELS})


def test_loops_and_helper_functions_declare_the_overloads(tmp_path):
    pkg = _package(tmp_path, "vkovl_a")
    names = compile_file(pkg / "kernels.py").kernel_names
    shift = [n for n in names if n.startswith("shift[")]
    # declared first, in source order (the loop, the nested loop, the flat helper), then the
    # rest of the scalar typings; vec3 arrays add the instantiations not enumerated
    assert shift[:4] == ["shift[int32, int32, int32]", "shift[float64, float64, float64]",
                         "shift[int64, int64, int64]", "shift[uint8, uint8, uint8]"]
    assert len(shift) == len(set(shift)) and shift[-1] == "shift[...]"
    scaled = [n for n in names if n.startswith("scaled[")]
    # the helper's default pairs are the other module's wp.vec3f/wp.vec3d, spelled here as w2.*
    assert scaled[:3] == ["scaled[vec3, float32, vec3]", "scaled[vec3d, float64, vec3d]",
                          "scaled[float16, float16, float16]"]
    module = compile_file(pkg / "kernels.py")
    assert all(k.ok for k in module.kernels if not k.name.endswith("[...]")), \
        [(k.name, k.error) for k in module.kernels if k.error is not None and not k.unknown]


def test_without_the_project_only_the_loops_of_the_file_are_read(tmp_path):
    pkg = _package(tmp_path, "vkovl_b")
    names = compile_source((pkg / "kernels.py").read_text(), "kernels.py").kernel_names
    assert names[:3] == ["shift[int32, int32, int32]", "shift[float64, float64, float64]",
                         "shift[int64, int64, int64]"]
    assert not any("vec3d" in n for n in names)      # the helper is not read: no declared pairs


UNREADABLE = '''
from typing import Any

import numpy as np
import warp as wp


@wp.kernel
def copy(a: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < a.shape[0] and i < out.shape[0]:
        out[i] = a[i]


def types():
    return [wp.int16]


for t in np.sctypes["float"]:              # a value verikern does not read
    wp.overload(copy, [wp.array(dtype=t), wp.array(dtype=t)])
for t in types():                          # a plain function of the file: read
    wp.overload(copy, [wp.array(dtype=t), wp.array(dtype=t)])
if len(types()) > 3:                       # a branch it cannot decide: skipped
    wp.overload(copy, [wp.array(dtype=wp.int8), wp.array(dtype=wp.int8)])
'''


def test_what_cannot_be_read_declares_nothing_and_is_no_error():
    r = compile_source(UNREADABLE, "u.py")
    assert not r.errors
    assert r.kernel_names[0] == "copy[int16, int16]"
    assert r.kernel_names[1] == "copy[bool, bool]"      # then the enumerated typings


def test_real_warp_launches_the_declared_overloads_as_verikern_runs_them(tmp_path):
    wp = pytest.importorskip("warp")
    pkg = _package(tmp_path, "vkovl_c")
    (kernels,) = import_package_modules(tmp_path, "vkovl_c.kernels")   # real Warp executes the package
    module = compile_file(pkg / "kernels.py")
    a = np.array([3, -7, 100, 2], np.int32)
    b = np.array([5, 9, -1, 2**31 - 1], np.int32)
    ours = np.zeros(4, np.int32)
    vk.launch(module.kernel("shift[int32, int32, int32]").mir, 4, [a, b, ours])
    theirs = wp.zeros(4, dtype=wp.int32, device="cpu")
    wp.launch(kernels._K[wp.int32], dim=4, device="cpu",
              inputs=[wp.array(a, device="cpu"), wp.array(b, device="cpu"), theirs])
    np.testing.assert_array_equal(ours, theirs.numpy())          # int32 wraps in both
    v = np.arange(12, dtype=np.float64).reshape(4, 3)
    s = np.array([0.5, -2.0, 3.0, 1e-3])
    ours_v = np.zeros((4, 3))
    vk.launch(module.kernel("scaled[vec3d, float64, vec3d]").mir, 4, [v, s, ours_v])
    theirs_v = wp.zeros(4, dtype=wp.vec3d, device="cpu")
    wp.launch(kernels._pairs[wp.vec3d], dim=4, device="cpu",
              inputs=[wp.array(v, dtype=wp.vec3d, device="cpu"), wp.array(s, device="cpu"), theirs_v])
    np.testing.assert_array_equal(ours_v, theirs_v.numpy())
