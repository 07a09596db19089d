"""Structs in kernels and funcs (frontend/check/structs.py): flattened into
one variable per leaf field, run on verikern's simulator against values
computed by hand, and the located errors of what verikern does not take
(real Warp is compared in tests/warp_compat/test_warp_structs.py)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import verikern as vk
from verikern.frontend import compile_source
from verikern.hir.types import F32, I32, StructType, struct_leaves, vector_type

from frontend.fe_util import first_error, marker_loc

SRC = '''import verikern as vk


@vk.struct
class Span:
    lo: vk.int32
    hi: vk.int32


@vk.struct
class Job:
    span: Span
    gain: vk.float32
    shift: vk.vec2
    data: vk.array(dtype=vk.float32)


@vk.func
def width(s: Span) -> vk.int32:
    return s.hi - s.lo


@vk.kernel
def scale(job: Job, out: vk.array(dtype=vk.float32)):
    vk.requires(job.span.lo >= 0 and job.span.hi <= job.data.shape[0])
    vk.requires(out.shape[0] == job.data.shape[0])
    i = vk.tid()
    s = Span()
    s.lo = job.span.lo
    s.hi = job.span.hi
    t = s
    t.lo = t.lo + 1
    if i >= s.lo and i < s.hi:
        out[i] = job.data[i] * job.gain + job.shift.y + float(width(t))
'''


def load(tmp_path):
    path = tmp_path / "struct_kernels.py"
    path.write_text(SRC)
    spec = importlib.util.spec_from_file_location("struct_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def test_values_by_hand_and_proved(tmp_path):
    m, path = load(tmp_path)
    data = np.arange(8, dtype=np.float32)
    job = m.Job()
    job.span = m.Span()
    job.span.lo, job.span.hi = 2, 6
    job.gain, job.shift, job.data = 3.0, (0.0, 0.5), data
    for device in ("cpu", "cpu:native"):
        out = np.zeros(8, np.float32)
        vk.launch(m.scale, 8, [job, out], device=device)
        # data * 3 + 0.5 + (6 - 3) inside [2, 6)
        assert out.tolist() == [0, 0, 9.5, 12.5, 15.5, 18.5, 0, 0], device
    from verikern.app.prove import prove_file  # lazy: the prover is heavy for a frontend test
    assert [r.status.value for r in prove_file(path)] == ["proved"]


def test_an_array_of_structs_with_array_fields_holds_padded_arrays_and_lengths():
    # frontend/check/held_arrays.py: a held 1-d array is a padded 2-d array and its lengths
    src = HEAD.replace("ps: wp.array(dtype=P)", "qs: wp.array(dtype=A)") + "    pass\n"
    k = compile_source(src, "t.py").kernels[0]
    assert k.error is None, k.error.render()
    held = {p.name: (p.type.ndim, str(p.type.dtype)) for p in k.hir.params if p.name.startswith("qs.a")}
    assert held == {"qs.a": (2, "float32"), "qs.a.len": (1, "int32")}, held


def test_a_func_cannot_return_a_struct_with_array_fields():
    src = HEAD.replace("@wp.kernel", "@wp.func\ndef make(q: A) -> A:\n    return q\n\n\n@wp.kernel")
    err = first_error(src + "    pass\n")
    assert "cannot return A: it has array fields" in err.message, err.render()


def test_struct_parameters_are_flattened_in_declaration_order():
    r = compile_source(SRC, "t.py")
    assert not r.all_errors, [e.render() for e in r.all_errors]
    k = r.kernel("scale")
    assert [p.name for p in k.hir.params] == [
        "job.span.lo", "job.span.hi", "job.gain", "job.shift", "job.data", "out"]
    (arg,) = k.mir.struct_args
    assert (arg.name, arg.index) == ("job", 0)
    assert arg.fields == (("span", "lo"), ("span", "hi"), ("gain",), ("shift",), ("data",))
    t = StructType("S", (("a", I32), ("v", vector_type(2, F32))))
    assert struct_leaves(t, "x") == [("x.a", I32), ("x.v", vector_type(2, F32))]


HEAD = '''import warp as wp


@wp.struct
class P:
    n: int
    v: wp.vec3


@wp.struct
class A:
    n: int
    a: wp.array(dtype=float)


@wp.kernel
def k(p: P, q: A, out: wp.array(dtype=float), ps: wp.array(dtype=P)):
'''
BAD = [
    ("    s = A()\n    out[0] = s.a[0]\n", "out[0] = s.a[0]", "s.a is never assigned"),
    ("    s = P(1)\n", "P(1)", "without its field v: Warp builds a struct from no arguments or from every field"),
    ("    s = P(n=1, w=wp.vec3())\n", "wp.vec3()", "P has no field 'w'"),
    ("    s = P(1, n=2)\n", "2", "given its field 'n' twice"),
    ("    s = P(1, wp.vec3(), 3)\n", "P(1, wp.vec3(), 3)", "has 3 arguments, and P has 2 fields"),
    ("    s = P(1.5, wp.vec3())\n", "1.5", "float literal 1.5 used where int32 is needed"),
    ("    s = P(v=out[0] * wp.vec3(), n=wp.tid())\n", "P(v=out[0] * wp.vec3(), n=wp.tid())",
     "out of declaration order"),
    ("    s = P()\n    s = q\n", "q", "assigned q"),
    ("    s = ps[wp.tid()]\n", "wp.tid()", "must not call"),
    ("    ps[0] = q\n", "q", "assigned q"),
]


@pytest.mark.parametrize("body,marker,words", BAD, ids=[b[2] for b in BAD])
def test_struct_misuse_is_a_located_error(body, marker, words):
    src = HEAD + body
    err = first_error(src)
    assert words in err.message, err.render()
    line, col = marker_loc(src, marker, nth=src.count(marker) - 1)
    assert err.loc.line == line and err.loc.col in (col, 5), err.render()


def test_a_struct_imported_from_another_project_module(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "shapes.py").write_text(
        "import warp as wp\n\n\n@wp.struct\nclass Span:\n    lo: wp.int32\n    hi: wp.int32\n"
        "    data: wp.array(dtype=float)\n")
    (pkg / "kern.py").write_text(
        "import warp as wp\n\nfrom .shapes import Span\n\n\n@wp.kernel\ndef fill(s: Span):\n"
        "    wp.requires(s.lo >= 0 and s.hi <= s.data.shape[0])\n    i = wp.tid()\n"
        "    if i >= s.lo and i < s.hi:\n        s.data[i] = 1.0\n")
    from verikern.app.prove import prove_file  # lazy: the prover is heavy for a frontend test
    assert [r.status.value for r in prove_file(pkg / "kern.py")] == ["proved"]
