"""Array accesses that are in bounds by construction, for every launch the
kernel's contracts admit (not only the generated one), and their planted
off-by-one twins.

- `own_slot`: the element of an output array that belongs to this thread
  (each thread writes its own slots, so plain stores never race), under a
  guard against the array's shape.
- `gather`: a read at a computed index, clamped or reduced modulo the
  dimension's length (which a `vk.requires` keeps >= 1).
- `unflatten`: the indices of flat element `e` of a shared tile.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .choices import Choices
from .exprs import Scope, expr
from .model import INTS, ArrayParam, Expr, Line


@dataclass(frozen=True)
class Ctx:
    """Where a phase is generated: the launch `dims`, `block_dim`, and the
    phase's name prefix (`p0_`)."""

    dims: tuple[int, ...]
    block_dim: int
    prefix: str

    @property
    def ids(self) -> list[str]:
        return [f"i{k}" for k in range(len(self.dims))]

    def index_scope(self) -> Scope:
        s = Scope()
        for i in self.ids:
            s.add(Expr("int32", i))
        return s


@dataclass(frozen=True)
class OwnSlot:
    """`index` (text) of this thread's element of `array`, `guard` (text)
    that keeps it in bounds, and the guard with an off-by-one (`<=`)."""

    array: ArrayParam
    index: str
    guard: str
    loose_guard: str
    requires: tuple[str, ...] = ()


def own_slot(c: Choices, ctx: Ctx, name: str, dtype: str) -> OwnSlot:
    """An output array of `dtype` with one element per thread: of the
    launch's rank (shape near the launch dims, so guards matter), or, for 1-D
    launches, of rank 2-4 with constant trailing lengths fixed by `requires`."""
    d = len(ctx.dims)
    if d == 1 and c.chance(35):
        rank = c.integer(2, 4)
        tail = [c.pick([2, 1, 3, 4]) for _ in range(rank - 1)]
        strides = [math.prod(tail[k:]) for k in range(rank)]       # strides[0]: elements per row
        parts = [f"(i0 // {strides[0]})"] + [
            f"((i0 // {strides[k + 1]}) % {tail[k]})" if strides[k + 1] > 1 else f"(i0 % {tail[k]})"
            for k in range(rank - 1)]
        rows = -(-ctx.dims[0] // strides[0]) + c.integer(-1, 1)
        shape = (max(rows, 0), *tail)
        arr = ArrayParam(name, dtype, rank, shape, "zeros" if c.chance(50) else "data")
        req = tuple(f"{name}.shape[{k + 1}] == {tail[k]}" for k in range(rank - 1))
        return OwnSlot(arr, ", ".join(parts), f"{parts[0]} < {name}.shape[0]",
                       f"{parts[0]} <= {name}.shape[0]", req)
    shape = tuple(max(n + c.pick([0, 0, -1, 1]), 0) for n in ctx.dims)
    arr = ArrayParam(name, dtype, d, shape, "zeros" if c.chance(50) else "data",
                     fortran=d > 1 and c.chance(30))
    conds = [f"i{k} < {name}.shape[{k}]" for k in range(d)]
    loose = [f"i0 <= {name}.shape[0]"] + conds[1:]
    return OwnSlot(arr, ", ".join(ctx.ids), " and ".join(conds), " and ".join(loose))


@dataclass(frozen=True)
class Gather:
    """A read of `array` at computed indices (`Expr`s of int32), each made
    in bounds by `styles[k]`: "clamp" or "mod"."""

    array: ArrayParam
    indices: tuple[Expr, ...]
    styles: tuple[str, ...]

    def requires(self) -> str:
        return " and ".join(f"{self.array.name}.shape[{k}] >= 1" for k in range(self.array.ndim))

    def fmt(self, first: int, off_by_one: bool = False) -> str:
        """`name[...]` with `{first}`.. placeholders for the index Exprs;
        `off_by_one` adds 1 to the first index after its clamp or modulus, so
        it reaches the dimension's length whatever the index (a length of 1
        is admitted): a real out-of-bounds read."""
        a = self.array.name
        parts = []
        for k, style in enumerate(self.styles):
            slot = "{" + str(first + k) + "}"
            bump = off_by_one and k == 0
            if style == "clamp":
                parts.append(f"vk.clamp({slot}, 0, {a}.shape[{k}] - 1)" + (" + 1" if bump else ""))
            else:
                parts.append(f"((({slot}) & 2147483647) % {a}.shape[{k}]" + (" + 1)" if bump else ")"))
        return f"{a}[{', '.join(parts)}]"

    def line(self, var: str, off_by_one: bool = False) -> Line:
        """`var = array[...]` (the fmt has no braces but the index slots)."""
        return Line(f"{var} = " + self.fmt(0, off_by_one), self.indices)


def gather(c: Choices, ctx: Ctx, name: str, dtype: str, extra: Scope | None = None) -> Gather:
    """An input array of `dtype` (rank 1-4, small random shape) read at
    indices computed from the thread ids (and `extra` integer values)."""
    rank = c.pick([1, 1, 2, 3, 4])
    shape = tuple(c.integer(1, 6) for _ in range(rank))
    scope = ctx.index_scope()
    if extra is not None:
        for e in extra.of("int32"):
            scope.add(e)
        for t, vals in extra.values.items():
            if t != "int32" and t in INTS and vals:
                scope.add(Expr("int32", f"vk.int32({vals[0].render()})"))
    idx = tuple(expr(c, "int32", scope, 2) for _ in range(rank))
    styles = tuple(c.pick(["clamp", "mod"]) for _ in range(rank))
    return Gather(ArrayParam(name, dtype, rank, shape, fortran=rank > 1 and c.chance(30)), idx, styles)


def unflatten(e: str, shape: tuple[int, ...]) -> list[str]:
    """C-order indices of flat element `e` (an expression text < prod(shape))."""
    out = []
    for k, n in enumerate(shape):
        stride = math.prod(shape[k + 1:])
        part = f"({e} // {stride})" if stride > 1 else f"({e})"
        out.append(part if k == 0 else f"({part} % {n})")
    return out
