"""Simulated memory: bounds-checked flat addressing and exact atomics.

Invariant: every element address the simulator touches was checked against the
logical shape first (0 <= i_k < shape[k], read by the index's own signedness;
out of bounds raises OutOfBoundsError, never a numpy IndexError or a wrap).
Atomics on one element behave as if the colliding lanes applied them one at a
time in some order (lane order within a group), with exact old values.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verikern.errors import OutOfBoundsError, UninitializedReadError
from verikern.mir.nodes import ArrayRef, SourceLoc

_UNSIGNED_VIEW = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16,
                  np.dtype(np.int32): np.uint32, np.dtype(np.int64): np.uint64}


@dataclass
class MemoryArray:
    """One array as the simulator sees it: `flat` is a 1-D view of the whole
    storage (for shared arrays: every block of the chunk, stacked), `shape`
    the per-block full shape (logical + inner), `strides` element strides
    of that shape, `block_elems` the per-block element count (0 for global)."""

    ref: ArrayRef
    flat: np.ndarray
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    block_elems: int
    #: shared arrays only: which elements some thread of their block has
    #: written (stored or updated atomically) so far in the launch
    written: np.ndarray | None = None


def element_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


def out_of_bounds(mem: MemoryArray, dim: int, indices: list, j: int, loc: SourceLoc,
                  kernel_name: str, thread: int, block: int, gtid: int) -> OutOfBoundsError:
    """The error for active lane number `j`, whose index `dim` is outside the shape."""
    shown_dims = max(mem.ref.ndim, dim + 1)
    shown = tuple(_lane_value(v, j) for v in indices[:shown_dims])
    idx_text = ", ".join(str(v) for v in shown)
    shape_text = ", ".join(str(s) for s in mem.shape[:shown_dims])
    n = mem.shape[dim]
    where = "shared" if mem.ref.space == "shared" else "global"
    msg = (f"out-of-bounds access to {where} array {mem.ref.name}[{idx_text}] "
           f"(shape ({shape_text}); index {shown[dim]} in dimension {dim} is outside "
           f"0..{n - 1}) by thread {thread} of block {block} (global thread {gtid}) "
           f"in kernel {kernel_name}")
    return OutOfBoundsError(msg, loc=loc, thread=thread, block=block, array=mem.ref.name,
                            index=shown, global_thread=gtid, dim=dim)


class UninitializedReads:
    """The checked mode of a run (as compute-sanitizer's initcheck): an
    uninitialised shared read is recorded here and the run goes on, the read
    returning whatever the element holds (the poison it starts with: on a
    GPU any value is possible there). `errors` holds, in the order met, the
    first UninitializedReadError at each (source position, array); later
    reads there are not recorded again (so a loop cannot grow the record)."""

    def __init__(self):
        self.errors: list[UninitializedReadError] = []
        self._seen: set[tuple] = set()

    @staticmethod
    def _key(loc: SourceLoc, array: str) -> tuple:
        return (loc.file, loc.line, loc.col, array)

    def recorded(self, loc: SourceLoc, array: str) -> bool:
        return self._key(loc, array) in self._seen

    def add(self, err: UninitializedReadError, loc: SourceLoc, array: str) -> None:
        key = self._key(loc, array)
        if key not in self._seen:
            self._seen.add(key)
            self.errors.append(err)


def check_initialized(mem: MemoryArray, addr, indices, loc: SourceLoc,
                      kernel_name: str, st, idx) -> None:
    """Raise UninitializedReadError when an active lane reads a shared element
    (flat addresses `addr`) that no thread of its block has written yet --
    or, in the checked mode (`st.uninit_reads`, an UninitializedReads),
    record it there and return; `indices()` gives the lanes' index values
    (only computed for the error). An array without a written-record (a
    global array) has nothing to check."""
    if mem.written is None:
        return
    seen = mem.written[addr]
    if seen.all():
        return
    log = st.uninit_reads
    if log is not None and log.recorded(loc, mem.ref.name):
        return
    j = int(np.argmin(seen))
    thread, block, gtid = st.lane_info(idx, j)
    shown = tuple(_lane_value(v, j) for v in indices())
    text = ", ".join(str(v) for v in shown)
    err = UninitializedReadError(
        f"read of uninitialised shared memory {mem.ref.name}[{text}]: no thread of block "
        f"{block} wrote that element earlier in the launch (read by thread {thread} of "
        f"block {block}, global thread {gtid}, in kernel {kernel_name})",
        loc=loc, thread=thread, block=block, array=mem.ref.name, index=shown,
        global_thread=gtid)
    if log is None:
        raise err
    log.add(err, loc, mem.ref.name)


def _lane_value(v, lane: int):
    if isinstance(v, np.ndarray):
        return v[lane].item() if v.ndim else v.item()
    return v.item() if isinstance(v, np.generic) else v


def index_is_bad(ix, n: int):
    """True (per lane) where `ix` is not in 0..n-1 (read by its own signedness)."""
    if isinstance(ix, np.ndarray):
        u = _UNSIGNED_VIEW.get(ix.dtype)
        if u is not None:
            if n <= 1 << (ix.dtype.itemsize * 8 - 1):
                return ix.view(u) >= n        # negatives read as huge unsigned values
            return ix < 0                     # every non-negative value is < n
        return ix >= n
    v = int(ix)
    return v < 0 or v >= n


def flat_address(mem: MemoryArray, indices: list, lane_base, lanes: int, out=None):
    """The flat element address for each lane (int64 array): lane_base +
    sum over k of indices[k] * strides[k], every term counted whether it is
    uniform (a scalar) or per lane (an array); after the bounds check has
    passed (so every index fits in int64 and products cannot overflow).
    `lane_base` is each lane's offset of its block's copy (shared arrays) or
    None; `out`: an int64 lane-length buffer to use, if any."""
    flat = None
    const = 0
    for k, ix in enumerate(indices):
        stride = mem.strides[k]
        if type(ix) is not np.ndarray:
            const += int(ix) * stride
            continue
        if ix.dtype == np.uint64:
            ix = ix.astype(np.int64)
        if flat is None:
            if out is not None:
                flat = out
                if stride != 1:
                    np.multiply(ix, np.int64(stride), dtype=np.int64, out=flat)
                else:
                    np.copyto(flat, ix)
            else:
                flat = (np.multiply(ix, np.int64(stride), dtype=np.int64) if stride != 1
                        else ix.astype(np.int64))
        elif stride == 1:
            np.add(flat, ix, out=flat, dtype=np.int64)
        else:
            np.add(flat, np.multiply(ix, np.int64(stride), dtype=np.int64), out=flat)
    if lane_base is not None:
        # the block base joins the per-lane terms; the uniform terms `const`
        # are still added below (the two are independent parts of the address)
        if flat is None:
            flat = np.add(lane_base, np.int64(const), out=out)
            const = 0
        else:
            np.add(flat, lane_base, out=flat)
    if flat is None:
        return np.full(lanes, const, dtype=np.int64)
    if const:
        np.add(flat, np.int64(const), out=flat)
    return flat


# -------------------------------------------------------------------- atomics
_UFUNC_OF = {"add": np.add, "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}


def _combine_function(op: str, dtype: np.dtype) -> tuple[np.ufunc, np.ufunc]:
    """(binary function old, v -> new, its ufunc for sequential accumulate)."""
    is_float = dtype.kind == "f"
    f: np.ufunc
    if op in ("add", "sub"):
        return np.add, np.add
    if op == "min":
        f = np.fmin if is_float else np.minimum
        return f, f
    if op == "max":
        f = np.fmax if is_float else np.maximum
        return f, f
    if op in ("and", "or", "xor"):
        if dtype.kind == "b":
            f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[op]
            return f, f
        return _UFUNC_OF[op], _UFUNC_OF[op]
    raise NotImplementedError(f"simulator: no semantics for atomic op {op!r}")


def apply_atomic(op: str, flat_mem: np.ndarray, addr: np.ndarray, values,
                 compare=None) -> np.ndarray:
    """Apply one atomic instruction for all lanes; return each lane's old value.

    Lanes that hit distinct elements are applied at once; lanes colliding on
    one element are applied one at a time in lane order (exactly: ranks of a
    group are applied as vector steps, large groups by a sequential
    accumulate), so every old value is one a sequential execution produces.
    """
    n = addr.shape[0]
    dtype = flat_mem.dtype
    values = np.broadcast_to(np.asarray(values, dtype=dtype), (n,))
    if op == "sub":
        values = np.negative(values) if dtype.kind != "b" else values
    if compare is not None:
        compare = np.broadcast_to(np.asarray(compare, dtype=dtype), (n,))
    order = np.argsort(addr, kind="stable")
    sa = addr[order]
    sv = values[order]
    sc = compare[order] if compare is not None else None
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    np.not_equal(sa[1:], sa[:-1], out=new_group[1:])
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.append(starts, n))
    old_sorted = np.empty(n, dtype=dtype)

    if op == "exch":
        first_old = flat_mem[sa[starts]]
        old_sorted[1:] = sv[:-1]
        old_sorted[starts] = first_old
        ends = starts + sizes - 1
        flat_mem[sa[ends]] = sv[ends]
    else:
        combine = None if op == "cas" else _combine_function(op, dtype)
        threshold = _group_threshold(sizes)
        big = np.flatnonzero(sizes > threshold)
        for g in big.tolist():
            s, m = int(starts[g]), int(sizes[g])
            e = sa[s]
            if combine is None:                # cas: the caller gives compare values
                assert sc is not None
                cur = flat_mem[e]
                for j in range(s, s + m):
                    old_sorted[j] = cur
                    if cur == sc[j]:
                        cur = sv[j]
                flat_mem[e] = cur
            else:
                seq = np.empty(m + 1, dtype=dtype)
                seq[0] = flat_mem[e]
                seq[1:] = sv[s:s + m]
                acc = combine[1].accumulate(seq, dtype=dtype)
                old_sorted[s:s + m] = acc[:-1]
                flat_mem[e] = acc[-1]
        small_group = sizes <= threshold
        if small_group.any():
            rank = np.arange(n) - np.repeat(starts, sizes)
            in_small = np.repeat(small_group, sizes)
            pos = np.flatnonzero(in_small)
            pos = pos[np.argsort(rank[pos], kind="stable")]
            counts = np.bincount(rank[pos])
            bounds = np.concatenate(([0], np.cumsum(counts)))
            for r in range(len(counts)):
                p = pos[bounds[r]:bounds[r + 1]]
                e = sa[p]
                old = flat_mem[e]
                old_sorted[p] = old
                if combine is None:            # cas
                    assert sc is not None
                    hit = old == sc[p]
                    flat_mem[e[hit]] = sv[p][hit]
                else:
                    flat_mem[e] = combine[0](old, sv[p])
    old = np.empty(n, dtype=dtype)
    old[order] = old_sorted
    return old


def _group_threshold(sizes: np.ndarray) -> int:
    """A rank-step count T: groups above T are accumulated one by one, so the
    work is about T vector steps plus (number of groups larger than T) calls."""
    if sizes.size == 0:
        return 1
    desc = np.sort(sizes)[::-1]
    # smallest T with count(sizes > T) <= T
    for t in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384):
        if int(np.count_nonzero(desc > t)) <= t:
            return t
    return 16384
