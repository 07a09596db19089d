"""Golden PTX of hand-built MIR kernels: barriers, shared arrays, atomics,
entries, fast-math div/sqrt and libdevice math, assembled by ptxas."""
import re

import pytest

from verikern.backends.ptx import assemble, compile_ptx, find_libdevice, find_ptxas
from verikern.mir import (
    BOOL, F32, I32, ArrayRef, Atomic, Barrier, BinOp, Branch, Compare, Const, Jump, Load,
    Return, ShapeOf, SourceLoc, Special, Store, UnaryOp,
)
from verikern.mir.builder import MirBuilder

L = SourceLoc("golden.py", 3, 5)
ARCHS = ("sm_75", "sm_80", "sm_90", "sm_100")
needs_libdevice = pytest.mark.skipif(find_libdevice() is None,
                                     reason="libdevice.10.bc not found (pip install nvidia-nvvm)")
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found (pip install 'verikern[cuda]')")


def guarded_kernel(name, arrays, body, shared=(), fast_math=False, scalars=()):
    """i = block_idx * block_dim + thread_idx; if i < shape(first array): body(b, i, t, refs)."""
    b = MirBuilder(name, L)
    refs = {a.name: b.array_param(a) for a in arrays}
    for s_name, s_type in scalars:
        refs[s_name] = b.scalar_param(s_name, s_type)
    for s in shared:
        refs[s.name] = b.shared_array(s)
    entry, then, done = b.new_block("entry"), b.new_block("then"), b.new_block("exit")
    b.set_block(entry)
    t, bi, bd, m, i, n = (b.new_value(I32) for _ in range(6))
    b.emit(Special(t, "thread_idx", L))
    b.emit(Special(bi, "block_idx", L))
    b.emit(Special(bd, "block_dim", L))
    b.emit(BinOp(m, "mul", bi, bd, L))
    b.emit(BinOp(i, "add", m, t, L))
    if shared:  # barriers must be reached by the whole block: no guard
        b.terminate(Jump(then, L))
    else:
        c = b.new_value(BOOL)
        b.emit(ShapeOf(n, arrays[0], 0, L))
        b.emit(Compare(c, "lt", i, n, L))
        b.terminate(Branch(c, then, done, L))
    b.set_block(then)
    body(b, i, t, refs)
    b.terminate(Jump(done, L))
    b.set_block(done)
    b.terminate(Return(L))
    return b.finish(fast_math=fast_math, uses_block_features=bool(shared))


def block_reverse():
    """s[t] = x[i]; sync; y[i] = s[255 - t]  (block_dim 256)."""
    def body(b, i, t, r):
        v, w, j = b.new_value(F32), b.new_value(F32), b.new_value(I32)
        b.emit(Load(v, r["x"], (i,), L))
        b.emit(Store(r["s"], (t,), v, L))
        b.emit(Barrier(L))
        b.emit(BinOp(j, "sub", Const(255, I32), t, L))
        b.emit(Load(w, r["s"], (j,), L))
        b.emit(Store(r["y"], (i,), w, L))
    return guarded_kernel("block_reverse", [ArrayRef("x", F32, 1), ArrayRef("y", F32, 1)], body,
                          shared=[ArrayRef("s", F32, 1, space="shared", shape=(256,))])


def atomics():
    """atomic add (f32 global, i32 shared), cas (i32 global), min (i32 global)."""
    def body(b, i, t, r):
        v, o1, o2, o3, o4 = (b.new_value(ty) for ty in (F32, F32, I32, I32, I32))
        b.emit(Load(v, r["x"], (i,), L))
        b.emit(Atomic(o1, "add", r["total"], (Const(0, I32),), v, L))
        b.emit(Atomic(o2, "add", r["hist"], (Const(3, I32),), Const(1, I32), L))
        b.emit(Atomic(o3, "cas", r["flags"], (Const(0, I32),), Const(1, I32), L, compare=Const(0, I32)))
        b.emit(Atomic(o4, "min", r["flags"], (Const(1, I32),), i, L))
        b.emit(Barrier(L))
    return guarded_kernel("atomics", [ArrayRef("x", F32, 1), ArrayRef("total", F32, 1),
                                      ArrayRef("flags", I32, 1)], body,
                          shared=[ArrayRef("hist", I32, 1, space="shared", shape=(8,))])


def div_sqrt(fast_math, op="sqrt"):
    """y[i] = op(x[i] / y[i])."""
    def body(b, i, t, r):
        a, c, q, s = (b.new_value(F32) for _ in range(4))
        b.emit(Load(a, r["x"], (i,), L))
        b.emit(Load(c, r["y"], (i,), L))
        b.emit(BinOp(q, "div", a, c, L))
        b.emit(UnaryOp(s, op, q, L))
        b.emit(Store(r["y"], (i,), s, L))
    return guarded_kernel(f"div_{op}", [ArrayRef("x", F32, 1), ArrayRef("y", F32, 1)], body,
                          fast_math=fast_math)


def test_kernel_is_a_visible_entry():
    ptx = compile_ptx(block_reverse(), "sm_80")
    assert re.search(r"^\.visible \.entry block_reverse\(", ptx, re.M)
    assert ptx.count(".entry") == 1


def test_barrier_and_shared_array():
    ptx = compile_ptx(block_reverse(), "sm_80")
    assert re.search(r"\b(bar\.sync|barrier\.sync)\s+0;", ptx)
    assert re.search(r"^\s*\.shared \.align \d+ \.b8 block_reverse__shared__s\[1024\];", ptx, re.M)


def test_atomics_become_atom_instructions():
    ptx = compile_ptx(atomics(), "sm_80")
    assert re.search(r"\batom(\.\w+)*\.global\.add\.f32\b", ptx)
    assert re.search(r"\batom(\.\w+)*\.shared\.add\.u32\b", ptx)
    assert re.search(r"\batom(\.\w+)*\.global\.cas\.b32\b", ptx)
    assert re.search(r"\batom(\.\w+)*\.global\.min\.s32\b", ptx)


def test_fast_math_gives_approximate_div_and_sqrt():
    fast = compile_ptx(div_sqrt(True), "sm_80")
    assert re.search(r"\bdiv\.approx(\.ftz)?\.f32\b", fast)
    assert re.search(r"\bsqrt\.approx(\.ftz)?\.f32\b", fast)
    assert not re.search(r"\b(div|sqrt)\.rn\.", fast)


def test_precise_math_keeps_rounded_div_and_sqrt():
    precise = compile_ptx(div_sqrt(False), "sm_80")
    assert re.search(r"\bdiv\.rn\.f32\b", precise)
    assert re.search(r"\bsqrt\.rn\.f32\b", precise)
    assert "approx" not in precise and ".ftz" not in precise


def test_fast_math_override_and_sqrt_precise():
    kernel = div_sqrt(False)
    assert "div.rn.f32" not in compile_ptx(kernel, "sm_80", fast_math=True)
    precise_under_fast = compile_ptx(div_sqrt(True, op="sqrt_precise"), "sm_80")
    assert re.search(r"\bsqrt\.rn(\.ftz)?\.f32\b", precise_under_fast)


@needs_libdevice
def test_libdevice_math_is_linked():
    ptx = compile_ptx(div_sqrt(False, op="sin"), "sm_80")
    assert ".extern" not in ptx            # nothing left to resolve at load time
    assert not re.search(r"call(\.uni)?\s+\(?\w*\)?,?\s*__nv_sin", ptx)
    assert "__nvvm_reflect" not in ptx


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("make", [block_reverse, atomics, lambda: div_sqrt(True),
                                  pytest.param(lambda: div_sqrt(False, op="exp"), marks=needs_libdevice)],
                         ids=["block_reverse", "atomics", "div_sqrt_fast", "div_exp"])
def test_golden_kernels_assemble(make, arch):
    kernel = make()
    res = assemble(compile_ptx(kernel, arch), arch)
    assert res.ok, res.log
    if kernel.shared:
        assert res.shared_bytes == sum(4 * s.shape[0] for s in kernel.shared)
        assert res.entries[kernel.name].barriers == 1
    assert res.spill_stores == 0 and res.stack_bytes == 0


def test_missing_libdevice_is_a_clear_error(monkeypatch):
    from verikern.backends.ptx import LibdeviceNotFoundError, compile_ptx_bundle, libdevice

    monkeypatch.setattr(libdevice, "_candidates", lambda: [])
    with pytest.raises(LibdeviceNotFoundError, match="pip install nvidia-nvvm"):
        compile_ptx_bundle([div_sqrt(False, op="log")], "sm_80")   # uncached path
    # kernels without libdevice math do not need it
    assert ".entry" in compile_ptx_bundle([div_sqrt(False)], "sm_80")[0]
