"""Expression lowering: HIR expressions -> MIR instructions in the current
block, returning one operand per scalar component.

Invariants: operands are evaluated left to right, each exactly once; an
expression that may fault or has effects (array loads, integer division,
atomics, func calls, a checked read of a maybe-assigned variable) on the
right of `and`/`or`, in a branch of `x if c else y`, or later in a
comparison chain is evaluated only when Python would evaluate it (branches
and phis); everything else uses Select / bool ops.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from verikern.hir import nodes as H
from verikern.hir.types import BOOL, I32, I64, MatrixType, ScalarType, VectorType
from verikern.mir.builder import MirBuilder
from verikern.mir.ops import BINARY
from verikern.mir.nodes import (
    Assert, BinOp, Branch, Cast, Compare, Const, Jump, Load, Phi, Select, ShapeOf, Special,
    UnaryOp,
)

from ..check.held_arrays import ROW_SUFFIX
from .dynamic_components import lower_dynamic_component

# integer ops whose zero divisor traps (the op table, verikern.mir.ops)
_FAULTING_INT_OPS = frozenset(name for name, info in BINARY.items() if info.traps)


if TYPE_CHECKING:   # the state and methods of the class that mixes this in
    from .host import LowererHost as _Host
else:
    _Host = object


class ExprLowering(_Host):
    """Mixin of Lowerer (see module docstring)."""

    # ------------------------------------------------------------ helpers
    def const(self, value, t) -> Const:
        return MirBuilder.const(value, t)

    def binop(self, op, a, b, loc, name=""):
        v = self.b.new_value(a.type, name)
        self.emit(BinOp(v, op, a, b, loc))
        return v

    def cmp(self, op, a, b, loc, name=""):
        v = self.b.new_value(BOOL, name)
        self.emit(Compare(v, op, a, b, loc))
        return v

    def unop(self, op, a, loc, name=""):
        v = self.b.new_value(a.type, name)
        self.emit(UnaryOp(v, op, a, loc))
        return v

    def select(self, c, a, b, loc, name=""):
        v = self.b.new_value(a.type, name)
        self.emit(Select(v, c, a, b, loc))
        return v

    def special(self, kind, loc, dim=0, name=""):
        v = self.b.new_value(I32, name)
        self.emit(Special(v, kind, loc, dim))
        return v

    def is_safe(self, e) -> bool:
        """No loads, atomics, func calls, integer divisions or checked reads inside `e`."""
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, (H.IndexExpr, H.FuncCall, H.DynamicComponentExpr)):
                return False
            if isinstance(x, H.LocalRef) and x.assigned_flag is not None:   # a checked read
                return False
            if isinstance(x, H.BuiltinCall) and x.name == "lower_bound":     # it reads the array
                return False
            if isinstance(x, H.BuiltinCall) and x.name.startswith("atomic_"):
                return False
            if isinstance(x, H.BinaryExpr) and x.op in _FAULTING_INT_OPS \
                    and isinstance(x.type, ScalarType) and x.type.is_int:
                return False
            for f in ("lhs", "rhs", "operand", "cond", "if_true", "if_false", "value", "effect"):
                sub = getattr(x, f, None)
                if sub is not None and not isinstance(sub, (str, int, float, bool)):
                    stack.append(sub)
            stack.extend(getattr(x, "args", ()))
            stack.extend(getattr(x, "operands", ()))
        return True

    def lower_expr(self, e, hint: str = "", eager: bool = False) -> tuple:
        """The MIR operands of `e` (one per component). `eager`: evaluate
        every operand unconditionally (requires: no branches allowed)."""
        handler = EXPR_LOWERING.get(type(e))
        if handler is None:
            raise TypeError(f"no MIR lowering for HIR expression {type(e).__name__}")
        prev, self._eager = getattr(self, "_eager", False), eager or getattr(self, "_eager", False)
        try:
            return handler(self, e, hint)
        finally:
            self._eager = prev

    def lower_indices(self, exprs) -> tuple:
        return tuple(self.lower_expr(x)[0] for x in exprs)

    def inner_indices(self, arr) -> list[tuple]:
        """One tuple of constant inner indices per scalar component."""
        if not arr.inner:
            return [()]
        if len(arr.inner) == 1:
            return [(self.const(i, I32),) for i in range(arr.inner[0])]
        r, c = arr.inner
        return [(self.const(i, I32), self.const(j, I32)) for i in range(r) for j in range(c)]

    def join_values(self, join_l: str, first: tuple, second: tuple, loc, hint) -> tuple:
        """The operands at block `join_l` reached from two blocks, `first` and
        `second` each (label, operands): an operand equal on both edges as it
        is, else a new phi (the first edge's value first)."""
        (first_l, first_ops), (second_l, second_ops) = first, second
        out = []
        for x, y in zip(first_ops, second_ops):
            if x == y:
                out.append(x)
                continue
            v = self.b.new_value(x.type, hint)
            self.b.add_phi(join_l, Phi(v, ((first_l, x), (second_l, y)), loc))
            out.append(v)
        return tuple(out)

    def _when(self, cond, then_fn, else_ops, loc, hint):
        """Evaluate `then_fn()` only when `cond` holds; otherwise the result is
        `else_ops`. Returns the merged operands (phis)."""
        start = self.cur
        then_l = self.new_block("sc")
        join_l = self.new_block("scjoin")
        self.terminate(Branch(cond, then_l, join_l, loc))
        self.set_block(then_l)
        vals = then_fn()
        end = self.cur
        if end is None:  # cannot happen for expressions; keep the CFG well formed
            self.set_block(join_l)
            return else_ops
        self.b.terminate(Jump(join_l, loc))
        self.set_block(join_l)
        return self.join_values(join_l, (end, vals), (start, else_ops), loc, hint)

    # ------------------------------------------------------- expressions
    def _literal(self, e: H.Literal, hint):
        return (self.const(e.value, e.type),)

    def _local(self, e: H.LocalRef, hint):
        if e.assigned_flag is not None:     # some path to here may not assign it
            (flag,) = self.env[e.assigned_flag]
            guard = getattr(self, "_guard", None)
            if guard is not None:           # evaluated eagerly: it counts only where `guard` holds
                flag = self.binop("or", self.unop("not", guard, e.loc), flag, e.loc)
            checked = self.__dict__.setdefault("_checked_flags", set())
            if (self.cur, flag) not in checked:     # not checked earlier in this block
                checked.add((self.cur, flag))
                name = e.name.removesuffix(ROW_SUFFIX)   # `blk = X[b]`'s row: blk (check/held_arrays.py)
                self.emit(Assert(flag, f"variable {name!r} is read before it is assigned",
                                 e.loc, "unassigned"))
        return self.env[e.name]

    def _array_ref(self, e: H.ArrayRefExpr, hint):
        arr, leading = self.array_of(e.name)
        if leading:
            raise TypeError(f"the array view {e.name} is no operand (check/views.py)")
        return (arr,)

    def _binary(self, e: H.BinaryExpr, hint):
        a = self.lower_expr(e.lhs)
        b = self.lower_expr(e.rhs)
        lt, rt = e.lhs.type, e.rhs.type
        if not isinstance(e.type, (VectorType, MatrixType)) and len(a) == 1 and len(b) == 1:
            divisor = b[0]
            guard = getattr(self, "_guard", None)
            if guard is not None and e.op in _FAULTING_INT_OPS and isinstance(e.type, ScalarType) \
                    and e.type.is_int:
                # evaluated eagerly but needed only where `guard` holds: elsewhere
                # divide by 1, as if this operand had been skipped
                divisor = self.select(guard, divisor, self.const(1, divisor.type), e.loc)
            return (self.binop(e.op, a[0], divisor, e.loc, hint),)
        return self.vector_binary(e.op, a, b, lt, rt, e.type, e.loc, hint)

    def _compare(self, e: H.CompareExpr, hint):
        """Scalars: one Compare. Vectors/matrices (`==`/`!=` only): every
        component equal, or some component different (Warp's `!=` is the
        negation of its `==`, and MIR's float `ne` holds for NaN)."""
        a = self.lower_expr(e.lhs)
        b = self.lower_expr(e.rhs)
        if len(a) == 1:
            return (self.cmp(e.op, a[0], b[0], e.loc, hint),)
        join = "and" if e.op == "eq" else "or"
        acc = self.cmp(e.op, a[0], b[0], e.loc)
        for k in range(1, len(a)):
            acc = self.binop(join, acc, self.cmp(e.op, a[k], b[k], e.loc), e.loc,
                             hint if k == len(a) - 1 else "")
        return (acc,)

    def _chain(self, e: H.ChainCompare, hint):
        prev = self.lower_expr(e.operands[0])[0]
        return (self._chain_from(prev, 0, e, hint),)

    def _chain_from(self, prev, k, e, hint):
        nxt = self.lower_expr(e.operands[k + 1])[0]
        c = self.cmp(e.ops[k], prev, nxt, e.loc)
        if k + 1 == len(e.ops):
            return c
        rest = e.operands[k + 2:]
        if all(self.is_safe(x) for x in rest):
            r = self._chain_from(nxt, k + 1, e, hint)
            return self.binop("and", c, r, e.loc, hint)
        if self._eager:
            r = self._guarded(c, e.loc, lambda: self._chain_from(nxt, k + 1, e, hint))
            return self.binop("and", c, r, e.loc, hint)
        (v,) = self._when(c, lambda: (self._chain_from(nxt, k + 1, e, hint),),
                          (self.const(False, BOOL),), e.loc, hint)
        return v

    def _guarded(self, cond, loc, lower):
        """`lower()` with the eager-evaluation guard narrowed by `cond` (the
        condition under which Python would evaluate that operand at all)."""
        prev = getattr(self, "_guard", None)
        self._guard = cond if prev is None else self.binop("and", prev, cond, loc)
        try:
            return lower()
        finally:
            self._guard = prev

    def _boolop(self, e: H.BoolOpExpr, hint):
        (a,) = self.lower_expr(e.lhs)
        if self.is_safe(e.rhs):
            (b,) = self.lower_expr(e.rhs)
            return (self.binop(e.op, a, b, e.loc, hint),)
        if self._eager:         # no branches: divisions in rhs see a guard instead
            when = a if e.op == "and" else self.unop("not", a, e.loc)
            (b,) = self._guarded(when, e.loc, lambda: self.lower_expr(e.rhs))
            return (self.binop(e.op, a, b, e.loc, hint),)
        if e.op == "and":
            return self._when(a, lambda: self.lower_expr(e.rhs), (self.const(False, BOOL),),
                              e.loc, hint)
        na = self.unop("not", a, e.loc)
        return self._when(na, lambda: self.lower_expr(e.rhs), (self.const(True, BOOL),),
                          e.loc, hint)

    def _unary(self, e: H.UnaryExpr, hint):
        vals = self.lower_expr(e.operand)
        return tuple(self.unop(e.op, v, e.loc, hint) for v in vals)

    def _effect_then(self, e: H.EffectThen, hint):
        if e.address_only:
            assert isinstance(e.effect, H.IndexExpr), "an address-only effect names an array element"
            self.address_check(e.effect)
        else:
            self.lower_expr(e.effect)
        return self.lower_expr(e.value, hint)

    def address_check(self, e: H.IndexExpr) -> None:
        """`type(a[i])`: the element's address computed, its index checked, nothing read."""
        arr, leading = self.array_of(e.array.name)
        inner = self.inner_indices(arr)[0]
        idx = leading + self.lower_indices(e.indices)
        if e.held_lengths is not None:    # a held array's element: its own length too
            self._held_check(e, idx)
        self.emit(Load(self.b.new_value(arr.dtype, "addr"), arr, idx + inner, e.loc, address_only=True))

    def _cast(self, e: H.CastExpr, hint):
        (a,) = self.lower_expr(e.operand)
        v = self.b.new_value(e.type, hint)
        self.emit(Cast(v, a, e.loc))
        return (v,)

    def _cond(self, e: H.CondExpr, hint):
        (c,) = self.lower_expr(e.cond)
        if self._eager or (self.is_safe(e.if_true) and self.is_safe(e.if_false)):
            if self._eager:
                a = self._guarded(c, e.loc, lambda: self.lower_expr(e.if_true))
                nc = self.unop("not", c, e.loc)
                b = self._guarded(nc, e.loc, lambda: self.lower_expr(e.if_false))
            else:
                a = self.lower_expr(e.if_true)
                b = self.lower_expr(e.if_false)
            return tuple(self.select(c, x, y, e.loc, hint) for x, y in zip(a, b))
        start_env = dict(self.env)
        then_l, else_l, join_l = (self.new_block("ct"), self.new_block("cf"),
                                  self.new_block("cjoin"))
        self.terminate(Branch(c, then_l, else_l, e.loc))
        self.set_block(then_l)
        a = self.lower_expr(e.if_true)
        a_end = self.cur
        self.b.terminate(Jump(join_l, e.loc))
        self.set_block(else_l)
        self.env = start_env
        b = self.lower_expr(e.if_false)
        b_end = self.cur
        assert a_end is not None and b_end is not None   # an expression never ends its block
        self.b.terminate(Jump(join_l, e.loc))
        self.set_block(join_l)
        return self.join_values(join_l, (a_end, a), (b_end, b), e.loc, hint)

    def _index(self, e: H.IndexExpr, hint, components=None):
        arr, leading = self.array_of(e.array.name)
        idx = leading + self.lower_indices(e.indices)
        if e.held_lengths is not None:
            self._held_check(e, idx)
        inner = self.inner_indices(arr)
        picks = range(len(inner)) if components is None else components
        out = []
        for c in picks:
            v = self.b.new_value(arr.dtype, hint)
            self.emit(Load(v, arr, idx + inner[c], e.loc))
            out.append(v)
        return tuple(out)

    def _held_check(self, e: H.IndexExpr, idx: tuple) -> None:
        """A held array's read `X.h[b, j]` (frontend/check/held_arrays.py):
        `assert 0 <= j < X.h.len[b]` (both widened to int64, exact for every
        index type but uint64 above 2**63, which fails the test, as it is out
        of range anyway), under the eager guard where there is one."""
        assert e.held_lengths is not None
        lengths, lead = self.array_of(e.held_lengths.name)
        row, j = idx[-2], idx[-1]
        n = self.b.new_value(lengths.dtype, "held_len")
        self.emit(Load(n, lengths, lead + (row,), e.loc))
        j64 = self._widen(j, e.loc)
        n64 = self._widen(n, e.loc)
        ok = self.binop("and", self.cmp("ge", j64, self.const(0, I64), e.loc),
                        self.cmp("lt", j64, n64, e.loc), e.loc)
        guard = getattr(self, "_guard", None)
        if guard is not None:
            ok = self.binop("or", self.unop("not", guard, e.loc), ok, e.loc)
        self.emit(Assert(ok, f"held array index in bounds: 0 <= index < {e.held_lengths.name}"
                         "[element] (the length of the array this element holds)", e.loc))

    def _widen(self, v, loc):
        if v.type == I64:
            return v
        w = self.b.new_value(I64, "")
        self.emit(Cast(w, v, loc))
        return w

    def _shape(self, e: H.ShapeExpr, hint):
        arr, leading = self.array_of(e.array.name)
        dim = e.dim + len(leading)       # a view's dimension d is its array's d + leading
        if arr.space == "shared":
            assert arr.shape is not None   # a shared array's shape is static (MIR verifier)
            return (self.const(arr.shape[dim], I32),)
        v = self.b.new_value(I32, hint)
        self.emit(ShapeOf(v, arr, dim, e.loc))
        return (v,)

    def _component(self, e: H.ComponentExpr, hint):
        rng = range(e.index, e.index + e.count)
        if isinstance(e.value, H.IndexExpr):
            return self._index(e.value, hint, components=rng)
        vals = self.lower_expr(e.value)
        return tuple(vals[i] for i in rng)

    def _func_call(self, e: H.FuncCall, hint):
        return self.inline(e, hint)

    def _builtin(self, e: H.BuiltinCall, hint):
        return self.lower_builtin(e, hint)

    # ------------------------------------------------------------ geometry
    def lower_tid(self, n: int, loc, names=()) -> list:
        """vk.tid() per docs/MIR.md: linear = block_idx*block_dim + thread_idx;
        i_k = (linear // prod(D_{k+1..})) % D_k, i_0 without the %."""
        bi = self.special("block_idx", loc)
        bd = self.special("block_dim", loc)
        ti = self.special("thread_idx", loc)
        prod = self.binop("mul", bi, bd, loc)
        linear = self.binop("add", prod, ti, loc, names[0] if n == 1 and names else "tid")
        if n == 1:
            return [linear]
        dims = [self.special("launch_dim", loc, k) for k in range(n)]
        out = []
        for k in range(n):
            name = names[k] if k < len(names) else ""
            q = linear
            suffix = None
            for d in dims[k + 1:]:
                suffix = d if suffix is None else self.binop("mul", suffix, d, loc)
            if suffix is not None:
                q = self.binop("floordiv", linear, suffix, loc, name if k == 0 else "")
            if k > 0:
                q = self.binop("mod", q, dims[k], loc, name)
            out.append(q)
        return out

    def range_test(self, counter, stop, step, loc):
        """(step > 0 and v < stop) or (step < 0 and v > stop)."""
        if isinstance(step, Const):
            return self.cmp("lt" if step.value > 0 else "gt", counter, stop, loc)
        zero = self.const(0, step.type)
        up = self.binop("and", self.cmp("gt", step, zero, loc),
                        self.cmp("lt", counter, stop, loc), loc)
        down = self.binop("and", self.cmp("lt", step, zero, loc),
                          self.cmp("gt", counter, stop, loc), loc)
        return self.binop("or", up, down, loc)


EXPR_LOWERING: dict[type, Callable[[Any, Any, str], tuple]] = {
    H.Literal: ExprLowering._literal, H.LocalRef: ExprLowering._local,
    H.ArrayRefExpr: ExprLowering._array_ref, H.BinaryExpr: ExprLowering._binary,
    H.CompareExpr: ExprLowering._compare, H.ChainCompare: ExprLowering._chain,
    H.BoolOpExpr: ExprLowering._boolop, H.UnaryExpr: ExprLowering._unary,
    H.CastExpr: ExprLowering._cast, H.CondExpr: ExprLowering._cond,
    H.IndexExpr: ExprLowering._index, H.ShapeExpr: ExprLowering._shape,
    H.ComponentExpr: ExprLowering._component, H.FuncCall: ExprLowering._func_call,
    H.DynamicComponentExpr: lower_dynamic_component,
    H.BuiltinCall: ExprLowering._builtin, H.EffectThen: ExprLowering._effect_then,
}
