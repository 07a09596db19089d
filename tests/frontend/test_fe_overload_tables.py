"""`wp.overload`s declared through dict tables and conditional types, in the
shapes nvalchemi-toolkit-ops and warp-nn use (verikern/frontend/scan/
overload_decls.py): `_VEC_TO_MAT[v]` and `_SCALAR_FOR[v]` lookups keyed by
Warp's types, `wp.mat33d if t == wp.float64 else wp.mat33f` in a signature
builder, `wp.array(dtype=t, ndim=4)`, a dict comprehension over `.items()` of
an imported table with `([...] if has_output else [])`, and `d.update(helper(...))`.
Until session 16 none of these was read: the kernels had no instance at all,
only their `k[...]` remainder. Real Warp, which executes the package, registers
exactly the overloads verikern reads, and runs them with the same results."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_file, compile_source
from shared_helpers import import_package_modules, write_package

DISPATCH = '''
import warp as wp

ACCUMULATE = {wp.float16: wp.float32, wp.float32: wp.float32, wp.float64: wp.float64}
VEC_TO_MAT = {wp.vec3f: wp.mat33f, wp.vec3d: wp.mat33d}
PAIRS = ((wp.vec3f, wp.float32), (wp.vec3d, wp.float64))


def overload_all(kernel, *, n_acc, has_output):
    return {
        t: wp.overload(kernel, [wp.array(dtype=t)] + [wp.array(dtype=acc)] * n_acc
                       + ([wp.array(dtype=t)] if has_output else []))
        for t, acc in ACCUMULATE.items()
    }


def register(kernel, build, pairs=PAIRS):
    out = {}
    for v, t in pairs:
        out[v] = wp.overload(kernel, build(v, t))
    return out
'''

KERNELS = '''
from typing import Any

import warp as wp

from .dispatch import VEC_TO_MAT, overload_all, register


@wp.kernel
def scale(x: wp.array(dtype=Any), total: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < x.shape[0] and i < out.shape[0] and total.shape[0] > 0:
        out[i] = out.dtype(total.dtype(x[i]) * total[0])


@wp.kernel
def rotate(p: wp.array(dtype=Any), r: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < p.shape[0] and i < r.shape[0] and i < out.shape[0]:
        out[i] = r[i] * p[i]


@wp.kernel
def transpose_rotate(p: wp.array(dtype=Any), r: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    if i < p.shape[0] and i < r.shape[0] and i < out.shape[0]:
        out[i] = wp.transpose(r[i]) * p[i]


@wp.kernel
def corner(p: wp.array(dtype=Any), r: wp.array(dtype=Any), mesh: wp.array4d(dtype=Any)):
    i = wp.tid()
    if i < p.shape[0] and i < r.shape[0] and i < mesh.shape[0]:
        if mesh.shape[1] > 0 and mesh.shape[2] > 0 and mesh.shape[3] > 0:
            mesh[i, 0, 0, 0] = mesh.dtype(r[i][0, 0] * p[i][2])


def _rotate_sig(v, t):
    m = wp.mat33d if t == wp.float64 else wp.mat33f
    return [wp.array(dtype=v), wp.array(dtype=m), wp.array(dtype=v)]


_SCALE = overload_all(scale, n_acc=1, has_output=True)
_ROTATE = register(rotate, _rotate_sig)
_TRANSPOSE = {}
_TRANSPOSE.update(register(transpose_rotate, lambda v, t: [wp.array(dtype=v), wp.array(dtype=VEC_TO_MAT[v]),
                                                            wp.array(dtype=v)]))
_CORNER = {}
for _v in [wp.vec3f, wp.vec3d]:
    _CORNER[_v] = wp.overload(corner, [wp.array(dtype=_v), wp.array(dtype=VEC_TO_MAT[_v]),
                                       wp.array(dtype=wp.float64, ndim=4)])
'''

#: the overloads the package declares, by kernel, as verikern names the instances
DECLARED = {
    "scale": ["scale[float16, float32, float16]", "scale[float32, float32, float32]",
              "scale[float64, float64, float64]"],
    "rotate": ["rotate[vec3, mat33, vec3]", "rotate[vec3d, mat33d, vec3d]"],
    "transpose_rotate": ["transpose_rotate[vec3, mat33, vec3]", "transpose_rotate[vec3d, mat33d, vec3d]"],
    "corner": ["corner[vec3, mat33, float64]", "corner[vec3d, mat33d, float64]"],
}
#: Warp's dtype names as verikern spells them in an instance's name
_SPELLED = {"vec3f": "vec3", "mat33f": "mat33"}


def _package(tmp_path, name: str):
    return write_package(tmp_path, name, {"dispatch": DISPATCH, "kernels": KERNELS})


def test_tables_conditional_types_and_comprehensions_declare_the_overloads(tmp_path):
    module = compile_file(_package(tmp_path, "vktab_a") / "kernels.py")
    for kernel, declared in DECLARED.items():
        names = [n for n in module.kernel_names if n.startswith(kernel + "[")]
        assert names[:len(declared)] == declared, (kernel, names)
    for name in (n for names in DECLARED.values() for n in names):
        k = module.kernel(name)
        assert k.ok, (name, k.error)


def test_a_table_changed_in_place_or_a_key_it_lacks_declares_nothing():
    src = KERNELS.replace("from .dispatch import VEC_TO_MAT, overload_all, register", '''
VEC_TO_MAT = {wp.vec3f: wp.mat33f, wp.vec3d: wp.mat33d}
VEC_TO_MAT[wp.vec3d] = wp.mat33f                 # changed in place: read no more


def overload_all(kernel, *, n_acc, has_output):
    return {}


def register(kernel, build, pairs=((wp.vec3h, wp.float16),)):
    return {v: wp.overload(kernel, build(v, t)) for v, t in pairs}
''')
    module = compile_source(textwrap.dedent(src), "k.py")
    names = [k.name for k in module.kernels if k.declared]   # not the typings the enumeration found
    assert not any(n.startswith(("corner[", "transpose_rotate[")) for n in names), names
    # the conditional type needs no table: float16 is not float64, so mat33f
    assert "rotate[vec3h, mat33, vec3h]" in names


def test_real_warp_registers_and_runs_the_overloads_verikern_reads(tmp_path):
    wp = pytest.importorskip("warp")
    pkg = _package(tmp_path, "vktab_b")
    (kernels,) = import_package_modules(tmp_path, "vktab_b.kernels")   # real Warp executes the package
    for kernel, declared in DECLARED.items():
        theirs = []
        for o in getattr(kernels, kernel).overloads.values():
            dtypes = [_SPELLED.get(a.type.dtype.__name__, a.type.dtype.__name__) for a in o.adj.args]
            theirs.append(f"{kernel}[{', '.join(dtypes)}]")
        assert sorted(theirs) == sorted(declared), kernel
    module = compile_file(pkg / "kernels.py")
    rng = np.random.default_rng(7)
    p = rng.standard_normal((5, 3))
    r = rng.standard_normal((5, 3, 3))
    ours = np.zeros((5, 1, 1, 2))
    vk.launch(module.kernel("corner[vec3d, mat33d, float64]").mir, 5, [p, r, ours])
    mesh = wp.zeros((5, 1, 1, 2), dtype=wp.float64, device="cpu")
    wp.launch(kernels._CORNER[wp.vec3d], dim=5, device="cpu",
              inputs=[wp.array(p, dtype=wp.vec3d, device="cpu"), wp.array(r, dtype=wp.mat33d, device="cpu"), mesh])
    np.testing.assert_array_equal(ours, mesh.numpy())
    ours_t = np.zeros((5, 3))
    vk.launch(module.kernel("transpose_rotate[vec3d, mat33d, vec3d]").mir, 5, [p, r, ours_t])
    out = wp.zeros(5, dtype=wp.vec3d, device="cpu")
    wp.launch(kernels._TRANSPOSE[wp.vec3d], dim=5, device="cpu",
              inputs=[wp.array(p, dtype=wp.vec3d, device="cpu"), wp.array(r, dtype=wp.mat33d, device="cpu"), out])
    np.testing.assert_allclose(ours_t, out.numpy(), rtol=1e-12)
    x = np.array([1.5, -2.0, 0.25, 8.0], np.float16)
    total = np.array([3.0], np.float32)
    ours_s = np.zeros(4, np.float16)
    vk.launch(module.kernel("scale[float16, float32, float16]").mir, 4, [x, total, ours_s])
    out_s = wp.zeros(4, dtype=wp.float16, device="cpu")
    wp.launch(kernels._SCALE[wp.float16], dim=4, device="cpu",
              inputs=[wp.array(x, device="cpu"), wp.array(total, device="cpu"), out_s])
    np.testing.assert_array_equal(ours_s, out_s.numpy())
