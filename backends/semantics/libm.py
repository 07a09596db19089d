"""float64 transcendentals computed by the C library's own functions, at native speed.

cpu:native calls the C library (`sin cos tan exp log pow atan2 erf erfc`, declared by
backends/llvm/ops.py through `em.libm`) and resolves those symbols in this
process through MCJIT.  numpy's ufuncs for the same functions may use SIMD
loops (AVX2/AVX512, SVML) whose results differ from the C library's by an
ulp on many inputs, and which loop runs depends on the machine.  The
simulator is the reference semantics, so it computes these functions here
instead: one small LLVM module, JIT-compiled lazily once per process with the
native backend's host target machine and pipeline, holds for each function a
loop

    void vk_libm_<name>_f64(const double* a, int64 sa, [const double* b, int64 sb,]
                            double* out, int64 n)

that sets `out[i] = name(a[i*sa], b[i*sb])` (strides in elements; 0 repeats a
scalar) by calling the external symbol `name`.

Invariants: `apply(name, *operands)` returns, element for element, exactly
the double the C library's `name` returns for the operands converted to
float64 (NaN payloads, infinities, signed zeros included), broadcast like a
numpy ufunc; the result is a freshly allocated C-contiguous float64 array, or
a numpy float64 scalar when every operand is a scalar.  The declarations
carry `nobuiltin`, so LLVM never replaces a call by other code (an intrinsic,
`x*x`, `exp2`, a vector library): every element is one call of the C
function.  errno and the floating-point status flags are affected exactly as
by those calls (the same as in cpu:native); nothing reads them.
"""
from __future__ import annotations

import ctypes
import threading
from typing import Any

import numpy as np

# function name -> number of float64 operands (the functions cpu:native calls
# through `em.libm`, backends/llvm/ops.py)
FUNCTIONS: dict[str, int] = {"sin": 1, "cos": 1, "tan": 1, "exp": 1, "log": 1, "pow": 2,
                             "atan2": 2, "erf": 1, "erfc": 1}

_F64 = np.dtype(np.float64)
_lock = threading.Lock()
_loops: dict[str, Any] | None = None   # name -> a ctypes function (see _compile)
# The MCJIT engine stays referenced for the life of the process (llvmlite
# must not free it while its code can still be called).
_engine = None


def _build_module():
    """The LLVM IR module with one strided loop per entry of FUNCTIONS."""
    from llvmlite import ir  # lazy: llvmlite, only to compile

    double, i64 = ir.DoubleType(), ir.IntType(64)
    ptr = double.as_pointer()
    module = ir.Module(name="verikern.simulator.libm")
    for name, nargs in FUNCTIONS.items():
        callee = ir.Function(module, ir.FunctionType(double, [double] * nargs), name)
        callee.attributes.add("nobuiltin")
        params = [t for _ in range(nargs) for t in (ptr, i64)] + [ptr, i64]
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), params),
                         f"vk_libm_{name}_f64")
        *inputs, out, n = fn.args
        entry, loop, done = (fn.append_basic_block(s) for s in ("entry", "loop", "done"))
        b = ir.IRBuilder(entry)
        zero = ir.Constant(i64, 0)
        b.cbranch(b.icmp_signed(">", n, zero), loop, done)
        b.position_at_end(loop)
        i = b.phi(i64, "i")
        i.add_incoming(zero, entry)
        operands = [b.load(b.gep(inputs[2 * k], [b.mul(i, inputs[2 * k + 1])]))
                    for k in range(nargs)]
        b.store(b.call(callee, operands), b.gep(out, [i]))
        nxt = b.add(i, ir.Constant(i64, 1))
        i.add_incoming(nxt, loop)
        b.cbranch(b.icmp_signed("<", nxt, n), loop, done)
        b.position_at_end(done)
        b.ret_void()
    return module


def _compile() -> dict[str, Any]:
    """JIT the loops (host CPU, the native backend's -O3 pipeline)."""
    global _engine
    import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

    from verikern.backends.native.jit import host_target_machine, optimise  # lazy: llvmlite, only to compile

    tm = host_target_machine()
    module = _build_module()
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    mod = llvm.parse_assembly(str(module))
    mod.verify()
    optimise(mod, tm)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    loops = {}
    for name, nargs in FUNCTIONS.items():
        address = engine.get_function_address(f"vk_libm_{name}_f64")
        if not address:
            raise RuntimeError(f"simulator libm: vk_libm_{name}_f64 was not compiled")
        proto = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p, ctypes.c_int64] * nargs),
                                 ctypes.c_void_p, ctypes.c_int64)
        loops[name] = proto(address)
    _engine = engine
    return loops


def _loop(name: str):
    global _loops
    loops = _loops
    if loops is None:
        with _lock:
            if _loops is None:
                _loops = _compile()
            loops = _loops
    return loops[name]


def _strided(x: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """(array, element stride) such that element i of the flattened (C-order)
    broadcast of `x` to `shape` is at data + i * stride."""
    if not x.flags.aligned:
        x = np.ascontiguousarray(x)
    if x.size == 1:
        return x, 0
    if x.ndim == 1 and x.shape == shape and x.strides[0] % _F64.itemsize == 0:
        return x, x.strides[0] // _F64.itemsize
    return np.ascontiguousarray(np.broadcast_to(x, shape)), 1


def apply(name: str, *operands):
    """The C library's `name` of the operands (converted to float64), element
    for element with numpy broadcasting; see the module invariants."""
    nargs = FUNCTIONS.get(name)
    if nargs is None:
        raise KeyError(f"simulator libm: no C library function {name!r}")
    if len(operands) != nargs:
        raise TypeError(f"simulator libm: {name} takes {nargs} operand(s), got {len(operands)}")
    arrays = [np.asarray(x, dtype=_F64) for x in operands]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    out = np.empty(shape, dtype=_F64)
    if out.size:
        args = []
        keep = []
        for a in arrays:
            a, stride = _strided(a, shape)
            keep.append(a)
            args += [a.ctypes.data, stride]
        _loop(name)(*args, out.ctypes.data, out.size)
    return out if out.ndim else out[()]
