"""HIR: the typed, structured form of one kernel or func after type checking.

Invariants: every node is a frozen dataclass with a SourceLoc; every
expression carries its final type (literals included: a literal's type is the
one its context required); names are resolved (locals, arrays, builtins,
funcs); the tree obeys every rule of docs/LANGUAGE.md sections 2-4, so lowering to
MIR never has to reject anything.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from verikern.mir.nodes import SourceLoc

from .types import ArrayType, HirType, ScalarType


# ------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Literal:
    """A constant of a scalar type (value already in the type's range)."""

    value: object
    type: ScalarType
    loc: SourceLoc


@dataclass(frozen=True)
class LocalRef:
    """Read of a local variable or scalar/vector parameter. `assigned_flag`:
    the bool local that holds whether some path assigned `name`, set where
    only some paths to this read do (check/assigned_reads.py); the read is
    then an `unassigned` obligation on that flag."""

    name: str
    type: HirType
    loc: SourceLoc
    assigned_flag: str | None = None


@dataclass(frozen=True)
class ArrayRefExpr:
    """An array named in the source (parameter or shared array)."""

    name: str
    type: ArrayType
    loc: SourceLoc


@dataclass(frozen=True)
class BinaryExpr:
    """lhs <op> rhs; op is a MIR binary op name, or for vector/matrix
    operands one of add, sub, mul, div (mul covers scalar*vector,
    matrix*vector and matrix*matrix)."""

    op: str
    lhs: "Expr"
    rhs: "Expr"
    type: HirType
    loc: SourceLoc


@dataclass(frozen=True)
class CompareExpr:
    """A scalar comparison; result bool."""

    op: str
    lhs: "Expr"
    rhs: "Expr"
    type: ScalarType
    loc: SourceLoc


@dataclass(frozen=True)
class ChainCompare:
    """a < b < c ...: each middle operand evaluated once; short-circuits."""

    ops: tuple[str, ...]
    operands: tuple["Expr", ...]
    type: ScalarType
    loc: SourceLoc


@dataclass(frozen=True)
class BoolOpExpr:
    """Short-circuit `and` / `or` of bools."""

    op: str
    lhs: "Expr"
    rhs: "Expr"
    type: ScalarType
    loc: SourceLoc


@dataclass(frozen=True)
class UnaryExpr:
    """op is neg, not, invert, abs or a float math function (MIR unary ops)."""

    op: str
    operand: "Expr"
    type: HirType
    loc: SourceLoc


@dataclass(frozen=True)
class CastExpr:
    operand: "Expr"
    type: ScalarType
    loc: SourceLoc


@dataclass(frozen=True)
class CondExpr:
    """x if cond else y."""

    cond: "Expr"
    if_true: "Expr"
    if_false: "Expr"
    type: HirType
    loc: SourceLoc


@dataclass(frozen=True)
class EffectThen:
    """`value`, after evaluating `effect` for its effect: the operand of a
    `type(e)(...)` that Warp evaluates only under a condition (on the right of
    `and`/`or`, in a branch of `x if c else y`, in a while test), kept in place
    so that it is evaluated exactly when Warp evaluates it. `address_only`:
    `effect` is an array element (an IndexExpr) whose address is computed and
    its index checked, and nothing is read (Warp's `wp::address` for
    `type(a[i])`, a MIR `load.address`); otherwise `effect` is evaluated (a
    component of an element loads the element)."""

    effect: "Expr"
    address_only: bool
    value: "Expr"
    type: HirType
    loc: SourceLoc


@dataclass(frozen=True)
class IndexExpr:
    """Element read array[indices] (one index per logical dimension).
    `held_lengths`: the read of an array held by a struct array's element
    (frontend/check/held_arrays.py): `array` is the padded [n, W] array,
    indices (b, j), and the read is in bounds only when 0 <= j <
    held_lengths[b], which lowering asserts before the Load."""

    array: ArrayRefExpr
    indices: tuple["Expr", ...]
    type: HirType
    loc: SourceLoc
    held_lengths: ArrayRefExpr | None = None


@dataclass(frozen=True)
class ShapeExpr:
    """array.shape[dim] (int32)."""

    array: ArrayRefExpr
    dim: int
    type: ScalarType
    loc: SourceLoc


@dataclass(frozen=True)
class ComponentExpr:
    """Components of a vector/matrix value: `index` is the flat component
    index; `count` > 1 selects a matrix row (a vector)."""

    value: "Expr"
    index: int
    count: int
    type: HirType
    loc: SourceLoc


#: the assertion every run-time component index makes (check and lowering alike)
COMPONENT_INDEX_MESSAGE = "vector index in range"


@dataclass(frozen=True)
class DynamicComponentExpr:
    """`v[i]`, `m[i]` (a row: `count` = cols) or `m[i, j]` of a local vector or
    matrix value with run-time integer indices (Warp 1.19 allows them).
    Invariant: lowering asserts 0 <= each index < its bound (`bounds`: the
    length, or rows then cols) before selecting; an index out of range is an
    `assert` obligation, never a silent read, with the message
    `COMPONENT_INDEX_MESSAGE` (a run-time write asserts the same)."""

    value: "Expr"
    indices: tuple["Expr", ...]
    bounds: tuple[int, ...]
    count: int
    type: HirType
    loc: SourceLoc


@dataclass(frozen=True)
class BuiltinCall:
    """A call of a builtin (`name` is the canonical vk name)."""

    name: str
    args: tuple["Expr", ...]
    type: HirType | None
    loc: SourceLoc


@dataclass(frozen=True)
class FuncCall:
    """A call of a @vk.func (inlined by lowering)."""

    func: str
    args: tuple["Expr", ...]
    type: HirType | None
    loc: SourceLoc


Expr = Union[Literal, LocalRef, ArrayRefExpr, BinaryExpr, CompareExpr, ChainCompare,
             BoolOpExpr, UnaryExpr, CastExpr, CondExpr, IndexExpr, ShapeExpr,
             ComponentExpr, DynamicComponentExpr, BuiltinCall, FuncCall, EffectThen]


# ------------------------------------------------------------------- statements
@dataclass(frozen=True)
class Assign:
    """name = value (declares the local on first assignment)."""

    name: str
    value: Expr
    loc: SourceLoc


@dataclass(frozen=True)
class AssignComponent:
    """v[index] = value / v.x = value on a local vector or matrix."""

    name: str
    index: int
    count: int
    value: Expr
    loc: SourceLoc


@dataclass(frozen=True)
class TidUnpack:
    """i, j, ... = vk.tid()."""

    names: tuple[str, ...]
    loc: SourceLoc


@dataclass(frozen=True)
class StoreStmt:
    """array[indices] = value; with `count` > 0 only the components
    component .. component+count-1 of a vector/matrix element are written
    (`a[i].x = v`, `m[i][1] = row`), and `value` has exactly those."""

    array: ArrayRefExpr
    indices: tuple[Expr, ...]
    value: Expr
    loc: SourceLoc
    component: int = 0
    count: int = 0


@dataclass(frozen=True)
class AtomicUpdate:
    """array[indices] op= value as an atomic (op: add sub and or xor); with
    `count` > 0 on the components component .. component+count-1 only."""

    op: str
    array: ArrayRefExpr
    indices: tuple[Expr, ...]
    value: Expr
    loc: SourceLoc
    component: int = 0
    count: int = 0


@dataclass(frozen=True)
class ExprStmt:
    """An expression evaluated for its effect (atomics, func calls, loads).
    `address_only`: `value` is an array element (an IndexExpr) whose address
    is computed and its index checked, and nothing is read -- what Warp emits
    for `type(a[i])` (lowered to a MIR `load.address`)."""

    value: Expr
    loc: SourceLoc
    address_only: bool = False


@dataclass(frozen=True)
class ViewDecl:
    """`name = array[i, ...]` with fewer indices than `array` has dimensions:
    a view of `array` (check/views.py). `array` is the array viewed at the root
    (a parameter, never another view); `leading` names the locals holding its
    fixed leading indices, outermost first. Nothing is evaluated here: an
    access `name[k]` is `array[*leading, k]`."""

    name: str
    array: ArrayRefExpr
    leading: tuple[str, ...]
    loc: SourceLoc


@dataclass(frozen=True)
class SharedDecl:
    name: str
    type: ArrayType
    loc: SourceLoc


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...]
    loc: SourceLoc


@dataclass(frozen=True)
class While:
    cond: Expr
    body: tuple["Stmt", ...]
    loc: SourceLoc


@dataclass(frozen=True)
class ForRange:
    var: str
    start: Expr
    stop: Expr
    step: Expr
    body: tuple["Stmt", ...]
    loc: SourceLoc


@dataclass(frozen=True)
class BlockUntil:
    """vk.block_until(cond): while not cond: barrier."""

    cond: Expr
    loc: SourceLoc


@dataclass(frozen=True)
class Break:
    loc: SourceLoc


@dataclass(frozen=True)
class Continue:
    loc: SourceLoc


@dataclass(frozen=True)
class ReturnStmt:
    value: Expr | None
    loc: SourceLoc


@dataclass(frozen=True)
class BarrierStmt:
    loc: SourceLoc


@dataclass(frozen=True)
class AssertStmt:
    """kind "assert" (source assert) or "invariant" (vk.invariant, first
    statement of a loop body)."""

    cond: Expr
    message: str
    kind: str
    loc: SourceLoc


@dataclass(frozen=True)
class RequiresStmt:
    cond: Expr
    loc: SourceLoc


@dataclass(frozen=True)
class RequiresArrayStmt:
    """vk.requires(vk.all_in_range(a, lo, hi)) / vk.requires(vk.all_distinct(a)) /
    vk.requires(vk.all_sorted(a)) (a 1-d)."""

    kind: str
    array: ArrayRefExpr
    lo: Expr | None
    hi: Expr | None
    loc: SourceLoc


Stmt = Union[Assign, AssignComponent, TidUnpack, StoreStmt, AtomicUpdate, ExprStmt,
             SharedDecl, ViewDecl, If, While, ForRange, BlockUntil, Break, Continue, ReturnStmt,
             BarrierStmt, AssertStmt, RequiresStmt, RequiresArrayStmt]


# ---------------------------------------------------------------- definitions
@dataclass(frozen=True)
class Param:
    name: str
    type: HirType
    loc: SourceLoc


@dataclass(frozen=True)
class FuncDef:
    """A @vk.func: `returns` None means it returns nothing."""

    name: str
    params: tuple[Param, ...]
    returns: HirType | None
    body: tuple[Stmt, ...]
    loc: SourceLoc


@dataclass(frozen=True)
class KernelDef:
    """A @vk.kernel with everything it calls resolved (`funcs` by name)."""

    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    loc: SourceLoc
    funcs: tuple[FuncDef, ...] = ()
    launch_ndim: int = 1
    block_dim: int | None = None
    fast_math: bool = False
    uses_block_features: bool = False
    #: the struct parameters, flattened into `params` (mir.nodes.StructArg)
    struct_args: tuple = ()
    #: module attributes read as constants (mir.nodes.ModuleConstantRead)
    module_constants: tuple = ()

    def func(self, name: str) -> FuncDef:
        for f in self.funcs:
            if f.name == name:
                return f
        raise KeyError(name)


STATEMENT_CLASSES = (Assign, AssignComponent, TidUnpack, StoreStmt, AtomicUpdate,
                     ExprStmt, SharedDecl, ViewDecl, If, While, ForRange, BlockUntil, Break,
                     Continue, ReturnStmt, BarrierStmt, AssertStmt, RequiresStmt,
                     RequiresArrayStmt)
EXPRESSION_CLASSES = (Literal, LocalRef, ArrayRefExpr, BinaryExpr, CompareExpr,
                      ChainCompare, BoolOpExpr, UnaryExpr, CastExpr, CondExpr,
                      IndexExpr, ShapeExpr, ComponentExpr, DynamicComponentExpr, BuiltinCall,
                      FuncCall, EffectThen)
