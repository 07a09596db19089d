"""MIR node classes: the one contract between the compiler and every consumer.

MIR is an SSA control-flow graph of typed scalar instructions for ONE kernel.
Everything after the compiler (simulator, SMT and C encoders, LLVM lowering)
reads only these classes.  The full semantics of each op is in docs/MIR.md;
executable semantics live beside these definitions (backends/simulator), never
inside them.

Invariants (checked by `verikern.mir.verifier.verify`):
- every `Value` is defined exactly once (a scalar parameter, a phi or an
  instruction result) and every use is dominated by its definition;
- every block ends in exactly one terminator; phis come first and have exactly
  one incoming operand per CFG predecessor;
- operand types match the op's typing rule (docs/MIR.md);
- the entry block is `blocks[0]` and has no predecessors;
- the CFG is reducible (it comes from structured source).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, ClassVar, Union

from . import ops as _ops
from .types import BOOL, I32, ScalarType


@dataclass(frozen=True)
class SourceLoc:
    """A 1-based line and column in a kernel file."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN_LOC = SourceLoc("<unknown>", 0, 0)


# --------------------------------------------------------------------- operands
@dataclass(frozen=True)
class Value:
    """An SSA virtual register. `id` is unique within its kernel; `name` is a
    printing hint (the source variable), not part of identity-relevant data."""

    id: int
    type: ScalarType
    name: str = ""

    def __str__(self) -> str:
        return f"%{self.name}.{self.id}" if self.name else f"%{self.id}"


@dataclass(frozen=True)
class Const:
    """A literal of a scalar type; `value` is already wrapped into the type's
    range (ints), is a Python float (floats) or a bool."""

    value: Union[int, float, bool]
    type: ScalarType

    def __str__(self) -> str:
        if self.type.is_bool:
            return "true" if self.value else "false"
        return f"{self.value!r}:{self.type.name}"


Operand = Union[Value, Const]


# ----------------------------------------------------------------------- arrays
@dataclass(frozen=True)
class ArrayRef:
    """An array a kernel can access: a global parameter or a shared array.

    `dtype` is the scalar element type. `ndim` counts the *logical* dimensions
    (those of `a.shape` in the source); `inner` are trailing constant
    dimensions that come from vector/matrix element types (vec3 -> (3,),
    mat33 -> (3, 3)). Every Load/Store/Atomic passes ndim + len(inner)
    indices. Bounds obligations concern the logical dimensions only; inner
    indices are compile-time constants in range by construction.

    For `space == "shared"`, `shape` holds the constant logical shape and
    `layout` is "row_major" or "column_major" (it affects only bank mapping).
    For `space == "global"`, `shape` is None: the lengths are symbolic and read
    with `ShapeOf`.
    """

    name: str
    dtype: ScalarType
    ndim: int
    inner: tuple[int, ...] = ()
    space: str = "global"
    shape: tuple[int, ...] | None = None
    layout: str = "row_major"

    @property
    def full_ndim(self) -> int:
        return self.ndim + len(self.inner)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class StructArg:
    """A struct parameter (a Warp `@wp.struct`, or an array of them): `index` is its position
    among the source parameters, `fields` the attribute path of each leaf
    field in the order of the parameters it was flattened to (`("inner",
    "n")` for `s.inner.n`; a vector field is one leaf, its components
    consecutive COMPONENT parameters named after the dotted path)."""

    name: str
    index: int
    fields: tuple[tuple[str, ...], ...]
    #: an array of structs: each field is an array (a numpy structured
    #: array's field, or of a Warp struct array's `.numpy()`)
    array: bool = False


class ParamOrigin(Enum):
    """Where a scalar MIR parameter comes from, as the user sees the kernel."""

    #: a scalar parameter the user passes at launch
    USER = "user"
    #: one scalar component of a vector/matrix/quat parameter the user passes
    #: (MIR name `v[0]`, `v[1]`, ...; consecutive in `Kernel.params`)
    COMPONENT = "component"
    #: a module constant or factory capture the kernel reads from the code
    #: around it (MIR name `@width`); a launch reads its value, the user
    #: passes none
    CAPTURED = "captured"


@dataclass(frozen=True)
class ScalarParam:
    """A scalar kernel parameter; `value` is its SSA value, defined at entry.

    `origin` says what the user passes for it; `user_name` is the name the
    user writes (`v` for the component `v[0]`, `width` for the capture
    `@width`; the MIR name itself for USER, which is also the default)."""

    name: str
    value: Value
    origin: ParamOrigin = ParamOrigin.USER
    user_name: str = ""

    def __post_init__(self) -> None:
        if not self.user_name:   # normalized so that equal parameters compare equal
            object.__setattr__(self, "user_name", self.name)


Param = Union[ScalarParam, ArrayRef]


# ------------------------------------------------------------------ instructions
@dataclass(frozen=True)
class Instr:
    """Base of all non-terminator instructions. `result` is None for ops
    without a value. Subclasses set OPCODE (the key of every dispatch table)."""

    OPCODE: ClassVar[str] = "?"

    if TYPE_CHECKING:
        @property
        def loc(self) -> SourceLoc:
            """Where in the source (a dataclass field of every subclass)."""

    def operands(self) -> tuple[Operand, ...]:
        raise NotImplementedError(f"{type(self).__name__} must define operands()")


# op names come from the op table (verikern.mir.ops), which also says on which
# types each op is defined and what it computes
BINARY_OPS = tuple(_ops.BINARY)
COMPARE_OPS = tuple(_ops.COMPARE)
UNARY_OPS = tuple(_ops.UNARY)
SPECIAL_KINDS = ("thread_idx", "block_idx", "block_dim", "grid_dim", "launch_dim")
ATOMIC_OPS = tuple(_ops.ATOMIC)


@dataclass(frozen=True)
class BinOp(Instr):
    """result = lhs <op> rhs; lhs, rhs and result share one type (see docs/MIR.md)."""

    OPCODE: ClassVar[str] = "binop"
    result: Value
    op: str
    lhs: Operand
    rhs: Operand
    loc: SourceLoc

    def operands(self):
        return (self.lhs, self.rhs)


@dataclass(frozen=True)
class Compare(Instr):
    """result: bool = lhs <op> rhs; lhs and rhs share one type."""

    OPCODE: ClassVar[str] = "cmp"
    result: Value
    op: str
    lhs: Operand
    rhs: Operand
    loc: SourceLoc

    def operands(self):
        return (self.lhs, self.rhs)


@dataclass(frozen=True)
class UnaryOp(Instr):
    """result = op(operand); same type in and out."""

    OPCODE: ClassVar[str] = "unop"
    result: Value
    op: str
    operand: Operand
    loc: SourceLoc

    def operands(self):
        return (self.operand,)


@dataclass(frozen=True)
class Cast(Instr):
    """result = operand converted to result.type (rules in docs/MIR.md)."""

    OPCODE: ClassVar[str] = "cast"
    result: Value
    operand: Operand
    loc: SourceLoc

    def operands(self):
        return (self.operand,)


@dataclass(frozen=True)
class Select(Instr):
    """result = if_true if cond else if_false (both evaluated; no side effects)."""

    OPCODE: ClassVar[str] = "select"
    result: Value
    cond: Operand
    if_true: Operand
    if_false: Operand
    loc: SourceLoc

    def operands(self):
        return (self.cond, self.if_true, self.if_false)


@dataclass(frozen=True)
class Special(Instr):
    """A launch-geometry register, always int32. kind is one of SPECIAL_KINDS;
    `dim` selects the launch dimension for kind == "launch_dim" (0 otherwise)."""

    OPCODE: ClassVar[str] = "special"
    result: Value
    kind: str
    loc: SourceLoc
    dim: int = 0

    def operands(self):
        return ()


@dataclass(frozen=True)
class ShapeOf(Instr):
    """result: int32 = length of logical dimension `dim` of a global array."""

    OPCODE: ClassVar[str] = "shape"
    result: Value
    array: ArrayRef
    dim: int
    loc: SourceLoc

    def operands(self):
        return ()


@dataclass(frozen=True)
class Load(Instr):
    """result = array[indices]; one index per dimension (logical then inner),
    each an integer operand of any width (interpreted by its own signedness).

    `address_only`: the source computes this element's address and reads
    nothing (`type(a[i])`: Warp emits `wp::address`, no load, and its debug
    build checks the index). It carries a bounds obligation and nothing else:
    no race, no uninit read, no trace event; its result is never used. A
    backend may execute it as a load or as a bounds check (docs/SOUNDNESS.md,
    "type(a[i])")."""

    OPCODE: ClassVar[str] = "load"
    result: Value
    array: ArrayRef
    indices: tuple[Operand, ...]
    loc: SourceLoc
    address_only: bool = False

    def operands(self):
        return tuple(self.indices)


@dataclass(frozen=True)
class Store(Instr):
    """array[indices] = value (plain, non-atomic write)."""

    OPCODE: ClassVar[str] = "store"
    array: ArrayRef
    indices: tuple[Operand, ...]
    value: Operand
    loc: SourceLoc

    def operands(self):
        return tuple(self.indices) + (self.value,)


@dataclass(frozen=True)
class Atomic(Instr):
    """Atomic read-modify-write; result = the element's old value.
    op in ATOMIC_OPS; for "cas", `compare` is set and the new value is stored
    only when old == compare."""

    OPCODE: ClassVar[str] = "atomic"
    result: Value
    op: str
    array: ArrayRef
    indices: tuple[Operand, ...]
    value: Operand
    loc: SourceLoc
    compare: Operand | None = None

    def operands(self):
        extra = (self.compare,) if self.compare is not None else ()
        return tuple(self.indices) + (self.value,) + extra


@dataclass(frozen=True)
class Barrier(Instr):
    """vk.sync_threads(): every thread of the block must reach this same
    instruction together, the same number of times; a thread that returned
    while others wait here is divergence (block_until is lowered to a loop
    around it)."""

    OPCODE: ClassVar[str] = "barrier"
    loc: SourceLoc

    def operands(self):
        return ()


#: The kinds of Assert, each its own obligation kind and its own MIR opcode word.
ASSERT_KINDS = ("assert", "invariant", "unassigned")


@dataclass(frozen=True)
class Assert(Instr):
    """An obligation `cond` must hold for every thread reaching it.
    kind is "assert" (source assert), "invariant" (vk.invariant hint, which
    sits first in its loop's body block and is named by LoopInfo) or
    "unassigned" (a read of a variable that only some paths assign: `cond`
    is its flag, true where the path taken assigned it; one of ASSERT_KINDS)."""

    OPCODE: ClassVar[str] = "assert"
    cond: Operand
    message: str
    loc: SourceLoc
    kind: str = "assert"

    def operands(self):
        return (self.cond,)


@dataclass(frozen=True)
class Requires(Instr):
    """A launch precondition (vk.requires(cond)); `cond` is uniform (depends only
    on scalar params, shapes and launch geometry). All Requires sit in the
    entry block before any memory access. Provers assume it; launches that
    break it are refused."""

    OPCODE: ClassVar[str] = "requires"
    cond: Operand
    loc: SourceLoc

    def operands(self):
        return (self.cond,)


@dataclass(frozen=True)
class RequiresArray(Instr):
    """A launch-time contract on an integer global array's contents:
    kind "all_in_range": lo <= e < hi for every element (lo, hi operands of
    the array's dtype); kind "all_distinct": no two elements equal (lo, hi None);
    kind "all_sorted" (1-d arrays only): e[i] <= e[j] whenever i <= j.
    Same placement rule as Requires."""

    OPCODE: ClassVar[str] = "requires_array"
    kind: str
    array: ArrayRef
    loc: SourceLoc
    lo: Operand | None = None
    hi: Operand | None = None

    def operands(self):
        return tuple(x for x in (self.lo, self.hi) if x is not None)


# Every instruction class (dispatch tables must have an entry for each).
INSTRUCTION_CLASSES: tuple[type[Instr], ...] = (
    BinOp, Compare, UnaryOp, Cast, Select, Special, ShapeOf,
    Load, Store, Atomic, Barrier, Assert, Requires, RequiresArray,
)


@dataclass(frozen=True)
class Phi:
    """result = the incoming operand of the predecessor control came from."""

    OPCODE: ClassVar[str] = "phi"
    result: Value
    incoming: tuple[tuple[str, Operand], ...]
    loc: SourceLoc

    def operands(self):
        return tuple(v for _, v in self.incoming)


# ------------------------------------------------------------------ terminators
@dataclass(frozen=True)
class Jump:
    OPCODE: ClassVar[str] = "jmp"
    target: str
    loc: SourceLoc

    def successors(self) -> tuple[str, ...]:
        return (self.target,)

    def operands(self):
        return ()


@dataclass(frozen=True)
class Branch:
    OPCODE: ClassVar[str] = "br"
    cond: Operand
    if_true: str
    if_false: str
    loc: SourceLoc

    def successors(self) -> tuple[str, ...]:
        return (self.if_true, self.if_false)

    def operands(self):
        return (self.cond,)


@dataclass(frozen=True)
class Return:
    """The thread ends (kernel `return`, or falling off the end)."""

    OPCODE: ClassVar[str] = "ret"
    loc: SourceLoc

    def successors(self) -> tuple[str, ...]:
        return ()

    def operands(self):
        return ()


Terminator = Union[Jump, Branch, Return]
TERMINATOR_CLASSES = (Jump, Branch, Return)


@dataclass(frozen=True)
class Block:
    label: str
    phis: tuple[Phi, ...]
    instrs: tuple[Instr, ...]
    terminator: Terminator


@dataclass(frozen=True)
class RangeLoopInfo:
    """For a `for v in range(start, stop, step)` loop: the counter is the phi
    `counter` in the header; it takes start, start+step, ... while
    (step > 0 and v < stop) or (step < 0 and v > stop), so a zero step runs
    no iteration (the frontend rejects a literal zero step). The header holds
    that test; the latch computes v + step with an ordinary (wrapping) BinOp
    "add" whose result feeds the phi."""

    counter: Value
    start: Operand
    stop: Operand
    step: Operand


@dataclass(frozen=True)
class LoopInfo:
    """A natural loop from a source `for`/`while`/`block_until`.

    header: the block with the loop test (target of the back edge);
    body: labels of every block inside the loop (header included);
    latches: blocks with a back edge to the header;
    exit: the block control reaches when the loop ends (also `break` target);
    range: counter information for range loops; None for while loops;
    invariants: the Assert(kind="invariant") instructions of vk.invariant
    hints in this loop's body.
    """

    header: str
    body: tuple[str, ...]
    latches: tuple[str, ...]
    exit: str
    loc: SourceLoc
    range: RangeLoopInfo | None = None
    invariants: tuple[Assert, ...] = ()


@dataclass(frozen=True)
class ModuleConstantRead:
    """A constant the kernel reads as an attribute of a project module
    (`c.N`, `pkg.config.N`): Warp reads whatever value the module holds
    when it builds the kernel, while verikern reads the module-level
    binding in `defined_in`'s source. Every proof of the kernel assumes
    `text == value`, and the reports say so (proofs.reporting.scope).

    text: the spelling read (`pkg.config.N`); value: the constant's value;
    defined_in: the file that binds it; loc: where the kernel (or a func it
    calls) reads it."""

    text: str
    value: bool | int | float
    defined_in: str
    loc: SourceLoc


@dataclass(frozen=True)
class TypingPremiseRead:
    """A generic kernel's typing premise (`positions.dtype in (wp.vec3f,
    wp.vec3d)`, frontend/scan/typing_premise.py): the kernel is proved only
    for the instantiations it admits, and the reports say so
    (proofs.reporting.scope). No obligation depends on it.

    text: the premise's atoms as written; loc: the first atom; admitted: the
    names of the instances it admits that verikern compiled (`k[vec3d]`)."""

    text: str
    loc: SourceLoc
    admitted: tuple[str, ...]


@dataclass(frozen=True)
class Kernel:
    """One compiled kernel.

    params: in source order (ScalarParam or global ArrayRef);
    shared: the shared arrays it declares (ArrayRef with space "shared");
    blocks: the CFG, entry first;
    loops: every source loop, outermost first;
    launch_ndim: 1..4, the number of launch dimensions `vk.tid()` unpacks;
    block_dim: fixed by `@vk.kernel(block_dim=...)`, else None;
    fast_math: the module option;
    uses_block_features: it uses shared memory or barriers, so launches need
    dim % block_dim == 0.
    """

    name: str
    params: tuple[Param, ...]
    shared: tuple[ArrayRef, ...]
    blocks: tuple[Block, ...]
    loops: tuple[LoopInfo, ...]
    loc: SourceLoc
    launch_ndim: int = 1
    block_dim: int | None = None
    fast_math: bool = False
    uses_block_features: bool = False
    #: The text of the file the kernel was compiled from (None for MIR read
    #: from text): only ever read to quote source expressions in messages
    #: (proofs.deciding.source_text); no part of the MIR (not printed, not
    #: compared, not hashed).
    source: str | None = field(default=None, compare=False, repr=False)
    #: The struct parameters the user passes as one object each (a launch
    #: reads their fields into the parameters they were flattened to); not
    #: printed, compared or hashed: they change how arguments are passed,
    #: never what the kernel does.
    struct_args: tuple["StructArg", ...] = field(default=(), compare=False, repr=False)
    #: The module attributes read as constants (their values are already in
    #: the MIR): kept only so that reports state them as assumptions; not
    #: printed, compared or hashed.
    module_constants: tuple[ModuleConstantRead, ...] = field(default=(), compare=False, repr=False)
    #: A generic kernel's typing premise (an instance admitted by it): kept only so
    #: that reports and vk.launch state it; not printed, compared or hashed.
    typing_premise: TypingPremiseRead | None = field(default=None, compare=False, repr=False)

    def block(self, label: str) -> Block:
        """The block named `label` (KeyError if none)."""
        index = _BLOCK_INDEX.get(id(self))
        if index is None:
            index = _BLOCK_INDEX[id(self)] = {b.label: b for b in self.blocks}
            weakref.finalize(self, _BLOCK_INDEX.pop, id(self), None)
        return index[label]

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    @property
    def arrays(self) -> tuple[ArrayRef, ...]:
        return tuple(p for p in self.params if isinstance(p, ArrayRef)) + self.shared

    @property
    def scalar_params(self) -> tuple[ScalarParam, ...]:
        return tuple(p for p in self.params if isinstance(p, ScalarParam))

    def predecessors(self) -> dict[str, list[str]]:
        preds: dict[str, list[str]] = {b.label: [] for b in self.blocks}
        for b in self.blocks:
            for s in b.terminator.successors():
                preds[s].append(b.label)
        return preds

    def instructions(self):
        """Every (block, instruction) pair, phis excluded, in block order."""
        for b in self.blocks:
            for ins in b.instrs:
                yield b, ins


#: label -> Block for each live Kernel that `Kernel.block` was asked, by
#: id(kernel). Kept outside the (frozen) kernel so that `dataclasses.replace`
#: can never carry a stale index over; an entry goes when its kernel is
#: collected (weakref.finalize), before its id can be reused.
_BLOCK_INDEX: dict[int, dict[str, Block]] = {}


def result_of(ins) -> Value | None:
    """The value an instruction or phi defines, or None."""
    return getattr(ins, "result", None)


__all__ = [name for name in dir() if not name.startswith("_")] + ["BOOL", "I32"]
