"""The "cpu:native" device: MIR -> LLVM -> host machine code, blocks spread
over the host's cores.

Invariant: `run(kernel, launch, arrays, scalars)` leaves `arrays` exactly as
the simulator (device "cpu") would for a kernel without races (bitwise for
ints; identical floats with fast_math off), or raises the same
KernelRuntimeError subclass at the same source location: the generated code
checks bounds, zero divisors, asserts and barrier agreement itself and
reports the first failure (lowest block) through an error status buffer.
`verikern.runtime.launch` performs every launch check before calling `run`.
"""
from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from verikern.backends.llvm.abi import (
    DIVISION_OVERFLOW_NOTE, ERR_ASSERT, ERR_BOUNDS, ERR_DIV_ZERO, ERR_DIVERGENCE, ERR_FUEL,
    ERR_WORDS,
)
from verikern.errors import (
    BarrierDivergenceError, LaunchError, DivisionByZeroError, DivisionOverflowError,
    KernelAssertionError,
    KernelRuntimeError, OutOfBoundsError, SimulationBudgetExceeded,
)
from verikern.backends.llvm.barriers import find_barriers
from verikern.mir.cfg import reverse_postorder
from verikern.mir.nodes import Kernel

from .jit import CompiledKernel, compile_kernel

__all__ = ["run", "compile_kernel", "CompiledKernel", "workers"]

# below this many threads a launch runs on the calling thread
PARALLEL_MIN_THREADS = 1 << 14
#: a worker of a parallel launch claims about this many threads' blocks at a
#: time (fewer when the launch is small, so that every worker gets a share)
CLAIM_THREADS = 1 << 14
#: one pool of helper threads per helper count (the count is read at every launch)
_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


#: environment variable: how many host threads cpu:native uses (default: every core)
THREADS_ENV = "VERIKERN_NATIVE_THREADS"
#: the host's core count, read once (os.cpu_count() took ~25 us a launch here)
_HOST_CORES = max(1, os.cpu_count() or 1)


def workers() -> int:
    """How many host threads run blocks in parallel: $VERIKERN_NATIVE_THREADS
    (a positive integer, read at every launch), else the host's core count.
    With 1, every launch runs on the calling thread. The count only spreads
    blocks over threads; results never depend on it (a failure reported is
    the lowest block's whatever the split)."""
    text = os.environ.get(THREADS_ENV, "").strip()
    if text:
        if not text.isdigit() or int(text) < 1:
            raise LaunchError(f"{THREADS_ENV}={text!r}: give a positive whole number of host "
                              f"threads for cpu:native, or unset it to use every core")
        return int(text)
    return _HOST_CORES


def _executor(count: int) -> ThreadPoolExecutor:
    """The pool of `count` helper threads (the calling thread is the other worker)."""
    with _pools_lock:
        pool = _pools.get(count)
        if pool is None:
            pool = _pools[count] = ThreadPoolExecutor(max_workers=count,
                                                      thread_name_prefix="vk-native")
        return pool


def _bits(value, t) -> int | float:
    """A scalar argument as the C struct field stores it."""
    v = t.np_dtype.type(value)
    if t.is_float and t.bits in (32, 64):
        return float(v)
    if t.is_bool:
        return int(bool(v))
    return int(np.asarray(v).view(f"u{t.np_dtype.itemsize}")[()])


def _pack_args(ck: CompiledKernel, kernel: Kernel, launch, arrays, scalars):
    values = []
    for slot in ck.lowered.params:
        if slot.kind == "array":
            values.append(arrays[slot.name].ctypes.data)
        elif slot.kind == "shape":
            values.append(int(arrays[slot.name].shape[slot.dim]))
        elif slot.kind == "scalar":
            values.append(_bits(scalars[slot.name], slot.scalar_type))
        elif slot.kind == "launch_dim":
            values.append(int(launch.dims[slot.dim]))
        else:
            values.append(int(launch.size))
    values += [int(launch.block_dim), int(launch.grid_dim)]
    return ck.args_type(*values)


class _Scratch:
    """Per-call-site buffers: shared memory, thread states, spills, status."""

    def __init__(self, ck: CompiledKernel, block_dim: int):
        lk = ck.lowered
        self.shared = np.zeros(max(lk.shared_bytes, 16), np.uint8)
        self.state = np.zeros(block_dim, np.int32)
        self.spill = np.zeros(max(lk.spill_slots, 1) * block_dim, np.int64)
        self.err = np.zeros(ERR_WORDS, np.int64)


def _run_range(ck: CompiledKernel, args, begin: int, end: int, block_dim: int):
    s = _Scratch(ck, block_dim)
    code = ck.entry(ctypes.addressof(args), begin, end, s.shared.ctypes.data,
                    s.state.ctypes.data, s.spill.ctypes.data, s.err.ctypes.data)
    return (int(code), s.err.copy(), s.state.copy()) if code else None


def _run_worker(ck: CompiledKernel, args, counter: int, chunk: int, block_dim: int):
    """One worker's share of a parallel launch: chunks of `chunk` blocks
    claimed from the int64 at address `counter` until none is left (its
    own scratch; returns its first failure as _run_range does)."""
    assert ck.worker is not None
    s = _Scratch(ck, block_dim)
    code = ck.worker(ctypes.addressof(args), counter, chunk, s.shared.ctypes.data,
                     s.state.ctypes.data, s.spill.ctypes.data, s.err.ctypes.data)
    return (int(code), s.err, s.state) if code else None


def claim_blocks(grid: int, block_dim: int, nworkers: int) -> int:
    """How many blocks a worker claims at a time: about CLAIM_THREADS
    threads, but at most an eighth of each worker's even share, and >= 1."""
    return max(1, min(CLAIM_THREADS // block_dim, grid // (8 * nworkers)))


def _run_parallel(ck: CompiledKernel, args, grid: int, block_dim: int, nworkers: int) -> list:
    """Run every block on the calling thread and nworkers - 1 helpers, each
    claiming chunks of blocks from one shared counter (kernel_cpu's worker
    entry): no thread waits for a fixed share while another is descheduled,
    and no Python runs between chunks. Returns each worker's first failure
    (None where it had none)."""
    counter = np.zeros(1, np.int64)
    chunk = claim_blocks(grid, block_dim, nworkers)
    pool = _executor(nworkers - 1)
    helpers = [pool.submit(_run_worker, ck, args, counter.ctypes.data, chunk, block_dim)
               for _ in range(nworkers - 1)]
    try:
        mine = _run_worker(ck, args, counter.ctypes.data, chunk, block_dim)
    finally:   # the helpers read `counter` and `args`: both live until they are done
        others = [f.result() for f in helpers]
    return [mine] + others


def run(kernel: Kernel, launch, arrays: dict, scalars: dict, *, fuel: int | None = None,
        unchecked: frozenset[tuple[str, int, int]] = frozenset()) -> None:
    """Run `kernel` natively; results are written into `arrays`. `fuel`: at
    most this many loop-header executions (all threads together), else
    SimulationBudgetExceeded -- a deterministic bound on the run's work;
    such a run uses one host thread, so it stops at the same point on every
    machine. `unchecked`: index checks left out (jit.compile_kernel); the
    caller has checked every launch fact their proofs assume."""
    ck = compile_kernel(kernel, fuel=fuel is not None, unchecked=unchecked)
    if fuel is not None:
        ctypes.c_int64.from_address(ck.fuel_address).value = int(fuel)
    for n, a in arrays.items():
        if not a.flags.writeable and n in ck.written:
            raise LaunchError(f"kernel {kernel.name}: argument {n} is a read-only numpy array "
                              f"but the kernel writes to it; pass a writeable copy "
                              f"({n}.copy())")
    work = {n: (a if a.flags.c_contiguous and a.flags.writeable
                else np.array(a, order="C", copy=True))
            for n, a in arrays.items()}
    args = _pack_args(ck, kernel, launch, work, scalars)
    grid, bd = int(launch.grid_dim), int(launch.block_dim)
    nworkers = workers()
    if launch.size < PARALLEL_MIN_THREADS or nworkers == 1 or grid == 1 or fuel is not None:
        failures = [_run_range(ck, args, 0, grid, bd)]
    else:
        failures = _run_parallel(ck, args, grid, bd, nworkers)
    for n, a in arrays.items():
        if work[n] is not a and a.flags.writeable:
            a[...] = work[n]
    failures = [f for f in failures if f is not None]
    if failures:
        code, err, states = min(failures, key=lambda f: int(f[1][3]))
        if code == ERR_FUEL:
            assert fuel is not None   # only code built with fuel reports running out of it
            raise SimulationBudgetExceeded(
                f"kernel {kernel.name}: the native run spent its fuel of {fuel} loop iterations "
                f"before it finished", int(fuel) + 1, int(fuel))
        raise _error(ck, kernel, launch, code, err, states)


def _divergence(ck: CompiledKernel, kernel: Kernel, block: int, states) -> KernelRuntimeError:
    """Explain a block whose threads ended a phase in different states
    (-1: returned, k + 1: waiting at barrier k), like the simulator: the
    barrier some threads wait at that comes first in reverse postorder, and
    the first thread missing there."""
    locs = ck.lowered.barrier_locs
    rank = {label: r for r, label in enumerate(reverse_postorder(kernel))}
    position = [(rank.get(label, len(rank)), idx) for label, idx, _ in find_barriers(kernel)]
    barrier = min({int(s) - 1 for s in states if s > 0}, key=lambda k: position[k])
    here = [t for t, s in enumerate(states) if s == barrier + 1]
    missing = next(t for t, s in enumerate(states) if s != barrier + 1)
    if states[missing] < 0:
        elsewhere = "has returned without reaching it"
    else:
        elsewhere = f"waits at the barrier at line {locs[int(states[missing]) - 1].line}"
    loc = locs[barrier]
    return BarrierDivergenceError(
        f"barrier divergence at the barrier at line {loc.line} in kernel {kernel.name}: "
        f"thread {here[0]} of block {block} waits here but thread {missing} of the same "
        f"block {elsewhere}; every thread of a block must reach the same barrier the same "
        f"number of times", loc=loc, thread=missing, block=block, waiting_thread=here[0])


def _error(ck: CompiledKernel, kernel: Kernel, launch, code: int, err,
           states) -> KernelRuntimeError:
    lk = ck.lowered
    site, thread, block = int(err[1]), int(err[2]), int(err[3])
    gtid = block * launch.block_dim + thread
    who = f"thread {thread} of block {block} (global thread {gtid})"
    if code == ERR_DIVERGENCE:
        return _divergence(ck, kernel, block, states[:int(err[4])])
    info = lk.sites[site]
    if code == ERR_BOUNDS:
        dim, index, n = int(err[4]), int(err[5]), int(err[6])
        arr = next(a for a in kernel.arrays if a.name == info.array)
        space = "shared" if arr.space == "shared" else "global"
        return OutOfBoundsError(
            f"out-of-bounds access to {space} array {arr.name} (index {index} in "
            f"dimension {dim} is outside 0..{n - 1}) by {who} in kernel {kernel.name}",
            loc=info.loc, thread=thread, block=block, array=arr.name, dim=dim,
            index_value=index, global_thread=gtid)
    if code == ERR_DIV_ZERO:
        cls = DivisionOverflowError if info.detail == DIVISION_OVERFLOW_NOTE else DivisionByZeroError
        return cls(
            f"{info.message} in kernel {kernel.name} ({who})",
            loc=info.loc, thread=thread, block=block, global_thread=gtid)
    if code == ERR_ASSERT:
        return KernelAssertionError(
            f"{info.message} ({who}, kernel {kernel.name})",
            loc=info.loc, thread=thread, block=block, global_thread=gtid,
            assert_message=info.detail)
    return KernelRuntimeError(f"native kernel {kernel.name} failed with status {code}",
                              loc=info.loc, thread=thread, block=block)
