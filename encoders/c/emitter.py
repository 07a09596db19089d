"""MIR kernel -> the C step function `vk_step` (one thread, resumable).

`vk_step(L, S, T, R, role)` runs thread T (its block and thread index in T)
from where it stopped until it reaches a barrier (returns the barrier's
number, T->pc set to resume after it) or returns (returns -1).  Every SSA
value lives in the thread state struct `vk_thread` (field `v<id>`), so a
thread resumes anywhere; phi copies happen on CFG edges through temporaries
(parallel assignment).

Obligations are checked where the prover places them (the same enumeration,
`verikern.proofs.deciding.prover.enumerate_obligations`), each `VK_CHECK` carrying
`"<obligation id> <kind> <file>:<line>:<col>"` (`obligation_id`):
- bounds: one check per logical dimension of every access, before it;
- div-zero: before every integer division that may fault: the divisor is
  nonzero, and on int32/int64 the operands are not INT_MIN and -1;
- assert / invariant: the condition itself;
- race: two-thread instrumentation -- `role` 1 (thread T1) records its
  accesses in R, `role` 2 (thread T2) checks each access against T1's records
  of the same barrier interval (the driver clears them at each barrier when
  both threads share a block; shared arrays only conflict within a block);
- divergence: in the driver (encoders/c/harness.py), which sees where both
  threads stopped.

`INSTRUCTIONS` is the one dispatch table, keyed by instruction OPCODE (every
class of `verikern.mir.nodes.INSTRUCTION_CLASSES`); `TERMINATORS` by
terminator OPCODE.  A missing entry raises, it never skips.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from verikern.mir.facts import definitions, is_int_division, may_overflow, writes_memory
from verikern.mir.ops import division_can_overflow
from verikern.mir.nodes import (
    Atomic, Barrier, BinOp, Branch, Const, Jump, Kernel, Load, RequiresArray, Return, Special,
    Store, Value,
)
from verikern.proofs.obligations import (
    ASSERT_OBLIGATION, ObligationKind, ObligationSpec, obligation_id,
)

from . import ops
from .contracts import assume_contracts, requires_array
from .loops import AbstractedLoops, LoopAbstraction
from .ops import CEncodeError, c_string, ctype
from .tickets import assume_ticket, ticket_sites


def obligation_message(spec: ObligationSpec, file: str) -> str:
    """The message of the C check of `spec`: its id, kind and file:line:col."""
    return f"{obligation_id(spec)} {spec.kind.value} {file}:{spec.loc.line}:{spec.loc.col}"


def identifier(prefix: str, index: int, name: str) -> str:
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" for ch in name)
    return f"{prefix}{index}_{safe}"


@dataclass
class Names:
    """C names of a kernel's parameters and arrays (stable, collision-free)."""

    scalars: dict = field(default_factory=dict)     # value id -> field of vk_launch
    arrays: dict = field(default_factory=dict)      # (space, name) -> field name

    @staticmethod
    def of(kernel: Kernel) -> "Names":
        n = Names()
        for i, p in enumerate(kernel.params):
            if hasattr(p, "value"):
                n.scalars[p.value.id] = identifier("s", i, p.name)
            else:
                n.arrays[("global", p.name)] = identifier("g", i, p.name)
        for i, a in enumerate(kernel.shared):
            n.arrays[("shared", a.name)] = identifier("sh", i, a.name)
        return n


class StepEmitter:
    """Writes `vk_step` for one kernel (see the module docstring)."""

    def __init__(self, kernel: Kernel, specs: list[ObligationSpec],
                 abstractions: tuple[LoopAbstraction, ...] = ()):
        self.k = kernel
        self.file = kernel.loc.file
        self.names = Names.of(kernel)
        self.lines: list[str] = []
        # the goto edges back to a block already placed, in the order of the
        # text: (target label, index in `lines`); CBMC numbers the loops of
        # vk_step by these (`vk_step.0`, `vk_step.1`, ...; encoders.c.CLoop)
        self.back_edges: list[tuple[str, int]] = []
        self._placed: set[str] = set()
        self.by_site: dict = {}
        for s in specs:
            self.by_site.setdefault(s.site, []).append(s)
        # race specs: access site -> [(other site, spec)] (checked when T2 is here)
        self.race_partners: dict = {}
        for s in specs:
            if s.kind is ObligationKind.RACE:
                self.race_partners.setdefault(s.other, []).append((s.site, s))
                if s.other != s.site:
                    self.race_partners.setdefault(s.site, []).append((s.other, s))
        self.access_sites: dict = {}
        self.barriers: dict = {}
        for b in kernel.blocks:
            for i, ins in enumerate(b.instrs):
                if isinstance(ins, (Load, Store, Atomic)):
                    self.access_sites[(b.label, i)] = len(self.access_sites)
                elif isinstance(ins, Barrier):
                    self.barriers[(b.label, i)] = len(self.barriers)
        self.written = frozenset(ins.array.name for _, ins in kernel.instructions()
                                 if writes_memory(ins) and ins.array.space == "global")
        self.targets = {s for b in kernel.blocks for s in b.terminator.successors()}
        self.values: dict[int, Value] = {}
        self._collect_values()
        self.defs = definitions(kernel)
        # array contracts CBMC assumes at each load of a never-written global array
        self.contracts: dict[str, list] = {}
        for b in kernel.blocks:
            for ins in b.instrs:
                if isinstance(ins, RequiresArray) and ins.array.name not in self.written:
                    self.contracts.setdefault(ins.array.name, []).append(ins)
        self.relevant = relevant_values(kernel)
        # atomic_adds on ticket arrays whose old value is read (encoders.c.tickets)
        self.tickets = ticket_sites(kernel)
        # loops CBMC checks through their invariant instead of unwinding them
        self.abstracted = AbstractedLoops(kernel, abstractions, self.operand)

    # -------------------------------------------------------------- helpers
    def _collect_values(self) -> None:
        for p in self.k.scalar_params:
            self.values[p.value.id] = p.value
        for b in self.k.blocks:
            for ins in (*b.phis, *b.instrs):
                r = getattr(ins, "result", None)
                if r is not None:
                    self.values[r.id] = r

    def operand(self, op) -> str:
        if isinstance(op, Const):
            return ops.const(op.value, op.type)
        if op.id in self.names.scalars:
            return f"L->{self.names.scalars[op.id]}"
        return f"T->v{op.id}"

    def emit(self, text: str, indent: int = 1) -> None:
        self.lines.append("    " * indent + text)

    def check(self, cond: str, spec: ObligationSpec) -> None:
        self.emit(f"VK_CHECK({cond}, {c_string(obligation_message(spec, self.file))});")

    def specs_at(self, site, kind: ObligationKind) -> list[ObligationSpec]:
        return [s for s in self.by_site.get(site, []) if s.kind is kind]

    def array_field(self, arr) -> str:
        return self.names.arrays[(arr.space, arr.name)]

    def dims_of(self, arr) -> list[str]:
        """C expressions of every dimension of `arr` (logical, then inner)."""
        if arr.space == "shared":
            logical = [f"{n}u" for n in arr.shape]
        else:
            logical = [f"(uint64_t)L->{self.array_field(arr)}_shape[{k}]"
                       for k in range(arr.ndim)]
        return logical + [f"{n}u" for n in arr.inner]

    def pointer(self, arr) -> str:
        base = "S" if arr.space == "shared" else "L"
        return f"{base}->{self.array_field(arr)}"

    # -------------------------------------------------------------- function
    def function(self) -> str:
        self.lines, self.back_edges, self._placed = [], [], set()
        self.emit("static int vk_step(vk_launch *L, vk_block *S, vk_thread *T, "
                  "vk_race *R, int role) {", 0)
        self.emit("(void)L; (void)S; (void)R; (void)role;")
        self.emit("switch (T->pc) {")
        self.emit(f"case 0: goto {self.label(self.k.entry.label)};", 2)
        for n in self.barriers.values():
            self.emit(f"case {n + 1}: goto B{n};", 2)
        self.emit("default: return T->pc;   /* -1 returned, -3 stopped at a failure */", 2)
        self.emit("}")
        for b in self.k.blocks:
            if b.label in self.targets or b is self.k.entry:
                self.emit(f"{self.label(b.label)}:;", 0)
                self._placed.add(b.label)
            for i, ins in enumerate(b.instrs):
                fn = INSTRUCTIONS.get(ins.OPCODE)
                if fn is None:
                    raise CEncodeError(f"{ins.loc}: the C encoder has no entry for "
                                       f"{type(ins).__name__}")
                self.emit(f"/* {ins.loc.line}:{ins.loc.col} {ins.OPCODE} */")
                fn(self, (b.label, i), ins)
            self.emit("if (T->dead) { T->pc = -3; return -3; }")
            term_fn = TERMINATORS.get(b.terminator.OPCODE)
            if term_fn is None:
                raise CEncodeError(f"{b.terminator.loc}: the C encoder has no entry for "
                                   f"{type(b.terminator).__name__}")
            term_fn(self, b.label, b.terminator)
        self.emit("}", 0)
        return "\n".join(self.lines) + "\n"

    @staticmethod
    def label(lbl: str) -> str:
        return "L_" + "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in lbl)

    def edge(self, src: str, dst: str, indent: int) -> None:
        """Phi copies of edge src -> dst (parallel), the loop abstraction's
        lines when dst heads an abstracted loop (encoders.c.loops), then the
        jump."""
        copies = []
        for phi in self.k.block(dst).phis:
            incoming = dict(phi.incoming)
            if src in incoming:
                copies.append((phi.result, self.operand(incoming[src])))
        if len(copies) == 1:
            r, v = copies[0]
            self.emit(f"T->v{r.id} = {v};", indent)
        elif copies:
            self.emit("{", indent)
            for j, (r, v) in enumerate(copies):
                self.emit(f"{ctype(r.type)} t{j} = {v};", indent + 1)
            for j, (r, _) in enumerate(copies):
                self.emit(f"T->v{r.id} = t{j};", indent + 1)
            self.emit("}", indent)
        for line in self.abstracted.edge(src, dst):
            self.lines.append(line if line.startswith("#") else "    " * (indent - 1) + line)
        if dst in self._placed:
            self.back_edges.append((dst, len(self.lines)))
        self.emit(f"goto {self.label(dst)};", indent)

    # -------------------------------------------------------------- accesses
    def access(self, site, ins, body, otherwise=None) -> None:
        """Bounds checks (T->inb: all in bounds), then, when in bounds, the
        flat element index in T->flat, the race instrumentation and
        `body(lvalue)`; `otherwise()` when not (replay goes on after a failed
        bounds check without touching memory; CBMC assumes the check)."""
        arr = ins.array
        dims = self.dims_of(arr)
        self.emit("T->inb = 1;")
        for k in range(arr.ndim):
            idx = ins.indices[k]
            i = self.operand(idx)
            if idx.type.is_signed:
                ok = f"(int64_t)({i}) >= 0 && (uint64_t)(int64_t)({i}) < {dims[k]}"
            else:
                ok = f"(uint64_t)({i}) < {dims[k]}"
            specs = [s for s in self.specs_at(site, ObligationKind.BOUNDS) if s.dim == k]
            for spec in specs:
                self.soft_check(ok, spec, "if (!", ") T->inb = 0;")
            if not specs:      # memory safety even where no obligation was enumerated
                self.emit(f"if (!({ok})) T->inb = 0;")
        self.emit("if (T->inb) {")
        flat = "0u"
        for k, idx in enumerate(ins.indices):
            i = self.operand(idx)
            term = f"(uint64_t)(int64_t)({i})" if idx.type.is_signed else f"(uint64_t)({i})"
            flat = term if k == 0 else f"({flat}) * {dims[k]} + {term}"
        self.emit(f"T->flat = {flat};", 2)
        implied = self.pointer_checks_implied(ins)
        if implied:
            # a theorem once every (logical) index is in bounds; stated so that
            # CBMC's pointer check on the element is linear (docs/C_ENCODER.md)
            self.emit(f"VK_FLAT_IN_BOUNDS(T->flat < L->{self.array_field(arr)}_count);", 2)
        n = self.access_sites[site]
        partners = self.race_partners.get(site, [])
        key = race_key(self, ins)
        if partners:
            self.emit("if (role == 2) {", 2)
            for other, spec in partners:
                hit = f"vk_race_hit(R, {self.access_sites[other]}, {key})"
                if arr.space == "shared":
                    hit = f"R->same_block && {hit}"
                self.soft_check(f"!({hit})", spec, "(void)", ";", indent=3, macro="VK_RACE_CHECK")
            self.emit("}", 2)
            # symmetric: a site with a race partner is recorded for T1
            self.emit(f"if (role == 1) vk_race_record(R, {n}, {key});", 2)
            write = "1" if writes_memory(ins) else "0"
            atomic = "1" if isinstance(ins, Atomic) else "0"
            self.emit("#ifdef VERIKERN_REPLAY", 0)
            self.emit(f"vk_shadow_access({self.pointer(arr)}_shadow, T->flat, (int64_t)T->bidx * "
                      f"L->block_dim + T->tidx, L->block_dim, S->epoch, {n}, {write}, {atomic});", 2)
            self.emit("#endif", 0)
        self.uninit_checks(site, ins)
        if implied:
            self.emit("VK_IMPLIED_BEGIN", 0)     # CBMC's pointer checks: implied here
            body(f"{self.pointer(arr)}[T->flat]")
            self.emit("VK_IMPLIED_END", 0)
        else:
            body(f"{self.pointer(arr)}[T->flat]")
        if otherwise is not None:
            self.emit("} else {")
            otherwise()
        self.emit("}")

    @staticmethod
    def pointer_checks_implied(ins) -> bool:
        """Whether CBMC's pointer checks of the element `ins` accesses follow
        from `flat < count` (VK_FLAT_IN_BOUNDS) once every logical index is in
        bounds, so they go off around it: a global array of several
        dimensions, or one with inner vector dims whose every inner index is
        a constant inside them (`i * 3 + c < n * 3` for `c < 3`: the offsets
        of vec3 / mat33 components). A 1-D plain array keeps them."""
        arr = ins.array
        if arr.space != "global" or not (arr.ndim > 1 or arr.inner):
            return False
        inner = ins.indices[arr.ndim:]
        return len(inner) == len(arr.inner) and all(
            isinstance(x, Const) and 0 <= int(x.value) < d for x, d in zip(inner, arr.inner))

    def uninit_checks(self, site, ins) -> None:
        """Replay only: a shared read (load, atomic) checks that some thread
        of the block wrote the element before (the block's `_written` flags;
        the replay runs the block's threads one at a time to each barrier, so
        a write by another thread in the same interval may come after), and
        a store or atomic sets the flag. A failed check is reported and the
        thread goes on (VK_REPORT_CHECK: an uninitialised read is not fatal
        on a GPU, so a race or another error after it still shows, as
        compute-sanitizer's initcheck goes on). CBMC models two threads of
        a block, not all of them, so it gets no such check (its `uninit`
        obligations stay unknown)."""
        arr = ins.array
        if arr.space != "shared":
            return
        specs = self.specs_at(site, ObligationKind.UNINIT)
        if not specs and not writes_memory(ins):
            return
        flags = f"{self.pointer(arr)}_written[T->flat]"
        self.emit("#ifdef VERIKERN_REPLAY", 0)
        for spec in specs:
            self.soft_check(flags, spec, "(void)", ";", indent=2, macro="VK_REPORT_CHECK")
        if writes_memory(ins):
            self.emit(f"{flags} = 1;", 2)
        self.emit("#endif", 0)

    def soft_check(self, cond: str, spec, before: str, after: str, indent: int = 1,
                   macro: str = "VK_SOFT_CHECK", note: str = "") -> None:
        """A check after whose failure replay goes on (bounds, div-zero: to the
        end of the MIR block; race, uninit: on); `note` ends its message
        (after the obligation's id, kind and place, which identify it)."""
        msg = c_string(obligation_message(spec, self.file) + note)
        self.emit(f"{before}{macro}({cond}, {msg}){after}", indent)

    def shadowed(self, arr) -> bool:
        """Does an access of `arr` take part in a race obligation?"""
        return any(ins.array.name == arr.name and ins.array.space == arr.space
                   for (lbl, i), _ in ((s, None) for s in self.race_partners)
                   for ins in [self.k.block(lbl).instrs[i]])

    def havoc_load(self, arr) -> bool:
        return arr.space == "shared" or arr.name in self.written


#: How the message of a division's INT_MIN / -1 check ends (its obligation
#: is the division's div-zero one; the divisor's own check has no note).
OVERFLOW_NOTE = " (INT_MIN / -1 overflows)"


# ------------------------------------------------------------------ table
def relevant_values(kernel: Kernel) -> frozenset[int]:
    """Ids of the values that flow (through any instruction or phi) into a
    branch condition, an assert, a requires, an array contract, an index or
    an integer divisor (and dividend, where INT_MIN / -1 may fault). Under
    CBMC every other value only reaches memory, which the harness reads back
    as unknown values (VK_WRITTEN_LOAD), so a float outside this set may be
    havocked without changing any check."""
    roots: list = []
    for b in kernel.blocks:
        roots.extend(op for op in b.terminator.operands())
        for ins in b.instrs:
            if isinstance(ins, (Load, Store, Atomic)):
                roots.extend(ins.indices)
            elif ins.OPCODE in ("assert", "requires", "requires_array"):
                roots.extend(ins.operands())
            elif is_int_division(ins):
                roots.extend((ins.rhs, ins.lhs) if may_overflow(ins) else (ins.rhs,))
    defs = definitions(kernel)
    seen: set[int] = set()
    while roots:
        op = roots.pop()
        if not isinstance(op, Value) or op.id in seen:
            continue
        seen.add(op.id)
        d = defs.get(op.id)
        if d is not None:
            roots.extend(d.operands())
    return frozenset(seen)


def race_key(e: "StepEmitter", ins) -> str:
    """What the race instrumentation compares for an access (inside its
    all-in-bounds branch): the flat element index, or under CBMC, for an
    array of two dims without inner vector dims, the two indices packed as
    `i0 << 32 | i1`. In bounds each index is in 0..2**31 - 1, so the packing
    is injective on the array's elements, as the flat index is, and every
    access of such an array packs (the MIR verifier gives each access one
    index per dim); it spares CBMC's solver the product `i0 * n1` behind
    "equal flat indices imply equal index pairs" (docs/C_ENCODER.md)."""
    arr = ins.array
    if arr.ndim != 2 or arr.inner:
        return "T->flat"
    i0, i1 = (e.operand(x) for x in ins.indices)
    return f"VK_RACE_KEY(T->flat, ((uint64_t)(uint32_t)({i0}) << 32) | (uint64_t)(uint32_t)({i1}))"


def havoc_float(e: "StepEmitter", ins, expr: str) -> str:
    """`expr`, or under CBMC an unknown value when `ins` yields a float that
    flows into no index, condition or address (`relevant_values`): exact
    float arithmetic is the costliest part of CBMC's formula, and the z3
    prover abstracts every float the same way."""
    t = ins.result.type
    if not t.is_float or ins.result.id in e.relevant:
        return expr
    return f"VK_HAVOC_FLOAT({ops.nondet(t)}, {expr})"


def _special_kind(e: StepEmitter, op) -> str | None:
    d = e.defs.get(op.id) if isinstance(op, Value) else None
    return d.kind if isinstance(d, Special) else None


def is_global_thread_id(e: StepEmitter, ins) -> bool:
    """`block_idx * block_dim + thread_idx` in int32 (vk.tid() of a 1-D launch),
    either operand order: the thread's global id, which the harness computes
    once per thread (T->gid, by the same wrapping arithmetic)."""
    if not (isinstance(ins, BinOp) and ins.op == "add" and ins.result.type.name == "int32"):
        return False
    for prod, tid in ((ins.lhs, ins.rhs), (ins.rhs, ins.lhs)):
        m = e.defs.get(prod.id) if isinstance(prod, Value) else None
        if (_special_kind(e, tid) == "thread_idx" and isinstance(m, BinOp) and m.op == "mul"
                and {_special_kind(e, m.lhs), _special_kind(e, m.rhs)} == {"block_idx", "block_dim"}):
            return True
    return False


def split_of_global_id(e: StepEmitter, ins) -> str | None:
    """"gid_hi" for `tid // launch_dim(last)`, "gid_lo" for `tid % launch_dim(last)`
    (vk.tid() of a launch of several dimensions), tid the global thread id;
    None otherwise."""
    if not (isinstance(ins, BinOp) and ins.op in ("floordiv", "div", "mod")
            and isinstance(ins.lhs, Value) and isinstance(ins.rhs, Value)):
        return None
    tid, dim = e.defs.get(ins.lhs.id), e.defs.get(ins.rhs.id)
    if not (tid is not None and is_global_thread_id(e, tid) and isinstance(dim, Special)
            and dim.kind == "launch_dim" and dim.dim == e.k.launch_ndim - 1):
        return None
    return "gid_lo" if ins.op == "mod" else "gid_hi"


def _binop(e: StepEmitter, site, ins):
    if is_global_thread_id(e, ins):
        # one value the harness shares with its choice of the two threads, so
        # CBMC sees that distinct threads have distinct ids without reasoning
        # about the product (docs/C_ENCODER.md, "What made CBMC fast")
        e.emit(f"T->v{ins.result.id} = T->gid;")
        return
    a, b = e.operand(ins.lhs), e.operand(ins.rhs)
    if is_int_division(ins):
        for spec in e.specs_at(site, ObligationKind.DIV_ZERO):
            # two asserts of one obligation: a failure says which fault it is
            # (cbmc_answer reads OVERFLOW_NOTE off the failed one)
            e.soft_check(f"({b}) != 0", spec, "(void)", ";")
            if division_can_overflow(ins.result.type):
                e.soft_check(ops.no_division_overflow(a, b, ins.result.type), spec, "(void)", ";",
                             note=OVERFLOW_NOTE)
            e.emit(f"VK_STOP_UNLESS({ops.division_defined(a, b, ins.result.type)});")
    split = split_of_global_id(e, ins)
    if split is not None:      # the same for the id's quotient and remainder (no division)
        e.emit(f"T->v{ins.result.id} = T->{split};")
        return
    e.emit(f"T->v{ins.result.id} = "
           f"{havoc_float(e, ins, ops.binary(ins.op, a, b, ins.result.type))};")


def _compare(e, site, ins):
    e.emit(f"T->v{ins.result.id} = "
           f"{ops.compare(ins.op, e.operand(ins.lhs), e.operand(ins.rhs), ins.lhs.type)};")


def _unop(e, site, ins):
    e.emit(f"T->v{ins.result.id} = "
           f"{havoc_float(e, ins, ops.unary(ins.op, e.operand(ins.operand), ins.result.type))};")


def _cast(e, site, ins):
    expr = ops.cast(e.operand(ins.operand), ins.operand.type, ins.result.type)
    e.emit(f"T->v{ins.result.id} = {havoc_float(e, ins, expr)};")


def _select(e, site, ins):
    expr = (f"({e.operand(ins.cond)}) ? ({e.operand(ins.if_true)}) "
            f": ({e.operand(ins.if_false)})")
    e.emit(f"T->v{ins.result.id} = {havoc_float(e, ins, expr)};")


_SPECIALS = {"thread_idx": "T->tidx", "block_idx": "T->bidx",
             "block_dim": "L->block_dim", "grid_dim": "L->grid_dim"}


def _special(e, site, ins):
    src = f"L->dim[{ins.dim}]" if ins.kind == "launch_dim" else _SPECIALS[ins.kind]
    e.emit(f"T->v{ins.result.id} = {src};")


def _shape(e, site, ins):
    e.emit(f"T->v{ins.result.id} = L->{e.array_field(ins.array)}_shape[{ins.dim}];")


def _load(e, site, ins):
    r = f"T->v{ins.result.id}"

    def body(lv):
        if e.havoc_load(ins.array):
            lv = f"VK_WRITTEN_LOAD({ops.nondet(ins.result.type)}, {lv})"
        e.emit(f"{r} = {lv};", 2)
        if ins.array.space == "global" and not e.havoc_load(ins.array):
            # CBMC: the element read, in globals a trace shows (proofs.deciding.cbmc
            # turns them into the counterexample's array contents)
            f = e.array_field(ins.array)
            e.emit(f"VK_TRACE_READ(vk_read_{f}_flat = T->flat; vk_read_{f}_val = {r});", 2)
        assume_contracts(e, ins, r)
    e.access(site, ins, body, lambda: e.emit(f"{r} = VK_SKIPPED({ops.nondet(ins.result.type)});", 2))


def _store(e, site, ins):
    e.access(site, ins, lambda lv: e.emit(f"{lv} = {e.operand(ins.value)};", 2))


def _atomic(e, site, ins):
    t = ins.result.type
    old, v = f"T->v{ins.result.id}", e.operand(ins.value)
    if ins.op == "exch":
        new = v
    elif ins.op == "cas":
        new = f"(({old}) == ({e.operand(ins.compare)}) ? ({v}) : ({old}))"
    elif ins.op in ("min", "max", "add", "sub", "and", "or", "xor"):
        new = ops.binary(ins.op, old, v, t)
    else:
        raise CEncodeError(f"{ins.loc}: atomic op {ins.op!r} is unknown")

    def body(lv):
        e.emit(f"{old} = VK_WRITTEN_LOAD({ops.nondet(t)}, {lv});", 2)
        assume_ticket(e, site, old)
        e.emit(f"{lv} = {new};", 2)
    e.access(site, ins, body, lambda: e.emit(f"{old} = VK_SKIPPED({ops.nondet(t)});", 2))


def _barrier(e, site, ins):
    n = e.barriers[site]
    e.emit("if (T->dead) { T->pc = -3; return -3; }")
    e.emit(f"T->pc = {n + 1}; return {n};")
    e.emit(f"B{n}:;", 0)


def _assert(e, site, ins):
    for spec in e.specs_at(site, ASSERT_OBLIGATION[ins.kind]):
        e.check(e.operand(ins.cond), spec)
        e.emit(f"VK_STOP_UNLESS({e.operand(ins.cond)});")


def _requires(e, site, ins):
    e.emit(f"VK_ASSUME({e.operand(ins.cond)}, "
           f"{c_string(f'requires {e.file}:{ins.loc.line}:{ins.loc.col}')});")


INSTRUCTIONS = {
    "binop": _binop, "cmp": _compare, "unop": _unop, "cast": _cast, "select": _select,
    "special": _special, "shape": _shape, "load": _load, "store": _store,
    "atomic": _atomic, "barrier": _barrier, "assert": _assert, "requires": _requires,
    "requires_array": requires_array,
}


def _jump(e: StepEmitter, lbl, t: Jump):
    e.edge(lbl, t.target, 1)


def _branch(e: StepEmitter, lbl, t: Branch):
    e.emit(f"if ({e.operand(t.cond)}) {{")
    e.edge(lbl, t.if_true, 2)
    e.emit("} else {")
    e.edge(lbl, t.if_false, 2)
    e.emit("}")


def _return(e: StepEmitter, lbl, t: Return):
    e.emit("T->pc = -1; return -1;")


TERMINATORS: dict[str, Callable[[Any, str, Any], None]] = {"jmp": _jump, "br": _branch, "ret": _return}
