"""MIR text round trip: `parse_kernel` is the exact inverse of `format_kernel`.

References: the kernels the frontend builds (every corpus kernel and example,
before and after the default pipeline, and peeled), random kernels of the
differential generator, hypothesis-built kernels with awkward constants,
messages, names and file names, and a kernel built by hand with MirBuilder
that a hand-written text must equal. Equality is checked field by field with
`same` (NaN equals NaN, 0.0 differs from -0.0), independently of the printer.
"""
from __future__ import annotations

import dataclasses
import math
import random

import pytest
from hypothesis import given, settings, strategies as st

from differential_kernels import FAMILIES
from verikern.frontend import compile_source
from verikern.mir import (
    BOOL, F32, I32, ArrayRef, Assert, Barrier, BinOp, Branch, Cast, Compare, Const, Jump, Load,
    Phi, Return, ScalarParam, Select, ShapeOf, SourceLoc, Special, Store, format_kernel,
    verify,
)
from corpus_loader import load_corpus
from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import SPECIAL_KINDS, UNKNOWN_LOC, LoopInfo, RangeLoopInfo
from verikern.mir.parser import MirParseError, parse_kernel, parse_module
from verikern.mir.passes.peel import peel_loops
from verikern.mir.types import SCALAR_TYPES

from shared_helpers import ROOT
SOURCES = [c.path for c in load_corpus()] + sorted((ROOT / "examples").glob("*.py"))


def same(a, b, path="kernel") -> None:
    """Assert `a` and `b` are equal field by field (floats bit for bit up to NaN payloads)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            if f.compare:
                same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), f"{path}: {len(a)} vs {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float):
        assert (math.isnan(a) and math.isnan(b)) or \
            (a == b and math.copysign(1, a) == math.copysign(1, b)), f"{path}: {a!r} vs {b!r}"
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def round_trip(k):
    """Print, parse and compare; returns the parsed kernel (verified)."""
    text = format_kernel(k)
    back = parse_kernel(text, "k.mir")
    same(k, back)
    assert format_kernel(back) == text
    for lp in back.loops:   # invariants are the very Assert objects of the blocks
        assert all(any(a is i for b in back.blocks for i in b.instrs) for a in lp.invariants)
    verify(back)
    return back


@pytest.mark.parametrize("src", SOURCES, ids=[p.stem for p in SOURCES])
def test_every_corpus_and_example_kernel_round_trips(src):
    text = src.read_text()
    kernels = []
    for optimize in (False, True):
        for ck in compile_source(text, src.name, optimize=optimize).kernels:
            mir = ck.opaque if ck.unknown else ck.mir    # `kernel[...]`: the type-oblivious proof's kernel
            if ck.unknown and mir is None:   # no opaque kernel: the header says why (test_corpus_headers.py)
                continue
            assert mir is not None, ck.error
            kernels.append(mir)
            if optimize:
                kernels.append(peel_loops(mir, 2)[0])
    assert kernels
    for k in kernels:
        round_trip(k)
    module = "".join(format_kernel(k) for k in kernels)
    assert [format_kernel(k) for k in parse_module(module)] == [format_kernel(k) for k in kernels]



VECTOR_PARAMS = """
import warp as wp


@wp.struct
class Body:
    pos: wp.vec3
    frame: wp.mat22
    mass: float


@wp.kernel
def k(c: wp.array(dtype=wp.vec3), v: wp.vec3, m: wp.mat22, q: wp.quat, t: wp.transform, b: Body,
      out: wp.array(dtype=float)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = c[i][1] + v[0] + m[1, 0] + q[3] + t.p[2] + b.pos[1] + b.frame[0, 1] + b.mass
"""


def test_vector_matrix_quat_transform_and_struct_parameters_round_trip():
    """A component parameter is printed `%v[0].0` (and `%b.frame[0][1].9` for a
    struct's matrix field): the text must read back, origins included."""
    for optimize in (False, True):
        (ck,) = compile_source(VECTOR_PARAMS, "vp.py", optimize=optimize).kernels
        assert ck.mir is not None, ck.error
        text = format_kernel(ck.mir)
        assert "%v[0]." in text and "[1]" in text
        back = round_trip(ck.mir)
        assert [p.origin for p in back.params if isinstance(p, ScalarParam)] == \
            [p.origin for p in ck.mir.params if isinstance(p, ScalarParam)]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), family=st.sampled_from(sorted(FAMILIES)),
       optimize=st.booleans(), peel=st.integers(0, 2))
def test_generated_kernels_round_trip(seed, family, optimize, peel):
    source = FAMILIES[family][0](random.Random(seed))
    result = compile_source(source, "gen.py", optimize=optimize)
    for ck in result.kernels:
        k = ck.mir
        if peel:
            k = peel_loops(k, peel)[0]
        back = round_trip(k)
        # a parsed kernel is as good as the original for the passes too
        assert format_kernel(peel_loops(back, 1)[0]) == format_kernel(peel_loops(k, 1)[0])


def _const(t):
    if t.is_bool:
        return st.booleans().map(lambda v: Const(v, t))
    if t.is_int:
        return st.integers(t.min_value, t.max_value).map(lambda v: Const(v, t))
    return st.floats(allow_nan=True, allow_infinity=True, width=t.bits).map(lambda v: Const(v, t))


_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
_files = st.text(min_size=0, max_size=12)
_types = st.sampled_from([t for t in SCALAR_TYPES.values() if not t.is_bool])


@settings(max_examples=200, deadline=None)
@given(t=_types, data=st.data(), message=st.text(max_size=20), kfile=_files, other=_files,
       name=_names, line=st.integers(0, 10**6), col=st.integers(0, 500))
def test_awkward_constants_messages_names_and_files_round_trip(t, data, message, kfile, other,
                                                               name, line, col):
    c1, c2 = data.draw(_const(t)), data.draw(_const(t))
    b = MirBuilder(name, SourceLoc(kfile, line, col))
    x = b.scalar_param(name, t)
    b.set_block(b.new_block("entry"))
    v = b.new_value(t, name)
    b.emit(BinOp(v, "add" if t.is_int else "mul", x, c1, SourceLoc(other, col, line)))
    c = b.new_value(BOOL)
    b.emit(Compare(c, "ne", v, c2, SourceLoc(kfile, 0, 0)))
    b.emit(Assert(c, message, SourceLoc(other, line, 0)))
    b.terminate(Return(SourceLoc(kfile, line + 1, col)))
    round_trip(b.finish(fast_math=data.draw(st.booleans())))


@settings(max_examples=100, deadline=None)
@given(t=_types, inner=st.lists(st.integers(1, 4), max_size=2),
       shape=st.lists(st.integers(1, 64), min_size=1, max_size=3),
       layout=st.sampled_from(["row_major", "column_major"]), pname=_names,
       ginner=st.lists(st.integers(1, 4), max_size=2), ndim=st.integers(1, 3),
       kind=st.sampled_from(SPECIAL_KINDS), dim=st.integers(0, 3))
def test_array_shapes_layouts_and_parameter_names_round_trip(t, inner, shape, layout, pname,
                                                             ginner, ndim, kind, dim):
    b = MirBuilder("arrays", SourceLoc("a.py", 1, 1))
    g = b.array_param(ArrayRef("g", t, ndim, tuple(ginner)))
    sh = b.shared_array(ArrayRef("s", t, len(shape), tuple(inner), "shared", tuple(shape), layout))
    v = b.new_value(I32, "v")
    b.params.append(ScalarParam(pname + "_", v))     # a parameter named unlike its value
    b.set_block(b.new_block("entry"))
    d = b.new_value(I32)
    b.emit(Special(d, kind, SourceLoc("a.py", 2, 1), dim))
    x = b.new_value(t)
    b.emit(Load(x, g, (v,) * ndim + tuple(Const(0, I32) for _ in ginner), SourceLoc("a.py", 3, 1)))
    b.emit(Store(sh, (d,) * len(shape) + tuple(Const(0, I32) for _ in inner), x,
                 SourceLoc("a.py", 4, 1)))
    b.terminate(Return(SourceLoc("a.py", 5, 1)))
    round_trip(b.finish(uses_block_features=True, launch_ndim=4, block_dim=256))


def test_unknown_locations_print_nothing_and_parse_back():
    b = MirBuilder("k", UNKNOWN_LOC)
    b.set_block(b.new_block("entry"))
    b.terminate(Return(UNKNOWN_LOC))
    k = b.finish()
    assert format_kernel(k) == "kernel k() [launch_ndim=1] {\nentry0:\n  ret\n}\n"
    round_trip(k)


HAND_WRITTEN = """\
; a counting loop with a barrier, as tests/mir/test_mir_core.py builds it
kernel loop(x: array<float32, 1>, %n.0: int32) [launch_ndim=1, block_dim=64, uses_block_features] {  ; k.py:3:1
  s = shared float32[64, column_major]
  loop head1 body=[head1, body2] latches=[body2] exit=exit3 range %k.1 = 0:int32 to %n.0 step 1:int32 invariants=[body2#0]  ; 4:5
entry0:
  %t.4: int32 = thread_idx  ; 5:9
  jmp head1  ; 4:5
head1:
  %k.1: int32 = phi [entry0: 0:int32], [body2: %k.2]  ; 4:5
  %3: bool = cmp.lt %k.1, %n.0  ; 4:5
  br %3, body2, exit3  ; 4:5
body2:
  invariant %3, 'k < n'  ; 5:9
  barrier  ; 6:9
  %5: float32 = load x[%t.4]  ; 7:13
  store s[%t.4], %5  ; 7:9
  %k.2: int32 = add %k.1, 1:int32  ; 4:5
  jmp head1  ; 4:5
exit3:
  %6: bool = cmp.eq %t.4, 0:int32  ; other.py:9:2
  %7: int32 = shape x[0]
  %8: float32 = cast %7  ; 9:5
  %9: float32 = select %6, %8, -inf:float32  ; 9:5
  ret  ; 9:5
}
"""  # noqa: E501 (the printer writes one line per loop header)


def test_hand_written_text_equals_the_hand_built_kernel():
    def at(line, col, file="k.py"):
        return SourceLoc(file, line, col)

    b = MirBuilder("loop", at(3, 1))
    x = b.array_param(ArrayRef("x", F32, 1))
    n = b.scalar_param("n", I32)
    s = b.shared_array(ArrayRef("s", F32, 1, (), "shared", (64,), "column_major"))
    entry, head, body, done = (b.new_block(h) for h in ("entry", "head", "body", "exit"))
    k, k2, c, t = b.new_value(I32, "k"), b.new_value(I32, "k"), b.new_value(BOOL), \
        b.new_value(I32, "t")
    b.set_block(entry)
    b.emit(Special(t, "thread_idx", at(5, 9)))
    b.terminate(Jump(head, at(4, 5)))
    b.add_phi(head, Phi(k, ((entry, Const(0, I32)), (body, k2)), at(4, 5)))
    b.set_block(head)
    b.emit(Compare(c, "lt", k, n, at(4, 5)))
    b.terminate(Branch(c, body, done, at(4, 5)))
    b.set_block(body)
    inv = b.emit(Assert(c, "k < n", at(5, 9), "invariant"))
    b.emit(Barrier(at(6, 9)))
    v = b.new_value(F32)
    b.emit(Load(v, x, (t,), at(7, 13)))
    b.emit(Store(s, (t,), v, at(7, 9)))
    b.emit(BinOp(k2, "add", k, Const(1, I32), at(4, 5)))
    b.terminate(Jump(head, at(4, 5)))
    b.set_block(done)
    e, sh, f, sel = b.new_value(BOOL), b.new_value(I32), b.new_value(F32), b.new_value(F32)
    b.emit(Compare(e, "eq", t, Const(0, I32), at(9, 2, "other.py")))
    b.emit(ShapeOf(sh, x, 0, at(0, 0)))
    b.emit(Cast(f, sh, at(9, 5)))
    b.emit(Select(sel, e, f, Const(-math.inf, F32), at(9, 5)))
    b.terminate(Return(at(9, 5)))
    b.loops.append(LoopInfo(head, (head, body), (body,), done, at(4, 5),
                            RangeLoopInfo(k, Const(0, I32), n, Const(1, I32)), (inv,)))
    built = b.finish(block_dim=64, uses_block_features=True)
    verify(built)
    parsed = parse_kernel(HAND_WRITTEN)
    same(built, parsed)
    assert parsed.loops[0].invariants[0] is parsed.block("body2").instrs[0]
    assert format_kernel(parsed) == HAND_WRITTEN.split("\n", 1)[1]


_HEAD = "kernel k(a: array<int32, 1>, %n.0: int32) [launch_ndim=1] {\nentry0:\n"


@pytest.mark.parametrize("body, line, col, message", [
    ("  %1: int32 = add %n.0\n  ret\n}\n", 3, 23, "expected ',', found end of line"),
    ("  %1: int32 = add %n.0, %m.7\n  ret\n}\n", 3, 25, "value %m.7 is never defined"),
    ("  %1: int32 = add %n.0, %x.0\n  ret\n}\n", 3, 25, "names value 0, defined as %n.0"),
    ("  %1: int32 = load b[0:int32]\n  ret\n}\n", 3, 20, "unknown array 'b'"),
    ("  %1: int32 = frob %n.0\n  ret\n}\n", 3, 15, "expected an instruction, found 'frob'"),
    ("  %1: int32 = store a[0:int32], %n.0\n  ret\n}\n", 3, 15, "store has no result"),
    ("  load a[0:int32]\n  ret\n}\n", 3, 3, "load needs a result"),
    ("  %1: int33 = add %n.0, 1:int32\n  ret\n}\n", 3, 7, "expected a scalar type"),
    ("  %0: int32 = add %n.0, 1:int32\n  ret\n}\n", 3, 3, "value id 0 is defined twice"),
    ("  %1: int32 = add %n.0, 1:int32  ; line 4\n  ret\n}\n", 3, 34,
     "expected a location '; line:col'"),
    ("  %1: int32 = add %n.0, 1:int32\n}\n", 4, 1, "expected a terminator"),
    ("  ret\n", 3, 6, "expected '}' closing the kernel"),
    ("  ret\n} extra\n", 4, 3, "expected end of line, found 'extra'"),
    ("  ret\nnext1:\n  %1: int32 = add %n.0, 1:int32\n  %2: int32 = phi [entry0: %1]\n"
     "  ret\n}\n", 6, 1, "phis must come before"),
    ("  assert true, unquoted\n  ret\n}\n", 3, 16, "expected the assert's message (a string)"),
    ("  ret $\n}\n", 3, 7, "unexpected character '$'"),
    ("  ret\nkernel k2() [] {\nentry0:\n  ret\n}\n", 4, 1,
     "expected '}' closing the kernel before the next one"),
    ("  ret\n}\nkernel k2() [] {\nentry0:\n  ret\n", 7, 6, "expected '}' closing the kernel"),
    ("  ret  ; 3\n}\n", 3, 8, "found '3'"),
])
def test_parse_errors_name_line_column_and_what_was_expected(body, line, col, message):
    with pytest.raises(MirParseError) as info:
        parse_kernel(_HEAD + body, "bad.mir")
    assert str(info.value).startswith(f"bad.mir:{line}:{col}: "), str(info.value)
    assert message in str(info.value)
    assert (info.value.line, info.value.col) == (line, col)


def test_parse_kernel_wants_exactly_one_kernel():
    one = _HEAD + "  ret\n}\n"
    assert len(parse_module(one + "\n" + one.replace("kernel k(", "kernel k2("))) == 2
    with pytest.raises(MirParseError, match="expected one kernel, found 2"):
        parse_kernel(one + one)
    with pytest.raises(MirParseError, match="expected one kernel, found 0"):
        parse_kernel("; nothing here\n")


def test_the_example_in_docs_mir_parses_verifies_and_prints_back():
    section = (ROOT / "docs/MIR.md").read_text().split("## Text format", 1)[1]
    example = section.split("```\n", 2)[1]
    assert example.startswith("kernel ")
    k = parse_kernel(example, "docs/MIR.md")
    verify(k)
    assert format_kernel(k) == example
    assert k.loops[0].invariants == (k.block("body2").instrs[0],)
