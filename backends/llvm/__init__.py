"""MIR -> LLVM IR, one lowering shared by the CPU and NVPTX targets.

`lower(kernel, target="cpu"|"nvptx", fast_math=None) -> str` returns LLVM IR
text; `lower_module(...)` the llvmlite.ir.Module; `build(...)` the
LoweredKernel (module + error-site table + ABI), which the native backend
and the CUDA backend use to decode error statuses.

Kernel ABI (details in backends/llvm/abi.py): for each kernel parameter in
source order, an array is `T*` (noalias) followed by one `i32` length per
logical dimension, a scalar is passed by value (bool as i8); then
`i32 launch_dim_0..launch_dim_{n-1}`, `i32 launch_size`.
nvptx: `void @<kernel>(<leading>, i64* err)`, a PTX `.entry`
(nvvm.annotations), ids and block/grid dims from sreg intrinsics, shared
arrays in addrspace(3), `llvm.nvvm.barrier0`, libdevice `__nv_*` math on
doubles (link libdevice).
cpu: `i32 @vk_body_<kernel>(<leading>, i32 block_dim, i32 grid_dim,
i32 block_begin, i32 block_end, i8* shared, i32* thread_state, i64* spill,
i64* err)` runs blocks [block_begin, block_end); `i32 @vk_entry_<kernel>(i8*
args, i32 block_begin, i32 block_end, i8* shared, i32* thread_state,
i64* spill, i64* err)` reads the leading parameters + block_dim + grid_dim
from a C struct (`kernel_cpu.args_struct_type`); `i32 @vk_worker_<kernel>(i8*
args, i64* next_block, i32 chunk, i8* shared, i32* thread_state, i64* spill,
i64* err)` runs the chunks of blocks it claims from a counter that the host
threads of one launch share.
Error status: 8 x int64 `[code, site, thread, block, d0..d3]` (abi.ERR_*).
"""
from __future__ import annotations

from llvmlite import ir

from verikern.mir.nodes import Kernel

from .abi import LoweredKernel
from .ops import LoweringError

TARGETS = ("cpu", "nvptx")


def build(kernel: Kernel, target: str = "cpu", fast_math: bool | None = None,
          triple: str | None = None, fuel: bool = False,
          unchecked: frozenset[tuple[str, int, int]] = frozenset()) -> LoweredKernel:
    """Lower `kernel` for `target`; fast_math None means kernel.fast_math;
    `fuel` (cpu only): count loop-header executions down a global and stop
    at zero (`kernel_cpu.build_cpu`); `unchecked`: the index checks left out,
    as (block label, instruction index, dimension) of MIR accesses -- only
    ever those whose bounds obligation a solver proved (body.Emitter)."""
    from .kernel_cpu import build_cpu  # lazy: llvmlite, only to compile
    from .kernel_nvptx import build_nvptx  # lazy: llvmlite, only to compile

    if target not in TARGETS:
        raise ValueError(f"unknown LLVM target {target!r}; expected one of {TARGETS}")
    fm = kernel.fast_math if fast_math is None else bool(fast_math)
    module = ir.Module(name=f"verikern.{kernel.name}")
    if target == "nvptx":
        return build_nvptx(kernel, fm, module, unchecked)
    if triple is None:
        import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

        triple = llvm.get_process_triple()
    module.triple = triple
    return build_cpu(kernel, fm, module, fuel=fuel, unchecked=unchecked)


def lower_module(kernel: Kernel, target: str = "cpu",
                 fast_math: bool | None = None) -> ir.Module:
    """The llvmlite.ir.Module of `kernel` for `target`."""
    return build(kernel, target, fast_math).module


def lower(kernel: Kernel, target: str = "cpu", fast_math: bool | None = None) -> str:
    """LLVM IR text of `kernel` for `target` ("cpu" or "nvptx")."""
    return str(lower_module(kernel, target, fast_math))


__all__ = ["build", "lower", "lower_module", "LoweredKernel", "LoweringError", "TARGETS"]
