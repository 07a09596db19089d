"""The SIMT scheduler: runs a decoded kernel for a whole launch, chunk by chunk.

Invariant: within a chunk every lane is one thread; a thread is pending at
exactly one segment (or has returned).  The scheduler always runs the pending
non-barrier segment that comes first in reverse postorder (so threads leaving
a loop wait at its exit until the loop has finished: reconvergence for the
reducible CFGs the frontend emits); only when every pending thread waits at a
barrier does it release the first such barrier, after checking that, for each
block involved, every thread of the block waits at that same barrier
(else BarrierDivergenceError; a returned thread counts as missing, as in
docs/LANGUAGE.md section 4).  Phis are assigned on the edge taken, as a parallel copy.
Kernels with block features run in chunks of whole blocks,
their shared arrays stacked per block and filled with poison.
"""
from __future__ import annotations

import numpy as np

from verikern.errors import BarrierDivergenceError, SimulationBudgetExceeded, StepLimitExceeded

from .memory import MemoryArray, UninitializedReads, element_strides
from .program import Program

CHUNK_THREADS = 1 << 22
SHARED_CHUNK_BYTES = 1 << 28     # bound on the stacked shared arrays of one chunk
MAX_STEPS = 5_000_000            # segment executions per chunk before giving up
VALUE_CHUNK_BYTES = 3 << 30      # bound on the lane values of one chunk
_FULL = None          # pending lanes: None means every lane of the chunk


class WorkMeter:
    """Simulated work, counted deterministically (the same launch costs the
    same on every machine): each segment execution costs its number of
    steps times the 32-thread warps it runs, at least one. Passing `limit`
    raises SimulationBudgetExceeded, so a caller bounds a simulation by
    work instead of by seconds."""

    def __init__(self, limit: int):
        self.limit = int(limit)
        self.used = 0

    @property
    def left(self) -> int:
        return self.limit - self.used

    def charge(self, steps: int, lanes: int, kernel_name: str) -> None:
        self.used += max(1, steps) * max(1, -(-lanes // 32))
        if self.used > self.limit:
            raise SimulationBudgetExceeded(
                f"kernel {kernel_name}: the simulation spent its budget of {self.limit} "
                f"warp-steps before it finished", self.used, self.limit)


_IDS_CACHE = [np.zeros(0, dtype=np.int32)]
_IDS_CACHE_LIMIT = 1 << 23


def _linear_ids(start: int, n: int) -> np.ndarray:
    """int32 ids start..start+n-1, as a read-only view of a cached arange
    when the launch is small enough to cache."""
    end = start + n
    if end > _IDS_CACHE_LIMIT:
        ids = np.arange(start, end, dtype=np.int32)
        ids.flags.writeable = False
        return ids
    if _IDS_CACHE[0].shape[0] < end:
        ids = np.arange(max(end, 1 << 16), dtype=np.int32)
        ids.flags.writeable = False
        _IDS_CACHE[0] = ids
    return _IDS_CACHE[0][start:end]


class BufferPool:
    """Lane-length arrays of values that died, kept for reuse (fresh
    allocations of large arrays cost page faults).  Invariant: an array is
    put here only when no SSA value, memory or trace refers to it."""

    LIMIT_BYTES = 1 << 28

    def __init__(self):
        self.free: dict = {}
        self.bytes = 0

    def get(self, dtype, n: int):
        stack = self.free.get((dtype, n))
        if stack:
            arr = stack.pop()
            self.bytes -= arr.nbytes
            return arr
        return None

    def clear(self) -> None:
        self.free.clear()
        self.bytes = 0

    def put(self, arr: np.ndarray) -> None:
        if self.bytes + arr.nbytes > self.LIMIT_BYTES:
            return
        self.free.setdefault((arr.dtype, arr.shape[0]), []).append(arr)
        self.bytes += arr.nbytes


_POOL = BufferPool()


class ChunkState:
    """What the steps of one chunk read and write (see instructions.py)."""

    def __init__(self, prog: Program, launch, memory: dict, start: int, n: int,
                 trace, check_array_contracts: bool):
        self.prog = prog
        self.launch = launch
        self.memory = memory
        self.start = start
        self.n = n
        self.env: dict = {}
        self.trace = trace
        self.check_array_contracts = check_array_contracts
        self.first_block = start // launch.block_dim
        nblocks = -(-(start + n) // launch.block_dim) - self.first_block
        self.intervals = np.zeros(max(nblocks, 1), dtype=np.int64)
        self._lin: np.ndarray | None = None
        self._thread_idx: np.ndarray | None = None
        self._block_idx: np.ndarray | None = None
        self._block_local: np.ndarray | None = None
        self.views: dict = {}          # array name -> value ids that may be views of it
        self._shared_base: dict = {}
        self.max_steps = MAX_STEPS
        self.meter: WorkMeter | None = None
        #: the checked mode's record of uninitialised reads (None: they raise)
        self.uninit_reads: UninitializedReads | None = None
        self.compact: dict = {}        # value id -> its array for the running segment's lanes
        self.segment_local: frozenset[int] = frozenset()   # values used only inside the running segment
        self.pool = _POOL

    def buffer(self, dtype):
        """A writable lane-length array of `dtype` to compute into, or None
        (numpy then allocates)."""
        return self.pool.get(dtype, self.n)

    def release(self, vid: int) -> None:
        """Drop value `vid`; its array goes back to the pool when it owns it."""
        self.compact.pop(vid, None)
        x = self.env.pop(vid, None)
        if (type(x) is np.ndarray and x.base is None and x.flags.writeable
                and x.shape[0] == self.n and x.ndim == 1 and x is not self._thread_idx
                and x is not self._block_idx):
            self.pool.put(x)

    def release_all(self) -> None:
        for vid in list(self.env):
            self.release(vid)

    # lanes ---------------------------------------------------------------
    @property
    def lin(self) -> np.ndarray:
        """Global linear thread ids of the lanes (int32: sizes are < 2**31).
        Steps may hold this array as a value: lanes never change their id."""
        if self._lin is None:
            self._lin = _linear_ids(self.start, self.n)
        return self._lin

    @property
    def thread_idx(self) -> np.ndarray:
        if self._thread_idx is None:
            b = self.launch.block_dim
            if b & (b - 1) == 0:
                self._thread_idx = np.bitwise_and(self.lin, np.int32(b - 1))
            else:
                self._thread_idx = self.lin % np.int32(b)
        return self._thread_idx

    @property
    def block_idx(self) -> np.ndarray:
        if self._block_idx is None:
            b = self.launch.block_dim
            if b & (b - 1) == 0:
                self._block_idx = np.right_shift(self.lin, np.int32(b.bit_length() - 1))
            else:
                self._block_idx = self.lin // np.int32(b)
        return self._block_idx

    def block_local_lanes(self, idx):
        """Each active lane's block number within this chunk (int64)."""
        if self._block_local is None:
            self._block_local = (self.block_idx - np.int32(self.first_block)).astype(np.int64)
        return self._block_local if idx is None else self._block_local[idx]

    def shared_base(self, block_elems: int, idx):
        """Each active lane's offset of its block's copy of a shared array."""
        base = self._shared_base.get(block_elems)
        if base is None:
            base = self.block_local_lanes(None) * np.int64(block_elems)
            self._shared_base[block_elems] = base
        return base if idx is None else base[idx]

    def lane_of(self, idx, j: int) -> int:
        return j if idx is None else int(idx[j])

    def lane_info(self, idx, j: int) -> tuple[int, int, int]:
        """(thread_idx, block_idx, global linear id) of active lane number j."""
        g = self.start + self.lane_of(idx, j)
        b = self.launch.block_dim
        return g % b, g // b, g


def allocate_shared(kernel, nblocks: int) -> dict:
    """Shared arrays for `nblocks` blocks, stacked, filled with poison."""
    out = {}
    for ref in kernel.shared:
        shape = tuple(ref.shape or ()) + tuple(ref.inner)
        per_block = int(np.prod(shape, dtype=np.int64)) if shape else 1
        flat = np.empty(per_block * nblocks, dtype=ref.dtype.np_dtype)
        if ref.dtype.is_float:
            flat.fill(np.nan)
        elif ref.dtype.is_bool:
            flat.fill(True)
        else:
            flat.view(np.uint8).fill(0x5A)
        out[ref.name] = MemoryArray(ref, flat, shape, element_strides(shape), per_block,
                                    np.zeros(flat.shape[0], dtype=bool))
    return out


def global_memory(kernel, arrays: dict) -> dict:
    """MemoryArrays over the (C-contiguous) global arrays."""
    out = {}
    for p in kernel.params:
        if not hasattr(p, "dtype"):
            continue
        arr = arrays[p.name]
        out[p.name] = MemoryArray(p, arr.reshape(-1), tuple(arr.shape),
                                  element_strides(tuple(arr.shape)), 0)
    return out


def bind_scalars(kernel, scalars: dict, env: dict) -> None:
    for p in kernel.scalar_params:
        env[p.value.id] = p.value.type.np_dtype.type(scalars[p.name])


def run_launch(prog: Program, launch, arrays: dict, scalars: dict, trace,
               check_array_contracts: bool = True, chunk_threads: int = CHUNK_THREADS,
               max_steps: int = MAX_STEPS, blocks=None, threads=None,
               meter: WorkMeter | None = None,
               uninit_reads: UninitializedReads | None = None) -> None:
    """Run every thread of `launch`; results land in `arrays`.

    blocks: None, or the block indices to run (in increasing order), each
    with its real ids under the unchanged launch geometry (dims, grid_dim,
    block_dim); the other blocks do not run. Blocks never synchronise with
    each other, so this is the start of a legal schedule of the launch in
    which these blocks run first.
    threads: None, or the global thread ids to run, one at a time, in a
    kernel without barriers or shared memory (threads that never wait for
    each other may run in any order, so this too starts a legal schedule);
    ValueError for a kernel with block features.
    meter: None, or the WorkMeter that every chunk's segment executions are
    charged to (SimulationBudgetExceeded once it is spent).
    uninit_reads: None (an uninitialised shared read raises
    UninitializedReadError), or the checked mode's record: such reads are
    recorded there and the run goes on (memory.UninitializedReads)."""
    kernel = prog.kernel
    work = {name: (a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order="C"))
            for name, a in arrays.items()}
    gmem = global_memory(kernel, work)
    b = launch.block_dim
    chunk_threads = max(1, min(chunk_threads, VALUE_CHUNK_BYTES // max(prog.bytes_per_lane, 1)))
    if kernel.uses_block_features or kernel.shared or prog.has_barriers:
        blocks_per_chunk = max(1, chunk_threads // b)
        shared_bytes = sum(int(np.prod(tuple(r.shape or ()) + tuple(r.inner), dtype=np.int64))
                           * r.dtype.np_dtype.itemsize for r in kernel.shared)
        if shared_bytes:
            blocks_per_chunk = max(1, min(blocks_per_chunk, SHARED_CHUNK_BYTES // shared_bytes))
        per_chunk = blocks_per_chunk * b
    else:
        per_chunk = max(1, chunk_threads)
    if threads is not None:
        if kernel.uses_block_features or kernel.shared or prog.has_barriers:
            raise ValueError(f"kernel {kernel.name} has barriers or shared memory: its "
                             "threads cannot run alone")
        bad = [t for t in threads if not 0 <= int(t) < launch.size]
        if bad:
            raise ValueError(f"thread {bad[0]} is not in the launch (size {launch.size})")
        ranges = [(int(t), 1) for t in sorted({int(t) for t in threads})]
    else:
        ranges = chunk_ranges(launch, per_chunk, blocks)
    chunk = 0
    with np.errstate(all="ignore"):
        for start, n in ranges:
            memory = dict(gmem)
            if kernel.shared:
                memory.update(allocate_shared(kernel, -(-n // b)))
            st = ChunkState(prog, launch, memory, start, n, trace,
                            check_array_contracts and chunk == 0)
            st.max_steps = max_steps
            st.meter = meter
            st.uninit_reads = uninit_reads
            bind_scalars(kernel, scalars, st.env)
            run_chunk(prog, st)
            st.release_all()
            chunk += 1
    for name, a in arrays.items():
        if work[name] is not a and a.flags.writeable:
            a[...] = work[name]


def chunk_ranges(launch, per_chunk: int, blocks=None):
    """The (first thread, thread count) ranges to run, in order: the whole
    launch in chunks of `per_chunk` threads, or, when `blocks` is given,
    just those blocks (sorted, duplicates dropped), consecutive ones merged
    into chunks of at most max(1, per_chunk // block_dim) blocks (each
    such range starts at a block boundary and ends at one, or at the end of
    the launch). Raises ValueError for a block index outside 0..grid_dim-1."""
    if blocks is None:
        start = 0
        while start < launch.size:
            n = min(per_chunk, launch.size - start)
            yield start, n
            start += n
        return
    b = launch.block_dim
    ordered = sorted({int(k) for k in blocks})
    bad = [k for k in ordered if not 0 <= k < launch.grid_dim]
    if bad:
        raise ValueError(f"block {bad[0]} is not in the launch (grid_dim {launch.grid_dim})")
    per_run = max(1, per_chunk // b)
    run: list[int] = []
    for k in ordered + [None]:
        if run and (k is None or k != run[-1] + 1 or len(run) >= per_run):
            start = run[0] * b
            yield start, min((run[-1] + 1) * b, launch.size) - start
            run = []
        if k is not None:
            run.append(k)


# ------------------------------------------------------------------ schedule
def _merge(a, b, n: int):
    if a is _FULL or b is _FULL:
        return _FULL
    m = np.concatenate((a, b))
    m.sort(kind="stable")          # two sorted runs: timsort merges them in O(n)
    return _FULL if m.shape[0] == n else m


def run_chunk(prog: Program, st: ChunkState) -> None:
    segs = prog.segments
    nseg = len(segs)
    pending: list = [False] * nseg        # False: no lanes; else _FULL or idx array
    pending[0] = _FULL
    alive = np.ones(st.n, dtype=bool)
    env = st.env
    n = st.n
    first_segment = prog.first_segment
    phis = prog.phis

    def add(k: int, lanes) -> None:
        cur = pending[k]
        pending[k] = lanes if cur is False else _merge(cur, lanes, n)

    def transfer(src: str, dst: str, lanes) -> None:
        copies = phis.get((src, dst))
        if copies:
            values = [(vid, dtype, g(st, lanes)) for vid, dtype, g in copies]
            for vid, dtype, v in values:
                if lanes is _FULL:
                    env[vid] = v.copy() if type(v) is np.ndarray else np.full(n, v, dtype=dtype)
                else:
                    buf = env.get(vid)
                    if type(buf) is not np.ndarray:
                        buf = np.empty(n, dtype=dtype)
                        env[vid] = buf
                    buf[lanes] = v
        add(first_segment[dst], lanes)

    steps_left = st.max_steps
    while True:
        k = _next_segment(prog, pending)
        if k < 0:
            return
        seg = segs[k]
        steps_left -= 1
        if steps_left < 0:
            raise StepLimitExceeded(
                f"kernel {prog.kernel.name} did not finish after {st.max_steps} scheduling "
                f"steps (threads {st.start}..{st.start + st.n - 1} are still running, now at "
                f"block {seg.label}); is there an endless loop? (a longer run needs a higher step "
                f"limit: --max-steps N on the command line, max_steps=N in vk.launch or simulate)",
                loc=seg.loc)
        lanes = pending[k]
        pending[k] = False
        if st.meter is not None:
            st.meter.charge(len(seg.steps), n if lanes is _FULL else lanes.shape[0],
                            prog.kernel.name)
        if seg.barrier is not None:
            _release_barrier(prog, st, seg, lanes, alive, pending)
        st.segment_local = seg.local_values
        for step, frees in zip(seg.steps, seg.frees):
            step(st, lanes)
            for vid in frees:
                st.release(vid)
        term = seg.term
        if term is None:                       # the segment ends at a barrier
            st.compact = {}
            add(k + 1, lanes)
            continue
        kind = term.kind
        if kind == "jump":
            transfer(seg.label, term.targets[0], lanes)    # same lanes: compact values hold
        elif kind == "branch":
            c = term.cond(st, lanes)
            st.compact = {}                    # the branch splits the lanes
            if type(c) is not np.ndarray:
                transfer(seg.label, term.targets[0 if c else 1], lanes)
            else:
                t: np.ndarray | bool | None   # lanes taking each edge: _FULL, False or an index array
                f: np.ndarray | bool | None
                if lanes is _FULL:
                    if c.all():
                        t, f = _FULL, False
                    elif not c.any():
                        t, f = False, _FULL
                    else:
                        t, f = np.flatnonzero(c), np.flatnonzero(~c)
                else:
                    taken, fallen = lanes[c], lanes[~c]
                    t = taken if taken.shape[0] else False
                    f = fallen if fallen.shape[0] else False
                if t is not False:
                    transfer(seg.label, term.targets[0], t)
                if f is not False:
                    transfer(seg.label, term.targets[1], f)
        elif kind == "return":
            if lanes is _FULL:
                alive[:] = False
            else:
                alive[lanes] = False
        else:
            raise NotImplementedError(f"simulator: unknown terminator {kind!r}")
        for vid in seg.term_frees:
            st.release(vid)
        st.compact = {}


def _next_segment(prog: Program, pending: list) -> int:
    """The pending segment to run next (-1: none).

    The first pending segment in reverse postorder, except that threads
    waiting at a barrier let other pending threads run first when those are
    not at a point the barrier's block must pass through later (a
    post-dominator): such threads may still arrive (an earlier iteration) or
    return (an early `return`).  Threads already past a post-dominator have
    skipped the barrier: the barrier's check then reports the divergence."""
    segs = prog.segments
    k = -1
    for i in range(len(segs)):
        if pending[i] is not False:
            k = i
            break
    if k < 0 or segs[k].barrier is None:
        return k
    seg_k = segs[k]
    after_barrier = prog.postdominators[seg_k.label]
    for j in range(k + 1, len(segs)):
        if pending[j] is False or segs[j].barrier is not None:
            continue
        if segs[j].label not in after_barrier:
            return j
    return k


def _release_barrier(prog: Program, st: ChunkState, seg, lanes, alive, pending) -> None:
    """Check that each block with threads waiting at `seg.barrier` has every
    one of its threads there (docs/LANGUAGE.md section 4: every thread of the block
    reaches the same barrier the same number of times, so a thread that
    returned before it, or waits elsewhere, is divergence); then count the
    barrier for those blocks."""
    b = st.launch.block_dim
    n = st.n
    nb = -(-n // b)
    waiting = np.arange(n) if lanes is _FULL else lanes
    wait_counts = np.bincount(waiting // b, minlength=nb)
    thread_counts = np.full(nb, b, dtype=np.int64)
    thread_counts[-1] = n - (nb - 1) * b
    involved = wait_counts > 0
    bad = np.flatnonzero(involved & (wait_counts != thread_counts))
    if bad.size:
        blk = int(bad[0])
        here = np.zeros(b, dtype=bool)
        here[waiting[waiting // b == blk] - blk * b] = True
        missing_local = np.flatnonzero(~here[:int(thread_counts[blk])])
        lane = blk * b + int(missing_local[0])
        present = int(waiting[waiting // b == blk][0])
        elsewhere = ("has returned without reaching it" if not alive[lane]
                     else "has not arrived")
        other_barrier = None
        for other in prog.segments:
            lanes_there = pending[other.index]
            if lanes_there is False or other is seg:
                continue
            if lanes_there is _FULL or np.any(lanes_there == lane):
                if other.barrier is not None:
                    other_barrier = other.barrier.loc
                    elsewhere = f"waits at the barrier at line {other.barrier.loc.line}"
                elif other.loc is not None:
                    elsewhere = (f"is at line {other.loc.line} without having passed "
                                 f"this barrier")
                else:
                    elsewhere = f"is at block {other.label}"
                break
        t_here, block, _ = st.lane_info(None, present)
        t_missing, _, _ = st.lane_info(None, lane)
        loc = seg.barrier.loc
        raise BarrierDivergenceError(
            f"barrier divergence at the barrier at line {loc.line} in kernel "
            f"{prog.kernel.name}: thread {t_here} of block {block} waits here but "
            f"thread {t_missing} of the same block {elsewhere}; every thread "
            f"of a block must reach the same barrier the same number of times",
            loc=loc, thread=t_missing, block=block, waiting_thread=t_here,
            other_barrier=other_barrier)
    st.intervals[np.flatnonzero(involved)] += 1
