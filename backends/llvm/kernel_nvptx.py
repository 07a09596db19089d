"""The NVPTX target: one PTX `.entry` per kernel, one GPU thread per MIR thread.

Invariant: the function `<kernel name>` takes the leading ABI parameters of
backends/llvm/abi.py followed by `i64* err` (8 x int64, zeroed by the host);
thread/block ids and block/grid dims come from the special registers
(llvm.nvvm.read.ptx.sreg.*); threads with linear id >= launch_size return at
once (partial last block); barriers are `llvm.nvvm.barrier0`; shared arrays
are `addrspace(3)` globals; a failed check writes the error status once
(first writer wins by cmpxchg on err[0]) and returns from the thread.
float32/float64 transcendentals call libdevice (`__nv_sin`, ... on doubles),
so the module must be linked with libdevice before PTX generation.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from verikern.mir.nodes import Kernel

from .abi import AbiTarget, bind_abi_args, I32, I64, LoweredKernel, kernel_params, storage_type
from .barriers import find_barriers
from .body import Emitter

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
SHARED_ADDRSPACE = 3
_SREG = {"thread_idx": "tid.x", "block_idx": "ctaid.x", "block_dim": "ntid.x",
         "grid_dim": "nctaid.x"}


class NvptxTarget(AbiTarget):
    """Target hooks for a PTX kernel entry."""

    def __init__(self, kernel: Kernel, module: ir.Module, func: ir.Function, params):
        self.kernel = kernel
        self.module = module
        self.func = func
        (self.err,) = bind_abi_args(self, func, params, ["err"])
        self.shared = {}
        for arr in kernel.shared:
            count = int(np.prod(arr.shape or (), dtype=np.int64)) * int(
                np.prod(arr.inner, dtype=np.int64))
            ty = ir.ArrayType(storage_type(arr.dtype), count)
            g = ir.GlobalVariable(module, ty, f"{kernel.name}__shared__{arr.name}",
                                  addrspace=SHARED_ADDRSPACE)
            g.linkage = "internal"
            g.initializer = ir.Constant(ty, ir.Undefined)
            g.align = 16
            self.shared[arr.name] = g
        self.sreg: dict[str, ir.Value] = {}

    def read_sreg(self, em, kind: str) -> ir.Value:
        if kind not in self.sreg:
            fn = em.intrinsic(f"llvm.nvvm.read.ptx.sreg.{_SREG[kind]}", I32, [])
            self.sreg[kind] = em.b.call(fn, [])
        return self.sreg[kind]

    def libm_name(self, name: str) -> str:
        return f"__nv_{name}"

    def special(self, em, ins):
        if ins.kind == "launch_dim":
            return self.launch_dims[ins.dim]
        if ins.kind in _SREG:
            return self.read_sreg(em, ins.kind)
        raise ValueError(f"{ins.loc}: unknown special {ins.kind!r}")

    def shape(self, em, arr, dim):
        if arr.space == "shared":
            return ir.Constant(I32, arr.shape[dim])
        return self.shapes[(arr.name, dim)]

    def array_base(self, em, arr):
        if arr.space == "shared":
            g = self.shared[arr.name]
            return em.b.gep(g, [ir.Constant(I32, 0), ir.Constant(I32, 0)], inbounds=True)
        return self.arrays[arr.name]

    def report_error(self, em, code, site, detail):
        b = em.b
        pair = b.cmpxchg(self.err, ir.Constant(I64, 0), ir.Constant(I64, code),
                         "monotonic", "monotonic")
        write = em.func.append_basic_block("err.write")
        leave = em.func.append_basic_block("err.leave")
        b.cbranch(b.extract_value(pair, 1), write, leave)
        b.position_at_end(write)
        words = [b.zext(site, I64), b.zext(self.read_sreg(em, "thread_idx"), I64),
                 b.zext(self.read_sreg(em, "block_idx"), I64)] + list(detail)
        for k, w in enumerate(words, start=1):
            b.store(w, b.gep(self.err, [ir.Constant(I32, k)]))
        b.branch(leave)
        b.position_at_end(leave)
        b.ret_void()

    def barrier(self, em, ins, barrier_id):
        em.b.call(em.intrinsic("llvm.nvvm.barrier0", ir.VoidType(), []), [])

    def ret(self, em, term):
        em.b.ret_void()


def build_nvptx(kernel: Kernel, fast_math: bool, module: ir.Module,
                unchecked: frozenset[tuple[str, int, int]] = frozenset()) -> LoweredKernel:
    module.triple = TRIPLE
    module.data_layout = DATA_LAYOUT
    params = kernel_params(kernel)
    fty = ir.FunctionType(ir.VoidType(), [p.type for p in params] + [ir.PointerType(I64)])
    func = ir.Function(module, fty, kernel.name)
    target = NvptxTarget(kernel, module, func, params)
    barriers = find_barriers(kernel)
    ids = {(label, idx): k for k, (label, idx, _) in enumerate(barriers)}
    em = Emitter(kernel, module, func, target, fast_math, None, ids, unchecked)
    entry = func.append_basic_block("entry")
    em.b.position_at_end(entry)
    for p in kernel.scalar_params:
        arg = target.scalars[p.name]
        em.values[p.value.id] = em.from_storage(arg, p.value.type)
    em.assume_shapes(list(target.shapes.values()) + list(target.launch_dims.values()))
    tid = target.read_sreg(em, "thread_idx")
    bid = target.read_sreg(em, "block_idx")
    bdim = target.read_sreg(em, "block_dim")
    target.read_sreg(em, "grid_dim")
    linear = em.b.add(em.b.mul(bid, bdim), tid)
    mir_entry = em.prepare_blocks()
    em.b.position_at_end(entry)
    gone = func.append_basic_block("outside_launch")
    # unsigned: b*B + t < grid*B <= 2**31 + 1024 never wraps as unsigned
    em.b.cbranch(em.b.icmp_unsigned(">=", linear, target.launch_size), gone, mir_entry)
    em.b.position_at_end(gone)
    em.b.ret_void()
    em.lower_body()
    annotations = module.add_named_metadata("nvvm.annotations")
    annotations.add(module.add_metadata([func, ir.MetaDataString(module, "kernel"),
                                         ir.Constant(I32, 1)]))
    return LoweredKernel(module, "nvptx", kernel.name, func.name, None, em.sites, params,
                         [ins.loc for _, _, ins in barriers], 0, {}, 0)
