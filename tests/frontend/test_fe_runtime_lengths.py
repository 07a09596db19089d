"""Vector lengths read at run time (verikern/frontend/scan/runtime_lengths.py):
warpsphcore's `dim_t = _resolve_dim(os.getenv(...))`, used as `vector(length=
dim_t, ...)` and through the aliases `vec_t`, `vecArray_t`, `mat_t`, makes the
kernel length-generic exactly as `Any` does (lengths 1 to 4 proved one by one,
`[...]` unknown, never the kernel as a whole proved); a bug at one length
fails that instance; a kernel reading the length as a value gets a located
error naming it; a binding the source cannot read stays the refusal it was."""
from __future__ import annotations

import pytest

from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.obligations import KernelStatus
from shared_helpers import write_package

TYPE_CONFIG = '''
import os
from typing import Any
import warp as wp
from warp.types import vector, matrix


def _resolve_dim(value):
    if value is None:
        return Any
    key = value.strip()
    if key.lower() in {"any", ""}:
        return Any
    dim = int(key)
    if dim <= 0:
        raise ValueError(value)
    return dim


dim_t = _resolve_dim(os.getenv("PKG_DIM"))


def _load_preconfig():
    return None


_pre = _load_preconfig()
if _pre is not None:
    dim_t = _resolve_dim(_pre)

vec_t = vector(length=dim_t, dtype=wp.float32)
mat_t = matrix(shape=(dim_t, dim_t), dtype=wp.float32)
vecArray_t = wp.array(dtype=vec_t)
matArray_t = wp.array(dtype=mat_t)

__all__ = ["dim_t", "vec_t", "mat_t", "vecArray_t", "matArray_t"]
'''

OPS = '''
import warp as wp
from .type_config import *


@wp.func
def first(v: vec_t):
    return v[0]


@wp.func
def component(xs: vecArray_t, i: int, k: int):
    return xs[i][k]
'''

KERNELS = '''
import warp as wp
from warp.types import vector
from .type_config import *
from .ops import first, component


@wp.kernel
def take_first(xs: vecArray_t, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < xs.shape[0] and i < out.shape[0]:
        out[i] = first(xs[i])


@wp.kernel
def take_k(xs: wp.array(dtype=vector(length=dim_t, dtype=wp.float32)), k: int,
           out: wp.array(dtype=wp.float32)):
    wp.requires(k >= 0 and k < 3)
    i = wp.tid()
    if i < xs.shape[0] and i < out.shape[0]:
        out[i] = component(xs, i, k)


@wp.kernel
def trace(ms: matArray_t, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < ms.shape[0] and i < out.shape[0]:
        out[i] = wp.trace(ms[i])
'''

LOOP = KERNELS + '''

@wp.kernel
def sum_components(xs: vecArray_t, out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    s = float(0.0)
    for d in range(dim_t):
        s += xs[i][d]
    out[i] = s
'''


def _package(tmp_path, type_config=TYPE_CONFIG, kernels=KERNELS):
    return write_package(tmp_path, "pkg", {"type_config": type_config, "ops": OPS, "kernels": kernels})


def _verdicts(reports):
    return {r.kernel: r.status for r in reports}


def test_a_run_time_length_is_length_generic_through_aliases_and_imported_funcs(tmp_path):
    pkg = _package(tmp_path)
    module = compile_file(pkg / "kernels.py")
    for kernel in ("take_first", "trace"):
        names = [n for n in module.kernel_names if n.startswith(kernel + "[")]
        assert len(names) == 5 and names[-1] == f"{kernel}[...]", names
    assert not [k.error for k in module.kernels if k.error is not None and "[...]" not in k.name]
    hir = {p.name: p.type for p in module.kernel("trace[mat33]").hir.params}
    assert (hir["ms"].dtype.rows, hir["ms"].dtype.cols) == (3, 3)
    assert module.kernel("take_first[vec2]").hir.params[0].type.dtype.length == 2
    verdicts = _verdicts(prove_file(pkg / "kernels.py", kernel="take_first"))
    assert verdicts == {"take_first[vec1f]": KernelStatus.PROVED, "take_first[vec2]": KernelStatus.PROVED,
                        "take_first[vec3]": KernelStatus.PROVED, "take_first[vec4]": KernelStatus.PROVED,
                        "take_first[...]": KernelStatus.UNKNOWN}


def test_a_bug_at_one_length_fails_that_instance_never_proved(tmp_path):
    # k < 3 reads component 2, which a vector of length 1 or 2 does not have
    verdicts = _verdicts(prove_file(_package(tmp_path) / "kernels.py", kernel="take_k"))
    assert verdicts == {"take_k[vec1f]": KernelStatus.FAILED, "take_k[vec2]": KernelStatus.FAILED,
                        "take_k[vec3]": KernelStatus.PROVED, "take_k[vec4]": KernelStatus.PROVED,
                        "take_k[...]": KernelStatus.UNKNOWN}


def test_reading_the_length_as_a_value_is_a_located_error_naming_it(tmp_path):
    module = compile_file(_package(tmp_path, kernels=LOOP) / "kernels.py")
    errors = [k.error for k in module.kernels if k.name.startswith("sum_components[") and k.error is not None
              and "[...]" not in k.name]
    assert errors
    rendered = errors[0].render()
    assert "kernels.py:35:20:" in rendered and "cannot read 'dim_t' as a value" in rendered
    assert "PKG_DIM" in rendered and "type_config.py:20" in rendered
    assert "take_first[vec3]" in module.kernel_names      # the other kernels still compile


@pytest.mark.parametrize("binding", [
    "dim_t = getattr(wp, os.getenv('X'))",      # not the call of a module function
    "dim_t = _other(os.getenv('X'))",           # a function that can return a type
])
def test_a_binding_the_source_cannot_read_as_a_length_stays_a_refusal(tmp_path, binding):
    other = "\n\ndef _other(v):\n    return wp.vec3\n\n\n"
    unreadable = TYPE_CONFIG.replace("vec_t = vector(", f"{other}if os.getenv('X'):\n    {binding}\n"
                                     "vec_t = vector(")
    module = compile_file(_package(tmp_path, type_config=unreadable) / "kernels.py")
    assert not any(n.startswith("take_first[vec") for n in module.kernel_names), module.kernel_names
    rendered = " ".join(e.render() for e in module.all_errors)
    assert "not one type" in rendered and "vecArray_t" in rendered


def test_an_alias_bound_twice_is_not_followed(tmp_path):
    twice = TYPE_CONFIG.replace('__all__', 'if os.getenv("Y"):\n    vecArray_t = wp.array(dtype=wp.vec3)\n\n'
                                '__all__')
    module = compile_file(_package(tmp_path, type_config=twice) / "kernels.py")
    take_first = module.kernel("take_first")       # one kernel, refused: no length-generic instances
    assert take_first.error is not None and "bound more than once" in take_first.error.render()
    assert "trace[mat33]" in module.kernel_names   # mat_t, bound once, is still followed


INT_LENGTH = '''
import os
import warp as wp
from warp.types import vector

N = int(os.environ["PKG_N"])


@wp.kernel
def norm(xs: wp.array(dtype=vector(length=N, dtype=wp.float32)), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < xs.shape[0] and i < out.shape[0]:
        out[i] = wp.length(xs[i])


@wp.kernel
def scale(out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = float(N)
'''


def test_an_int_read_from_the_environment_is_length_generic_only_as_a_length(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(INT_LENGTH)
    module = compile_file(path)
    assert [n for n in module.kernel_names if n.startswith("norm")] == [
        "norm[vec1f]", "norm[vec2]", "norm[vec3]", "norm[vec4]", "norm[...]"]
    # read as a value it is any other run-time value: the refusal of a non-constant name
    err = module.kernel("scale").error
    assert err is not None and err.rule == "closure" and "only literal constants are visible" in err.render()
