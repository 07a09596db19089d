"""A tiny sequential MIR evaluator for frontend tests (an independent check of
the lowering; NOT the project's simulator). Runs threads one after another,
so it is only meaningful for kernels without barriers or shared memory.
"""
from __future__ import annotations

import math

import numpy as np

from verikern.mir import nodes as M


def _c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _binop(op, a, b, t):
    if t.is_float:
        f = t.np_dtype.type
        x, y = f(a), f(b)
        with np.errstate(all="ignore"):
            r = {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y,
                 "div": lambda: x / y, "min": lambda: min(x, y), "max": lambda: max(x, y),
                 "pow": lambda: f(math.pow(float(x), float(y))),
                 "floordiv": lambda: f(math.floor(x / y)), "mod": lambda: f(math.fmod(x, y)),
                 }[op]()
        return f(r)
    if t.is_bool:
        return {"and": a and b, "or": a or b, "xor": a != b}[op]
    if op in ("div", "floordiv", "mod") and b == 0:
        raise ZeroDivisionError(op)
    r = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
         "div": lambda: _c_div(a, b), "floordiv": lambda: a // b,
         "mod": lambda: a - _c_div(a, b) * b, "min": lambda: min(a, b),
         "max": lambda: max(a, b), "and": lambda: a & b, "or": lambda: a | b,
         "xor": lambda: a ^ b, "shl": lambda: a << (b & (t.bits - 1)),
         "shr": lambda: (a >> (b & (t.bits - 1))) if t.is_signed else
         ((a & ((1 << t.bits) - 1)) >> (b & (t.bits - 1)))}[op]()
    return t.wrap(r)


def _atomic_result(op, old, v, t, compare):
    """The value an atomic `op` leaves in memory holding `old` (`compare`: cas only)."""
    return {"add": lambda: _binop("add", old, v, t),
            "sub": lambda: _binop("sub", old, v, t),
            "min": lambda: min(old, v), "max": lambda: max(old, v),
            "exch": lambda: v, "and": lambda: old & v, "or": lambda: old | v,
            "xor": lambda: old ^ v,
            "cas": lambda: v if old == compare else old}[op]()


def _unop(op, a, t):
    if op == "not":
        return not a
    if op == "neg":
        return t.np_dtype.type(-a) if t.is_float else t.wrap(-a)
    if op == "invert":
        return t.wrap(~a)
    if op == "abs":
        return t.np_dtype.type(abs(a)) if t.is_float else t.wrap(abs(a))
    fn = {"sqrt": math.sqrt, "sqrt_precise": math.sqrt, "sin": math.sin, "cos": math.cos,
          "tan": math.tan, "exp": math.exp, "log": math.log, "floor": math.floor,
          "ceil": math.ceil}[op]
    return t.np_dtype.type(fn(float(a)))


def _cast(a, src, t):
    if t.is_bool:
        return a != 0
    if t.is_float:
        return t.np_dtype.type(float(a) if not src.is_bool else int(a))
    if src.is_float:
        return t.wrap(int(a))
    return t.wrap(int(a))


def run(kernel: M.Kernel, dims, arrays: dict, scalars: dict, block_dim: int = 4) -> None:
    """Run every thread of the launch sequentially; arrays are updated in place."""
    dims = tuple(dims) if isinstance(dims, tuple) else (dims,)
    size = int(np.prod(dims))
    grid = -(-size // block_dim)
    for linear in range(size):
        _thread(kernel, dims, linear // block_dim, linear % block_dim, block_dim, grid,
                arrays, scalars)


def _thread(k, dims, block, thread, block_dim, grid, arrays, scalars):
    env = {p.value.id: scalars[p.name] for p in k.scalar_params}

    def val(o):
        if isinstance(o, M.Const):
            return o.type.np_dtype.type(o.value) if o.type.is_float else o.value
        return env[o.id]

    def index(ins):
        arr = arrays[ins.array.name]
        idx = tuple(int(val(i)) for i in ins.indices)
        for d, i in enumerate(idx[:ins.array.ndim]):
            if not 0 <= i < arr.shape[d]:
                raise IndexError(f"{ins.array.name}{idx} out of bounds at line {ins.loc.line}")
        return arr, idx

    label, prev = k.entry.label, None
    for _ in range(100_000):
        b = k.block(label)
        vals = {phi.result.id: val(dict(phi.incoming)[prev]) for phi in b.phis}
        env.update(vals)
        for ins in b.instrs:
            t = getattr(ins, "result", None)
            if isinstance(ins, M.BinOp):
                env[t.id] = _binop(ins.op, val(ins.lhs), val(ins.rhs), t.type)
            elif isinstance(ins, M.Compare):
                a, c = val(ins.lhs), val(ins.rhs)
                env[t.id] = bool({"eq": a == c, "ne": a != c, "lt": a < c, "le": a <= c,
                                  "gt": a > c, "ge": a >= c}[ins.op])
            elif isinstance(ins, M.UnaryOp):
                env[t.id] = _unop(ins.op, val(ins.operand), t.type)
            elif isinstance(ins, M.Cast):
                env[t.id] = _cast(val(ins.operand), ins.operand.type, t.type)
            elif isinstance(ins, M.Select):
                env[t.id] = val(ins.if_true) if val(ins.cond) else val(ins.if_false)
            elif isinstance(ins, M.Special):
                env[t.id] = {"thread_idx": thread, "block_idx": block, "block_dim": block_dim,
                             "grid_dim": grid}.get(ins.kind, dims[ins.dim] if ins.kind ==
                                                   "launch_dim" else None)
            elif isinstance(ins, M.ShapeOf):
                env[t.id] = arrays[ins.array.name].shape[ins.dim]
            elif isinstance(ins, M.Load):
                arr, idx = index(ins)
                v = arr[idx]
                env[t.id] = v.item() if not t.type.is_float else v
            elif isinstance(ins, M.Store):
                arr, idx = index(ins)
                arr[idx] = val(ins.value)
            elif isinstance(ins, M.Atomic):
                arr, idx = index(ins)
                old = arr[idx].item() if not t.type.is_float else arr[idx]
                v = val(ins.value)
                compare = val(ins.compare) if ins.op == "cas" else None
                new = _atomic_result(ins.op, old, v, t.type, compare)
                arr[idx] = new
                env[t.id] = old
            elif isinstance(ins, M.Assert):
                if not val(ins.cond):
                    raise AssertionError(ins.message)
            elif isinstance(ins, (M.Requires, M.RequiresArray, M.Barrier)):
                pass
            else:
                raise TypeError(type(ins).__name__)
        term = b.terminator
        if isinstance(term, M.Return):
            return
        prev = label
        if isinstance(term, M.Jump):
            label = term.target
        else:
            label = term.if_true if val(term.cond) else term.if_false
    raise RuntimeError("thread did not finish")
