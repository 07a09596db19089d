"""Replay a failed obligation's counterexample on the simulator.

Invariant: `replay` answers `(True, why)` only when the simulator, run on a
concrete launch with the counterexample's dims, block size, scalars and
shapes, actually exhibits the violation the obligation names at the
obligation's source line (for races: two threads' conflicting accesses at
the two lines in the trace of the accesses that ran). The arrays hold the
recorded contents, zeros elsewhere; only for a counterexample the prover
marks as coming from an abstraction are a few uniform contents tried as
well, and the one that shows the violation is returned as the witness.
Every other outcome -- a different error, no error, a refused launch, a
launch too large or too slow to simulate -- is `(False, why)`.
"""
from __future__ import annotations

import dataclasses
import math
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

import verikern.errors as errors
from verikern.mir.nodes import (
    ArrayRef, Const, Kernel, RequiresArray, ScalarParam, Special, Value,
)
from verikern.proofs.obligations import Counterexample, Obligation, ObligationKind

#: Launches with more threads than this are not simulated (the simulator
#: interprets every thread).
MAX_REPLAY_THREADS = 1 << 20
#: Wall-clock limit for one replay (seconds).
REPLAY_TIMEOUT = 20.0


class ReplayTimeout(Exception):
    """The simulation ran past REPLAY_TIMEOUT."""


@dataclass(frozen=True)
class ConcreteLaunch:
    """What the simulator runs: launch dims, block size and one input per
    kernel parameter (numpy arrays for arrays, Python numbers for scalars),
    in parameter order. `note` says how it differs from the counterexample
    (e.g. a shrunk launch), or is empty."""

    dims: tuple[int, ...]
    block_dim: int
    inputs: tuple[Any, ...]
    note: str = ""


# ---------------------------------------------------------------- the launch
def _thread_count(dims) -> int:
    return int(math.prod(int(d) for d in dims))


def _uses_geometry(kernel: Kernel) -> bool:
    """True when the kernel reads the grid size or the launch dims, so that a
    smaller launch would run different code for the same thread."""
    for _, ins in kernel.instructions():
        if isinstance(ins, Special) and ins.kind in ("grid_dim", "launch_dim"):
            return True
    return False


def _shrink(kernel: Kernel, cex: Counterexample, size: int) -> tuple[tuple[int, ...], str] | None:
    """A 1-D launch of just enough whole blocks to contain every offending
    thread, when that leaves each offending thread's ids unchanged; else None."""
    if len(cex.dims) != 1 or _uses_geometry(kernel) or not cex.threads:
        return None
    last = max(b * cex.block_dim + t for b, t in cex.threads)
    blocks = last // cex.block_dim + 1
    new_size = min(size, blocks * cex.block_dim)
    if new_size > MAX_REPLAY_THREADS:
        return None
    return (new_size,), f"replayed on a launch shrunk from {size} to {new_size} threads (offending threads unchanged)"


def _operand_value(op, scalars: dict[str, Any], kernel: Kernel):
    """A contract bound as a Python number when it is a constant or a scalar
    parameter; None otherwise."""
    if isinstance(op, Const):
        return op.value
    if isinstance(op, Value):
        for p in kernel.scalar_params:
            if p.value == op and p.name in scalars:
                return scalars[p.name]
    return None


def _fill_contracts(kernel: Kernel, arr: np.ndarray, ref: ArrayRef, recorded: set[int],
                    scalars: dict[str, Any]) -> None:
    """Fill the unrecorded elements of an integer array so that its
    `all_in_range` / `all_distinct` launch contracts hold where possible
    (zeros would break them and the launch would be refused)."""
    lo = hi = None
    distinct = False
    for _, ins in kernel.instructions():
        if isinstance(ins, RequiresArray) and ins.array.name == ref.name:
            if ins.kind == "all_in_range":
                lo = _operand_value(ins.lo, scalars, kernel)
                hi = _operand_value(ins.hi, scalars, kernel)
            elif ins.kind == "all_distinct":
                distinct = True
    flat = arr.reshape(-1)
    free = [i for i in range(flat.size) if i not in recorded]
    if not free:
        return
    if distinct:
        used = {int(flat[i]) for i in recorded}
        start = int(lo) if lo is not None else 0
        stop = int(hi) if hi is not None else start + flat.size + len(used) + 1
        candidates = (v for v in range(start, stop) if v not in used)
        for i in free:
            v = next(candidates, None)
            if v is None:
                break
            flat[i] = v
    elif lo is not None and (hi is None or int(lo) < int(hi)):
        for i in free:
            flat[i] = lo


def concrete_launch(kernel: Kernel, cex: Counterexample, fill: dict | None = None) -> ConcreteLaunch:
    """The launch of `cex` as simulator inputs. `fill` maps array names to a
    content (a number, "ramp" for 0, 1, 2, ... or "alternating") that replaces the
    recorded contents. Raises ValueError when the counterexample lacks
    something the launch needs (an array's shape)."""
    dims = tuple(int(d) for d in cex.dims)
    size = _thread_count(dims)
    note = ""
    if size > MAX_REPLAY_THREADS:
        shrunk = _shrink(kernel, cex, size)
        if shrunk is None:
            raise ValueError(f"launch too large to replay: {size} threads")
        dims, note = shrunk
    inputs: list[Any] = []
    for p in kernel.params:
        if isinstance(p, ScalarParam):
            value = cex.scalars.get(p.name, 0)
            t = p.value.type
            if t.is_bool:
                value = bool(value)
            elif t.is_int:
                value = t.wrap(int(value))
            else:
                value = float(value)
            inputs.append(t.np_dtype.type(value))
            continue
        if p.name not in cex.shapes:
            raise ValueError(f"the counterexample gives no shape for array {p.name!r}")
        shape = tuple(int(s) for s in cex.shapes[p.name])
        if len(shape) != p.ndim:
            raise ValueError(f"array {p.name!r}: counterexample shape {shape} has "
                             f"{len(shape)} dims, the kernel's array has {p.ndim}")
        elements = math.prod(shape)
        if elements > 1 << 26:
            raise ValueError(f"array {p.name!r} too large to replay: {elements} elements")
        arr = np.zeros(shape + tuple(p.inner), dtype=p.dtype.np_dtype)
        if fill and p.name in fill:
            flat = arr.reshape(-1)
            if fill[p.name] == "ramp":
                flat[:] = np.arange(flat.size) % max(1 << (p.dtype.bits - 1) - 1, 1)
            elif fill[p.name] == "alternating":      # 1, -1, 1, ... (ints: 0, 1, 0, ...)
                flat[:] = (1 - 2 * (np.arange(flat.size) % 2)) if p.dtype.is_float else np.arange(flat.size) % 2
            else:
                flat[:] = fill[p.name]
        else:
            _fill_array(arr, p, cex.arrays.get(p.name, {}), cex.scalars, kernel)
        inputs.append(arr)
    return ConcreteLaunch(dims, int(cex.block_dim), tuple(inputs), note)


def _fill_array(arr: np.ndarray, ref: ArrayRef, contents: dict, scalars, kernel) -> None:
    """Write the recorded {flat_index: value} contents. A flat index counts
    logical elements (row-major); with vector/matrix elements a value is a
    sequence of the components, or a scalar for a flat index over components."""
    logical = arr.reshape((-1,) + tuple(ref.inner)) if ref.inner else arr.reshape(-1)
    recorded: set[int] = set()
    for key, value in contents.items():
        i = int(key)
        if ref.inner and isinstance(value, (list, tuple)):
            logical[i] = np.asarray(value, dtype=arr.dtype).reshape(ref.inner)
            recorded.add(i)
        else:
            arr.reshape(-1)[i] = value
            recorded.add(i)
    if ref.dtype.is_int and not ref.inner:
        _fill_contracts(kernel, arr, ref, recorded, scalars)


# ---------------------------------------------------------------- running it
@contextmanager
def _time_limit(seconds: float):
    """Raise ReplayTimeout in the main thread after `seconds`; no limit when
    called off the main thread or where SIGALRM does not exist."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise ReplayTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _prepare(kernel: Kernel, launch: ConcreteLaunch):
    """Check the launch like vk.launch does (so a counterexample that breaks
    a `requires` or an array contract is refused): (kernel, config, arrays,
    scalars) for the simulator."""
    import verikern.runtime as runtime

    dim = launch.dims[0] if len(launch.dims) == 1 else launch.dims
    return runtime.prepare_launch(kernel, dim, list(launch.inputs), launch.block_dim)


def _simulate(kernel: Kernel, launch: ConcreteLaunch) -> None:
    """Check, then simulate the launch (raising the simulator's errors)."""
    import verikern.backends.simulator as simulator

    k, config, arrays, scalars = _prepare(kernel, launch)
    simulator.simulate(k, config, arrays, scalars)


# -------------------------------------------------------------- confirmation
_EXPECTED_ERROR: dict[ObligationKind, type] = {
    ObligationKind.BOUNDS: errors.OutOfBoundsError,
    ObligationKind.DIV_ZERO: errors.DivisionByZeroError,
    ObligationKind.ASSERT: errors.KernelAssertionError,
    ObligationKind.INVARIANT: errors.KernelAssertionError,
    ObligationKind.DIVERGENCE: errors.BarrierDivergenceError,
    ObligationKind.RACE: errors.DataRaceError,
}
#: Kinds whose simulator error must point at the obligation's own line.
_LINE_CHECKED = {ObligationKind.BOUNDS, ObligationKind.DIV_ZERO,
                 ObligationKind.ASSERT, ObligationKind.INVARIANT}


def _where(err: errors.KernelRuntimeError) -> str:
    loc = getattr(err, "loc", None)
    who = ""
    if getattr(err, "thread", None) is not None:
        who = f" (thread {err.thread} of block {err.block})"
    return (f"line {loc.line}" if loc is not None else "an unknown line") + who


def _race_lines(obligation: Obligation) -> tuple[int, int]:
    other = obligation.other_loc or obligation.loc
    return obligation.loc.line, other.line


def _find_race(document: dict, lines: tuple[int, int]) -> str | None:
    """A description of a race in the trace between accesses at the two
    lines (distinct threads, one element, same barrier interval of one block
    or different blocks for global arrays, at least one writing, not both
    atomic -- verikern.trace.find_races decides); None if there is none."""
    from verikern.trace import find_races

    wanted = sorted(lines)
    for race in find_races(document):
        if sorted((race.line, race.other_line)) == wanted:
            return race.short().split(": error: ", 1)[-1]
    return None


#: Scheduling steps a race replay simulates before it judges the partial
#: trace (a race in the first iterations of a 2**31-iteration loop shows early).
RACE_MAX_STEPS = 500


def _traced_run(kernel: Kernel, launch: ConcreteLaunch) -> tuple[dict, Exception | None]:
    """Simulate with tracing, at most RACE_MAX_STEPS scheduling steps, and
    return the trace of every access that happened -- also when the run
    stopped early at a runtime error, the step limit or the time limit --
    with that stopping error (or None)."""
    import verikern.backends.simulator as simulator
    from verikern.backends.simulator.engine import run_launch

    k, config, arrays, scalars = _prepare(kernel, launch)
    recorder = simulator.TraceRecorder()
    stopped = None
    try:
        run_launch(simulator.program_for(k), config, arrays, scalars, recorder, False,
                   max_steps=RACE_MAX_STEPS)
    except (errors.KernelRuntimeError, ReplayTimeout) as err:
        stopped = err
    return simulator.trace_document(k, config, arrays, recorder.events()), stopped


def _confirm_race(kernel: Kernel, launch: ConcreteLaunch, obligation: Obligation) -> tuple[bool, str]:
    lines = _race_lines(obligation)
    document, stopped = _traced_run(kernel, launch)
    if isinstance(stopped, errors.DataRaceError):
        line = stopped.loc.line if stopped.loc is not None else None
        if line in lines:
            return True, f"the simulator detected the race at {_where(stopped)}"
    found = _find_race(document, lines)
    if found is not None:
        early = "" if stopped is None else " (in the accesses before the run stopped)"
        return True, "the simulator trace shows it" + early + ": " + found
    if stopped is None:
        return False, (f"the trace shows no conflicting accesses at lines {lines[0]} and {lines[1]}"
                       " (the race may depend on values the counterexample does not fix)")
    what = ("the time limit" if isinstance(stopped, ReplayTimeout)
            else f"{type(stopped).__name__} at {_where(stopped)}")
    return False, (f"the trace shows no conflicting accesses at lines {lines[0]} and {lines[1]} "
                   f"before the run stopped ({what})")


def _attempt(kernel: Kernel, obligation: Obligation, launch: ConcreteLaunch,
             timeout: float) -> tuple[bool, str]:
    """Simulate `launch` once and judge it against `obligation`."""
    expected = _EXPECTED_ERROR.get(obligation.kind)
    if expected is None:
        raise ValueError(f"replay: no confirmation rule for obligation kind {obligation.kind!r}")
    note = f"; {launch.note}" if launch.note else ""
    try:
        with _time_limit(timeout):
            if obligation.kind is ObligationKind.RACE:
                ok, why = _confirm_race(kernel, launch, obligation)
                return ok, why + note
            _simulate(kernel, launch)
    except ReplayTimeout:
        return False, f"replay timed out after {timeout:.3g} s{note}"
    except errors.LaunchError as err:
        return False, f"the launch was refused: {getattr(err, 'message', None) or err}"
    except expected as err:
        if obligation.kind in _LINE_CHECKED:
            if err.loc is None or err.loc.line != obligation.loc.line:
                return False, (f"the simulator raised {type(err).__name__} at {_where(err)}, "
                               f"not at line {obligation.loc.line}{note}")
        return True, f"the simulator raised {type(err).__name__} at {_where(err)}{note}"
    except errors.KernelRuntimeError as err:
        return False, (f"the simulator stopped at a different error first: {type(err).__name__} "
                       f"at {_where(err)}: {err.message}{note}")
    return False, f"the simulated launch ran without a {obligation.kind.value} violation{note}"


#: Uniform array contents tried when an abstraction-born counterexample's own
#: contents show nothing (its float and memory values are not concrete):
#: (float arrays, integer arrays) per variant.
CONTENT_VARIANTS: tuple[tuple[float, Any], ...] = (
    (-1.0, -1), (1.0e9, "ramp"), ("alternating", "alternating"), (float("nan"), 1),
    (-1.0e9, 1 << 30),
)


def _is_abstracted(obligation: Obligation) -> bool:
    cex = obligation.counterexample
    return bool(cex is not None and cex.facts.get("abstracted")) or \
        "abstract" in (obligation.reason or "").lower()


def _variant_fills(kernel: Kernel) -> list[dict]:
    """One fill per CONTENT_VARIANTS entry, over the global arrays without
    launch contracts (those keep the prover's contents)."""
    contracted = {ins.array.name for _, ins in kernel.instructions() if isinstance(ins, RequiresArray)}
    arrays = [p for p in kernel.params if isinstance(p, ArrayRef) and p.name not in contracted]
    fills = []
    for float_fill, int_fill in CONTENT_VARIANTS:
        fill = {}
        for a in arrays:
            if a.dtype.is_float:
                fill[a.name] = float_fill
            elif a.dtype.is_int:
                fill[a.name] = int_fill
        if fill:
            fills.append(fill)
    return fills


def replay_with_witness(kernel: Kernel, obligation: Obligation, *,
                        timeout: float = REPLAY_TIMEOUT) -> tuple[bool, str, Counterexample | None]:
    """`replay`, and for an abstraction-born counterexample whose contents
    show nothing, a few uniform array contents (CONTENT_VARIANTS) within the
    same time budget. The third item is the counterexample that was
    confirmed when it differs from the obligation's (its `facts["fill"]`
    names the contents), else None."""
    cex = obligation.counterexample
    if cex is None:
        return False, "no counterexample to replay", None
    try:
        launch = concrete_launch(kernel, cex)
    except ValueError as err:
        return False, str(err), None
    deadline = time.monotonic() + timeout
    ok, why = _attempt(kernel, obligation, launch, timeout)
    if ok or not _is_abstracted(obligation) or "ran without" not in why and "no conflicting" not in why:
        return ok, why, None
    for fill in _variant_fills(kernel):
        remaining = deadline - time.monotonic()
        if remaining < 0.5:
            break
        ok2, why2 = _attempt(kernel, obligation, concrete_launch(kernel, cex, fill), remaining)
        if ok2:
            shown = {k: (v if not isinstance(v, float) or v == v else "nan") for k, v in fill.items()}
            witness = dataclasses.replace(
                cex, arrays={k: v for k, v in cex.arrays.items() if k not in fill},
                facts={**cex.facts, "fill": shown})
            return True, (f"{why2}, with array contents {shown} everywhere (the prover's "
                          "contents came from an abstraction)"), witness
    return False, why, None


def replay(kernel: Kernel, obligation: Obligation, *, timeout: float = REPLAY_TIMEOUT) -> tuple[bool, str]:
    """Confirm `obligation`'s counterexample on the simulator: (True, how) when
    the simulated launch shows the violation at the obligation's line, else
    (False, why not)."""
    ok, why, _ = replay_with_witness(kernel, obligation, timeout=timeout)
    return ok, why
