"""The type-oblivious ("opaque") proof of a generic kernel: one proof that
covers every instantiation Warp can build, the vector, matrix, quat,
struct and any-length ones that generic_kernels.py cannot enumerate
included (docs/PROVER.md, "Generic kernels: the type-oblivious proof").

The opaque kernel is the kernel typed with a *carrier*: each generic type
replaced by a float32-based type (float32, vec3, mat33, quat, ...; an array
of `Any` by an array of one of them). The z3 encoder gives every float
value a fresh, unconstrained value (encoders/smt/encoder.py: float binops,
unary ops, compares and casts from or to a float are fresh variables; a
load is a fresh variable, equal only to a load of the same element of a
never-written array), so a value of a generic type is arbitrary in the
opaque kernel, and so is every value computed from it: arithmetic, Warp's
vector builtins, component reads, comparisons (a fresh bool), conversions
to int (a fresh int). Integer values that no generic value reaches, loads
and stores, and their indices are encoded exactly. So each execution of an
instantiation whose typed body has the opaque kernel's control structure
and memory accesses is one of the opaque kernel's executions, and every
obligation proved on the opaque kernel holds for it.

Conditions (`opaque_plan` refuses the opaque proof, keeping the
per-instance verdicts, when one fails):

1. nothing in the kernel, or in a @func it calls, inspects a type:
   `wp.static`, `type(x)` and `x.dtype` other than as a conversion
   `type(x)(...)` / `x.dtype(...)` (a value of the generic type, opaque
   like any other), `len`, `isinstance`, `wp.types.*`, `typeof`, ...;
2. no @func it calls has overloads (Warp picks one per argument type);
3. the body types with a carrier (a float32-based typing, found one
   parameter at a time: generic_start.py); when it also types with the
   carrier's float64 twin, the two typed bodies (HIR) have the same nodes,
   field for field (`_Lockstep`);
4. no integer division or remainder (`/ // %`) of a value a generic type
   reaches (`_Taint`: the generic parameters, loads of their arrays,
   conversions `type(x)(c)`, and every value computed from one except a
   comparison or an explicit conversion to a fixed type), except by a
   literal divisor that stays nonzero and other than -1 in every integer
   type (`type(x)(3.0)`), or by a divisor that Warp's typing rules make a
   float in every instantiation it builds (generic_scalars.py: `1 / m`
   where `m` also meets `wp.exp`), and then only when no enumerated
   instance that type-checks divides integers there
   (generic_kernels._with_opaque): an integer instantiation has a division
   obligation there (by zero, or INT_MIN / -1 on int32/int64) that the
   float carrier has not;
5. no run-time component index (`v[k]`, k not a constant) into such a
   value, and no run-time component write at all: its range check depends
   on the length; no constant subscript into such a value at all (`v[2]`,
   `m[1, 1]`, `t.p[0]`, read or written): Warp builds `v[2]` for a vec2 and
   reads past the vector at run time (only `v.z` is refused when Warp
   builds), and an array (a bare `Any`, a struct's array field named like a
   carrier's attribute) may be empty, so even `a[0]` is out of bounds; no
   builtin that gives an integer from such a value (`argmax`: its range
   depends on the length).

The opaque kernel is lowered to MIR without constant folding (driver.py):
a literal of a generic type (`type(x)(0.5)`) is 0.5 in the carrier but 0
in int8, so `type(x)(0.5) > type(x)(0.0)` must reach the encoder as a
compare (a fresh bool), never be folded to true.

What the opaque proof rests on besides: the proof runs on the z3 engine
only (CBMC models float semantics, which an integer instantiation does
not have); it assumes each array of generic elements holds at most as many
elements as an array of 1-byte elements would (the array-size bound is
scaled by `OpaquePlan.element_bytes`); and it only ever contributes
`proved`: a failed or unknown obligation of the opaque kernel is no
counterexample of any real instantiation, so the caller keeps the
per-instance verdicts and the `kernel[...]` unknown then.
"""
from __future__ import annotations

import ast
import dataclasses
import typing
from dataclasses import dataclass

from verikern.hir import nodes as H
from verikern.hir.types import (
    F32, F64, ArrayType, MatrixType, ScalarType, StructType, TupleType, VectorType, component_count, matrix_type,
    named_parts, quat_type, transform_type, vector_type,
)
from .generic_scalars import ScalarClasses, converted_places, type_conversions
from .generic_start import search_typing
from ..scan.typing_premise import dtype_nodes, premise_conditions, split

#: Calls that inspect a type (by the called name: `wp.static`, `len`, ...).
TYPE_INSPECTING_CALLS = frozenset({
    "static", "type", "len", "isinstance", "issubclass", "typeof", "type_length",
    "type_scalar_type", "types_equal", "type_is_vector", "type_is_matrix", "type_is_quaternion",
    "type_is_transformation", "type_is_int", "type_is_float", "hasattr", "getattr", "dtype_of",
})
#: Attributes that name a type (`x.dtype`, `wp.types.x`).
TYPE_ATTRIBUTES = frozenset({"dtype", "types", "length", "_length_", "_wp_scalar_type_", "_shape_"})
_DIVISIONS = frozenset({"div", "floordiv", "mod"})
_CARRIER_ELEMENTS = (F32, vector_type(3), matrix_type(3, 3), quat_type(), vector_type(4),
                     vector_type(2), matrix_type(4, 4), matrix_type(2, 2), transform_type())
#: the most typings the carrier search checks
MAX_CARRIER_CHECKS = 160


@dataclass(frozen=True)
class OpaquePlan:
    """The opaque kernel of a generic kernel (`hir`, typed with `types`), or
    `refusal`: why it has none. `element_bytes`: the largest carrier element
    of an array of generic elements, in bytes (at least 1): the opaque proof
    scales the array-size bound by it, so each such array may hold as many
    elements as one of 1-byte elements."""

    hir: H.KernelDef | None = None
    types: tuple = ()                 # (param, carrier type), in parameter order
    refusal: str | None = None
    element_bytes: int = 1
    # (file, line, col) of each division by a value of a generic type kept because its
    # divisor is a float in every instantiation Warp builds (generic_scalars.py)
    divisions: tuple = ()


def _with_scalar(t, scalar: ScalarType):
    """A vector, matrix, quat or transform type `t` with components of type `scalar`."""
    if isinstance(t, MatrixType):
        return matrix_type(t.rows, t.cols, scalar)
    if t.name.startswith("quat"):
        return quat_type(scalar)
    if t.name.startswith("transform"):
        return transform_type(scalar)
    return vector_type(t.length, scalar)


def float64_twin(t):
    """`t` with float32 components replaced by float64 ones."""
    if isinstance(t, ScalarType):
        return F64 if t == F32 else t
    if isinstance(t, (VectorType, MatrixType)):
        return _with_scalar(t, F64)
    if isinstance(t, ArrayType):
        return dataclasses.replace(t, dtype=float64_twin(t.dtype))
    return t


def _float_based(t):
    """A carrier of `t`'s shape: its scalar (or components) float32."""
    if isinstance(t, ScalarType):
        return F32
    if isinstance(t, (VectorType, MatrixType)):
        return _with_scalar(t, F32)
    if isinstance(t, ArrayType):
        return dataclasses.replace(t, dtype=_float_based(t.dtype))
    return t


def _element_bytes(t) -> int:
    return 4 * component_count(t) if not isinstance(t, ScalarType) else t.bits // 8


# ------------------------------------------------------------ condition 1, 2
def _type_inspection(node: ast.AST, premise: frozenset[int] = frozenset()) -> ast.AST | None:
    """The first construct under the function `node` that inspects a type, or None
    (`premise`: the ids of the `p.dtype` nodes of the kernel's typing premise, which
    restrict the instantiations and are dropped from every body: scan/typing_premise.py)."""
    conversions = {id(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)
                   and isinstance(n.func, (ast.Call, ast.Attribute))}
    local = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | {
        a.arg for a in node.args.args} if isinstance(node, ast.FunctionDef) else set()
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name == "type" and id(n) in conversions:
                continue                 # type(x)(...): a conversion to the generic type
            if name == "static" and not any(isinstance(x, ast.Name) and x.id in local
                                            for a in n.args for x in ast.walk(a)):
                continue                 # of module-level names only: one value in every instantiation
            if name in TYPE_INSPECTING_CALLS:
                return n
        elif isinstance(n, ast.Attribute) and n.attr in TYPE_ATTRIBUTES and id(n) not in conversions \
                and id(n) not in premise:
            return n
    return None


def _called_funcs(node: ast.AST, registry) -> set[str]:
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id in registry.overloads}


def _reached_funcs(d, registry) -> list[str]:
    """The @funcs the kernel `d` calls, directly or not (by name)."""
    todo, seen = [d.node], list[str]()
    while todo:
        for name in sorted(_called_funcs(todo.pop(), registry) - set(seen)):
            seen.append(name)
            todo.extend(x.node for x in registry.overloads[name])
    return seen


def structure_refusal(info, d, registry) -> str | None:
    """Conditions 1 and 2 on the kernel `d` and every @func it reaches."""
    premise = frozenset(id(n) for cond in premise_conditions(info, d) for a in split(cond)[0]
                        for n in dtype_nodes(a))
    for name, node in [(None, d.node)] + [(n, x.node) for n in _reached_funcs(d, registry)
                                          for x in registry.overloads[n]]:
        bad = _type_inspection(node, premise if name is None else frozenset())
        if bad is not None:
            where = f" (in the func {name!r})" if name else ""
            return (f"`{ast.unparse(bad)}` at line {getattr(bad, 'lineno', '?')}{where} inspects a type, so what "
                    "the kernel does may depend on the instantiation")
    for name in _reached_funcs(d, registry):
        defs = registry.overloads[name]
        if len(defs) > 1:
            return f"the func {name!r} has {len(defs)} overloads, and Warp picks one per argument type"
    return None


# ------------------------------------------------------------ condition 3-5
def _number_literal(e) -> int | float | None:
    """The value of the int or float literal `e` is (through conversions), or None."""
    while isinstance(e, H.CastExpr):
        e = e.operand
    if isinstance(e, H.Literal) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
        return e.value
    return None


def _safe_literal_divisor(e) -> bool:
    """A literal (through conversions) that truncates to a value no integer
    division by it faults on, in every integer type: 1 <= |int(v)| <= 127
    (nonzero) and int(v) != -1 (INT_MIN / -1 traps on int32 and int64)."""
    value = _number_literal(e)
    return value is not None and 1 <= abs(int(value)) <= 127 and int(value) != -1


_TYPE_CLASSES = (ScalarType, VectorType, MatrixType, ArrayType, TupleType, StructType)
_DIFFERS = "the typed body differs between instantiations"


class _Lockstep:
    """Walks the carrier's HIR and its twin's together (conditions 3-5):
    `walk` gives the first reason to refuse, or None."""

    def __init__(self, a: H.KernelDef, b: H.KernelDef):
        self.funcs_a = {f.name: f for f in a.funcs}
        self.funcs_b = {f.name: f for f in b.funcs}
        self.done: set[tuple[str, str]] = set()

    def kernels(self, a: H.KernelDef, b: H.KernelDef) -> str | None:
        if (a.launch_ndim, a.block_dim, a.uses_block_features) != \
                (b.launch_ndim, b.block_dim, b.uses_block_features):
            return f"{_DIFFERS} (its launch)"
        return self.walk(a.body, b.body)

    def walk(self, x, y) -> str | None:
        if isinstance(x, _TYPE_CLASSES):
            return None                 # types are compared at their node (`_node`)
        if type(x) is not type(y):
            # a conversion only one precision needs (`float(x)` of a float32 value) changes a value,
            # never the structure: compare what it converts
            if isinstance(x, H.CastExpr):
                return self.walk(x.operand, y)
            if isinstance(y, H.CastExpr):
                return self.walk(x, y.operand)
            return f"{_DIFFERS} ({type(x).__name__} vs {type(y).__name__})"
        if isinstance(x, (tuple, list)):
            if len(x) != len(y):
                return f"{_DIFFERS} (a different number of parts)"
            return next((w for w in map(self.walk, x, y) if w), None)
        if not dataclasses.is_dataclass(x):
            same = x == y or (isinstance(x, float) and isinstance(y, float))  # a value in its precision
            return None if same else f"{_DIFFERS} ({x!r} vs {y!r})"
        why = self._node(x, y)
        if why:
            return why
        for f in dataclasses.fields(x):
            if f.name in ("loc", "type") or (isinstance(x, H.FuncCall) and f.name == "func"):
                continue
            why = self.walk(getattr(x, f.name), getattr(y, f.name))
            if why:
                return why
        return None

    def _node(self, x, y) -> str | None:
        if isinstance(x, H.FuncCall) and (x.func, y.func) not in self.done:
            self.done.add((x.func, y.func))
            fa, fb = self.funcs_a.get(x.func), self.funcs_b.get(y.func)
            if fa is None or fb is None:
                return f"the func {x.func!r} could not be compared"
            return self.walk(fa.body, fb.body)
        return None


_EXPRESSIONS = typing.get_args(H.Expr)


class _Refused(Exception):
    """A condition of the type-oblivious proof fails; the message says which
    and where (it becomes the plan's refusal, shown beside kernel[...])."""


class _Taint:
    """Which values of the opaque kernel a generic type reaches (conditions
    4, 5 and the integer builtins): the generic parameters, loads of their
    arrays, conversions to a generic type (`type(x)(c)`, at `conversions`:
    their (line, col)), and every value computed from one, except a
    comparison (a fresh bool) and an explicit conversion to a fixed type (a
    fresh value of that type). `refusal` runs it to a fixed point."""

    def __init__(self, kernel: H.KernelDef, generic: set[str], conversions: set[tuple[int, int]],
                 subscripts: _Subscripts | None = None, type_names: tuple | None = None):
        self.kernel, self.generic, self.conversions = kernel, generic, conversions
        # generic_scalars: (type_conversions, converted_places) of the reached definitions
        self.type_names = type_names if type_names is not None else ({}, set())
        self.divisions: dict[int, H.BinaryExpr] = {}    # by a value of a generic type, in walk order
        self.subscripts = subscripts if subscripts is not None else _Subscripts(set(), {}, set())
        self.funcs = {f.name: f for f in kernel.funcs}
        self.func_results: dict[tuple, bool] = {}

    def refusal(self) -> str | None:
        try:
            self.body(self.kernel.body, set(self.generic))
        except _Refused as why:
            return str(why)
        if self.divisions:
            classes = ScalarClasses(self.kernel, self.generic, *self.type_names)
            bad = classes.unforced(self.divisions.values())
            if bad is not None:
                return (f"a division at line {bad.loc.line} by a value of a generic type that nothing in "
                        "the kernel makes a float: an integer instantiation divides by zero there when it is 0")
        return None

    def body(self, stmts, names: set[str]) -> bool:
        """Walk `stmts` until `names` (the tainted locals) stop growing; whether a
        `return` gives a tainted value."""
        while True:
            before, returns = set(names), [False]
            for st in stmts:
                self.stmt(st, names, returns)
            if names == before:
                return returns[0]

    def stmt(self, st, names: set[str], returns: list) -> None:
        at = f" at line {st.loc.line}"
        if isinstance(st, H.AssertStmt) and st.message == H.COMPONENT_INDEX_MESSAGE:
            raise _Refused(f"a run-time component index{at} written to: its range may depend on "
                           "the instantiation's length")
        if self.subscripts.component_write(st, names):
            raise _Refused(f"a constant component index{at} written to a value of a generic type: "
                           "it is out of range for a shorter instantiation (a vec2 for v[2])")
        if isinstance(st, (H.Assign, H.AssignComponent)) and self.expr(st.value, names):
            names.add(st.name)
            return
        if isinstance(st, H.ReturnStmt):
            returns[0] = returns[0] or (st.value is not None and self.expr(st.value, names))
            return
        for f in dataclasses.fields(st):
            value = getattr(st, f.name)
            for part in value if isinstance(value, tuple) else (value,):
                if isinstance(part, _EXPRESSIONS):
                    self.expr(part, names)
                elif dataclasses.is_dataclass(part) and hasattr(part, "loc") \
                        and not isinstance(part, _TYPE_CLASSES):
                    self.stmt(part, names, returns)

    def expr(self, e, names: set[str]) -> bool:
        at = f" at line {e.loc.line}"
        if isinstance(e, H.Literal):
            return (e.loc.line, e.loc.col) in self.conversions
        if isinstance(e, (H.LocalRef, H.ArrayRefExpr)):
            return e.name in names
        if isinstance(e, H.IndexExpr):
            any([self.expr(i, names) for i in e.indices])
            return e.array.name in names
        if isinstance(e, H.FuncCall):
            return self.call(e, names)
        children = [getattr(e, f.name) for f in dataclasses.fields(e)]
        parts = [p for c in children for p in (c if isinstance(c, tuple) else (c,)) if isinstance(p, _EXPRESSIONS)]
        tainted = [self.expr(p, names) for p in parts]
        if isinstance(e, (H.CompareExpr, H.ChainCompare, H.BoolOpExpr, H.CastExpr, H.ShapeExpr)):
            return (e.loc.line, e.loc.col) in self.conversions
        if isinstance(e, H.BinaryExpr) and e.op in _DIVISIONS and any(tainted) \
                and not _safe_literal_divisor(e.rhs):
            if _number_literal(e.rhs) is None:
                self.divisions.setdefault(id(e), e)     # kept when its divisor is float (refusal())
                return any(tainted)
            raise _Refused(f"a division{at} of a value of a generic type by a literal that is 0 or "
                           "-1 in an integer type: an int32/int64 instantiation divides INT_MIN by "
                           "-1 there (the CPU traps), or by zero")
        if isinstance(e, H.ComponentExpr) and tainted[0] and self.subscripts.out_of_range(e):
            raise _Refused(f"a constant component index{at} into a value of a generic type: it is "
                           "out of range for a shorter instantiation (a vec2 for v[2]), or an array's "
                           "bounds for an array (a bare `Any`, a struct's array field)")
        if isinstance(e, H.DynamicComponentExpr) and tainted[0]:
            raise _Refused(f"a run-time component index{at} into a value of a generic type: its "
                           "range depends on the instantiation's length")
        if isinstance(e, H.BuiltinCall) and any(tainted) and isinstance(e.type, ScalarType) and e.type.is_int:
            raise _Refused(f"vk.{e.name}(){at} gives an integer from a value of a generic type "
                           "(its range may depend on the instantiation's length)")
        return any(tainted)

    def call(self, e: H.FuncCall, names: set[str]) -> bool:
        f = self.funcs.get(e.func)
        args = tuple(self.expr(a, names) for a in e.args)
        if f is None:
            raise _Refused(f"the func {e.func!r} was not found")
        key = (e.func, args)
        if key not in self.func_results:
            self.func_results[key] = True       # a cycle (recursion is refused anyway)
            inner = {p.name for p, t in zip(f.params, args) if t}
            self.func_results[key] = self.body(f.body, inner)
        return self.func_results[key]


def _conversions(nodes) -> set[tuple[int, int]]:
    """(line, col) of each `type(x)(...)` / `x.dtype(...)` conversion under `nodes`."""
    return {(n.lineno, n.col_offset + 1) for node in nodes for n in ast.walk(node)
            if isinstance(n, ast.Call) and ((isinstance(n.func, ast.Call) and isinstance(n.func.func, ast.Name)
                                             and n.func.func.id == "type")
                                            or (isinstance(n.func, ast.Attribute) and n.func.attr == "dtype"))}


@dataclass(frozen=True)
class _Subscripts:
    """Where the source subscripts a value with a constant (`v[2]`, `m[1, 1]`,
    `a[i][2] = x`), so a component of a value of a generic type at one of them
    is a range the instantiation's length decides, unlike an attribute (`v.z`
    is refused by Warp on a vec2 when it builds the kernel, `v[2]` reads past
    it at run time; component 0 of a carrier is an array's element 0 in an
    instantiation with an array, possibly empty, for a bare `Any` or a
    struct's field `p`). `reads`: (line, col) of each subscript, in any
    reached file (a superset: more refusals, never fewer); `attributes`:
    (file, line, col) -> the attribute names there (`v[i].x` starts where its
    subscript does; keyed by file, so a func of another file never exempts a
    subscript); `write_lines`: lines assigning to a subscript, in any file."""

    reads: set
    attributes: dict
    write_lines: set

    def out_of_range(self, e: H.ComponentExpr) -> bool:
        at = (e.loc.line, e.loc.col)
        if at not in self.reads:
            return False
        if any(named_parts(e.value.type).get(a, (None, None))[:2] == (e.index, e.count)
               for a in self.attributes.get((e.loc.file, *at), ())):
            return False            # v[i].x: the attribute, not a component subscript
        return True

    def component_write(self, st, names: set[str]) -> bool:
        if isinstance(st, H.AssignComponent):
            written = st.name in names
        elif isinstance(st, (H.StoreStmt, H.AtomicUpdate)) and st.count > 0:
            written = st.array.name in names
        else:
            return False
        return written and st.loc.line in self.write_lines


def _subscripts(defs) -> _Subscripts:
    """`_Subscripts` of the definitions `defs` (the kernel and the funcs it reaches)."""
    reads: set[tuple[int, int]] = set()
    write_lines: set[int] = set()
    attributes: dict[tuple[str, int, int], set[str]] = {}
    for x in defs:
        for n in ast.walk(x.node):
            if isinstance(n, ast.Subscript) and not (isinstance(n.value, ast.Attribute) and n.value.attr == "shape"):
                reads.add((n.lineno, n.col_offset + 1))
            elif isinstance(n, ast.Attribute):
                attributes.setdefault((x.loc.file, n.lineno, n.col_offset + 1), set()).add(n.attr)
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] \
                if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
            write_lines.update(t.lineno for t in targets if isinstance(t, ast.Subscript))
    return _Subscripts(reads, attributes, write_lines)


# ------------------------------------------------------------ the plan
def carrier_candidates(ndim: int | None) -> list:
    """The carrier types tried for one generic parameter: for an array of
    `Any` (`ndim` from its annotation), arrays of float32-based elements;
    for a bare `Any`, those elements and a few float32-based arrays."""
    if ndim is not None:
        return [ArrayType(t, ndim) for t in _CARRIER_ELEMENTS]
    return list(_CARRIER_ELEMENTS) + [ArrayType(F32, 1), ArrayType(vector_type(3), 1), ArrayType(F32, 2)]


def opaque_plan(info, d, registry, pools: list[tuple[ast.arg, list]], check, progressing,
                start: list | None = None) -> OpaquePlan:
    """The opaque kernel of generic kernel `d` (module docstring), or why not.
    `pools`: per generic parameter, its `carrier_candidates`; `check(types,
    warp_literals) -> (hir | None, KernelError | None)` types the body with
    `types` for the generic parameters; `progressing(types)` is search_typing's `attempt`;
    `start`: a typing that type-checked (the enumeration's first with a vector type), whose
    float32-based twin the search starts from."""
    why = structure_refusal(info, d, registry)
    if why is not None:
        return OpaquePlan(refusal=why)
    args = [a for a, _ in pools]

    furthest: list = [(-1, -1), None]    # the typing that typed furthest, for the refusal

    def attempt(combo):
        types = {a.arg: t for a, t in zip(args, combo)}
        hir, progress = progressing(types)
        if hir is None and progress > furthest[0]:
            furthest[:] = [progress, types]
        return hir, progress

    found = search_typing([p for _, p in pools], attempt, MAX_CARRIER_CHECKS,
                          start=[_float_based(t) for t in start] if start is not None else None)
    if found is None:
        err = check(furthest[1], True)[1] if furthest[1] is not None else None
        why = f"; the furthest was refused with: {err.message}" if err is not None else ""
        return OpaquePlan(refusal="no float32-based typing of its generic parameters type-checks (a generic "
                                  f"value is used as an integer, or needs a type not tried){why}")
    combo, hir = found
    defs = [d] + [registry.overloads[n][0] for n in _reached_funcs(d, registry)]
    reached = [x.node for x in defs]
    taint = _Taint(hir, {a.arg for a in args}, _conversions(reached), _subscripts(defs),
                   (type_conversions(defs), converted_places(defs, set(_reached_funcs(d, registry)))))
    why = taint.refusal()
    if why is not None:
        return OpaquePlan(refusal=why)
    twin, _ = check({a.arg: float64_twin(t) for a, t in zip(args, combo)}, False)
    if twin is not None:     # a float64 instantiation types too: the same body, node for node
        why = _Lockstep(hir, twin).kernels(hir, twin)
        if why is not None:
            return OpaquePlan(refusal=why)
    sizes = [_element_bytes(t.dtype) for t in combo if isinstance(t, ArrayType)]
    return OpaquePlan(hir, tuple((a.arg, t) for a, t in zip(args, combo)), None, max(sizes, default=1),
                      tuple(sorted({(e.loc.file, e.loc.line, e.loc.col) for e in taint.divisions.values()})))
