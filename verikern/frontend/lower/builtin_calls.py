"""Lowering of builtin calls, vector/matrix/quaternion arithmetic, atomics
and @vk.func inlining (the quaternion, transform, spatial and matrix-algebra
builtins: rigid_calls.py).

Invariants: vector-like values are tuples of float32 operands (vectors
x, y, z, w; matrices row-major; quat x, y, z, w); an inlined func sees only
its own parameters (arrays bound to the caller's ArrayRefs) and leaves the
caller's environment unchanged; a func with several returns merges them with
phis in one block.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from verikern.hir import nodes as H
from verikern.hir.types import (
    F32, MatrixType, ScalarType, VectorType, component_count, is_quat, is_transform,
)
from verikern.mir.nodes import Atomic, Cast, Jump, Phi
from ..builtins.table import ATOMICS, FLOAT_UNARY, GEOMETRY
from .contexts import ArrayView, FuncContext
from .rigid_calls import RIGID_LOWERING
from .search_calls import lower_lower_bound


if TYPE_CHECKING:   # the state and methods of the class that mixes this in
    from .host import LowererHost as _Host
else:
    _Host = object


class BuiltinLowering(_Host):
    """Mixin of Lowerer (see module docstring)."""

    def lower_builtin(self, e: H.BuiltinCall, hint):
        handler = BUILTIN_LOWERING.get(e.name)
        if handler is None:
            if e.name.startswith("atomic_"):
                return self._atomic_call(e, hint)
            raise TypeError(f"no MIR lowering for builtin {e.name!r}")
        return handler(self, e, hint)

    def _args(self, e):
        return [self.lower_expr(a) for a in e.args]

    # ------------------------------------------------------------ scalars
    def _tid(self, e, hint):
        return tuple(self.lower_tid(1, e.loc, (hint,) if hint else ()))

    def _geometry(self, e, hint):
        return (self.special(e.name, e.loc, name=hint),)

    def _launch_dim(self, e, hint):
        return (self.special("launch_dim", e.loc, e.args[0].value, hint),)

    def _construct(self, e, hint):
        return tuple(v for vals in self._args(e) for v in vals)

    def _convert(self, e, hint):
        """A vector/matrix converted to another component type (one Cast each)."""
        (vals,) = self._args(e)
        out = []
        for v in vals:
            r = self.b.new_value(e.type.dtype, hint)
            self.emit(Cast(r, v, e.loc))
            out.append(r)
        return tuple(out)

    def _construct_cols(self, e, hint):
        """A matrix from its columns (each evaluated once), stored row-major."""
        cols = self._args(e)
        return tuple(cols[k][r] for r in range(len(cols[0])) for k in range(len(cols)))

    def _minmax(self, e, hint):
        a, b = self._args(e)
        return tuple(self.binop(e.name, x, y, e.loc, hint) for x, y in zip(a, b))

    def _clamp(self, e, hint):
        x, lo, hi = (v[0] for v in self._args(e))
        return (self.binop("min", self.binop("max", x, lo, e.loc), hi, e.loc, hint),)

    def _unary_math(self, e, hint):
        (a,) = self._args(e)
        return tuple(self.unop(e.name, x, e.loc, hint) for x in a)

    def _where(self, e, hint):
        c, x, y = self._args(e)
        if e.name == "select":  # select(cond, value_if_false, value_if_true)
            x, y = y, x
        return tuple(self.select(c[0], a, b, e.loc, hint) for a, b in zip(x, y))

    def _pow(self, e, hint):
        """pow / atan2: the MIR BinOp of the same name."""
        a, b = self._args(e)
        return (self.binop(e.name, a[0], b[0], e.loc, hint),)

    # ------------------------------------------------------------ vectors
    def dot(self, a, b, loc, hint=""):
        acc = self.binop("mul", a[0], b[0], loc)
        for k in range(1, len(a)):
            acc = self.binop("add", acc, self.binop("mul", a[k], b[k], loc), loc,
                             hint if k == len(a) - 1 else "")
        return acc

    def cross(self, a, b, loc):
        m = lambda x, y: self.binop("mul", x, y, loc)  # noqa: E731
        return (self.binop("sub", m(a[1], b[2]), m(a[2], b[1]), loc),
                self.binop("sub", m(a[2], b[0]), m(a[0], b[2]), loc),
                self.binop("sub", m(a[0], b[1]), m(a[1], b[0]), loc))

    def scale(self, vals, s, loc):
        return tuple(self.binop("mul", v, s, loc) for v in vals)

    def _dot(self, e, hint):
        a, b = self._args(e)
        return (self.dot(a, b, e.loc, hint),)

    def _cross(self, e, hint):
        a, b = self._args(e)
        return self.cross(a, b, e.loc)

    def _cw(self, e, hint):
        a, b = self._args(e)
        op = "mul" if e.name == "cw_mul" else "div"
        return tuple(self.binop(op, x, y, e.loc, hint) for x, y in zip(a, b))

    def _length(self, e, hint):
        (a,) = self._args(e)
        d = self.dot(a, a, e.loc, hint if e.name == "length_sq" else "")
        if e.name == "length_sq":
            return (d,)
        return (self.unop("sqrt", d, e.loc, hint),)

    def _normalize(self, e, hint):
        """Warp: a / length(a) when length(a) > 0, else the zero vector."""
        (a,) = self._args(e)
        ln = self.unop("sqrt", self.dot(a, a, e.loc), e.loc)
        zero = self.const(0.0, ln.type)
        pos = self.cmp("gt", ln, zero, e.loc)
        return tuple(self.select(pos, self.binop("div", x, ln, e.loc), zero, e.loc, hint)
                     for x in a)

    def _transpose(self, e, hint):
        (m,) = self._args(e)
        t = e.type
        return tuple(m[r * t.cols + c] for c in range(t.cols) for r in range(t.rows))

    def quat_mul(self, q, r, loc):
        m = lambda x, y: self.binop("mul", x, y, loc)  # noqa: E731
        a = lambda x, y: self.binop("add", x, y, loc)  # noqa: E731
        s = lambda x, y: self.binop("sub", x, y, loc)  # noqa: E731
        qx, qy, qz, qw = q
        rx, ry, rz, rw = r
        return (s(a(a(m(qw, rx), m(rw, qx)), m(qy, rz)), m(qz, ry)),
                s(a(a(m(qw, ry), m(rw, qy)), m(qz, rx)), m(qx, rz)),
                s(a(a(m(qw, rz), m(rw, qz)), m(qx, ry)), m(qy, rx)),
                s(s(s(m(qw, rw), m(qx, rx)), m(qy, ry)), m(qz, rz)))

    def vector_binary(self, op, a, b, lt, rt, t, loc, hint):
        if op in ("add", "sub"):
            return tuple(self.binop(op, x, y, loc, hint) for x, y in zip(a, b))
        if op == "div" and len(a) == 1 and isinstance(lt, ScalarType):
            return tuple(self.binop("div", a[0], y, loc, hint) for y in b)
        if op == "div":
            return tuple(self.binop("div", x, b[0], loc, hint) for x in a)
        if is_quat(lt) and lt == rt:
            return self.quat_mul(a, b, loc)
        if is_transform(lt) and lt == rt:
            return self.compose(a, b, loc)
        if len(b) == 1 and isinstance(rt, ScalarType):
            return tuple(self.binop("mul", x, b[0], loc, hint) for x in a)
        if len(a) == 1 and isinstance(lt, ScalarType):
            return tuple(self.binop("mul", a[0], y, loc, hint) for y in b)
        if isinstance(lt, MatrixType) and isinstance(rt, VectorType):
            return tuple(self.dot(a[r * lt.cols:(r + 1) * lt.cols], b, loc, hint)
                         for r in range(lt.rows))
        if isinstance(lt, VectorType) and isinstance(rt, MatrixType):   # row vector * matrix
            return tuple(self.dot(a, tuple(b[k * rt.cols + c] for k in range(rt.rows)), loc, hint)
                         for c in range(rt.cols))
        if isinstance(lt, MatrixType) and isinstance(rt, MatrixType):
            out = []
            for r in range(lt.rows):
                row = a[r * lt.cols:(r + 1) * lt.cols]
                for c in range(rt.cols):
                    col = tuple(b[k * rt.cols + c] for k in range(rt.rows))
                    out.append(self.dot(row, col, loc, hint))
            return tuple(out)
        raise TypeError(f"no lowering for {lt} {op} {rt}")

    # ------------------------------------------------------------ atomics
    def atomic(self, op, arr, idx, vals, compares, loc, hint="", part=(0, 0)):
        """One Atomic per component (`part`: (first, count) of a partial
        update, count 0 for the whole element); the old values."""
        out = []
        inners = self.inner_indices(arr)
        if part[1]:
            inners = inners[part[0]:part[0] + part[1]]
        for k, inner in enumerate(inners):
            v = self.b.new_value(arr.dtype, hint)
            cmpv = compares[k] if compares is not None else None
            self.emit(Atomic(v, op, arr, idx + inner, vals[k], loc, cmpv))
            out.append(v)
        return tuple(out)

    def _atomic_call(self, e, hint):
        op = ATOMICS[e.name]
        arr, leading = self.array_of(e.args[0].name)
        nidx = arr.ndim - len(leading)
        idx = leading + self.lower_indices(e.args[1:1 + nidx])
        rest = [self.lower_expr(a) for a in e.args[1 + nidx:]]
        if op == "cas":
            return self.atomic(op, arr, idx, rest[1], rest[0], e.loc, hint)
        return self.atomic(op, arr, idx, rest[0], None, e.loc, hint)

    # ------------------------------------------------------------ inlining
    def inline(self, call: H.FuncCall, hint):
        f = self.k.func(call.func)
        new_env, new_arrays = {}, {}
        for p, a in zip(f.params, call.args):
            if isinstance(a, H.ArrayRefExpr):    # an array, or a view of one (its leading values now)
                arr, leading = self.array_of(a.name)
                new_arrays[p.name] = ArrayView(arr, leading) if leading else arr
            else:
                new_env[p.name] = self.lower_expr(a, hint=p.name)
        # captured constants (`@name`, kernel parameters) stay visible inside funcs
        new_env.update({n: v for n, v in self.env.items() if n.startswith("@")})
        saved = (self.env, self.arrays, self.loops, self.views)
        self.env, self.arrays, self.loops, self.views = new_env, new_arrays, [], {}
        ctx = FuncContext()
        self.funcs.append(ctx)
        self.lower_stmts(f.body)
        if self.cur is not None:  # fell off the end (func without a result)
            ctx.returns.append((self.cur, ()))
            self.cur = None
        self.funcs.pop()
        self.env, self.arrays, self.loops, self.views = saved
        n = component_count(f.returns) if f.returns is not None else 0
        if not ctx.returns:  # never returns (e.g. an endless loop)
            dead = self.new_block("noreturn")
            self.set_block(dead)
            return tuple(self.const(0, F32) for _ in range(n))
        if len(ctx.returns) == 1:
            label, vals = ctx.returns[0]
            self.set_block(label)
            return tuple(vals)
        join = self.new_block("ret")
        for label, _ in ctx.returns:
            self.b.set_block(label)
            self.b.terminate(Jump(join, call.loc))
        self.set_block(join)
        out = []
        for c in range(n):
            ops = [vals[c] for _, vals in ctx.returns]
            if all(o == ops[0] for o in ops):
                out.append(ops[0])
                continue
            v = self.b.new_value(ops[0].type, hint)
            self.b.add_phi(join, Phi(v, tuple((lbl, vals[c]) for lbl, vals in ctx.returns),
                                     call.loc))
            out.append(v)
        return tuple(out)


BUILTIN_LOWERING: dict[str, Callable[..., tuple]] = {
    "tid": BuiltinLowering._tid, "launch_dim": BuiltinLowering._launch_dim,
    **{g: BuiltinLowering._geometry for g in GEOMETRY},
    "construct": BuiltinLowering._construct, "construct_rows": BuiltinLowering._construct,
    "matrix_from_rows": BuiltinLowering._construct,
    "matrix_from_cols": BuiltinLowering._construct_cols, "convert": BuiltinLowering._convert,
    "min": BuiltinLowering._minmax, "max": BuiltinLowering._minmax,
    "clamp": BuiltinLowering._clamp, "abs": BuiltinLowering._unary_math,
    **{f: BuiltinLowering._unary_math for f in FLOAT_UNARY},
    "pow": BuiltinLowering._pow, "atan2": BuiltinLowering._pow, "dot": BuiltinLowering._dot,
    "cross": BuiltinLowering._cross, "cw_mul": BuiltinLowering._cw,
    "cw_div": BuiltinLowering._cw, "length": BuiltinLowering._length,
    "length_sq": BuiltinLowering._length, "normalize": BuiltinLowering._normalize,
    "transpose": BuiltinLowering._transpose,
    "where": BuiltinLowering._where, "select": BuiltinLowering._where,
    **RIGID_LOWERING,
    "lower_bound": lower_lower_bound,
}
