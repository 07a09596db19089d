"""The program model of generated kernels: typed expression trees,
statements, phases and whole programs, and their rendering as source text.

Invariants:
- Rendering is total and deterministic: the same `Program` always renders
  to the same source, every operator fully parenthesised (so precedence
  never changes a meaning the generator chose).
- An `Expr` knows its type; replacing a node by another node of the same
  type (what shrinking does) keeps the program well typed.
- A `Phase` is self-contained: it declares every array, scalar parameter,
  contract and `@vk.func` it uses, and its local names carry the phase's
  prefix, so removing a phase (shrinking) leaves a valid program.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Callable

import numpy as np

#: scalar type name -> (numpy dtype, kind: "i" signed, "u" unsigned, "f" float, "b" bool)
SCALARS: dict[str, tuple[str, str]] = {
    "int8": ("int8", "i"), "int16": ("int16", "i"), "int32": ("int32", "i"), "int64": ("int64", "i"),
    "uint8": ("uint8", "u"), "uint16": ("uint16", "u"), "uint32": ("uint32", "u"),
    "uint64": ("uint64", "u"), "float16": ("float16", "f"), "float32": ("float32", "f"),
    "float64": ("float64", "f"), "bool": ("bool", "b"),
}
INTS = tuple(t for t, (_, k) in SCALARS.items() if k in "iu")
FLOATS = ("float16", "float32", "float64")
#: vector/matrix type name -> numpy element shape (float32 elements)
COMPOSITES: dict[str, tuple[int, ...]] = {
    "vec2": (2,), "vec3": (3,), "vec4": (4,), "mat22": (2, 2), "mat33": (3, 3), "mat44": (4, 4),
}


def kind(t: str) -> str:
    """"i", "u", "f", "b" for scalars, "v" for vectors, "m" for matrices."""
    if t in SCALARS:
        return SCALARS[t][1]
    return "v" if t.startswith("vec") else "m"


def bits(t: str) -> int:
    return np.dtype(SCALARS[t][0]).itemsize * 8


def np_dtype(t: str) -> np.dtype:
    return np.dtype(SCALARS[t][0]) if t in SCALARS else np.dtype("float32")


def lit(t: str, value) -> "Expr":
    """A literal of type `t`, always written with its type (`vk.int8(3)`)."""
    if kind(t) == "b":
        return Expr(t, "True" if value else "False")
    text = repr(float(value)) if kind(t) == "f" else str(int(value))
    return Expr(t, f"vk.{t}({text})")


@dataclass(frozen=True)
class Expr:
    """An expression of type `type`: `fmt` with `{0}`, `{1}`.. filled by the
    rendered `args` (a leaf has none; its fmt is its text). A `fixed` node
    is what makes its operand well defined (`(d & 7) + 1` as a divisor):
    shrinking may simplify its operands but never replaces the node."""

    type: str
    fmt: str
    args: tuple["Expr", ...] = ()
    fixed: bool = False     # makes its operands safe (a divisor, a shift amount): never replaced

    def render(self) -> str:
        if not self.args:
            return self.fmt
        return self.fmt.format(*(a.render() for a in self.args))

    def nodes(self) -> int:
        return 1 + sum(a.nodes() for a in self.args)


def op(t: str, fmt: str, *args: Expr) -> Expr:
    return Expr(t, fmt, tuple(args))


def guard_op(t: str, fmt: str, *args: Expr) -> Expr:
    """A `fixed` node (see Expr)."""
    return Expr(t, fmt, tuple(args), fixed=True)


# ------------------------------------------------------------- statements
@dataclass(frozen=True)
class Line:
    """One statement line written as text, with expressions in `{0}`.. ."""

    fmt: str
    args: tuple[Expr, ...] = ()

    def lines(self) -> list[str]:
        return [self.fmt.format(*(a.render() for a in self.args))]


@dataclass(frozen=True)
class Block:
    """`header:` (a text with expressions, e.g. `if {0}`, `for q in range(4)`)
    and its indented body; `orelse` adds an `else:` body."""

    header: str
    body: tuple["Stmt", ...]
    args: tuple[Expr, ...] = ()
    orelse: tuple["Stmt", ...] = ()

    def lines(self) -> list[str]:
        out = [self.header.format(*(a.render() for a in self.args)) + ":"]
        out += ["    " + ln for s in self.body for ln in s.lines()] or ["    pass"]
        if self.orelse:
            out.append("else:")
            out += ["    " + ln for s in self.orelse for ln in s.lines()]
        return out


Stmt = Line | Block


@dataclass(frozen=True)
class ArrayParam:
    """A global array parameter: `dtype` (a scalar or composite type name),
    `ndim`, its concrete `shape` in the generated launch, and `values`:
    "data" (random contents) or "zeros"; `fortran`: the launch passes it in
    column-major order (the kernel must not care)."""

    name: str
    dtype: str
    ndim: int
    shape: tuple[int, ...]
    values: str = "data"
    int_valued: bool = False    # float contents that are small integers (exact atomic sums)
    fortran: bool = False       # passed in Fortran (column-major) order

    def annotation(self) -> str:
        nd = f", ndim={self.ndim}" if self.ndim > 1 else ""
        return f"vk.array(dtype=vk.{self.dtype}{nd})"


@dataclass(frozen=True)
class ScalarParam:
    name: str
    dtype: str
    value: int | float


@dataclass(frozen=True)
class Func:
    """A `@vk.func` of scalar parameters `params` (name, type) returning `ret`."""

    name: str
    params: tuple[tuple[str, str], ...]
    ret: str
    body: tuple[Stmt, ...]

    def lines(self) -> list[str]:
        sig = ", ".join(f"{n}: vk.{t}" for n, t in self.params)
        out = ["@vk.func", f"def {self.name}({sig}) -> vk.{self.ret}:"]
        return out + ["    " + ln for s in self.body for ln in s.lines()]


@dataclass(frozen=True)
class Phase:
    """A self-contained part of a kernel body (see the module invariant).
    `block_level`: uses shared memory, barriers or block builtins (not
    valid Warp; needs the launch size a multiple of the block size)."""

    kind: str
    body: tuple[Stmt, ...]
    arrays: tuple[ArrayParam, ...] = ()
    scalars: tuple[ScalarParam, ...] = ()
    requires: tuple[str, ...] = ()
    funcs: tuple[Func, ...] = ()
    block_level: bool = False
    defects: tuple[tuple[str, "Phase"], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Program:
    """A generated kernel: launch `dims`, `block_dim`, the phases, and the
    `seed` its launch values are drawn from. `defect` names a planted defect
    (None: the program is correct by construction)."""

    name: str
    dims: tuple[int, ...]
    block_dim: int
    phases: tuple[Phase, ...]
    seed: int
    defect: str | None = None

    @property
    def block_level(self) -> bool:
        return any(p.block_level for p in self.phases)

    def arrays(self) -> list[ArrayParam]:
        return [a for p in self.phases for a in p.arrays]

    def scalars(self) -> list[ScalarParam]:
        return [s for p in self.phases for s in p.scalars]

    def funcs(self) -> list[Func]:
        seen: dict[str, Func] = {}
        for p in self.phases:
            for f in p.funcs:
                seen.setdefault(f.name, f)
        return list(seen.values())

    def source(self) -> str:
        """The kernel file's text."""
        out = ["# A kernel written by verikern.testing.generate "
               f"(seed {self.seed}{', defect: ' + self.defect if self.defect else ''}).",
               f"# launch: dim={self.dims}, block_dim={self.block_dim}",
               "import verikern as vk", "", ""]
        for f in self.funcs():
            out += f.lines() + ["", ""]
        params = [f"{a.name}: {a.annotation()}" for a in self.arrays()]
        params += [f"{s.name}: vk.{s.dtype}" for s in self.scalars()]
        deco = f"@vk.kernel(block_dim={self.block_dim})" if self.block_level else "@vk.kernel"
        out += [deco, f"def {self.name}({', '.join(params)}):"]
        body = [f"vk.requires({r})" for p in self.phases for r in p.requires]
        ids = [f"i{k}" for k in range(len(self.dims))]
        body.append(f"{', '.join(ids)} = vk.tid()")
        if self.block_level:
            body += ["t = vk.thread_idx()", "b = vk.block_idx()"]
        for p in self.phases:
            body += [ln for s in p.body for ln in s.lines()]
        out += ["    " + ln for ln in body]
        return "\n".join(out) + "\n"

    def with_phases(self, phases) -> "Program":
        return replace(self, phases=tuple(phases))


# ----------------------------------------------------- expression editing
def map_exprs(obj, fn: Callable[[Expr], Expr | None]):
    """`obj` (a Stmt, Phase, Func or Program) with every expression node
    offered to `fn` in pre-order; `fn` returns a replacement or None (then
    the node's children are visited)."""
    if isinstance(obj, Expr):
        new = fn(obj)
        if new is not None:
            return new
        return replace(obj, args=tuple(map_exprs(a, fn) for a in obj.args)) if obj.args else obj
    if isinstance(obj, tuple):
        return tuple(map_exprs(x, fn) for x in obj)
    if isinstance(obj, (Line, Block, Phase, Func, Program)):
        changes = {}
        for f in fields(obj):
            if f.name == "defects":
                continue
            v = getattr(obj, f.name)
            if isinstance(v, (Expr, tuple, Line, Block, Phase, Func)):
                changes[f.name] = map_exprs(v, fn)
        return replace(obj, **changes)
    return obj


def count_exprs(obj) -> int:
    n = [0]

    def visit(e: Expr) -> None:
        n[0] += 1
        return None
    map_exprs(obj, visit)
    return n[0]


def expr_at(obj, index: int) -> Expr | None:
    """The `index`-th expression node of `obj` (pre-order), or None."""
    found: list[Expr] = []

    def visit(e: Expr) -> Expr | None:
        if len(found) == index:
            found.append(e)
            return e
        found.append(e)
        return None
    map_exprs(obj, visit)
    return found[index] if len(found) > index else None


def replace_expr(obj, index: int, make: Callable[[Expr], Expr | None]):
    """`obj` with its `index`-th expression node (pre-order) replaced by
    `make(node)` (unchanged when that returns None)."""
    n = [0]

    def visit(e: Expr) -> Expr | None:
        k = n[0]
        n[0] += 1
        if k == index:
            new = make(e)
            return new if new is not None else e
        return None
    return map_exprs(obj, visit)
