"""The CPU simulator: runs MIR with exact GPU semantics, many threads at once.

`simulate(kernel, launch, arrays, scalars, trace=False) -> SimResult` writes
results into `arrays` (C-contiguous numpy arrays, logical dims then inner
dims) and raises the `verikern.errors.KernelRuntimeError` subclasses on
out-of-bounds accesses, integer division by zero, failed asserts and barrier
divergence.  `run(...)` is the device entry point used by `vk.launch`.
Op semantics live in `instructions.py` (the dispatch table) over the shared
host semantics `verikern.backends.semantics.ops`; launch contracts are checked
by `verikern.backends.contracts` before a run; the
scheduler in `engine.py`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verikern.errors import LaunchError
from verikern.mir.nodes import ArrayRef, Kernel

from .engine import CHUNK_THREADS, MAX_STEPS, WorkMeter, run_launch, _POOL
from .instructions import INSTRUCTION_TABLE, compile_instruction
from .memory import UninitializedReads
from .program import program_for
from .trace import TraceRecorder, trace_document, write_trace


@dataclass(frozen=True)
class SimResult:
    """trace: the trace events (list of dicts) when tracing, else None;
    document: the whole JSON trace object when tracing, else None."""

    trace: list | None = None
    document: dict | None = None


def simulate(kernel: Kernel, launch, arrays: dict, scalars: dict, trace: bool = False,
             *, check_array_contracts: bool = True,
             chunk_threads: int = CHUNK_THREADS, max_steps: int = MAX_STEPS,
             blocks=None, threads=None, meter: WorkMeter | None = None,
             uninit_reads: UninitializedReads | None = None) -> SimResult:
    """Run every thread of `launch` (a LaunchConfig: dims, block_dim,
    grid_dim, size). `arrays`/`scalars` map parameter names to values.
    check_array_contracts: also check RequiresArray (vk.launch did already);
    chunk_threads: threads simulated at once; max_steps: scheduling steps per
    chunk before an endless loop is reported (KernelRuntimeError);
    blocks: None (all), or only these block indices, with their real ids in
    the unchanged launch geometry (blocks never synchronise with each other,
    so running some first is a legal schedule). A block index outside the
    grid is a LaunchError. threads: None (all), or only these global thread
    ids, one by one, in a kernel without barriers or shared memory (threads
    that never wait for each other run in any order); a LaunchError
    otherwise. meter: a WorkMeter bounding the simulated work
    (SimulationBudgetExceeded when spent; see engine.WorkMeter).
    uninit_reads: None (an uninitialised shared read raises
    UninitializedReadError, as vk.launch does), or an UninitializedReads
    that records such reads while the run goes on (the checked mode replay
    uses, as compute-sanitizer's initcheck: later errors still show)."""
    _check_arguments(kernel, launch, arrays, scalars)
    if blocks is not None:
        bad = [k for k in blocks if not 0 <= int(k) < launch.grid_dim]
        if bad:
            raise LaunchError(f"kernel {kernel.name}: block {bad[0]} is not in the launch "
                              f"(grid_dim {launch.grid_dim})")
    prog = program_for(kernel)
    recorder = TraceRecorder() if trace else None
    try:
        run_launch(prog, launch, arrays, scalars, recorder, check_array_contracts,
                   chunk_threads, max_steps, blocks, threads, meter, uninit_reads)
    except ValueError as err:
        if threads is None:
            raise
        raise LaunchError(f"kernel {kernel.name}: {err}") from None
    if recorder is None:
        return SimResult()
    events = recorder.events()
    return SimResult(events, trace_document(kernel, launch, arrays, events))


def _check_arguments(kernel: Kernel, launch, arrays: dict, scalars: dict) -> None:
    """What simulate needs that vk.launch's checks guarantee (for direct callers)."""
    missing = [p.name for p in kernel.params
               if (p.name not in arrays if hasattr(p, "dtype") else p.name not in scalars)]
    if missing:
        raise LaunchError(f"kernel {kernel.name}: simulate() got no value for "
                          f"{', '.join(missing)}; pass every parameter by name in arrays/scalars "
                          f"(verikern.runtime.prepare_launch builds them)")
    for ref in kernel.params:
        if isinstance(ref, ArrayRef):
            a = arrays[ref.name]
            if (not isinstance(a, np.ndarray) or a.dtype != ref.dtype.np_dtype
                    or a.ndim != ref.full_ndim):
                raise LaunchError(f"kernel {kernel.name}: array {ref.name} must be a "
                                  f"{ref.full_ndim}-D numpy array of {ref.dtype.name}; use "
                                  f"verikern.runtime.prepare_launch to check arguments")
    if len(launch.dims) != kernel.launch_ndim or launch.size < 1:
        raise LaunchError(f"kernel {kernel.name}: launch {launch} does not match its "
                          f"{kernel.launch_ndim}-D vk.tid()")


def free_buffers() -> None:
    """Drop the simulator's cached lane buffers (at most 256 MiB are kept
    between launches for reuse)."""
    _POOL.clear()


def run(kernel: Kernel, launch, arrays: dict, scalars: dict, *, max_steps: int = MAX_STEPS,
        meter: WorkMeter | None = None) -> None:
    """Device entry point ("cpu"): contracts were checked by prepare_launch;
    `max_steps` and `meter` as for `simulate`."""
    simulate(kernel, launch, arrays, scalars, check_array_contracts=False, max_steps=max_steps, meter=meter)


def run_traced(kernel: Kernel, launch, arrays: dict, scalars: dict, trace_path, *,
               max_steps: int = MAX_STEPS, meter: WorkMeter | None = None) -> SimResult:
    """Device entry point ("cpu:trace"): runs and writes the JSON trace;
    `max_steps` and `meter` as for `simulate`."""
    result = simulate(kernel, launch, arrays, scalars, trace=True, check_array_contracts=False,
                      max_steps=max_steps, meter=meter)
    assert result.document is not None   # trace=True records one
    write_trace(trace_path, result.document)
    return result


__all__ = ["SimResult", "WorkMeter", "UninitializedReads", "simulate", "run",
           "run_traced", "free_buffers", "INSTRUCTION_TABLE", "compile_instruction"]
