"""Block-level phases: shared tiles written, synchronised and read back,
and shared atomic counters.

Invariants (well defined by construction):
- the tile has `block_dim * R` elements, and thread t writes flat elements
  t, t + block_dim, ... (its own slots: no race), so after the barrier
  every element has been written and any in-bounds read is initialised;
- barriers are at the phase's top level, reached by every thread of the
  block the same number of times (uniform);
- counters are zeroed by their own thread before a barrier, combined with
  atomics only, and read after a second barrier.

Planted defects (each breaks an obligation on some admitted launch):
"removed barrier" (race), "read before write" (one element is never
written: uninit), "off-by-one" / "dropped guard" on the final store
(bounds), "off-by-one read" (the tile's first index reaches its length),
"plain store" (a counter updated without an atomic: race).
"""
from __future__ import annotations

import math

from .access import Ctx, gather, own_slot, unflatten
from .choices import Choices
from .exprs import Scope, expr, top
from .model import ArrayParam, Block, Expr, Line, Phase, Stmt, kind, lit, op
from .phases import ATOMIC_FORMS, _guarded, atomic_value, value_type


def _factor(c: Choices, n: int, rank: int) -> tuple[int, ...]:
    """`n` (a power of two times 1 or 2... any positive int) as `rank` factors."""
    dims = [1] * rank
    rest = n
    for p in _prime_factors(n):
        dims[c.integer(0, rank - 1)] *= p
        rest //= p
    return tuple(dims)


def _prime_factors(n: int) -> list[int]:
    out, k = [], 2
    while n > 1:
        while n % k == 0:
            out.append(k)
            n //= k
        k += 1
    return out


def shared_tile(c: Choices, ctx: Ctx) -> Phase:
    """A tile of 1-4 dims (either layout) written by every thread, a
    barrier, reads at other threads' elements, a store of the result."""
    p, bd = ctx.prefix, ctx.block_dim
    vec = c.chance(20)
    t = "vec3" if vec else value_type(c)
    el = "float32" if vec else t
    reps = c.pick([1, 1, 2])
    n = bd * reps
    shape = _factor(c, n, c.pick([1, 2, 2, 3, 4]))
    layout = ', layout="column_major"' if c.chance(40) else ""
    tile, e = f"{p}tile", f"{p}e"
    scope = ctx.index_scope()
    scope.add(Expr("int32", e))
    g = gather(c, ctx, f"{p}x", el, scope)
    wscope = Scope()
    wscope.add(Expr(el, f"{p}g"))
    wscope.add(Expr("int32", e))
    if vec:
        value = op("vec3", "vk.vec3({0}, {1}, {2})", *(expr(c, "float32", wscope, 2) for _ in range(3)))
    else:
        value = expr(c, t, wscope, 2)
    shift = c.integer(1, n - 1) if n > 1 else 0
    mixed = []
    for s in shape:
        form = c.integer(0, 2)
        if form == 0:
            mixed.append(str(c.integer(0, s - 1)))
        elif form == 1:
            mixed.append(f"((t + {c.integer(0, 2 * s)}) % {s})")
        else:
            mixed.append(f"((t // {c.integer(1, 4)}) % {s})")
    rscope = Scope()
    rscope.add(Expr(t, f"{p}r0"))
    rscope.add(Expr(t, f"{p}r1"))
    if vec:
        out_val = c.pick([op("vec3", "({0} + {1})", Expr(t, f"{p}r0"), Expr(t, f"{p}r1")),
                          op("vec3", "vk.cross({0}, {1})", Expr(t, f"{p}r0"), Expr(t, f"{p}r1")),
                          Expr(t, f"{p}r1")])
    else:
        out_val = top(c, t, expr(c, t, rscope, 2))
    slot = own_slot(c, ctx, f"{p}out", t)
    skipped = shift % n

    def build(defect: str | None) -> Phase:
        write: list[Stmt] = [g.line(f"{p}g"),
                             Line(f"{tile}[{', '.join(unflatten(e, shape))}] = {{0}}", (value,))]
        if defect == "read before write":
            write = [Block(f"if {e} != {skipped}", tuple(write))]
        body: list[Stmt] = [Line(f"{tile} = vk.shared.array(shape={shape}, dtype=vk.{t}{layout})")]
        if reps == 1:
            body += [Line(f"{e} = t")] + write
        else:
            body.append(Block(f"for {p}k in range({reps})",
                              tuple([Line(f"{e} = t + {p}k * {bd}")] + write)))
        if defect != "removed barrier":
            body.append(Line("vk.sync_threads()"))
        flat = f"((t + {shift}) % {n}" + (" + 1)" if defect == "off-by-one read" else ")")
        first = unflatten(flat, shape)
        if defect == "off-by-one read":
            first[0] = f"({flat} // {math.prod(shape[1:])})"
        body += [Line(f"{p}r0 = {tile}[{', '.join(first)}]"),
                 Line(f"{p}r1 = {tile}[{', '.join(mixed)}]")]
        body += _guarded(slot, [Line(f"{p}out[{slot.index}] = {{0}}", (out_val,))], defect)
        return Phase("shared", tuple(body), (g.array, slot.array), (),
                     slot.requires + (g.requires(),), block_level=True)
    names = ["read before write", "off-by-one read", "dropped guard", "off-by-one"]
    if shift % bd != 0:
        names.append("removed barrier")
    base = build(None)
    return Phase(base.kind, base.body, base.arrays, base.scalars, base.requires, (), True,
                 tuple((d, build(d)) for d in names))


SHARED_ATOMIC_TYPES = ("int32", "uint32", "int64", "uint64", "float32")


def shared_counters(c: Choices, ctx: Ctx) -> Phase:
    """Per-block counters in shared memory: zeroed, barrier, atomics, barrier,
    stored per block."""
    p, bd = ctx.prefix, ctx.block_dim
    t = c.pick(SHARED_ATOMIC_TYPES)
    form = c.pick([f for f, (_, _, kinds) in ATOMIC_FORMS.items()
                   if kind(t) in kinds and f in ("add", "+=", "max", "min", "or", "xor")])
    k = c.integer(1, min(bd, 4))
    cnt = f"{p}c"
    scope = ctx.index_scope()
    scope.add(Expr("int32", "t"))
    g = gather(c, ctx, f"{p}x", t, scope)
    scope.add(Expr(t, f"{p}e"))
    value = atomic_value(c, t, form, scope)
    bin_ = expr(c, "int32", scope, 2)
    blocks = math.prod(ctx.dims) // bd
    out = ArrayParam(f"{p}out", t, 2, (max(blocks + c.pick([0, 0, -1, 1]), 0), k + c.pick([0, 0, 1])),
                     "zeros")
    zero = lit(t, 0)

    def build(defect: str | None) -> Phase:
        call, plain, _ = ATOMIC_FORMS[form]
        idx = f"((({{1}}) & 2147483647) % {k})"
        # the plain store hits counter 0 from every thread: a real race for block_dim >= 2
        text = plain.format(a=cnt, i="0") if defect == "plain store" else call.format(a=cnt, i=idx)
        init_guard = f"t < {k - 1}" if defect == "read before write" else f"t < {k}"
        body: list[Stmt] = [Line(f"{cnt} = vk.shared.array(shape=({k},), dtype=vk.{t})"),
                            Block(f"if {init_guard}", (Line(f"{cnt}[t] = {{0}}", (zero,)),))]
        if defect != "removed barrier":
            body.append(Line("vk.sync_threads()"))
        body += [g.line(f"{p}e"), Line(text, (value, bin_)), Line("vk.sync_threads()")]
        guard = f"t < {k} and b < {out.name}.shape[0] and t < {out.name}.shape[1]"
        if defect == "off-by-one":
            guard = f"t < {k} and b <= {out.name}.shape[0] and t < {out.name}.shape[1]"
        store = Line(f"{out.name}[b, t] = {cnt}[t]")
        body.append(Block(f"if {guard}", (store,)))
        return Phase("shared-atomic", tuple(body), (g.array, out), (), (g.requires(),),
                     block_level=True)
    names = ["read before write", "off-by-one"]
    if bd > 1:
        names += ["plain store", "removed barrier"]
    base = build(None)
    return Phase(base.kind, base.body, base.arrays, base.scalars, base.requires, (), True,
                 tuple((d, build(d)) for d in names))


SHARED_PHASES = {"shared": shared_tile, "shared-atomic": shared_counters}
