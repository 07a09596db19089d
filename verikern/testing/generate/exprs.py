"""Random typed expressions that are well defined on every backend.

Invariants (what "well defined by construction" means for a value):
- integer arithmetic wraps (+ - * << and conversions between widths are
  exact machine arithmetic on every backend). Signed overflow is undefined
  in C and C++, so Warp's compiled code may assume it never happens (clang
  folds `1 > x + x` to `x < 1`): for int32 and int64 (WRAPPED), + - *, <<
  and negation are computed in the unsigned type of the same width and
  converted back, and abs never sees the minimum (int8 and int16 operands
  are promoted to int in C++, so they cannot overflow); a divisor or modulus is
  `(d & 7) + 1`, never zero nor negative (so no INT_MIN // -1 either); a
  shift amount is masked below the type's width;
- float values stay finite and far from overflow: leaves are small (the
  launch draws floats in [-LIMIT, LIMIT], integers enter through `% K`),
  depth is bounded per type, a divisor is `abs(d) + 1` and square roots
  take `abs`; so no NaN ever reaches `min`/`max`, whose NaN rules differ;
- transcendental builtins (sin, exp, ...) whose last bits differ between
  math libraries are applied only at the top of an expression (`top`), so
  their few-ULP differences are not amplified before the comparison.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .choices import Choices
from .model import Expr, FLOATS, INTS, SCALARS, bits, guard_op, kind, lit, op

#: |float leaves| in the launch, per float type, and the expression depth that keeps
#: every intermediate value finite (LIMIT ** (2 ** depth) well below the type's max)
FLOAT_LIMIT = {"float16": 4.0, "float32": 64.0, "float64": 64.0}
FLOAT_DEPTH = {"float16": 2, "float32": 2, "float64": 2}
#: integers enter float expressions as `x % K`
INT_TO_FLOAT_MOD = {"float16": 4, "float32": 64, "float64": 64}
#: signed types whose overflow is undefined behaviour in Warp's C++ and CUDA
#: code -> the unsigned type their wrapping arithmetic is computed in
WRAPPED = {"int32": "uint32", "int64": "uint64"}


def _binary(t: str, sym: str) -> str:
    """The template of `{0} sym {1}` in type `t`, wrapping without undefined behaviour."""
    u = WRAPPED.get(t)
    return f"({{0}} {sym} {{1}})" if u is None else f"vk.{t}(vk.{u}({{0}}) {sym} vk.{u}({{1}}))"


def _negate(t: str) -> str:
    u = WRAPPED.get(t)
    return "(-{0})" if u is None else f"vk.{t}(vk.{u}(0) - vk.{u}({{0}}))"


def _abs(t: str) -> str:
    """abs, kept off the minimum (whose abs overflows) for the WRAPPED types."""
    if t not in WRAPPED:
        return "abs({0})"
    return f"abs(vk.max({{0}}, vk.{t}({-(2 ** (int(t[3:]) - 1)) + 1})))"


@dataclass
class Scope:
    """The values an expression may read, by type (variables, parameters,
    loaded elements), each an `Expr` leaf."""

    values: dict[str, list[Expr]] = field(default_factory=dict)

    def add(self, e: Expr) -> None:
        self.values.setdefault(e.type, []).append(e)

    def of(self, t: str) -> list[Expr]:
        return self.values.get(t, [])

    def ints(self) -> list[Expr]:
        return [e for t in INTS for e in self.of(t)]


def small_literal(c: Choices, t: str) -> Expr:
    k = kind(t)
    if k == "b":
        return lit(t, c.chance(50))
    if k == "f":
        return lit(t, c.pick([1.0, 0.5, 2.0, -1.5, 3.0, 0.25, -0.75]))
    lo = 0 if k == "u" else -8
    return lit(t, c.integer(lo, 9) if c.chance(80) else c.pick([0, 1, 7, 100 if bits(t) > 8 else 99]))


def leaf(c: Choices, t: str, scope: Scope) -> Expr:
    """A variable of type `t`, a conversion of another integer value, or a literal."""
    own = scope.of(t)
    others = [e for e in scope.ints() if e.type != t]
    roll = c.integer(0, 9)
    if own and roll < 6:
        return c.pick(own)
    if others and roll < 9 and kind(t) != "b":
        src = c.pick(others)
        if kind(t) == "f":
            return op(t, f"vk.{t}(({{0}} % vk.{src.type}({INT_TO_FLOAT_MOD[t]})))", src)
        return op(t, f"vk.{t}({{0}})", src)
    return small_literal(c, t)


def safe_divisor(t: str, d: Expr) -> Expr:
    if kind(t) == "f":
        return guard_op(t, f"(abs({{0}}) + vk.{t}(1.0))", d)
    return guard_op(t, f"(({{0}} & vk.{t}(7)) + vk.{t}(1))", d)


def expr(c: Choices, t: str, scope: Scope, depth: int | None = None) -> Expr:
    """A random expression of type `t` over `scope`."""
    if depth is None:
        depth = FLOAT_DEPTH[t] if kind(t) == "f" else 2
    if depth <= 0 or c.chance(35):
        return leaf(c, t, scope)
    k = kind(t)
    if k == "b":
        return _bool(c, scope, depth)
    sub = lambda: expr(c, t, scope, depth - 1)  # noqa: E731
    if k == "f":
        form = c.integer(0, 12)
        if form <= 3:
            return op(t, "({0} " + "+-*"[form % 3] + " {1})", sub(), sub())
        if form == 4:
            return op(t, "({0} / {1})", sub(), safe_divisor(t, sub()))
        if form == 5:
            return op(t, c.pick(["vk.min({0}, {1})", "vk.max({0}, {1})"]), sub(), sub())
        if form == 6:
            return op(t, c.pick(["abs({0})", "vk.floor({0})", "vk.ceil({0})", "(-{0})"]), sub())
        if form == 7:
            return op(t, "vk.sqrt(abs({0}))", sub())
        if form == 8:
            return op(t, f"vk.clamp({{0}}, vk.{t}(-2.5), vk.{t}(3.0))", sub())
        return _select(c, t, scope, depth)
    form = c.integer(0, 14)
    if form <= 4:
        sym = ["+", "-", "*", "&", "|"][form]
        return op(t, _binary(t, sym) if sym in "+-*" else f"({{0}} {sym} {{1}})", sub(), sub())
    if form == 5:
        return op(t, "({0} ^ {1})", sub(), sub())
    if form == 6:
        return op(t, "({0} " + c.pick(["//", "%"]) + " {1})", sub(), safe_divisor(t, sub()))
    if form == 7:
        amount = guard_op(t, f"({{0}} & vk.{t}({bits(t) - 1}))", sub())
        shift = c.pick(["<<", ">>"])      # >> of a negative value is arithmetic: defined
        return op(t, _binary(t, "<<") if shift == "<<" else "({0} >> {1})", sub(), amount)
    if form == 8:
        return op(t, c.pick(["vk.min({0}, {1})", "vk.max({0}, {1})"]), sub(), sub())
    if form == 9 and k == "i":
        return op(t, c.pick([_negate(t), _abs(t)]), sub())
    if form == 10:
        lo, hi = (0, 5) if k == "u" else (-3, 5)
        return op(t, f"vk.clamp({{0}}, vk.{t}({lo}), vk.{t}({hi}))", sub())
    return _select(c, t, scope, depth)


def _select(c: Choices, t: str, scope: Scope, depth: int) -> Expr:
    cond = _bool(c, scope, min(depth - 1, 1))
    a, b = expr(c, t, scope, depth - 1), expr(c, t, scope, depth - 1)
    if c.chance(50):
        return op(t, "({1} if {0} else {2})", cond, a, b)
    return op(t, "vk.where({0}, {1}, {2})", cond, a, b)


def _bool(c: Choices, scope: Scope, depth: int) -> Expr:
    if depth <= 0 or c.chance(30):
        own = scope.of("bool")
        if own and c.chance(50):
            return c.pick(own)
        t = c.pick([t for t in SCALARS if t != "bool" and (scope.of(t) or t == "int32")])
        d = 1
        return op("bool", "({0} " + c.pick(["<", "<=", "==", "!=", ">", ">="]) + " {1})",
                  expr(c, t, scope, d), expr(c, t, scope, d))
    form = c.integer(0, 2)
    if form == 0:
        return op("bool", "(not {0})", _bool(c, scope, depth - 1))
    return op("bool", "({0} " + ("and" if form == 1 else "or") + " {1})",
              _bool(c, scope, depth - 1), _bool(c, scope, depth - 1))


def top(c: Choices, t: str, e: Expr) -> Expr:
    """`e`, sometimes under a math-library builtin (see the module invariant)."""
    if t not in FLOATS or t == "float16" or not c.chance(30):
        return e
    return c.pick([
        op(t, "vk.sin({0})", e), op(t, "vk.cos({0})", e),
        op(t, f"vk.exp(vk.clamp({{0}}, vk.{t}(-20.0), vk.{t}(20.0)))", e),
        op(t, f"vk.log(abs({{0}}) + vk.{t}(1.0))", e),
        op(t, f"vk.atan2({{0}}, vk.{t}(1.5))", e),
    ])
