"""Contract atoms: the conjuncts a suggested `@vk.requires(lambda ...)` is made
of (`Term`s compared by an `Atom`), the MIR they compile to, and their value on
a counterexample. proofs/deciding/contract_templates.py generates candidates
from them; proofs/deciding/suggest.py searches them.

Invariants:
- `Atom.text` is valid inside a docs/LANGUAGE.md section 5 decorator lambda, and
  `requires_instrs` builds exactly the MIR the frontend compiles that text
  to (int32 `ShapeOf`, `Special launch_dim`, `mul c, x` for `c * x`,
  `Compare`, then `Requires`; `RequiresArray` for the array contracts), so a
  proof of the extended kernel is a proof of the kernel with the pasted text;
- `holds` (evaluation on a counterexample) only ranks candidates; it never
  decides anything.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import SupportsIndex

from verikern.mir.nodes import (
    ArrayRef, BinOp, Cast, Compare, Const, Kernel, Operand, ParamOrigin, Requires, RequiresArray,
    ScalarParam, ShapeOf, SourceLoc, Special, Value,
)
from verikern.mir.types import BOOL, I32, I64
from verikern.proofs.obligations import ObligationSpec

_SYMBOL = {"eq": "==", "le": "<=", "lt": "<", "gt": ">", "ge": ">=", "ne": "!="}


@dataclass(frozen=True)
class Term:
    """An int32 value a contract can name: `kind` "shape" (`name.shape[index]`),
    "launch" (`vk.launch_dim(index)`), "param" (the int32 MIR parameter
    `name`; when `captured`, the module constant a kernel captures without a
    known value, which a decorator lambda names as the global `shown`) or
    "const" (the literal `index`); times `scale` when it is not 1, less the
    term `minus` when given (`x.shape[0] - vk.launch_dim(1)`), plus `offset`
    when it is not 0 (int32 arithmetic, as the pasted text means).
    `captured` and `shown` follow from `name` (see `param_term`), so they
    take no part in equality. `wide`: the int32 term cast to int64 (`vk.int64(
    a.shape[0])`, `vk.int64(x.shape[0] - vk.launch_dim())`); kind "product": the int64
    product of `factors` (int32 terms, each cast to int64), always wide."""

    kind: str
    name: str = ""
    index: int = 0
    scale: int = 1
    offset: int = 0
    minus: "Term | None" = None
    captured: bool = field(default=False, compare=False)
    shown: str = field(default="", compare=False)
    wide: bool = False
    factors: tuple["Term", ...] = ()

    def text(self, launch_ndim: int) -> str:
        if self.kind == "product":
            return " * ".join(f"vk.int64({f.text(launch_ndim)})" for f in self.factors)
        if self.wide and self.kind != "const":     # the int32 term, then cast (as `_Builder.term`)
            return f"vk.int64({replace(self, wide=False).text(launch_ndim)})"
        scaled = self._scaled_text(launch_ndim)
        if self.wide:
            return f"vk.int64({scaled})"
        if self.minus is not None:
            scaled = f"{scaled} - {self.minus.text(launch_ndim)}"
        if self.offset == 0:
            return scaled
        return f"{scaled} {'+' if self.offset > 0 else '-'} {abs(self.offset)}"

    def _scaled_text(self, launch_ndim: int) -> str:
        if self.kind == "shape":
            base = f"{self.name}.shape[{self.index}]"
        elif self.kind == "launch":
            base = "vk.launch_dim()" if launch_ndim == 1 else f"vk.launch_dim({self.index})"
        elif self.kind == "param":
            base = self.shown or self.name
        else:
            base = str(self.index)
        return base if self.scale == 1 else f"{self.scale} * {base}"

    def names(self) -> tuple[str, ...]:
        """The kernel parameters it names (the lambda's parameters; a captured
        constant is a module global, not one)."""
        named = self.kind in ("shape", "param") and not self.captured
        own = tuple(n for f in self.factors for n in f.names())
        return own + ((self.name,) if named else ()) + \
            (self.minus.names() if self.minus is not None else ())


ZERO = Term("const", index=0)


def param_term(kernel: Kernel, name: str) -> Term:
    """The term for `kernel`'s scalar parameter `name`, with its origin."""
    p = next(p for p in kernel.scalar_params if p.name == name)
    return Term("param", name, captured=p.origin is ParamOrigin.CAPTURED, shown=p.user_name)


@dataclass(frozen=True)
class Atom:
    """One conjunct. `op` is a comparison (`eq le lt gt ge ne`: `lhs op rhs`)
    or "all_in_range" (`array`'s elements in [0, rhs)) / "all_distinct" / "all_sorted";
    `family` ranks candidates (lower is tried first); `weaker` is the
    weaker form minimisation tries in its place (`<=` for `==`);
    `companions` are picked with it (`k > 0` with a bound on `n * k`: either
    alone leaves the index wrapping), and minimised apart."""

    op: str
    lhs: Term = ZERO
    rhs: Term = ZERO
    array: str = ""
    family: int = 0
    weaker: "Atom | None" = None
    companions: tuple["Atom", ...] = ()

    @property
    def is_array_contract(self) -> bool:
        return self.op in ("all_in_range", "all_distinct", "all_sorted")

    def text(self, launch_ndim: int) -> str:
        if self.op == "all_in_range":
            return f"vk.all_in_range({self.array}, 0, {self.rhs.text(launch_ndim)})"
        if self.op in ("all_distinct", "all_sorted"):
            return f"vk.{self.op}({self.array})"
        return f"{self.lhs.text(launch_ndim)} {_SYMBOL[self.op]} {self.rhs.text(launch_ndim)}"

    def names(self) -> tuple[str, ...]:
        own = (self.array,) if self.array else ()
        return own + self.lhs.names() + self.rhs.names()

    def key(self) -> tuple:
        """Identity without the ranking fields."""
        return (self.op, self.lhs, self.rhs, self.array)


# ------------------------------------------------------------------ MIR
class _Builder:
    """Fresh SSA values and the instructions computing terms, in order."""

    def __init__(self, kernel: Kernel, loc: SourceLoc):
        ids = [p.value.id for p in kernel.params if isinstance(p, ScalarParam)]
        for b in kernel.blocks:
            ids += [result.id for ins in (*b.phis, *b.instrs)
                    if (result := getattr(ins, "result", None)) is not None]
        self.next_id = max(ids, default=-1) + 1
        self.arrays = {p.name: p for p in kernel.params if isinstance(p, ArrayRef)}
        self.params = {p.name: p.value for p in kernel.params if isinstance(p, ScalarParam)}
        self.loc = loc
        self.out: list = []

    def value(self, type_) -> Value:
        self.next_id += 1
        return Value(self.next_id - 1, type_)

    def term(self, t: Term) -> Operand:
        """The value of `t`, computed as the frontend compiles its text
        (a wide term: each int32 part cast to int64, products from the left)."""
        if t.kind == "product":
            total: Operand | None = None
            for f in t.factors:
                # `vk.int64(36)`: the frontend folds a literal factor to an int64 literal
                part = self.term(replace(f, wide=True)) if f.kind == "const" else self.widened(self.term(f))
                if total is not None:
                    prod = self.value(I64)
                    self.out.append(BinOp(prod, "mul", total, part, self.loc))
                    part = prod
                total = part
            assert total is not None, "a product term has factors"
            return total
        if t.wide and t.kind == "const":     # `vk.int64(c)`: the frontend folds it to an int64 literal
            return Const(t.index * t.scale, I64)
        if t.wide:
            return self.widened(self.term(replace(t, wide=False)))
        base: Operand
        if t.kind == "const":
            base = Const(t.index, I32)
        elif t.kind == "param":
            base = self.params[t.name]
        elif t.kind == "shape":
            base = self.value(I32)
            self.out.append(ShapeOf(base, self.arrays[t.name], t.index, self.loc))
        else:
            base = self.value(I32)
            self.out.append(Special(base, "launch_dim", self.loc, t.index))
        if t.scale != 1:
            prod = self.value(I32)
            self.out.append(BinOp(prod, "mul", Const(t.scale, I32), base, self.loc))
            base = prod
        if t.minus is not None:
            less = self.term(t.minus)
            diff = self.value(I32)
            self.out.append(BinOp(diff, "sub", base, less, self.loc))
            base = diff
        if t.offset == 0:
            return base
        # `x + 1` / `x - 1`: as the frontend compiles the pasted text
        total = self.value(I32)
        self.out.append(BinOp(total, "add" if t.offset > 0 else "sub", base, Const(abs(t.offset), I32),
                              self.loc))
        return total

    def widened(self, op: Operand) -> Operand:
        out = self.value(I64)
        self.out.append(Cast(out, op, self.loc))
        return out

    def atom(self, a: Atom) -> None:
        if a.op in ("all_distinct", "all_sorted"):
            self.out.append(RequiresArray(a.op, self.arrays[a.array], self.loc))
        elif a.op == "all_in_range":
            hi = self.term(a.rhs)
            arr = self.arrays[a.array]
            self.out.append(RequiresArray("all_in_range", arr, self.loc, lo=Const(0, arr.dtype), hi=hi))
        else:
            lhs, rhs = self.term(a.lhs), self.term(a.rhs)
            cond = self.value(BOOL)
            self.out.append(Compare(cond, a.op, lhs, rhs, self.loc))
            self.out.append(Requires(cond, self.loc))


def requires_instrs(kernel: Kernel, atoms) -> tuple:
    """The MIR instructions stating `atoms` (fresh value ids), in order."""
    b = _Builder(kernel, kernel.loc)
    for a in atoms:
        b.atom(a)
    return tuple(b.out)


def with_requires(kernel: Kernel, atoms) -> tuple[Kernel, int]:
    """`kernel` with `atoms` as requires at the start of its entry block,
    and how many instructions were inserted there (sites of the entry block
    move by that many)."""
    extra = requires_instrs(kernel, atoms)
    entry = kernel.blocks[0]
    blocks = (replace(entry, instrs=extra + entry.instrs),) + kernel.blocks[1:]
    return replace(kernel, blocks=blocks), len(extra)


def shift_spec(spec: ObligationSpec, entry: str, n: int) -> ObligationSpec:
    """`spec` with its sites in the entry block moved by `n` instructions."""
    def move(site):
        return (site[0], site[1] + n) if site is not None and site[0] == entry else site
    return replace(spec, site=move(spec.site), other=move(spec.other))


# ------------------------------------------------------------------ evaluation
def _wrap(v: int) -> int:
    return (v + 2 ** 31) % 2 ** 32 - 2 ** 31


def _eval(t: Term, cex) -> int | None:
    v: object                  # model values: ints, numpy scalars, bools, floats or missing
    if t.kind == "product":    # int64 arithmetic (an int32 value cast to int64 keeps its value)
        total = 1
        for f in t.factors:
            x = _eval(f, cex)
            if x is None:
                return None
            total = (total * x + 2 ** 63) % 2 ** 64 - 2 ** 63
        return total
    if t.kind == "const":
        v = t.index
    elif t.kind == "launch":
        v = cex.dims[t.index] if t.index < len(cex.dims) else None
    elif t.kind == "param":
        v = cex.scalars.get(t.name)
    else:
        shape = cex.shapes.get(t.name)
        v = shape[t.index] if shape is not None and t.index < len(shape) else None
    if v is None or isinstance(v, (bool, float)) or not isinstance(v, SupportsIndex):
        return None
    less = _eval(t.minus, cex) if t.minus is not None else 0
    if less is None:
        return None
    return _wrap(_wrap(_wrap(t.scale * int(v)) - less) + t.offset)


def holds(a: Atom, cex) -> bool | None:
    """Whether counterexample `cex` satisfies `a` (None: it does not say)."""
    if cex is None:
        return None
    if a.is_array_contract:
        shape = cex.shapes.get(a.array)
        if not shape or not shape[0]:      # an empty index array: the value came from nowhere
            return None
        listed = {int(i): v for i, v in cex.arrays.get(a.array, {}).items()}   # flat indices
        values = [int(v) for v in listed.values() if isinstance(v, int)]
        size = 1
        for n in shape:
            size *= n
        if size > len(listed):
            values.append(0)               # every element not listed is 0
        if a.op == "all_distinct":
            return len(set(values)) == len(values) and size <= len(listed) + 1
        if a.op == "all_sorted":           # listed elements in index order, the rest 0
            row = [int(listed.get(j, 0)) for j in range(shape[0])] if shape[0] <= 4096 else None
            return None if row is None else all(x <= y for x, y in zip(row, row[1:]))
        hi = _eval(a.rhs, cex)
        return None if hi is None else all(0 <= v < hi for v in values)
    x, y = _eval(a.lhs, cex), _eval(a.rhs, cex)
    if x is None or y is None:
        return None
    return {"eq": x == y, "le": x <= y, "lt": x < y, "gt": x > y, "ge": x >= y, "ne": x != y}[a.op]
