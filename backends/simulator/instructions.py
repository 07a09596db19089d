"""The simulator's dispatch table: MIR instruction class -> compiled step.

Invariant: `INSTRUCTION_TABLE` has an entry for every class in
`INSTRUCTION_CLASSES`, for `Phi` and for every terminator; `compile_instruction`
raises for anything else (never skips).  A compiled step is a closure
`step(st, idx)` that executes one instruction for the active lanes (`idx is
None`: every lane of the chunk; else an int64 array of lane numbers) and
writes its result into `st.env` without disturbing inactive lanes (values
used only inside the running segment may live in `st.compact` alone).  Every
array held in `st.env` belongs to that one value (results are fresh arrays or
pool buffers), except read-only views (of memory, of lane ids), which are
copied before anything writes through them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verikern.mir.facts import is_int_division
from verikern.mir.ops import ATOMIC
from verikern.mir.nodes import (
    Assert, Atomic, Barrier, BinOp, Branch, Cast, Compare, Const, Jump, Load,
    Phi, Requires, RequiresArray, Return, Select, ShapeOf, Special, Store,
    UnaryOp,
)

from verikern.backends.contracts import check_array_contents, requires_broken
from verikern.backends.semantics import ops
from verikern.backends.semantics.traps import assertion_failed, division_fault, faulting_divisions
from .memory import apply_atomic, check_initialized, flat_address, index_is_bad, out_of_bounds


# ------------------------------------------------------------ operand access
def operand_getter(op):
    """A function (st, idx) -> the operand's value for the active lanes:
    a numpy scalar for uniform values, else an array of one entry per lane."""
    if isinstance(op, Const):
        c = op.type.np_dtype.type(op.value)
        return lambda st, idx: c
    vid = op.id

    def get(st, idx):
        if idx is not None:
            c = st.compact.get(vid)
            if c is not None:
                return c
        x = st.env[vid]
        if idx is not None and type(x) is np.ndarray:
            return x[idx]
        return x
    return get


def store_result(st, vid: int, res, idx) -> None:
    """Write `res` (for the active lanes) as the value of `vid`.

    With some lanes active, the compact result is also kept in `st.compact`
    (valid while the current segment runs on these lanes); a value used only
    inside this segment lives there alone and is never scattered."""
    if idx is None or type(res) is not np.ndarray:
        st.env[vid] = res
        return
    st.compact[vid] = res
    if vid in st.segment_local:
        return
    buf = st.env.get(vid)
    if type(buf) is np.ndarray and (buf.base is not None or not buf.flags.writeable):
        buf = buf.copy()          # a view (of memory, of lane ids): never write through it
        st.env[vid] = buf
    if type(buf) is not np.ndarray or buf.shape[0] != st.n or buf.dtype != res.dtype:
        old = buf
        buf = np.empty(st.n, dtype=res.dtype)
        if old is not None and type(old) is not np.ndarray:
            buf[:] = old
        st.env[vid] = buf
    buf[idx] = res


def _lane_count(st, idx) -> int:
    return st.n if idx is None else idx.shape[0]


def _first_false(cond) -> int:
    return int(np.argmin(cond)) if isinstance(cond, np.ndarray) else 0


def _all_true(cond) -> bool:
    return bool(cond.all()) if isinstance(cond, np.ndarray) else bool(cond)


# ------------------------------------------------------------- pure compute
def compile_binop(ins: BinOp, prog):
    fn = ops.binary_function(ins.op, ins.result.type)
    a, b = operand_getter(ins.lhs), operand_getter(ins.rhs)
    vid = ins.result.id
    check_fault = is_int_division(ins)
    ufunc = ops.binary_ufunc(ins.op, ins.result.type)
    dtype = ins.result.type.np_dtype

    def step(st, idx):
        x, y = a(st, idx), b(st, idx)
        if check_fault:
            bad = faulting_divisions(ins, x, y)
            if (bad.any() if type(bad) is np.ndarray else bad):
                j = int(np.argmax(bad)) if type(bad) is np.ndarray else 0
                thread, block, gtid = st.lane_info(idx, j)
                raise division_fault(ins, prog.kernel.name, thread, block, gtid,
                                     ops_value(x, j), ops_value(y, j))
        if ufunc is not None and idx is None and (type(x) is np.ndarray or type(y) is np.ndarray):
            st.env[vid] = ufunc(x, y, out=st.buffer(dtype))
            return
        store_result(st, vid, fn(x, y), idx)
    return step


def ops_value(v, j: int):
    if isinstance(v, np.ndarray):
        return v[j].item()
    return v.item() if isinstance(v, np.generic) else v


_MONOTONE = ("lt", "le", "gt", "ge")
_BOOL = np.dtype(bool)
_INT64 = np.dtype(np.int64)


def _recycle(st, addr, pooled: bool) -> None:
    """Give an address buffer taken from the pool back to it."""
    if pooled:
        st.pool.put(addr)


def compile_compare(ins: Compare, prog):
    fn = ops.compare_function(ins.op, ins.lhs.type)
    a, b = operand_getter(ins.lhs), operand_getter(ins.rhs)
    vid = ins.result.id
    monotone = ins.op in _MONOTONE and ins.lhs.type.is_int

    def step(st, idx):
        x, y = a(st, idx), b(st, idx)
        if monotone and idx is None and x is st.lin and type(y) is not np.ndarray:
            # lane ids are increasing: the compare is uniform over the chunk
            # when it agrees at both ends
            first = fn(np.int64(st.start), int(y))
            if first == fn(np.int64(st.start + st.n - 1), int(y)):
                st.env[vid] = np.bool_(first)
                return
        if idx is None and (type(x) is np.ndarray or type(y) is np.ndarray):
            st.env[vid] = fn(x, y, out=st.buffer(_BOOL))
            return
        r = fn(x, y)
        store_result(st, vid, r if type(r) is np.ndarray else np.bool_(r), idx)
    return step


def compile_unop(ins: UnaryOp, prog):
    fn = ops.unary_function(ins.op, ins.result.type)
    a = operand_getter(ins.operand)
    vid = ins.result.id

    def step(st, idx):
        store_result(st, vid, fn(a(st, idx)), idx)
    return step


def compile_cast(ins: Cast, prog):
    fn = ops.cast_function(ins.operand.type, ins.result.type)
    a = operand_getter(ins.operand)
    vid = ins.result.id

    def step(st, idx):
        store_result(st, vid, fn(a(st, idx)), idx)
    return step


def compile_select(ins: Select, prog):
    c, t, f = (operand_getter(o) for o in (ins.cond, ins.if_true, ins.if_false))
    dtype = ins.result.type.np_dtype
    vid = ins.result.id

    def step(st, idx):
        store_result(st, vid, ops.select_values(c(st, idx), t(st, idx), f(st, idx), dtype), idx)
    return step


def compile_special(ins: Special, prog):
    vid, kind, dim = ins.result.id, ins.kind, ins.dim
    if kind not in ("thread_idx", "block_idx", "block_dim", "grid_dim", "launch_dim"):
        raise NotImplementedError(f"simulator: unknown special {kind!r}")

    def step(st, idx):
        if kind == "block_dim":
            r = np.int32(st.launch.block_dim)
        elif kind == "grid_dim":
            r = np.int32(st.launch.grid_dim)
        elif kind == "launch_dim":
            r = np.int32(st.launch.dims[dim])
        else:
            # the cached lane array itself: a lane's value never changes, so
            # later partial writes into it rewrite identical values
            lanes = st.thread_idx if kind == "thread_idx" else st.block_idx
            r = lanes if idx is None else lanes[idx]
        store_result(st, vid, r, idx)
    return step


def compile_linear_id(ins: BinOp, prog):
    """block_idx * block_dim + thread_idx, read as the lane's linear id."""
    vid = ins.result.id

    def step(st, idx):
        store_result(st, vid, st.lin if idx is None else st.lin[idx], idx)
    return step


def compile_shape(ins: ShapeOf, prog):
    vid, name, dim = ins.result.id, ins.array.name, ins.dim

    def step(st, idx):
        st.env[vid] = np.int32(st.memory[name].shape[dim])
    return step


# ------------------------------------------------------------------- memory
def _access(ins, prog):
    """(index getters, function st, idx -> (mem, flat addresses)) with the
    bounds check done; the trace records the access when enabled (never an
    address-only load's: it reads nothing)."""
    getters = [operand_getter(i) for i in ins.indices]
    ref = ins.array
    name, shared = ref.name, ref.space == "shared"
    ndim = ref.ndim
    if len(ins.indices) != ref.full_ndim:
        raise NotImplementedError(
            f"simulator: {type(ins).__name__} of {ref.name} at {ins.loc} has "
            f"{len(ins.indices)} indices for {ref.full_ndim} dimensions (malformed MIR)")
    site = prog.sites[id(ins)]
    op_kind = "read" if isinstance(ins, Load) else "write" if isinstance(ins, Store) else "atomic"
    recorded = not (isinstance(ins, Load) and ins.address_only)

    def contiguous(st, mem, ixs):
        """A slice when lane k accesses [start + k, c1, c2...] (in bounds), else None."""
        if shared or ixs[0] is not st.lin:
            return None
        for ix in ixs[1:]:
            if type(ix) is np.ndarray:
                return None
        if st.start + st.n > mem.shape[0]:
            return None
        base = 0
        for k in range(1, len(ixs)):
            v = int(ixs[k])
            if k < ndim and not 0 <= v < mem.shape[k]:
                return None
            base += v * mem.strides[k]
        s0 = mem.strides[0]
        first = st.start * s0 + base
        return slice(first, first + (st.n - 1) * s0 + 1, s0)

    def address(st, idx):
        mem = st.memory[name]
        ixs = [g(st, idx) for g in getters]
        n = _lane_count(st, idx)
        if idx is None:
            sl = contiguous(st, mem, ixs)
            if sl is not None:
                if st.trace is not None and recorded:
                    st.trace.record(st, idx, mem, ixs, np.arange(sl.start, sl.stop, sl.step),
                                    op_kind, ins.loc, site)
                return mem, sl, False
        for k in range(len(ixs)):              # inner indices too (cheap: constants)
            bad = index_is_bad(ixs[k], mem.shape[k])
            if (bad.any() if type(bad) is np.ndarray else bad):
                j = int(np.argmax(bad)) if type(bad) is np.ndarray else 0
                thread, block, gtid = st.lane_info(idx, j)
                raise out_of_bounds(mem, k, ixs, j, ins.loc, prog.kernel.name,
                                    thread, block, gtid)
        if (len(ixs) == 1 and not shared and type(ixs[0]) is np.ndarray
                and ixs[0].dtype in (np.int32, np.int64)):
            addr, pooled = ixs[0], False
        else:
            buf = st.buffer(_INT64) if idx is None else None
            addr = flat_address(mem, ixs, st.shared_base(mem.block_elems, idx) if shared else None,
                                n, buf)
            if buf is not None and addr is not buf:
                st.pool.put(buf)
            pooled = buf is not None and addr is buf
        if st.trace is not None and recorded:
            st.trace.record(st, idx, mem, ixs, addr, op_kind, ins.loc, site)
        return mem, addr, pooled
    return address


def compile_load(ins: Load, prog):
    address = _access(ins, prog)
    if ins.address_only:      # type(a[i]): the index is checked, nothing is read
        def check(st, idx):
            _, addr, pooled = address(st, idx)
            _recycle(st, addr, pooled)
        return check
    vid = ins.result.id
    # an array the kernel never writes is constant during the launch, so a
    # coalesced load may hand out a view of it instead of a copy
    read_only = ins.array.name in prog.read_only_arrays
    name = ins.array.name
    uninit = _uninit_check(ins, prog)

    def step(st, idx):
        mem, addr, pooled = address(st, idx)
        if uninit is not None:
            uninit(st, idx, mem, addr)
        if type(addr) is slice:
            # a view, not a copy: a later write to this array first copies
            # every live view of it (see materialize_views)
            store_result(st, vid, mem.flat[addr], idx)
            if not read_only:
                st.views.setdefault(name, []).append(vid)
        else:
            out = st.buffer(mem.flat.dtype) if idx is None else None
            store_result(st, vid, np.take(mem.flat, addr, out=out), idx)
            _recycle(st, addr, pooled)
    return step


def _uninit_check(ins, prog):
    """For an access that reads a shared array (a load, an atomic): a check
    (st, idx, mem, addr) that every element read was written before by a
    thread of the block (UninitializedReadError otherwise); None for global
    arrays. Shared addresses are never slices (see `_access`)."""
    if ins.array.space != "shared":
        return None
    getters = [operand_getter(i) for i in ins.indices]
    loc, kernel_name = ins.loc, prog.kernel.name

    def check(st, idx, mem, addr):
        check_initialized(mem, addr, lambda: [g(st, idx) for g in getters], loc,
                          kernel_name, st, idx)
    return check


def _mark_written(mem, addr) -> None:
    """Record that the elements at `addr` of a shared array were written."""
    if mem.written is not None:
        mem.written[addr] = True


def materialize_views(st, name: str) -> None:
    """Before `name` is written: values that still view its memory become copies."""
    for vid in st.views.pop(name, ()):
        x = st.env.get(vid)
        if type(x) is np.ndarray and x.base is not None:
            st.env[vid] = x.copy()


def compile_store(ins: Store, prog):
    address = _access(ins, prog)
    name = ins.array.name
    value = operand_getter(ins.value)

    def step(st, idx):
        mem, addr, pooled = address(st, idx)
        if st.views:
            materialize_views(st, name)
        mem.flat[addr] = value(st, idx)
        _mark_written(mem, addr)
        _recycle(st, addr, pooled)
    return step


def compile_atomic(ins: Atomic, prog):
    if ins.op not in ATOMIC:
        raise NotImplementedError(f"simulator: unknown atomic op {ins.op!r}")
    address = _access(ins, prog)
    value = operand_getter(ins.value)
    compare = operand_getter(ins.compare) if ins.compare is not None else None
    vid, op, name = ins.result.id, ins.op, ins.array.name
    uninit = _uninit_check(ins, prog)

    def step(st, idx):
        mem, addr, pooled = address(st, idx)
        if uninit is not None:
            uninit(st, idx, mem, addr)
        if st.views:
            materialize_views(st, name)
        cmp = compare(st, idx) if compare is not None else None
        if type(addr) is slice:
            addr = np.arange(addr.start, addr.stop, addr.step, dtype=np.int64)
        store_result(st, vid, apply_atomic(op, mem.flat, addr, value(st, idx), cmp), idx)
        _mark_written(mem, addr)
        _recycle(st, addr, pooled)
    return step


# ---------------------------------------------------------------- contracts
def compile_assert(ins: Assert, prog):
    cond = operand_getter(ins.cond)

    def step(st, idx):
        c = cond(st, idx)
        if not _all_true(c):
            thread, block, gtid = st.lane_info(idx, _first_false(c))
            raise assertion_failed(ins, prog.kernel.name, thread, block, gtid)
    return step


def compile_requires(ins: Requires, prog):
    cond = operand_getter(ins.cond)

    def step(st, idx):
        if not _all_true(cond(st, idx)):
            raise requires_broken(prog.kernel.name, ins, st.launch)
    return step


def compile_requires_array(ins: RequiresArray, prog):
    lo = operand_getter(ins.lo) if ins.lo is not None else None
    hi = operand_getter(ins.hi) if ins.hi is not None else None

    def step(st, idx):
        if not st.check_array_contracts:
            return
        check_array_contents(prog.kernel.name, ins, st.memory[ins.array.name].flat,
                             lo(st, idx) if lo is not None else None,
                             hi(st, idx) if hi is not None else None)
    return step


# ----------------------------------------------- scheduler-level instructions
@dataclass(frozen=True)
class PhiCopy:
    """A phi as the scheduler applies it on each incoming edge."""

    result: int
    dtype: np.dtype
    incoming: dict


@dataclass(frozen=True)
class BarrierPoint:
    """A barrier: the scheduler ends the segment here."""

    barrier: Barrier


@dataclass(frozen=True)
class TerminatorStep:
    """kind 'jump' | 'branch' | 'return'; cond: getter for branches."""

    kind: str
    targets: tuple[str, ...]
    cond: object = None


def compile_phi(ins: Phi, prog):
    return PhiCopy(ins.result.id, ins.result.type.np_dtype,
                   {label: operand_getter(v) for label, v in ins.incoming})


def compile_barrier(ins: Barrier, prog):
    return BarrierPoint(ins)


def compile_jump(ins: Jump, prog):
    return TerminatorStep("jump", (ins.target,))


def compile_branch(ins: Branch, prog):
    return TerminatorStep("branch", (ins.if_true, ins.if_false), operand_getter(ins.cond))


def compile_return(ins: Return, prog):
    return TerminatorStep("return", ())


INSTRUCTION_TABLE = {
    BinOp: compile_binop, Compare: compile_compare, UnaryOp: compile_unop,
    Cast: compile_cast, Select: compile_select, Special: compile_special,
    ShapeOf: compile_shape, Load: compile_load, Store: compile_store,
    Atomic: compile_atomic, Barrier: compile_barrier, Assert: compile_assert,
    Requires: compile_requires, RequiresArray: compile_requires_array,
    Phi: compile_phi, Jump: compile_jump, Branch: compile_branch, Return: compile_return,
}


def compile_instruction(ins, prog):
    """The compiled form of `ins` from the table; unknown classes raise."""
    try:
        compiler = INSTRUCTION_TABLE[type(ins)]
    except KeyError:
        raise NotImplementedError(
            f"simulator: no semantics for MIR instruction {type(ins).__name__} "
            f"(OPCODE {getattr(ins, 'OPCODE', '?')!r})") from None
    return compiler(ins, prog)
