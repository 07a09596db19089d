"""Lowering details: warp spellings, literal typing, tid, constants, loops,
dispatch-table coverage, and every corpus/example kernel compiling to
verified MIR."""
from __future__ import annotations


import pytest

from corpus_loader import compiled, load_corpus
from frontend.fe_util import compile_ok, compile_text, first_error
from verikern.hir import nodes as H
from verikern.hir.printer import _EXPR, _STMT, format_kernel as format_hir
from verikern.mir import nodes as M
from verikern.mir.printer import format_kernel
from verikern.mir.types import F32, F64, I32, U8, U32
from verikern.mir.verifier import verify

from shared_helpers import ROOT


def _instrs(k, cls):
    return [i for _, i in k.instructions() if isinstance(i, cls)]


VK_SRC = """
import verikern as vk
N = 4
@vk.func
def twice(x: vk.float32) -> vk.float32:
    return x * 2.0
@vk.kernel
def k(a: vk.array(dtype=vk.float32, ndim=2), c: vk.array(dtype=vk.int32)):
    i, j = vk.tid()
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = vk.sqrt(twice(a[i, j])) + float(N)
        vk.atomic_add(c, 0, 1)
"""


def test_warp_spelling_compiles_identically():
    wp_src = VK_SRC.replace("import verikern as vk", "import warp as wp").replace("vk.", "wp.")
    a = compile_ok(VK_SRC)
    b = compile_ok(wp_src)
    assert format_kernel(a) == format_kernel(b)
    aliased = VK_SRC.replace("import verikern as vk", "import verikern as gpu").replace(
        "vk.", "gpu.")
    import re
    strip = lambda t: re.sub(r"  ; \d+:\d+", "", t)  # noqa: E731 (columns move)
    assert strip(format_kernel(compile_ok(aliased))) == strip(format_kernel(a))


def test_lone_literals_are_int32_and_float32():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), b: vk.array(dtype=vk.float32)):
        x = 7
        y = 1.5
        a[0] = x
        b[0] = y
    """)
    stores = _instrs(k, M.Store)
    assert stores[0].value == M.Const(7, I32)
    assert stores[1].value == M.Const(1.5, F32)


def test_literals_take_the_other_operands_type():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.float64), b: vk.array(dtype=vk.uint32), x: vk.float64,
          u: vk.uint32, s: vk.uint8):
        a[0] = x * 2.0
        b[0] = u + 1
        b[1] = 1 + u
        b[2] = u32(s)
    """.replace("u32(s)", "vk.uint32(s)"))
    muls = [i for i in _instrs(k, M.BinOp) if i.op == "mul"]
    assert muls[0].rhs == M.Const(2.0, F64) and muls[0].result.type == F64
    adds = [i for i in _instrs(k, M.BinOp) if i.op == "add"]
    assert adds[0].rhs == M.Const(1, U32) and adds[1].lhs == M.Const(1, U32)
    casts = _instrs(k, M.Cast)
    assert casts[0].operand.type == U8 and casts[0].result.type == U32


def test_float32_literal_is_rounded_to_float32():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.float32), d: vk.array(dtype=vk.float64)):
        a[0] = 0.1
        d[0] = 0.1
    """)
    s = _instrs(k, M.Store)
    import numpy as np
    assert s[0].value.value == float(np.float32(0.1)) and s[1].value.value == 0.1


def test_int_division_ops():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), n: int):
        a[0] = n / 3
        a[1] = n // 3
        a[2] = n % 3
        a[3] = (-7) / 2
        a[4] = (-7) // 2
        a[5] = (-7) % 2
    """)
    ops = [i.op for i in _instrs(k, M.BinOp)]
    assert ops == ["div", "floordiv", "mod"]
    consts = [s.value for s in _instrs(k, M.Store)[3:]]
    assert consts == [M.Const(-3, I32), M.Const(-4, I32), M.Const(-1, I32)]


def test_tid_1d_lowering_follows_mir_md():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32)):
        i = vk.tid()
        a[i] = 1
    """)
    assert k.launch_ndim == 1
    body = list(k.entry.instrs)
    kinds = [i.kind for i in body if isinstance(i, M.Special)]
    assert kinds == ["block_idx", "block_dim", "thread_idx"]
    mul, add = [i for i in body if isinstance(i, M.BinOp)]
    assert mul.op == "mul" and add.op == "add" and add.lhs == mul.result
    assert _instrs(k, M.Store)[0].indices == (add.result,)


def test_tid_2d_lowering_follows_mir_md():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32, ndim=2)):
        i, j = vk.tid()
        a[i, j] = 1
    """)
    assert k.launch_ndim == 2
    ops = {i.result.name: i for i in _instrs(k, M.BinOp)}
    d1 = [i for i in _instrs(k, M.Special) if i.kind == "launch_dim"]
    assert [d.dim for d in d1] == [1]
    assert ops["i"].op == "floordiv" and ops["i"].rhs == d1[0].result
    assert ops["j"].op == "mod" and ops["j"].rhs == d1[0].result
    assert ops["i"].lhs == ops["j"].lhs  # both from the linear id


def test_module_constants():
    k = compile_ok("""
    import verikern as vk
    import numpy as np
    A = 3
    B = A * 4 + 1
    SHAPE = (B, 2)
    C = vk.constant(2.5)
    FLAG = True
    ignored = np.zeros(3)
    class Host:
        pass
    if __name__ == "__main__":
        A = 99
    @vk.kernel
    def k(a: vk.array(dtype=vk.float32), b: vk.array(dtype=vk.int32)):
        s = vk.shared.array(shape=SHAPE, dtype=vk.float32)
        b[0] = B
        b[1] = SHAPE[1]
        a[0] = C
        if FLAG:
            b[2] = s.shape[0]
    """)
    vals = [s.value for s in _instrs(k, M.Store)]
    assert vals[:3] == [M.Const(13, I32), M.Const(2, I32), M.Const(2.5, F32)]
    assert vals[3] == M.Const(13, I32)
    assert k.shared[0].shape == (13, 2) and k.uses_block_features


def test_non_constant_module_names_are_closures():
    e = first_error("""
    import verikern as vk
    A = 3
    A = compute()
    @vk.kernel
    def k(b: vk.array(dtype=vk.int32)):
        b[0] = A
    """)
    assert e.rule == "closure"


def test_loops_are_listed_outermost_first_with_range_info():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), n: int):
        for i in range(n):
            for j in range(1, n, 2):
                a[0] += i + j
        vk.block_until(a[0] > 0)
    """)
    assert len(k.loops) == 3
    outer, inner, until = k.loops
    assert set(inner.body) < set(outer.body)
    assert outer.range.start == M.Const(0, I32) and inner.range.step == M.Const(1 * 2, I32)
    assert until.range is None and k.uses_block_features
    assert any(isinstance(i, M.Barrier) for lbl in until.body for i in k.block(lbl).instrs)
    for lp in k.loops:
        header = k.block(lp.header)
        assert all(p.result.type for p in header.phis)
        assert lp.exit not in lp.body
        for latch in lp.latches:
            assert lp.header in k.block(latch).terminator.successors()
    assert outer.range.counter in [p.result for p in k.block(outer.header).phis]


def test_invariant_is_first_in_body_and_listed():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), n: int):
        s = 0
        for i in range(n):
            vk.invariant(s >= 0)
            s += 1
        a[0] = s
    """)
    (lp,) = k.loops
    assert len(lp.invariants) == 1
    body_block = k.block(k.block(lp.header).terminator.if_true)
    assert body_block.instrs[0] is lp.invariants[0]
    assert lp.invariants[0].kind == "invariant"


def test_unused_loads_and_divisions_are_kept():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), n: int):
        i = vk.tid()
        a[i]
        x = a[i + 1] + 1
        y = n // i
        z = n * 3
    """)
    assert len(_instrs(k, M.Load)) == 2
    assert [i.op for i in _instrs(k, M.BinOp) if i.op == "floordiv"] == ["floordiv"]
    assert not [i for i in _instrs(k, M.BinOp) if i.op == "mul" and i.rhs == M.Const(3, I32)]


def test_augmented_assignments_on_array_elements():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), f: vk.array(dtype=vk.float32)):
        i = vk.tid()
        a[i] += 1
        a[i] -= 2
        a[i] &= 3
        a[i] |= 4
        a[i] ^= 5
        a[i] *= 6
        f[i] /= 2.0
        a[i] = a[i] + 7
    """)
    assert [x.op for x in _instrs(k, M.Atomic)] == ["add", "sub", "and", "or", "xor"]
    assert len(_instrs(k, M.Store)) == 3 and len(_instrs(k, M.Load)) == 3


def test_requires_are_in_entry_and_and_is_split():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32), n: int, m: int):
        vk.requires(n > 0 and m % n == 0)
        vk.requires(vk.all_distinct(a))
        a[0] = m // n
    """)
    reqs = [i for i in k.entry.instrs if isinstance(i, (M.Requires, M.RequiresArray))]
    assert len(reqs) == 3 and reqs[2].kind == "all_distinct"


def test_vector_and_matrix_lowering_shapes():
    k = compile_ok("""
    import verikern as vk
    @vk.kernel
    def k(m: vk.array(dtype=vk.mat33), v: vk.array(dtype=vk.vec3), q: vk.array(dtype=vk.quat)):
        i = vk.tid()
        w = m[i] * v[i]
        m[i] = vk.transpose(m[i]) * m[i]
        v[i] = vk.quat_rotate(q[i], vk.normalize(w)) + vk.cross(w, v[i]) * vk.dot(w, w)
        q[i] = q[i] * vk.quat_inverse(q[i])
    """)
    m = k.params[0]
    assert (m.dtype, m.ndim, m.inner) == (F32, 1, (3, 3))
    loads_m = [ld for ld in _instrs(k, M.Load) if ld.array.name == "m"]
    assert len(loads_m) == 27 and all(len(ld.indices) == 3 for ld in loads_m)
    assert len([s for s in _instrs(k, M.Store) if s.array.name == "v"]) == 3


def test_expression_and_statement_dispatch_tables_cover_every_hir_class():
    from verikern.frontend.lower.lowerer import STMT_LOWERING
    from verikern.frontend.lower.expressions import EXPR_LOWERING
    assert set(STMT_LOWERING) == set(H.STATEMENT_CLASSES) == set(_STMT)
    assert set(EXPR_LOWERING) == set(H.EXPRESSION_CLASSES) == set(_EXPR)


def test_every_builtin_rule_has_a_lowering():
    from verikern.frontend.builtins.table import BUILTIN_RULES, BY_NAME, FOLDED, ATOMIC_OP
    from verikern.frontend.lower.builtin_calls import BUILTIN_LOWERING
    folded = {n for n in BUILTIN_RULES if BY_NAME[n].lowering in (FOLDED, ATOMIC_OP)}
    assert {"len", "mul", "quat_identity", "transform_identity", "spatial_top"} <= folded
    assert set(BUILTIN_RULES) - folded <= set(BUILTIN_LOWERING)


def test_missing_lowering_entry_raises():
    from verikern.frontend.lower.lowerer import Lowerer
    kd = compile_text("""
    import verikern as vk
    @vk.kernel
    def k(a: vk.array(dtype=vk.int32)):
        a[0] = 1
    """).kernels[0].hir
    low = Lowerer(kd)
    with pytest.raises(TypeError, match="no MIR lowering"):
        low.lower_expr(object())


def test_hir_printer_round_trip_is_stable():
    r = compile_text(VK_SRC)
    assert format_hir(r.kernels[0].hir) == format_hir(compile_text(VK_SRC).kernels[0].hir)


CORPUS = [c.path for c in load_corpus()] + sorted((ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus_and_examples_compile_to_verified_mir(path):
    r = compiled(path)
    assert not r.errors, [e.render() for e in r.errors]
    assert r.kernels
    for k in r.kernels:
        if k.unknown:     # a generic kernel's `kernel[...]`: the type-oblivious proof's kernel
            if k.opaque is not None:    # none: the header says why (tests/examples/test_corpus_headers.py)
                verify(k.opaque)
            continue
        assert k.error is None, k.error.render()
        verify(k.mir)
        assert format_hir(k.hir).startswith(("func ", "kernel "))
        assert format_kernel(k.mir).startswith(f"kernel {k.mir.name}(")
