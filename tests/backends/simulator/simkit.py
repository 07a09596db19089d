"""Helpers for simulator tests: a terse MIR builder for hand-written kernels
(used where the frontend is not needed) and source compilation."""
from __future__ import annotations

import numpy as np

from verikern.mir import builder as mb
from verikern.mir.nodes import (
    ArrayRef, Assert, Atomic, Barrier, BinOp, Branch, Cast, Compare, Jump,
    Load, Phi, Requires, RequiresArray, Return, Select, ShapeOf, SourceLoc, Special,
    Store, UnaryOp,
)
from verikern.mir.types import BOOL, I32, SCALAR_TYPES
from verikern.mir.verifier import verify


class KB:
    """Build a kernel one instruction per source line (line numbers count up)."""

    def __init__(self, name: str, **attrs):
        self.file = f"{name}.py"
        self.line = 1
        self.b = mb.MirBuilder(name, self.loc())
        self.attrs = attrs
        self.entry = self.b.new_block("entry")
        self.b.set_block(self.entry)

    def loc(self, line=None):
        if line is None:
            self.line += 1
            line = self.line
        return SourceLoc(getattr(self, "file", "k.py"), line, 5)

    def c(self, v, t=I32):
        t = SCALAR_TYPES[t] if isinstance(t, str) else t
        return self.b.const(v, t)

    def arr(self, name, dtype, ndim=1, inner=()):
        dtype = SCALAR_TYPES[dtype] if isinstance(dtype, str) else dtype
        return self.b.array_param(ArrayRef(name, dtype, ndim, tuple(inner)))

    def shared(self, name, dtype, shape, layout="row_major"):
        dtype = SCALAR_TYPES[dtype] if isinstance(dtype, str) else dtype
        return self.b.shared_array(ArrayRef(name, dtype, len(shape), (), "shared",
                                            tuple(shape), layout))

    def scalar(self, name, t):
        t = SCALAR_TYPES[t] if isinstance(t, str) else t
        return self.b.scalar_param(name, t)

    def _v(self, t, name=""):
        return self.b.new_value(t, name)

    def op(self, op, a, b):
        r = self._v(a.type)
        self.b.emit(BinOp(r, op, a, b, self.loc()))
        return r

    def cmp(self, op, a, b):
        r = self._v(BOOL)
        self.b.emit(Compare(r, op, a, b, self.loc()))
        return r

    def un(self, op, a):
        r = self._v(a.type)
        self.b.emit(UnaryOp(r, op, a, self.loc()))
        return r

    def cast(self, a, t):
        t = SCALAR_TYPES[t] if isinstance(t, str) else t
        r = self._v(t)
        self.b.emit(Cast(r, a, self.loc()))
        return r

    def select(self, c, a, b):
        r = self._v(a.type)
        self.b.emit(Select(r, c, a, b, self.loc()))
        return r

    def special(self, kind, dim=0):
        r = self._v(I32, kind)
        self.b.emit(Special(r, kind, self.loc(), dim))
        return r

    def tid(self):
        bi, bd, ti = self.special("block_idx"), self.special("block_dim"), self.special("thread_idx")
        return self.op("add", self.op("mul", bi, bd), ti)

    def shape(self, a, dim=0):
        r = self._v(I32)
        self.b.emit(ShapeOf(r, a, dim, self.loc()))
        return r

    def load(self, a, *idx):
        r = self._v(a.dtype)
        self.b.emit(Load(r, a, tuple(idx), self.loc()))
        return r

    def store(self, a, idx, v):
        idx = idx if isinstance(idx, tuple) else (idx,)
        self.b.emit(Store(a, idx, v, self.loc()))

    def atomic(self, op, a, idx, v, compare=None):
        idx = idx if isinstance(idx, tuple) else (idx,)
        r = self._v(a.dtype)
        self.b.emit(Atomic(r, op, a, idx, v, self.loc(), compare))
        return r

    def barrier(self):
        self.b.emit(Barrier(self.loc()))

    def assert_(self, c, msg="boom"):
        self.b.emit(Assert(c, msg, self.loc()))

    def requires(self, c):
        self.b.emit(Requires(c, self.loc()))

    def requires_array(self, kind, a, lo=None, hi=None):
        self.b.emit(RequiresArray(kind, a, self.loc(), lo, hi))

    # control flow
    def block(self, hint="bb"):
        return self.b.new_block(hint)

    def goto(self, label):
        self.b.set_block(label)

    def jump(self, target):
        self.b.terminate(Jump(target, self.loc()))

    def branch(self, c, t, f):
        self.b.terminate(Branch(c, t, f, self.loc()))

    def ret(self):
        self.b.terminate(Return(self.loc()))

    def phi(self, label, t, incoming):
        t = SCALAR_TYPES[t] if isinstance(t, str) else t
        r = self._v(t)
        self.b.add_phi(label, Phi(r, tuple(incoming), self.loc()))
        return r

    def finish(self):
        k = self.b.finish(**self.attrs)
        verify(k)
        return k


def launch_config(dims, block_dim=256):
    from verikern.runtime import LaunchConfig
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    size = int(np.prod(dims))
    return LaunchConfig(dims, block_dim, -(-size // block_dim), size)


def compile_kernel(source: str, name: str | None = None, filename: str = "kernel_under_test.py"):
    """The MIR of kernel `name` (or the only kernel) in `source`."""
    from shared_helpers import mir_of

    return mir_of(source, name, filename=filename)


def binop_kernel(op: str, dtype: str, compare: bool = False):
    """out[i] = a[i] <op> b[i] for i < len(out)."""
    kb = KB(f"bin_{op}_{dtype}")
    a, b = kb.arr("a", dtype), kb.arr("b", dtype)
    out = kb.arr("out", "bool" if compare else dtype)
    i = kb.tid()
    ok = kb.cmp("lt", i, kb.shape(out))
    body, done = kb.block("body"), kb.block("done")
    kb.branch(ok, body, done)
    kb.goto(body)
    x, y = kb.load(a, i), kb.load(b, i)
    kb.store(out, i, kb.cmp(op, x, y) if compare else kb.op(op, x, y))
    kb.jump(done)
    kb.goto(done)
    kb.ret()
    return kb.finish()


def unop_kernel(op: str, dtype: str, out_dtype: str | None = None):
    """out[i] = op(a[i]) (op "cast" converts to out_dtype)."""
    kb = KB(f"un_{op}_{dtype}")
    a = kb.arr("a", dtype)
    out = kb.arr("out", out_dtype or dtype)
    i = kb.tid()
    ok = kb.cmp("lt", i, kb.shape(out))
    body, done = kb.block("body"), kb.block("done")
    kb.branch(ok, body, done)
    kb.goto(body)
    x = kb.load(a, i)
    kb.store(out, i, kb.cast(x, out_dtype) if op == "cast" else kb.un(op, x))
    kb.jump(done)
    kb.goto(done)
    kb.ret()
    return kb.finish()


def run_binop(op, dtype, a, b, compare=False, block_dim=64):
    from verikern.runtime import launch
    k = binop_kernel(op, dtype, compare)
    a = np.asarray(a, dtype=dtype)
    b = np.asarray(b, dtype=dtype)
    out = np.zeros(a.shape, dtype="bool" if compare else dtype)
    launch(k, len(a), [a, b, out], block_dim=block_dim)
    return out


def run_unop(op, dtype, a, out_dtype=None, block_dim=64):
    from verikern.runtime import launch
    k = unop_kernel(op, dtype, out_dtype)
    a = np.asarray(a, dtype=dtype)
    out = np.zeros(a.shape, dtype=out_dtype or dtype)
    launch(k, len(a), [a, out], block_dim=block_dim)
    return out
