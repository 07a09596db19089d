"""Lowering of one thread's MIR control-flow graph into an LLVM function,
shared by every target; what differs per target comes from a target object
(`special`, `shape`, `array_base`, `barrier`, `ret`, `report_error`, `libm`).

Invariant: every MIR instruction class (and Phi and each terminator) has an
entry in `LOWERING`; a class without one raises LoweringError instead of
being skipped. Every memory access is bounds-checked and every integer
division checked for a zero divisor before it executes (a failed check
branches to a cold block that reports the error through the target), so the
generated code never performs an out-of-bounds access or LLVM UB -- except
the index checks named in `unchecked` ((block label, instruction index,
dimension) of the MIR access), which the caller drops only where the
prover proved that bounds obligation under the launches the caller admits
(verikern.app.build).
Values named in `homes` (values live across a barrier) live in allocas that
LLVM's mem2reg turns back into SSA; every other value is plain SSA.
"""
from __future__ import annotations

from typing import Iterable

from llvmlite import ir

from verikern.mir.cfg import reverse_postorder
from verikern.mir.nodes import (
    Assert, Atomic, Barrier, BinOp, Branch, Cast, Compare, Const, Jump, Kernel,
    Load, Phi, Requires, RequiresArray, Return, Select, ShapeOf, Special, Store,
    UnaryOp, Value,
)

from . import ops
from .abi import (
    DOUBLE, ERR_ASSERT, ERR_BOUNDS, ERR_FUEL, HALF, I1, I32, I64, ErrorSite, storage_type,
    value_type,
)
from .ops import LoweringError


def constant(c: Const) -> ir.Constant:
    """An LLVM constant of the MIR constant's value type, exactly representable."""
    ty = value_type(c.type)
    if c.type.is_bool:
        return ir.Constant(ty, int(bool(c.value)))
    if c.type.is_int:
        return ir.Constant(ty, c.type.wrap(int(c.value)))
    return ir.Constant(ty, float(c.type.np_dtype.type(c.value)))   # rounded to the type


def linear_id_values(kernel: Kernel) -> tuple[set[int], set[int]]:
    """(no-wrap ids, linear ids): `block_idx * block_dim` and
    `block_idx * block_dim + thread_idx` as the frontend lowers `vk.tid()`.
    Both are below launch_size < 2**31 for every thread that runs (the CPU
    loops never run others; the nvptx entry returns for them), so their
    add/mul never wrap and the linear id lies in [0, launch_size)."""
    special: dict[int, str] = {}
    for _, ins in kernel.instructions():
        if isinstance(ins, Special):
            special[ins.result.id] = ins.kind

    def kinds(ins: BinOp) -> list[str]:
        return sorted(special.get(o.id, "") if isinstance(o, Value) else "" for o in (ins.lhs, ins.rhs))

    base, linear = set(), set()
    for _, ins in kernel.instructions():
        if isinstance(ins, BinOp) and ins.op == "mul" and ins.result.type.name == "int32" \
                and kinds(ins) == ["block_dim", "block_idx"]:
            base.add(ins.result.id)
    for _, ins in kernel.instructions():
        if isinstance(ins, BinOp) and ins.op == "add" and ins.result.type.name == "int32":
            ids = [o.id for o in (ins.lhs, ins.rhs) if isinstance(o, Value)]
            if any(i in base for i in ids) and "thread_idx" in [special.get(i) for i in ids]:
                linear.add(ins.result.id)
    return base | linear, linear


class Emitter:
    """State of lowering one kernel body: the builder, value map, check sites."""

    def __init__(self, kernel: Kernel, module: ir.Module, func: ir.Function,
                 target, fast_math: bool, homes: dict[int, ir.Value] | None = None,
                 barrier_ids: dict[tuple[str, int], int] | None = None,
                 unchecked: frozenset[tuple[str, int, int]] = frozenset()):
        self.kernel = kernel
        #: (block label, instruction index, dimension) of index checks left out
        self.unchecked = unchecked
        #: labels of blocks whose branch every running thread takes to its
        #: true side (the CPU thread loop stops at the guard: guard.py)
        self.always_taken: set[str] = set()
        self.module = module
        self.func = func
        self.target = target
        self.fast = ("fast",) if fast_math else ()
        self.b = ir.IRBuilder()
        self.values: dict[int, ir.Value] = {}
        self.homes = homes or {}
        self.barrier_ids = barrier_ids or {}
        self.sites: list[ErrorSite] = []
        self.blocks: dict[str, ir.Block] = {}
        self._phis: dict[tuple[str, int], ir.PhiInstr] = {}
        self._pending: list[tuple[ir.PhiInstr, ir.Value, ir.Block]] = []
        self._unlikely = module.add_metadata(
            [ir.MetaDataString(module, "branch_weights"),
             ir.Constant(I32, 1 << 20), ir.Constant(I32, 1)])
        self.label = ""
        self.index = 0
        self.nowrap, self.linear = linear_id_values(kernel)
        #: an i64 global counting down loop-header executions (CPU replay
        #: builds only, `kernel_cpu.build_cpu(fuel=True)`), or None
        self.fuel: ir.GlobalVariable | None = None
        self._loop_locs = {lp.header: lp.loc for lp in kernel.loops}

    def assume(self, cond: ir.Value) -> None:
        """Tell LLVM a fact the launch guarantees (never a checked property)."""
        self.b.call(self.intrinsic("llvm.assume", ir.VoidType(), [I1]), [cond])

    # ---------------------------------------------------------- values
    def operand(self, op) -> ir.Value:
        if isinstance(op, Const):
            return constant(op)
        if op.id in self.homes:
            return self.b.load(self.homes[op.id])
        try:
            return self.values[op.id]
        except KeyError:
            raise LoweringError(f"kernel {self.kernel.name}: value {op} used before "
                                f"its definition (MIR not in SSA form?)") from None

    def assume_shapes(self, lengths) -> None:
        """Array lengths and launch dims are int32 values >= 0."""
        for n in lengths:
            self.assume(self.b.icmp_signed(">=", n, ir.Constant(I32, 0)))

    def define(self, value: Value, v: ir.Value) -> None:
        self.values[value.id] = v
        if value.id in self.linear:
            self.assume(self.b.icmp_signed(">=", v, ir.Constant(I32, 0)))
            self.assume(self.b.icmp_unsigned("<", v, self.target.launch_size))
        if value.id in self.homes:
            self.b.store(v, self.homes[value.id])

    def intrinsic(self, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name)
        return fn

    def libm(self, name: str, nargs: int) -> ir.Function:
        """The target's float64 math function `name`. A C library function is
        marked `nobuiltin`, so LLVM never replaces a call by other code
        (`pow(x, 2.0)` by `x*x`, `pow(2.0, x)` by `exp2(x)`): the result is
        the library's, exactly as the simulator computes it."""
        sym = self.target.libm_name(name)
        fn = self.intrinsic(sym, DOUBLE, [DOUBLE] * nargs)
        if sym == name and "nobuiltin" not in fn.attributes:
            fn.attributes.add("nobuiltin")
        return fn

    # ---------------------------------------------------------- checks
    def add_site(self, code: int, loc, message: str, array: str = "",
                 detail: str = "") -> int:
        self.sites.append(ErrorSite(code, loc, message, array, detail))
        return len(self.sites) - 1

    def check(self, ok: ir.Value, code: int, loc, message: str, array: str = "",
              detail: tuple[ir.Value, ...] = (), note: str = "") -> None:
        """Continue when `ok`; otherwise report error `code` at a new site."""
        site = self.add_site(code, loc, message, array, note)
        fail = self.func.append_basic_block(f"fail.{site}")
        cont = self.func.append_basic_block(f"ok.{site}")
        br = self.b.cbranch(ok, cont, fail)
        br.set_metadata("prof", self._unlikely)
        self.b.position_at_end(fail)
        self.target.report_error(self, code, ir.Constant(I32, site), detail)
        self.b.position_at_end(cont)

    def as_i64(self, v: ir.Value, signed: bool) -> ir.Value:
        if v.type == I64:
            return v
        return self.b.sext(v, I64) if signed else self.b.zext(v, I64)

    # ---------------------------------------------------------- memory
    def element_pointer(self, ins) -> ir.Value:
        """Checked pointer to array[indices] (row- or column-major, inner last)."""
        arr = ins.array
        b = self.b
        if len(ins.indices) != arr.full_ndim:
            raise LoweringError(f"{ins.loc}: {arr.name} needs {arr.full_ndim} indices")
        flat_logical: list[ir.Value] = []
        lengths: list[ir.Value] = []
        for d in range(arr.ndim):
            op = ins.indices[d]
            i = self.operand(op)
            t = op.type
            n = self.target.shape(self, arr, d)
            signed = t.is_signed
            if t.bits < 32:
                i = b.sext(i, I32) if signed else b.zext(i, I32)
            if i.type == I32:
                ok = b.icmp_unsigned("<", i, n)
                wide = b.zext(i, I64)
            else:
                wide = i
                ok = b.icmp_unsigned("<", i, b.zext(n, I64))
            if (self.label, self.index, d) not in self.unchecked:
                self.check(ok, ERR_BOUNDS, ins.loc,
                           f"index out of bounds in dimension {d} of array '{arr.name}'",
                           arr.name, (ir.Constant(I64, d), self.as_i64(i, signed),
                                      b.zext(n, I64)))
            flat_logical.append(wide)
            lengths.append(b.zext(n, I64))
        order: Iterable[int] = range(arr.ndim)
        if arr.space == "shared" and arr.layout == "column_major":
            order = reversed(range(arr.ndim))
        flat = None
        for d in order:
            flat = flat_logical[d] if flat is None else b.add(
                b.mul(flat, lengths[d], flags=["nuw", "nsw"]), flat_logical[d],
                flags=["nuw", "nsw"])
        if flat is None:
            flat = ir.Constant(I64, 0)
        for k, extent in enumerate(arr.inner):
            op = ins.indices[arr.ndim + k]
            if not isinstance(op, Const) or not 0 <= int(op.value) < extent:
                raise LoweringError(f"{ins.loc}: inner index {op} of {arr.name} must be "
                                    f"a constant in [0, {extent})")
            flat = b.add(b.mul(flat, ir.Constant(I64, extent), flags=["nuw", "nsw"]),
                         ir.Constant(I64, int(op.value)), flags=["nuw", "nsw"])
        base = self.target.array_base(self, arr)
        return b.gep(base, [flat], inbounds=True)

    def to_storage(self, v: ir.Value, t) -> ir.Value:
        return self.b.zext(v, storage_type(t)) if t.is_bool else v

    def from_storage(self, v: ir.Value, t) -> ir.Value:
        if t.is_bool:
            return self.b.icmp_unsigned("!=", v, ir.Constant(v.type, 0))
        return v

    # ---------------------------------------------------------- control flow
    def prepare_blocks(self) -> ir.Block:
        """Create an LLVM block (with its phis) per reachable MIR block;
        return the block of the MIR entry."""
        saved = self.b.block if self.b.block is not None else None
        for label in reverse_postorder(self.kernel):
            blk = self.func.append_basic_block(f"mir.{label}")
            self.blocks[label] = blk
            self.b.position_at_end(blk)
            for i, phi in enumerate(self.kernel.block(label).phis):
                handler(phi)(self, phi)
                self._phis[(label, i)] = self.values[phi.result.id]
        if saved is not None:
            self.b.position_at_end(saved)
        return self.blocks[self.kernel.entry.label]

    def edge(self, target_label: str) -> ir.Block:
        """Record phi inputs for the edge current MIR block -> target."""
        dst = self.kernel.block(target_label)
        for i, phi in enumerate(dst.phis):
            sources = [op for lbl, op in phi.incoming if lbl == self.label]
            if not sources:
                raise LoweringError(f"{phi.loc}: phi has no input from {self.label}")
            value = self.operand(sources[0])
            self._pending.append((self._phis[(target_label, i)], value, self.b.block))
        return self.blocks[target_label]

    def _burn_fuel(self, loc) -> None:
        """One loop-header execution: the fuel counter goes down by one; the
        thread stops with ERR_FUEL when it goes below zero."""
        left = self.b.sub(self.b.load(self.fuel), ir.Constant(I64, 1))
        self.b.store(left, self.fuel)
        self.check(self.b.icmp_signed(">=", left, ir.Constant(I64, 0)), ERR_FUEL, loc,
                   "the launch spent its fuel (loop iterations)")

    def lower_body(self) -> None:
        for label in self.blocks:
            mir_block = self.kernel.block(label)
            self.label = label
            self.b.position_at_end(self.blocks[label])
            for phi in mir_block.phis:
                if phi.result.id in self.homes:
                    self.b.store(self.values[phi.result.id], self.homes[phi.result.id])
            if self.fuel is not None and label in self._loop_locs:
                self._burn_fuel(self._loop_locs[label])
            for idx, ins in enumerate(mir_block.instrs):
                self.index = idx
                handler(ins)(self, ins)
            handler(mir_block.terminator)(self, mir_block.terminator)
        for phi, v, blk in self._pending:
            phi.add_incoming(v, blk)


# ------------------------------------------------------------- handlers
def _lower_special(em: Emitter, ins: Special) -> None:
    em.define(ins.result, em.target.special(em, ins))


def _lower_shape(em: Emitter, ins: ShapeOf) -> None:
    if ins.array.space != "global":
        raise LoweringError(f"{ins.loc}: ShapeOf on shared array {ins.array.name}")
    em.define(ins.result, em.target.shape(em, ins.array, ins.dim))


def _lower_load(em: Emitter, ins: Load) -> None:
    ptr = em.element_pointer(ins)
    em.define(ins.result, em.from_storage(em.b.load(ptr), ins.array.dtype))


def _lower_store(em: Emitter, ins: Store) -> None:
    ptr = em.element_pointer(ins)
    em.b.store(em.to_storage(em.operand(ins.value), ins.array.dtype), ptr)


_INT_RMW = {"add": "add", "sub": "sub", "exch": "xchg", "and": "and", "or": "or",
            "xor": "xor"}
_FLOAT_RMW = {"add": "fadd", "sub": "fsub", "min": "fmin", "max": "fmax", "exch": "xchg"}


def _float_cas(em: Emitter, ptr, compare, value) -> ir.Value:
    """Store `value` when the element == compare (float equality); return old."""
    b = em.b
    ity = ir.IntType(16 if value.type == HALF else 64 if value.type == DOUBLE else 32)
    iptr = b.bitcast(ptr, ir.PointerType(ity, ptr.type.addrspace))
    start = b.block
    first = b.load_atomic(iptr, "monotonic", ity.width // 8)
    loop = em.func.append_basic_block("cas.loop")
    attempt = em.func.append_basic_block("cas.try")
    done = em.func.append_basic_block("cas.done")
    b.branch(loop)
    b.position_at_end(loop)
    seen = b.phi(ity)
    seen.add_incoming(first, start)
    old = b.bitcast(seen, value.type)
    b.cbranch(b.fcmp_ordered("==", old, compare), attempt, done)
    b.position_at_end(attempt)
    pair = b.cmpxchg(iptr, seen, b.bitcast(value, ity), "monotonic", "monotonic")
    seen.add_incoming(b.extract_value(pair, 0), attempt)
    b.cbranch(b.extract_value(pair, 1), done, loop)
    b.position_at_end(done)
    result = b.phi(ity)
    result.add_incoming(seen, loop)
    result.add_incoming(seen, attempt)
    return b.bitcast(result, value.type)


def _lower_atomic(em: Emitter, ins: Atomic) -> None:
    t = ins.array.dtype
    ptr = em.element_pointer(ins)
    b = em.b
    value = em.to_storage(em.operand(ins.value), t)
    if ins.op == "cas":
        if ins.compare is None:
            raise LoweringError(f"{ins.loc}: atomic cas without a compare operand")
        compare = em.to_storage(em.operand(ins.compare), t)
        if t.is_float:
            old = _float_cas(em, ptr, compare, value)
        else:
            pair = b.cmpxchg(ptr, compare, value, "monotonic", "monotonic")
            old = b.extract_value(pair, 0)
    else:
        if t.is_float:
            rmw = _FLOAT_RMW.get(ins.op)
        elif ins.op in ("min", "max"):
            rmw = ins.op if t.is_signed else "u" + ins.op
        else:
            rmw = _INT_RMW.get(ins.op)
        if rmw is None:
            raise LoweringError(f"{ins.loc}: atomic {ins.op} is not defined on {t}")
        old = b.atomic_rmw(rmw, ptr, value, "monotonic")
    em.define(ins.result, em.from_storage(old, t))


def _lower_barrier(em: Emitter, ins: Barrier) -> None:
    em.target.barrier(em, ins, em.barrier_ids[(em.label, em.index)])


def _lower_assert(em: Emitter, ins: Assert) -> None:
    what = "loop invariant" if ins.kind == "invariant" else "assertion"
    text = ins.message if ins.kind == "unassigned" else f"{what} failed: {ins.message or what}"
    em.check(em.operand(ins.cond), ERR_ASSERT, ins.loc, text, note=ins.message)


def _lower_requires(em: Emitter, ins: Requires) -> None:
    """Checked by the launch before the kernel runs, so LLVM may assume it."""
    em.assume(em.operand(ins.cond))


def _lower_launch_contract(em: Emitter, ins) -> None:
    """RequiresArray: checked by the launch before the kernel runs."""


def _lower_phi(em: Emitter, ins: Phi) -> None:
    """An empty LLVM phi at the top of its block; `Emitter.edge` adds the
    incoming values once every predecessor is lowered."""
    em.values[ins.result.id] = em.b.phi(value_type(ins.result.type), name=f"phi{ins.result.id}")


def _lower_jump(em: Emitter, term: Jump) -> None:
    em.b.branch(em.edge(term.target))


def _lower_branch(em: Emitter, term: Branch) -> None:
    cond = em.operand(term.cond)
    if em.label in em.always_taken:     # true for every thread the loop runs: LLVM may use it
        em.assume(cond)
        cond = ir.Constant(I1, 1)
    em.b.cbranch(cond, em.edge(term.if_true), em.edge(term.if_false))


def _lower_return(em: Emitter, term: Return) -> None:
    em.target.ret(em, term)


LOWERING = {
    BinOp: ops.lower_binop,
    Compare: ops.lower_compare,
    UnaryOp: ops.lower_unary,
    Cast: ops.lower_cast,
    Select: ops.lower_select,
    Special: _lower_special,
    ShapeOf: _lower_shape,
    Load: _lower_load,
    Store: _lower_store,
    Atomic: _lower_atomic,
    Barrier: _lower_barrier,
    Assert: _lower_assert,
    Requires: _lower_requires,
    RequiresArray: _lower_launch_contract,
    Phi: _lower_phi,
    Jump: _lower_jump,
    Branch: _lower_branch,
    Return: _lower_return,
}


def handler(ins):
    """The lowering function for a MIR node; raises for an unknown class."""
    try:
        return LOWERING[type(ins)]
    except KeyError:
        raise LoweringError(f"{getattr(ins, 'loc', '?')}: no LLVM lowering for MIR "
                            f"{type(ins).__name__}") from None


__all__ = ["Emitter", "LOWERING", "handler", "constant", "LoweringError", "I1"]
