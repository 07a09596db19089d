"""LLVM IR -> host machine code with llvmlite's MCJIT, one engine per kernel.

Invariant: `compile_kernel(k)` returns the same CompiledKernel for the same
MIR kernel object (and fast_math) for as long as the kernel object lives;
the code is optimised with the -O3 new-pass-manager pipeline for the host CPU
(its name and features), and the compile time is recorded.
"""
from __future__ import annotations

import ctypes
import threading
import time
import weakref
from typing import Any, Callable
from dataclasses import dataclass

import llvmlite.binding as llvm
from llvmlite import ir

from verikern.backends.llvm import LoweringError, build
from verikern.backends.llvm.abi import DOUBLE, FLOAT, HALF, LoweredKernel
from verikern.mir.facts import uses_float16, writes_memory
from verikern.mir.nodes import Kernel

from .vectorize import vectorize_thread_loops

_lock = threading.Lock()
_initialised = False
_tm = None
_cache: dict[tuple[Any, ...], tuple[Callable[[], Any], "CompiledKernel"]] = {}
# MCJIT engines are never disposed: llvmlite crashes when one is freed during
# garbage collection, so every engine stays alive for the life of the process.
_engines: list = []

ENTRY_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32,
                              ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_void_p)
#: vk_worker_<k>(args, next_block, chunk, shared, thread_state, spill, err)
WORKER_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_void_p, ctypes.c_void_p)


def host_target_machine():
    """The host's target machine (CPU name and features), opt level 3."""
    global _initialised, _tm
    with _lock:
        if not _initialised:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            _initialised = True
        if _tm is None:
            target = llvm.Target.from_triple(llvm.get_process_triple())
            _tm = target.create_target_machine(
                cpu=llvm.get_host_cpu_name(),
                features=llvm.get_host_cpu_features().flatten(),
                opt=3, codemodel="jitdefault")
        return _tm


def _ctype(t: ir.Type):
    if isinstance(t, ir.PointerType):
        return ctypes.c_void_p
    if isinstance(t, ir.IntType):
        return {8: ctypes.c_uint8, 16: ctypes.c_uint16, 32: ctypes.c_uint32,
                64: ctypes.c_uint64}[t.width]
    if t == HALF:
        return ctypes.c_uint16
    if t == FLOAT:
        return ctypes.c_float
    if t == DOUBLE:
        return ctypes.c_double
    raise TypeError(f"no C type for LLVM type {t}")


def _check_host_supports(kernel: Kernel) -> None:
    """float16 conversions are inline only with F16C; without it LLVM would
    call runtime helpers this process may not provide."""
    if uses_float16(kernel) and not llvm.get_host_cpu_features().get("f16c", False):
        raise LoweringError(
            f"{kernel.loc}: kernel {kernel.name} uses float16, which cpu:native supports "
            f"only on CPUs with F16C; run it on device='cpu' (the simulator)")


@dataclass
class CompiledKernel:
    """Machine code of one kernel plus what the launcher needs to call it."""

    lowered: LoweredKernel
    engine: object
    entry: Callable[..., int]
    args_type: type
    compile_seconds: float
    optimized_ir: str
    #: the address of the fuel counter (an int64) in code built with fuel, else 0
    fuel_address: int = 0
    #: the arrays the kernel writes (computed once: a launch refuses a read-only one)
    written: frozenset[str] = frozenset()
    #: the entry a host thread runs to take its share of a parallel launch
    #: (claims chunks of blocks from a shared counter: kernel_cpu._worker_wrapper)
    worker: Callable[..., int] | None = None


#: serialises the optimisations that change LLVM's process-wide options
_option_lock = threading.Lock()


def optimise(module: llvm.ModuleRef, tm, vectorize: bool = False) -> None:
    """-O3; the loop vectorizer only with `vectorize` (the kernels
    vectorize.vectorize_thread_loops picks: elsewhere it emits masked
    accesses or gathers, measured up to 5x slower than the scalar loop,
    benchmarks/native_vs_warp.py); SLP vectorization stays on. With
    `vectorize`, InstCombine does not sink instructions into conditional
    blocks: a load sunk into a branch becomes a masked gather in the vector
    loop (ray-triangle's origin, loaded before its `if det`: 224 -> 469 M
    rays per CPU second with sinking off, AMD Zen 4). Options only choose
    optimisations; the code computes the same either way."""
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = vectorize
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    if not vectorize:
        pb.getModulePassManager().run(module, pb)
        return
    with _option_lock:
        llvm.set_option("", "-instcombine-code-sinking=0")
        try:
            pb.getModulePassManager().run(module, pb)
        finally:
            llvm.set_option("", "-instcombine-code-sinking=1")


def compile_kernel(kernel: Kernel, fast_math: bool | None = None,
                   fuel: bool = False,
                   unchecked: frozenset[tuple[str, int, int]] = frozenset()) -> CompiledKernel:
    """The compiled kernel (cached per kernel object, fast_math, fuel and
    unchecked; `fuel`: loop headers count down the counter at
    `fuel_address`, see verikern.backends.llvm.kernel_cpu.build_cpu;
    `unchecked`: index checks left out -- only those whose bounds
    obligations a solver proved, verikern.app.native_proved). The thread
    loop is vectorised where `vectorize.vectorize_thread_loops` says so."""
    fm = kernel.fast_math if fast_math is None else bool(fast_math)
    key: tuple[Any, ...] = (id(kernel), fm, unchecked) if not fuel \
        else (id(kernel), fm, unchecked, "fuel")
    with _lock:
        hit = _cache.get(key)
        if hit is not None and hit[0]() is kernel:
            return hit[1]
    tm = host_target_machine()
    _check_host_supports(kernel)
    start = time.perf_counter()
    lowered = build(kernel, "cpu", fm, triple=tm.triple, fuel=fuel, unchecked=unchecked)
    lowered.module.data_layout = str(tm.target_data)
    try:
        mod = llvm.parse_assembly(str(lowered.module))
        mod.verify()
    except RuntimeError as exc:
        raise LoweringError(
            f"{kernel.loc}: internal error: the LLVM lowering of kernel {kernel.name} "
            f"produced invalid IR ({str(exc).strip()[:500]}); run it on device='cpu' "
            f"(the simulator) and report this bug") from None
    optimise(mod, tm, vectorize=not fuel and vectorize_thread_loops(
        kernel, llvm.get_host_cpu_features()))
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    _engines.append(engine)
    address = engine.get_function_address(lowered.entry_name)
    if not address:
        raise RuntimeError(f"native backend: {lowered.entry_name} was not compiled")
    fields = [(f"f{k}", _ctype(p.type)) for k, p in enumerate(lowered.params)]
    fields += [("block_dim", ctypes.c_int32), ("grid_dim", ctypes.c_int32)]
    args_type = type(f"Args_{kernel.name}", (ctypes.Structure,), {"_fields_": fields})
    fuel_address = engine.get_global_value_address(lowered.fuel_symbol) \
        if lowered.fuel_symbol else 0
    written = frozenset(ins.array.name for _, ins in kernel.instructions()
                        if writes_memory(ins))
    worker = engine.get_function_address(lowered.worker_name) if lowered.worker_name else 0
    compiled = CompiledKernel(lowered, engine, ENTRY_TYPE(address), args_type,
                              time.perf_counter() - start, str(mod), fuel_address, written,
                              WORKER_TYPE(worker) if worker else None)
    with _lock:
        def forget(_ref, key=key) -> None:
            _cache.pop(key, None)

        ref: Callable[[], Kernel | None]
        try:
            ref = weakref.ref(kernel, forget)
        except TypeError:   # not weak-referenceable: keep it alive with the entry
            def ref(k=kernel):
                return k
        _cache[key] = (ref, compiled)
    return compiled
