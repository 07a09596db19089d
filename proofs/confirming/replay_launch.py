"""Build the concrete launch that replay runs on the simulator from a
counterexample: dims, block size, scalars, arrays (and which blocks to run).

Invariant: `concrete_launch(kernel, cex, fill)` describes exactly the
counterexample's launch -- its dims, block_dim, scalars and shapes, the
recorded contents (zeros elsewhere, contract-satisfying values in the free
elements of contracted integer arrays), or the named uniform `fill` -- and
differs from it only in what its `note` says: a 1-D launch shrunk to the
offending threads' blocks (when the kernel never reads the launch
geometry), or only the offending blocks run under the unchanged geometry
(blocks never synchronise with each other, so running them first is a
legal schedule of the whole launch). Variant counterexamples (shapes grown
to cover the launch, see `covering_shapes`) are built as Counterexample
objects first (`with_shapes`), so that the witness a replay reports is
what it ran.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable
import dataclasses

import numpy as np

from verikern.mir.facts import is_barrier
from verikern.mir.nodes import ArrayRef, Const, Kernel, RequiresArray, ScalarParam, Special, Value, BinOp, ShapeOf
from verikern.proofs.obligations import Counterexample

#: Launches with more threads than this are not simulated whole (the
#: simulator interprets every thread): they are shrunk, or only the
#: offending blocks run.
MAX_REPLAY_THREADS = 1 << 20
#: Arrays with more elements than this are not allocated for a replay.
MAX_REPLAY_ELEMENTS = 1 << 26
#: Covering shapes never grow an array beyond this many elements.
MAX_COVER_ELEMENTS = 1 << 22
#: The named contents a fill may give (besides a plain number): 0, 1, 2, ...;
#: n-1, n-2, ..., 0; and 1, -1, 1, ... (integers: 0, 1, 0, ...).
NAMED_FILLS = ("ramp", "descending", "alternating")


@dataclass(frozen=True)
class ConcreteLaunch:
    """What the simulator runs: launch dims, block size and one input per
    kernel parameter (numpy arrays for arrays, Python numbers for scalars),
    in parameter order. `blocks` is None (every block runs) or the block
    indices that run, with their real ids; `threads` likewise the global
    thread ids that run (kernels without barriers or shared memory only).
    `note` says how the run differs from the counterexample's whole launch,
    or is empty."""

    dims: tuple[int, ...]
    block_dim: int
    inputs: tuple[Any, ...]
    note: str = ""
    blocks: tuple[int, ...] | None = None
    threads: tuple[int, ...] | None = None


def focused(kernel: Kernel, launch: ConcreteLaunch, cex: Counterexample) -> ConcreteLaunch | None:
    """The same launch with only the offending threads running (a kernel
    without barriers or shared memory) or only their blocks, first: a legal
    schedule of the whole launch in which other threads cannot stop the run
    at their own errors before the offending ones act; None when that is
    what `launch` already runs."""
    if not cex.threads:
        return None
    ids = tuple(sorted({int(b) * int(cex.block_dim) + int(t) for b, t in cex.threads}))
    independent = not (kernel.uses_block_features or kernel.shared or any(
        is_barrier(ins) for _, ins in kernel.instructions()))
    if independent:
        if launch.threads == ids:
            return None
        which = ", ".join(str(i) for i in ids)
        return replace(launch, blocks=None, threads=ids, note=_join_notes(
            launch.note, f"only global thread{'s' * (len(ids) > 1)} {which} ran, first (threads "
                         "without barriers or shared memory never wait for each other, so "
                         "running them first is a legal schedule of the launch)"))
    subset = offending_blocks(cex, thread_count(launch.dims))
    if subset is None or launch.blocks == subset[0]:
        return None
    return replace(launch, blocks=subset[0], note=_join_notes(launch.note, subset[1]))


def _join_notes(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second


# ---------------------------------------------------------------- geometry
def thread_count(dims) -> int:
    return int(math.prod(int(d) for d in dims))


def uses_geometry(kernel: Kernel) -> bool:
    """True when the kernel reads the grid size or the launch dims, so that a
    smaller launch would run different code for the same thread."""
    for _, ins in kernel.instructions():
        if isinstance(ins, Special) and ins.kind in ("grid_dim", "launch_dim"):
            return True
    return False


def shrink(kernel: Kernel, cex: Counterexample, size: int) -> tuple[tuple[int, ...], str] | None:
    """A 1-D launch of just enough whole blocks to contain every offending
    thread, when that leaves each offending thread's ids unchanged; else None."""
    if len(cex.dims) != 1 or uses_geometry(kernel) or not cex.threads:
        return None
    last = max(b * cex.block_dim + t for b, t in cex.threads)
    blocks = last // cex.block_dim + 1
    new_size = min(size, blocks * cex.block_dim)
    if new_size > MAX_REPLAY_THREADS:
        return None
    return (new_size,), (f"replayed on a launch shrunk from {size} to {new_size} threads "
                         "(offending threads unchanged)")


def offending_blocks(cex: Counterexample, size: int) -> tuple[tuple[int, ...], str] | None:
    """The blocks of the offending threads, run alone under the full launch
    geometry, with the note saying so; None when the counterexample names
    no thread, a thread outside the launch, or too many threads to run."""
    if not cex.threads or cex.block_dim < 1:
        return None
    grid = -(-size // int(cex.block_dim))
    blocks = tuple(sorted({int(b) for b, _ in cex.threads}))
    if any(not 0 <= b < grid for b in blocks) or len(blocks) * cex.block_dim > MAX_REPLAY_THREADS:
        return None
    which = ", ".join(str(b) for b in blocks)
    plural = "s" if len(blocks) > 1 else ""
    return blocks, (f"only block{plural} {which} of the {grid} blocks of the launch ran, with real "
                    f"ids and the full launch geometry (blocks never synchronise with each "
                    f"other, so running them first is a legal schedule of the whole launch)")


def plan_geometry(kernel: Kernel, cex: Counterexample):
    """(dims, blocks, note) to simulate: the counterexample's launch when it
    is small enough, else a shrunk launch, else only the offending blocks.
    Raises ValueError when none of these applies."""
    dims = tuple(int(d) for d in cex.dims)
    size = thread_count(dims)
    if size <= MAX_REPLAY_THREADS:
        return dims, None, ""
    shrunk = shrink(kernel, cex, size)
    if shrunk is not None:
        return shrunk[0], None, shrunk[1]
    subset = offending_blocks(cex, size)
    if subset is None:
        raise ValueError(f"launch too large to replay: {size} threads")
    return dims, subset[0], subset[1]


# ---------------------------------------------------------------- contents
#: Integer operations a contract bound may be computed with (machine
#: arithmetic: the result wraps to the bound's type).
_BOUND_OPS: dict[str, Callable[[int, int], int]] = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
              "mul": lambda a, b: a * b, "min": min, "max": max}


def _operand_value(op, scalars: dict[str, Any], kernel: Kernel,
                   shapes: dict[str, tuple[int, ...]] | None = None, depth: int = 8):
    """A contract bound as a Python number: a constant, a scalar parameter,
    an array length (from `shapes`) or +, -, *, min, max of those (wrapped
    to the integer type, as the kernel computes it); None otherwise."""
    if isinstance(op, Const):
        return op.value
    if not isinstance(op, Value) or depth < 0:
        return None
    for p in kernel.scalar_params:
        if p.value == op:
            return scalars.get(p.name)

    ins = next((i for _, i in kernel.instructions()
                if getattr(i, "result", None) is not None and i.result == op), None)
    if isinstance(ins, ShapeOf) and shapes is not None and ins.array.name in shapes:
        return int(shapes[ins.array.name][ins.dim])
    if isinstance(ins, BinOp) and ins.op in _BOUND_OPS and ins.result.type.is_int \
            and not ins.result.type.is_bool:
        a = _operand_value(ins.lhs, scalars, kernel, shapes, depth - 1)
        b = _operand_value(ins.rhs, scalars, kernel, shapes, depth - 1)
        if a is None or b is None:
            return None
        return ins.result.type.wrap(_BOUND_OPS[ins.op](int(a), int(b)))
    return None


def contracted_arrays(kernel: Kernel) -> set[str]:
    """Names of the arrays with launch contracts (all_in_range / all_distinct / all_sorted)."""
    return {ins.array.name for _, ins in kernel.instructions() if isinstance(ins, RequiresArray)}


def _fill_contracts(kernel: Kernel, arr: np.ndarray, ref: ArrayRef, recorded: set[int],
                    scalars: dict[str, Any],
                    shapes: dict[str, tuple[int, ...]] | None = None) -> None:
    """Fill the unrecorded elements of an integer array so that its
    `all_in_range` / `all_distinct` / `all_sorted` launch contracts hold where
    possible (zeros would break them and the launch would be refused)."""
    lo = hi = None
    distinct = ordered = False
    for _, ins in kernel.instructions():
        if isinstance(ins, RequiresArray) and ins.array.name == ref.name:
            if ins.kind == "all_in_range":
                lo = _operand_value(ins.lo, scalars, kernel, shapes)
                hi = _operand_value(ins.hi, scalars, kernel, shapes)
            elif ins.kind == "all_distinct":
                distinct = True
            elif ins.kind == "all_sorted":
                ordered = True
    flat = arr.reshape(-1)
    free = np.ones(flat.size, dtype=bool)
    free[sorted(recorded)] = False
    count = int(free.sum())
    if not count:
        return
    if distinct and ordered:
        _fill_increasing(flat, free, lo)
    elif distinct:
        used = np.unique(flat[~free].astype(np.int64))
        start = int(lo) if lo is not None else 0
        stop = int(hi) if hi is not None else start + count + used.size + 1
        stop = min(stop, start + count + used.size)     # enough candidates, never more
        candidates = np.arange(start, max(stop, start), dtype=np.int64)
        candidates = candidates[~np.isin(candidates, used)][:count]
        slots = np.flatnonzero(free)[:candidates.size]
        flat[slots] = candidates
    elif ordered:
        _fill_sorted(flat, free, lo)
    elif lo is not None and (hi is None or int(lo) < int(hi)):
        flat[free] = lo


def _fill_increasing(flat: np.ndarray, free: np.ndarray, lo) -> None:
    """Strictly increasing contents (all_sorted and all_distinct): each free
    element one above the element before it (the first: `lo`, or as far
    below the first recorded element as its index). The prover's gap and room
    facts leave enough room between recorded elements for this."""
    recorded = np.flatnonzero(~free)
    if lo is not None:
        prev = int(lo) - 1
    elif recorded.size:
        prev = int(flat[recorded[0]]) - int(recorded[0]) - 1
    else:
        prev = -1
    for i in range(flat.size):
        if free[i]:
            prev += 1
            flat[i] = prev
        else:
            prev = int(flat[i])


def _fill_sorted(flat: np.ndarray, free: np.ndarray, lo) -> None:
    """Give each free element of a 1-d `all_sorted` array the value of the
    nearest recorded element before it (before the first one: `lo`, or the
    first recorded value), so that the array is non-decreasing whenever the
    recorded values are."""
    recorded = np.flatnonzero(~free)
    if recorded.size:
        first = flat[recorded[0]]
        cur = first if lo is None else min(type(first)(lo), first)
    else:
        cur = lo if lo is not None else 0
    last = np.maximum.accumulate(np.where(free, -1, np.arange(flat.size)))
    filled = np.where(last >= 0, flat[np.maximum(last, 0)], cur)
    flat[free] = filled[free]


def _fill_array(arr: np.ndarray, ref: ArrayRef, contents: dict, scalars, kernel,
                shapes: dict[str, tuple[int, ...]] | None = None) -> None:
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
        _fill_contracts(kernel, arr, ref, recorded, scalars, shapes)


def apply_fill(arr: np.ndarray, ref: ArrayRef, fill) -> None:
    """Give every element of `arr` the uniform content `fill`: a number
    (wrapped to an integer dtype, as the kernel's arithmetic would), or one
    of NAMED_FILLS (integers stay below the dtype's largest value)."""
    flat = arr.reshape(-1)
    n = flat.size
    limit = max((1 << (ref.dtype.bits - 1)) - 1, 1) if ref.dtype.is_int else None
    # a ramp past 65504 in a float16 array, or 1e9 there, is inf, as intended:
    # numpy's overflow warning would only reach the user's terminal
    with np.errstate(over="ignore", invalid="ignore"):
        if fill == "ramp":
            flat[:] = np.arange(n) % limit if limit else np.arange(n)
        elif fill == "descending":
            down = np.arange(n - 1, -1, -1)
            flat[:] = down % limit if limit else down
        elif fill == "alternating":
            flat[:] = (1 - 2 * (np.arange(n) % 2)) if ref.dtype.is_float else np.arange(n) % 2
        elif ref.dtype.is_int and not ref.dtype.is_bool:
            flat[:] = ref.dtype.wrap(int(fill))       # -1 in a uint array is its largest value
        else:
            flat[:] = fill


def _scalar_input(p: ScalarParam, cex: Counterexample):
    value = cex.scalars.get(p.name, 0)
    t = p.value.type
    if t.is_bool:
        value = bool(value)
    elif t.is_int:
        value = t.wrap(int(value))
    else:
        value = float(value)
    return t.np_dtype.type(value)


def _array_input(kernel: Kernel, p: ArrayRef, cex: Counterexample, fill: dict | None) -> np.ndarray:
    if p.name not in cex.shapes:
        raise ValueError(f"the counterexample gives no shape for array {p.name!r}")
    shape = tuple(int(s) for s in cex.shapes[p.name])
    if len(shape) != p.ndim:
        raise ValueError(f"array {p.name!r}: counterexample shape {shape} has "
                         f"{len(shape)} dims, the kernel's array has {p.ndim}")
    elements = math.prod(shape)
    if elements > MAX_REPLAY_ELEMENTS:
        raise ValueError(f"array {p.name!r} too large to replay: {elements} elements")
    arr = np.zeros(shape + tuple(p.inner), dtype=p.dtype.np_dtype)
    if fill and p.name in fill:
        apply_fill(arr, p, fill[p.name])
    else:
        _fill_array(arr, p, cex.arrays.get(p.name, {}), cex.scalars, kernel, cex.shapes)
    return arr


def concrete_launch(kernel: Kernel, cex: Counterexample, fill: dict | None = None) -> ConcreteLaunch:
    """The launch of `cex` as simulator inputs. `fill` maps array names to a
    content (a number or one of NAMED_FILLS) that replaces the recorded
    contents. Raises ValueError when the counterexample lacks something the
    launch needs (an array's shape) or asks for too much to simulate."""
    dims, blocks, note = plan_geometry(kernel, cex)
    inputs: list[Any] = []
    for p in kernel.params:
        if isinstance(p, ScalarParam):
            inputs.append(_scalar_input(p, cex))
        else:
            inputs.append(_array_input(kernel, p, cex, fill))
    return ConcreteLaunch(dims, int(cex.block_dim), tuple(inputs), note, blocks)


# ---------------------------------------------------------------- variants
def covering_shapes(kernel: Kernel, cex: Counterexample) -> list[dict[str, tuple[int, ...]]]:
    """Shape maps that grow every global array of `cex` so that each
    thread's natural index is in range: every dimension of every array
    becomes at least U (never shrinks), for U the launch size (a 1-D array
    indexed by tid) and then the largest launch dim (an n-D array indexed by
    the tid components). Growing every dim by the same monotone max(s, U)
    keeps the `requires` relations between shapes (<=, ==) that held. A
    candidate that grows nothing, or would give an array more than
    MAX_COVER_ELEMENTS elements, is left out; so is everything when a shape
    is missing."""
    dims = tuple(int(d) for d in cex.dims)
    arrays = [p for p in kernel.params if isinstance(p, ArrayRef)]
    if any(len(cex.shapes.get(p.name, ())) != p.ndim for p in arrays):
        return []
    out: list[dict[str, tuple[int, ...]]] = []
    for least in dict.fromkeys((thread_count(dims), max(dims))):
        shapes = {p.name: tuple(max(int(s), least) for s in cex.shapes[p.name]) for p in arrays}
        too_big = any(math.prod(shapes[p.name]) * math.prod(p.inner) > MAX_COVER_ELEMENTS
                      for p in arrays)
        grown = any(shapes[p.name] != tuple(int(s) for s in cex.shapes[p.name]) for p in arrays)
        if grown and not too_big:
            out.append(shapes)
    return out


def remap_contents(contents: dict, old: tuple[int, ...], new: tuple[int, ...],
                   inner: tuple[int, ...]) -> dict:
    """Recorded {flat_index: value} contents of an array re-keyed from shape
    `old` to shape `new`, so that each value stays at the same multi-index;
    values whose multi-index is outside `new` are dropped. Scalar values of
    arrays with inner dims are keyed over components, sequence values over
    logical elements."""
    out = {}
    comps = math.prod(inner) if inner else 1
    for key, value in contents.items():
        i = int(key)
        if inner and not isinstance(value, (list, tuple)):
            logical, comp = divmod(i, comps)
        else:
            logical, comp = i, None
        index = np.unravel_index(logical, old)
        if any(int(x) >= n for x, n in zip(index, new)):
            continue
        moved = int(np.ravel_multi_index(index, new))
        out[moved if comp is None else moved * comps + comp] = value
    return out


def clamped(kernel: Kernel, cex: Counterexample, limit: int) -> Counterexample | None:
    """`cex` with every array dim above `limit` cut to `limit` and every
    integer scalar clamped to [-limit, limit] (recorded contents outside
    the new shapes dropped); None when nothing changes. Clamping shapes and
    scalars by the same monotone min/max keeps the `requires` relations
    between them (<=, ==) that held; the launch is unchanged."""

    shapes = {name: tuple(min(int(s), limit) for s in shape) for name, shape in cex.shapes.items()}
    scalars = dict(cex.scalars)
    for p in kernel.scalar_params:
        t = p.value.type
        if t.is_int and not t.is_bool and p.name in scalars:
            scalars[p.name] = max(-limit, min(limit, int(scalars[p.name])))
    if shapes == {k: tuple(v) for k, v in cex.shapes.items()} and scalars == cex.scalars:
        return None
    return with_shapes(kernel, dataclasses.replace(cex, scalars=scalars), shapes)


def with_shapes(kernel: Kernel, cex: Counterexample, shapes: dict[str, tuple[int, ...]]) -> Counterexample:
    """`cex` on other array shapes: recorded contents keep their
    multi-indices (or are dropped when outside the new shape) and a bounds
    fact `shape` follows its array."""

    arrays = {}
    inner = {p.name: tuple(p.inner) for p in kernel.params if isinstance(p, ArrayRef)}
    for name, contents in cex.arrays.items():
        if name in shapes and name in cex.shapes and tuple(shapes[name]) != tuple(cex.shapes[name]):
            arrays[name] = remap_contents(contents, tuple(cex.shapes[name]), tuple(shapes[name]),
                                          inner.get(name, ()))
        else:
            arrays[name] = dict(contents)
    facts = dict(cex.facts)
    array, dim = facts.get("array"), facts.get("dim")
    if "shape" in facts and array in shapes and isinstance(dim, int) and dim < len(shapes[array]):
        facts["shape"] = shapes[array][dim]
    return dataclasses.replace(cex, shapes={k: tuple(v) for k, v in shapes.items()},
                               arrays=arrays, facts=facts)
