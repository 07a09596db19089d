"""The CPU target: one LLVM function runs a range of blocks, each block's
threads as loops (ABI in backends/llvm/abi.py).

Invariant: for every block b in [block_begin, block_end) the function runs
every existing thread (linear id < launch_size) exactly as the MIR
execution model prescribes, and returns 0, or returns the ERR_* code after
writing the error status of the first failure it met. Without barriers, each
thread runs to completion in turn (thread loop inside block loop). With
barriers, the block runs in phases: every live thread resumes where it
stopped (`thread_state[t]`: 0 = start, k + 1 = after barrier k, -1 =
returned) and runs to its next barrier or return; values live across a
barrier are saved per thread in `spill` (slot * block_dim + t, 8 bytes each);
after a phase all threads of the block must be in the same state (all
returned, or all waiting at one barrier: a returned thread counts as
missing, as in docs/LANGUAGE.md section 4 and the simulator), otherwise the
function reports ERR_DIVERGENCE and leaves the block's states in
`thread_state` for the host to explain. Shared memory is refilled with the
poison pattern (NaN for floats, true for bools, 0x5A bytes for ints) at the
start of every block.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from verikern.mir.nodes import Kernel

from .abi import (
    AbiTarget,
    bind_abi_args,
    ERR_DIVERGENCE, FUEL_SYMBOL, I8, I32, I64, LoweredKernel, kernel_params, storage_type,
    value_type,
)
from .barriers import find_barriers, live_across_barriers
from .body import Emitter
from .guard import ThreadGuard, thread_guard

DONE = -1


def shared_layout(kernel: Kernel) -> tuple[dict[str, tuple[int, int]], int]:
    """Byte offset and size of each shared array in one block's scratch."""
    layout, offset = {}, 0
    for arr in kernel.shared:
        count = int(np.prod(arr.shape or (), dtype=np.int64)) * int(
            np.prod(arr.inner, dtype=np.int64))
        size = count * arr.dtype.np_dtype.itemsize
        offset = (offset + 15) // 16 * 16
        layout[arr.name] = (offset, size)
        offset += size
    return layout, (offset + 15) // 16 * 16


def shared_poison(kernel: Kernel) -> bytes:
    """The bytes every block's shared memory starts with."""
    layout, total = shared_layout(kernel)
    image = bytearray(b"\x5a" * total)
    for arr in kernel.shared:
        off, size = layout[arr.name]
        count = size // arr.dtype.np_dtype.itemsize
        if arr.dtype.is_float:
            image[off:off + size] = np.full(count, np.nan, arr.dtype.np_dtype).tobytes()
        elif arr.dtype.is_bool:
            image[off:off + size] = np.ones(count, np.bool_).tobytes()
    return bytes(image)


class CpuTarget(AbiTarget):
    """Target hooks for the CPU body function."""

    def __init__(self, kernel: Kernel, func: ir.Function, params, layout):
        self.kernel = kernel
        self.func = func
        self.layout = layout
        rest = bind_abi_args(self, func, params, [
            "block_dim", "grid_dim", "block_begin", "block_end", "shared",
            "thread_state", "spill", "err"])
        (self.block_dim, self.grid_dim, self.block_begin, self.block_end,
         self.shared, self.state, self.spill, self.err) = rest
        self.thread = None
        self.block = None
        self.thread_latch = None
        self.dispatch = None
        self.live: list = []
        self.slots: dict[int, int] = {}

    # -- hooks used by Emitter
    def libm_name(self, name: str) -> str:
        return name

    def special(self, em, ins):
        kind = ins.kind
        if kind == "thread_idx":
            return self.thread
        if kind == "block_idx":
            return self.block
        if kind == "block_dim":
            return self.block_dim
        if kind == "grid_dim":
            return self.grid_dim
        if kind == "launch_dim":
            return self.launch_dims[ins.dim]
        raise ValueError(f"{ins.loc}: unknown special {kind!r}")

    def shape(self, em, arr, dim):
        if arr.space == "shared":
            return ir.Constant(I32, arr.shape[dim])
        return self.shapes[(arr.name, dim)]

    def array_base(self, em, arr):
        elem = ir.PointerType(storage_type(arr.dtype))
        if arr.space == "shared":
            off = self.layout[arr.name][0]
            raw = em.b.gep(self.shared, [ir.Constant(I64, off)], inbounds=True)
            return em.b.bitcast(raw, elem)
        return self.arrays[arr.name]

    def report_error(self, em, code, site, detail):
        b = em.b
        words = [ir.Constant(I64, code), b.zext(site, I64), b.zext(self.thread, I64),
                 b.zext(self.block, I64)] + list(detail)
        for k, w in enumerate(words):
            b.store(w, b.gep(self.err, [ir.Constant(I32, k)]))
        b.ret(ir.Constant(I32, code))

    def _spill_ptr(self, em, slot: int, ty):
        b = em.b
        stride = b.zext(self.block_dim, I64)
        idx = b.add(b.mul(ir.Constant(I64, slot), stride), b.zext(self.thread, I64))
        return b.bitcast(b.gep(self.spill, [idx]), ir.PointerType(ty))

    def barrier(self, em, ins, barrier_id):
        b = em.b
        for v in self.live[barrier_id]:
            ty = value_type(v.type)
            b.store(b.load(em.homes[v.id]), self._spill_ptr(em, self.slots[v.id], ty))
        b.store(ir.Constant(I32, barrier_id + 1), b.gep(self.state, [self.thread]))
        b.branch(self.thread_latch)
        resume = self.func.append_basic_block(f"resume.{barrier_id}")
        self.dispatch.add_case(ir.Constant(I32, barrier_id + 1), resume)
        b.position_at_end(resume)
        for v in self.live[barrier_id]:
            ty = value_type(v.type)
            b.store(b.load(self._spill_ptr(em, self.slots[v.id], ty)), em.homes[v.id])

    def ret(self, em, term):
        if self.dispatch is not None:
            em.b.store(ir.Constant(I32, DONE), em.b.gep(self.state, [self.thread]))
        em.b.branch(self.thread_latch)


def _counted_loop(b: ir.IRBuilder, func, name: str, start, stop):
    """Open `for i in range(start, stop)`; returns (i, body, latch, exit)."""
    pre = b.block
    head = func.append_basic_block(f"{name}.head")
    body = func.append_basic_block(f"{name}.body")
    latch = func.append_basic_block(f"{name}.latch")
    done = func.append_basic_block(f"{name}.exit")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(start.type, name=name)
    i.add_incoming(start, pre)
    b.cbranch(b.icmp_signed("<", i, stop), body, done)
    b.position_at_end(latch)
    i.add_incoming(b.add(i, ir.Constant(start.type, 1), flags=["nsw"]), latch)
    b.branch(head)
    b.position_at_end(body)
    return i, body, latch, done


def build_cpu(kernel: Kernel, fast_math: bool, module: ir.Module,
              fuel: bool = False,
              unchecked: frozenset[tuple[str, int, int]] = frozenset()) -> LoweredKernel:
    """The CPU body and entry of `kernel`. With `fuel`, every execution of a
    loop header counts down the i64 global FUEL_SYMBOL (set by the caller
    before a run) and stops the launch with ERR_FUEL below zero: a
    deterministic bound on a run's work, for replay."""
    params = kernel_params(kernel)
    i8p, i32p, i64p = ir.PointerType(I8), ir.PointerType(I32), ir.PointerType(I64)
    extra = [I32, I32, I32, I32, i8p, i32p, i64p, i64p]
    fty = ir.FunctionType(I32, [p.type for p in params] + extra)
    func = ir.Function(module, fty, f"vk_body_{kernel.name}")
    func.linkage = "internal"
    func.attributes.add("noinline")
    layout, shared_bytes = shared_layout(kernel)
    target = CpuTarget(kernel, func, params, layout)
    barriers = find_barriers(kernel)
    homes: dict[int, ir.Value] = {}
    entry = func.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    if barriers:
        target.live = live_across_barriers(kernel)
        for live in target.live:
            for v in live:
                if v.id not in target.slots:
                    target.slots[v.id] = len(target.slots)
                    homes[v.id] = b.alloca(value_type(v.type), name=f"home{v.id}")
    ids = {(label, idx): k for k, (label, idx, _) in enumerate(barriers)}
    em = Emitter(kernel, module, func, target, fast_math, homes, ids, unchecked)
    em.b = b
    if fuel:
        em.fuel = ir.GlobalVariable(module, I64, FUEL_SYMBOL)
        em.fuel.initializer = ir.Constant(I64, 0)
    em.assume_shapes(list(target.shapes.values()) + list(target.launch_dims.values()))
    em.assume(b.icmp_signed(">", target.block_dim, ir.Constant(I32, 0)))
    for p in kernel.scalar_params:
        arg = target.scalars[p.name]
        em.values[p.value.id] = em.from_storage(arg, p.value.type) if p.value.type.is_bool \
            else arg
    mir_entry = em.prepare_blocks()
    b.position_at_end(entry)

    blk, _, block_latch, exit_block = _counted_loop(b, func, "block", target.block_begin,
                                                   target.block_end)
    target.block = blk
    first = b.mul(blk, target.block_dim)
    count = b.select(b.icmp_signed("<", b.sub(target.launch_size, first), target.block_dim),
                     b.sub(target.launch_size, first), target.block_dim)
    if shared_bytes:
        image = ir.Constant(ir.ArrayType(I8, shared_bytes), bytearray(shared_poison(kernel)))
        poison = ir.GlobalVariable(module, image.type, f"vk_shared_poison_{kernel.name}")
        poison.global_constant, poison.linkage, poison.initializer = True, "private", image
        memcpy = em.intrinsic("llvm.memcpy.p0i8.p0i8.i64", ir.VoidType(),
                              [i8p, i8p, I64, ir.IntType(1)])
        b.call(memcpy, [target.shared, b.bitcast(poison, i8p), ir.Constant(I64, shared_bytes),
                        ir.Constant(ir.IntType(1), 0)])
    guard = None if barriers or fuel else thread_guard(kernel)
    if guard is not None:
        count = _guarded_count(em, target, guard, first, count)
        em.always_taken.add(guard.label)
    if barriers:
        memset = em.intrinsic("llvm.memset.p0i8.i64", ir.VoidType(),
                              [i8p, I8, I64, ir.IntType(1)])
        b.call(memset, [b.bitcast(target.state, i8p), ir.Constant(I8, 0),
                        b.mul(b.zext(count, I64), ir.Constant(I64, 4)),
                        ir.Constant(ir.IntType(1), 0)])
        phase = func.append_basic_block("phase")
        b.branch(phase)
        b.position_at_end(phase)
    t, _, thread_latch, thread_exit = _counted_loop(b, func, "thread", ir.Constant(I32, 0),
                                                    count)
    target.thread, target.thread_latch = t, thread_latch
    if barriers:
        state = b.load(b.gep(target.state, [t]))
        dispatch = b.switch(state, thread_latch)
        dispatch.add_case(ir.Constant(I32, 0), mir_entry)
        target.dispatch = dispatch
    else:
        b.branch(mir_entry)
    em.lower_body()

    b = em.b
    b.position_at_end(thread_exit)
    if barriers:
        _agreement(em, target, count, phase, block_latch)
    else:
        b.branch(block_latch)
    b.position_at_end(exit_block)
    b.ret(ir.Constant(I32, 0))
    _entry_wrapper(module, kernel, func, params)
    worker = _worker_wrapper(module, kernel, func, params)
    return LoweredKernel(module, "cpu", kernel.name, func.name, f"vk_entry_{kernel.name}",
                         em.sites, params, [ins.loc for _, _, ins in barriers],
                         len(target.slots), layout, shared_bytes,
                         FUEL_SYMBOL if fuel else None, worker)


def _guarded_count(em, target: CpuTarget, guard: ThreadGuard, first, count):
    """The threads of this block that pass the guard: min(count, b - first)
    over the guard's bounds b, at least 0 (in i64: b - first cannot wrap)."""
    b = em.b
    limit = b.sext(count, I64)
    for kind, what, dim in guard.bounds:
        if kind == "const":
            bound = ir.Constant(I32, int(what))
        elif kind == "param":
            bound = target.scalars[str(what)]
        else:
            bound = target.shapes[(str(what), dim)]
        room = b.sub(b.sext(bound, I64), b.sext(first, I64))
        limit = b.select(b.icmp_signed("<", room, limit), room, limit)
    limit = b.select(b.icmp_signed("<", limit, ir.Constant(I64, 0)), ir.Constant(I64, 0), limit)
    return b.trunc(limit, I32)


def _agreement(em, target: CpuTarget, count, phase, block_latch) -> None:
    """After a phase every thread of the block must be in the same state:
    all returned (next block) or all waiting at one barrier (next phase).
    Anything else is barrier divergence (a returned thread counts as missing,
    docs/LANGUAGE.md section 4); the host reads `thread_state` for the details."""
    b, func = em.b, em.func
    pre = b.block
    head = func.append_basic_block("agree.head")
    body = func.append_basic_block("agree.body")
    nxt = func.append_basic_block("agree.next")
    diverged = func.append_basic_block("agree.diverged")
    done = func.append_basic_block("agree.done")
    first = b.load(b.gep(target.state, [ir.Constant(I32, 0)]))
    b.branch(head)
    b.position_at_end(head)
    j = b.phi(I32, "j")
    j.add_incoming(ir.Constant(I32, 1), pre)
    b.cbranch(b.icmp_signed("<", j, count), body, done)
    b.position_at_end(body)
    s = b.load(b.gep(target.state, [j]))
    b.cbranch(b.icmp_signed("!=", s, first), diverged, nxt)
    b.position_at_end(nxt)
    j.add_incoming(b.add(j, ir.Constant(I32, 1)), nxt)
    b.branch(head)
    b.position_at_end(diverged)
    words = [ir.Constant(I64, ERR_DIVERGENCE), ir.Constant(I64, 0), b.zext(j, I64),
             b.zext(target.block, I64), b.zext(count, I64)]
    for k, w in enumerate(words):
        b.store(w, b.gep(target.err, [ir.Constant(I32, k)]))
    b.ret(ir.Constant(I32, ERR_DIVERGENCE))
    b.position_at_end(done)
    b.cbranch(b.icmp_signed("==", first, ir.Constant(I32, DONE)), block_latch, phase)


def args_struct_type(params) -> ir.LiteralStructType:
    """The C struct `vk_entry_*` reads: leading ABI params, block_dim, grid_dim."""
    return ir.LiteralStructType([p.type for p in params] + [I32, I32])


def _struct_fields(b: ir.IRBuilder, raw, params) -> list:
    """The leading ABI values plus block_dim and grid_dim, read from the
    args struct at `raw`."""
    st = args_struct_type(params)
    p = b.bitcast(raw, ir.PointerType(st))
    return [b.load(b.gep(p, [ir.Constant(I32, 0), ir.Constant(I32, k)]))
            for k in range(len(st.elements))]


def _entry_wrapper(module, kernel, body, params) -> None:
    i8p, i32p, i64p = ir.PointerType(I8), ir.PointerType(I32), ir.PointerType(I64)
    fty = ir.FunctionType(I32, [i8p, I32, I32, i8p, i32p, i64p, i64p])
    fn = ir.Function(module, fty, f"vk_entry_{kernel.name}")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    fields = _struct_fields(b, fn.args[0], params)
    begin, end, shared, state, spill, err = fn.args[1:]
    r = b.call(body, fields + [begin, end, shared, state, spill, err])
    b.ret(r)


def _worker_wrapper(module, kernel, body, params) -> str:
    """`i32 @vk_worker_<kernel>(i8* args, i64* next_block, i32 chunk, i8*
    shared, i32* thread_state, i64* spill, i64* err)`: one host thread's
    share of a launch run by several. It claims `chunk` blocks at a time
    with an atomic fetch-add on the counter all workers share, runs them
    (the body, as vk_entry does), and returns 0 once the counter has passed
    grid_dim; at the first failure it stops and returns the status, after
    moving the counter to grid_dim so that the other workers claim no more.

    Invariant: claims rise, so every block below a failing block was claimed
    before it and is run to its end by its claimer, or fails itself; the
    lowest failing block over all workers' statuses is the launch's first
    failure whatever the split (blocks left unclaimed all lie above it)."""
    i8p, i32p, i64p = ir.PointerType(I8), ir.PointerType(I32), ir.PointerType(I64)
    fty = ir.FunctionType(I32, [i8p, i64p, I32, i8p, i32p, i64p, i64p])
    name = f"vk_worker_{kernel.name}"
    fn = ir.Function(module, fty, name)
    raw, counter, chunk, shared, state, spill, err = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    fields = _struct_fields(b, raw, params)
    grid = b.sext(fields[-1], I64)
    claim = fn.append_basic_block("claim")
    run = fn.append_basic_block("run")
    failed = fn.append_basic_block("failed")
    done = fn.append_basic_block("done")
    b.branch(claim)
    b.position_at_end(claim)
    step = b.sext(chunk, I64)
    first = b.atomic_rmw("add", counter, step, "monotonic")
    b.cbranch(b.icmp_signed(">=", first, grid), done, run)
    b.position_at_end(run)
    # first < grid < 2**31 and chunk < 2**31: the sum cannot wrap in i64
    last = b.add(first, step)
    last = b.select(b.icmp_signed("<", last, grid), last, grid)
    r = b.call(body, fields + [b.trunc(first, I32), b.trunc(last, I32), shared, state, spill,
                               err])
    b.cbranch(b.icmp_signed("==", r, ir.Constant(I32, 0)), claim, failed)
    b.position_at_end(failed)
    b.store_atomic(grid, counter, "monotonic", 8)
    b.ret(r)
    b.position_at_end(done)
    b.ret(ir.Constant(I32, 0))
    return name
