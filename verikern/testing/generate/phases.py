"""Phases of generated kernels that work on global memory: elementwise
computations, loops with `break`/`continue`, `@vk.func` calls, atomics, and
vectors and matrices. Block-level phases (shared memory, barriers) are in
`shared_phases`.

Invariant: each builder draws every decision first, then assembles the
phase with `build(defect)`; the correct phase is `build(None)` and each
entry of `Phase.defects` is `build(name)` for a defect that breaks a proof
obligation on some admitted launch:
- "dropped guard": the own-slot store without its shape guard (bounds);
- "off-by-one": the guard compares with `<=` (bounds);
- "off-by-one read": a gather's clamp or modulus reaches the length (bounds);
- "plain store": an atomic replaced by a read-modify-write (race).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from .access import Ctx, Gather, OwnSlot, gather, own_slot
from .choices import Choices
from .exprs import FLOAT_LIMIT, Scope, expr, top
from .model import (
    COMPOSITES, INTS, SCALARS, ArrayParam, Block, Expr, Func, Line, Phase, ScalarParam, Stmt,
    bits, kind, op,
)

VALUE_TYPES = tuple(t for t in SCALARS if t != "bool")
ATOMIC_TYPES = ("int32", "uint32", "int64", "uint64", "float32", "float64")


def scalar_value(c: Choices, t: str):
    k = kind(t)
    if k == "f":
        return c.pick([1.5, 0.0, -2.25, 3.0, float(c.integer(-16, 16)) / 4])
    if k == "b":
        return c.chance(50)
    lo, hi = (0, (1 << bits(t)) - 1) if k == "u" else (-(1 << (bits(t) - 1)), (1 << (bits(t) - 1)) - 1)
    return c.pick([c.integer(0, 9), lo, hi, c.integer(lo, hi), 1])


def value_type(c: Choices) -> str:
    return c.pick(["int32", "float32", "int8", "uint8", "int16", "uint16", "uint32", "int64",
                   "uint64", "float64", "float16"])


def _guarded(slot: OwnSlot, body: list[Stmt], defect: str | None) -> list[Stmt]:
    if defect == "dropped guard":
        return body
    return [Block("if " + (slot.loose_guard if defect == "off-by-one" else slot.guard), tuple(body))]


def _loads(c: Choices, ctx: Ctx, t: str, scope: Scope, count: int) -> list[tuple[str, Gather]]:
    out = []
    for j in range(count):
        var = f"{ctx.prefix}a{j}"
        g = gather(c, ctx, f"{ctx.prefix}x{j}", t, scope)
        out.append((var, g))
    for var, _ in out:
        scope.add(Expr(t, var))
    return out


def _own_defects(build: Callable[[str | None], Phase], extra: tuple[str, ...] = ()) -> Phase:
    names = ("dropped guard", "off-by-one") + extra
    base = build(None)
    return Phase(base.kind, base.body, base.arrays, base.scalars, base.requires, base.funcs,
                 base.block_level, tuple((n, build(n)) for n in names))


def _with_scalar(c: Choices, ctx: Ctx, t: str, scope: Scope) -> tuple[ScalarParam, ...]:
    if not c.chance(50):
        return ()
    s = ScalarParam(f"{ctx.prefix}s", t, scalar_value(c, t))
    scope.add(Expr(t, s.name))
    return (s,)


def elementwise(c: Choices, ctx: Ctx) -> Phase:
    """Loads at computed indices, arithmetic, one store to this thread's slot."""
    p, t = ctx.prefix, value_type(c)
    scope = Scope()
    scalars = _with_scalar(c, ctx, t, scope)
    loads = _loads(c, ctx, t, scope, c.integer(1, 2))
    mids = []
    if c.chance(40):
        mids.append(Line(f"{p}v = {{0}}", (expr(c, t, scope),)))
        scope.add(Expr(t, f"{p}v"))
    out_t = "bool" if c.chance(15) else t
    value = top(c, out_t, expr(c, out_t, scope))
    slot = own_slot(c, ctx, f"{p}out", out_t)

    def build(defect: str | None) -> Phase:
        body: list[Stmt] = [g.line(v, defect == "off-by-one read" and j == 0)
                            for j, (v, g) in enumerate(loads)]
        body += mids + [Line(f"{p}out[{slot.index}] = {{0}}", (value,))]
        arrays = tuple(g.array for _, g in loads) + (slot.array,)
        req = slot.requires + tuple(g.requires() for _, g in loads)
        return Phase("elementwise", tuple(_guarded(slot, body, defect)), arrays, scalars, req)
    return _own_defects(build, ("off-by-one read",))


def loop(c: Choices, ctx: Ctx) -> Phase:
    """An accumulation in a `for` or `while` loop with `continue` and `break`."""
    p, t = ctx.prefix, value_type(c)
    scope = Scope()
    scalars = _with_scalar(c, ctx, t, scope)
    q, acc = f"{p}q", f"{p}acc"
    init = expr(c, t, scope, 1)
    count_param = c.chance(40)
    trips = c.integer(0, 6)
    if count_param:
        scalars += (ScalarParam(f"{p}n", "int32", trips),)
    bound = f"{p}n" if count_param else str(trips)
    inner = Scope({k: list(v) for k, v in scope.values.items()})
    inner.add(Expr("int32", q))
    g = gather(c, ctx, f"{p}x", t, inner)
    inner.add(Expr(t, f"{p}e"))
    inner.add(Expr(t, acc))
    skip = expr(c, "bool", inner, 2)
    update = expr(c, t, inner)
    stop = expr(c, "bool", inner, 2) if c.chance(60) else None
    use_while = c.chance(35)
    slot = own_slot(c, ctx, f"{p}out", t)

    def build(defect: str | None) -> Phase:
        body: list[Stmt] = []
        if use_while:
            body.append(Line(f"{q} = {q} + 1"))
        body += [g.line(f"{p}e", defect == "off-by-one read"),
                 Block("if {0}", (Line("continue"),), (skip,)),
                 Line(f"{acc} = {{0}}", (update,))]
        if stop is not None:
            body.append(Block("if {0}", (Line("break"),), (stop,)))
        head: list[Stmt] = [Line(f"{acc} = {{0}}", (init,))]
        if use_while:
            head += [Line(f"{q} = vk.int32(0)"), Block(f"while {q} < {bound}", tuple(body))]
        else:
            head.append(Block(f"for {q} in range({bound})", tuple(body)))
        store: list[Stmt] = [Line(f"{p}out[{slot.index}] = {acc}")]
        return Phase("loop", tuple(head + _guarded(slot, store, defect)), (g.array, slot.array),
                     scalars, slot.requires + (g.requires(),))
    # a read planted in a loop that never runs is no defect (a proof of it is right)
    return _own_defects(build, ("off-by-one read",) if count_param or trips > 0 else ())


def _func(c: Choices, name: str, t: str, callee: Func | None) -> Func:
    scope = Scope()
    scope.add(Expr(t, "a"))
    scope.add(Expr(t, "b"))
    if callee is not None:
        scope.add(op(t, f"{callee.name}({{0}}, {{1}})", Expr(t, "b"), Expr(t, "a")))
    body: list[Stmt] = []
    if c.chance(60):
        body.append(Block("if {0}", (Line("return {0}", (expr(c, t, scope, 2),)),),
                          (expr(c, "bool", scope, 1),)))
    body.append(Line("return {0}", (expr(c, t, scope, 2),)))
    return Func(name, (("a", t), ("b", t)), t, tuple(body))


def func_call(c: Choices, ctx: Ctx) -> Phase:
    """`@vk.func`s (one may call the other) called on loaded values."""
    p, t = ctx.prefix, value_type(c)
    funcs = [_func(c, f"{p}f0", t, None)]
    if c.chance(40):
        funcs.append(_func(c, f"{p}f1", t, funcs[0]))
    scope = Scope()
    scalars = _with_scalar(c, ctx, t, scope)
    loads = _loads(c, ctx, t, scope, c.integer(1, 2))
    f = funcs[-1]
    call = op(t, f"{f.name}({{0}}, {{1}})", expr(c, t, scope, 2), expr(c, t, scope, 2))
    scope.add(call)
    value = top(c, t, expr(c, t, scope, 2))
    slot = own_slot(c, ctx, f"{p}out", t)

    def build(defect: str | None) -> Phase:
        body: list[Stmt] = [g.line(v, defect == "off-by-one read" and j == 0)
                            for j, (v, g) in enumerate(loads)]
        body.append(Line(f"{p}out[{slot.index}] = {{0}}", (value,)))
        arrays = tuple(g.array for _, g in loads) + (slot.array,)
        return Phase("func", tuple(_guarded(slot, body, defect)), arrays, scalars,
                     slot.requires + tuple(g.requires() for _, g in loads), tuple(funcs))
    return _own_defects(build, ("off-by-one read",))


ATOMIC_FORMS = {   # name -> (call form, plain read-modify-write form, allowed kinds)
    "add": ("vk.atomic_add({a}, {i}, {{0}})", "{a}[{i}] = {a}[{i}] + {{0}}", "iuf"),
    "sub": ("vk.atomic_sub({a}, {i}, {{0}})", "{a}[{i}] = {a}[{i}] - {{0}}", "iuf"),
    "+=": ("{a}[{i}] += {{0}}", "{a}[{i}] = {a}[{i}] + {{0}}", "iuf"),
    "min": ("vk.atomic_min({a}, {i}, {{0}})", "{a}[{i}] = vk.min({a}[{i}], {{0}})", "iuf"),
    "max": ("vk.atomic_max({a}, {i}, {{0}})", "{a}[{i}] = vk.max({a}[{i}], {{0}})", "iuf"),
    "and": ("vk.atomic_and({a}, {i}, {{0}})", "{a}[{i}] = {a}[{i}] & {{0}}", "iu"),
    "or": ("vk.atomic_or({a}, {i}, {{0}})", "{a}[{i}] = {a}[{i}] | {{0}}", "iu"),
    "xor": ("vk.atomic_xor({a}, {i}, {{0}})", "{a}[{i}] = {a}[{i}] ^ {{0}}", "iu"),
}


def atomic_value(c: Choices, t: str, form: str, scope: Scope) -> Expr:
    """A value whose atomic combination does not depend on the order of the
    threads: exact small integers for float sums, anything otherwise."""
    if kind(t) == "f" and form in ("add", "sub", "+="):
        src = expr(c, "int32", scope, 2)
        return op(t, f"vk.{t}(({{0}} % 16))", src)
    return expr(c, t, scope, 2)


def atomics(c: Choices, ctx: Ctx) -> Phase:
    """Every thread combines a value into a bin of a global array atomically."""
    p, t = ctx.prefix, c.pick(ATOMIC_TYPES)
    form = c.pick([f for f, (_, _, kinds) in ATOMIC_FORMS.items() if kind(t) in kinds])
    scope = ctx.index_scope()
    g = gather(c, ctx, f"{p}x", t, scope)
    scope.add(Expr(t, f"{p}e"))
    value = atomic_value(c, t, form, scope)
    rank = c.pick([1, 1, 2])
    shape = tuple(c.integer(1, 4) for _ in range(rank))
    acc = ArrayParam(f"{p}acc", t, rank, shape, "data",
                     int_valued=kind(t) == "f" and form in ("add", "sub", "+="))
    bins = tuple(expr(c, "int32", scope, 2) for _ in range(rank))
    idx = ", ".join(f"((({{{k + 1}}}) & 2147483647) % {acc.name}.shape[{k}])" for k in range(rank))
    guard = c.chance(40)
    cond = expr(c, "bool", scope, 1)

    def build(defect: str | None) -> Phase:
        call, plain, _ = ATOMIC_FORMS[form]
        text = (plain if defect == "plain store" else call).format(a=acc.name, i=idx)
        store: Stmt = Line(text, (value,) + bins)
        # the plain store runs unconditionally: a condition no thread meets would hide the race
        guarded = guard and defect != "plain store"
        body: list[Stmt] = [g.line(f"{p}e"), Block("if {0}", (store,), (cond,)) if guarded else store]
        req = (g.requires(), " and ".join(f"{acc.name}.shape[{k}] >= 1" for k in range(rank)))
        return Phase("atomic", tuple(body), (g.array, acc), (), req)
    base = build(None)
    return Phase(base.kind, base.body, base.arrays, base.scalars, base.requires,
                 defects=(("plain store", build("plain store")),))


OWN_ATOMICS = {   # name -> (call returning the old value, plain equivalent's new value, kinds)
    "add": ("vk.atomic_add({a}, {i}, {{0}})", "{a}[{i}] + {{0}}", "iuf"),
    "sub": ("vk.atomic_sub({a}, {i}, {{0}})", "{a}[{i}] - {{0}}", "iuf"),
    "min": ("vk.atomic_min({a}, {i}, {{0}})", "vk.min({a}[{i}], {{0}})", "iuf"),
    "max": ("vk.atomic_max({a}, {i}, {{0}})", "vk.max({a}[{i}], {{0}})", "iuf"),
    "exch": ("vk.atomic_exch({a}, {i}, {{0}})", "{{0}}", "iuf"),
    "cas": ("vk.atomic_cas({a}, {i}, {{1}}, {{0}})", "", "iu"),
}


def own_atomics(c: Choices, ctx: Ctx) -> Phase:
    """An atomic on this thread's own slot, its returned old value stored in a
    second array (deterministic: no other thread touches the slot)."""
    p, t = ctx.prefix, c.pick(ATOMIC_TYPES)
    form = c.pick([f for f, (_, _, kinds) in OWN_ATOMICS.items() if kind(t) in kinds])
    scope = ctx.index_scope()
    loads = _loads(c, ctx, t, scope, 1)
    value, compare = expr(c, t, scope, 2), expr(c, t, scope, 1)
    slot = own_slot(c, ctx, f"{p}acc", t)
    acc = replace(slot.array, values="data")
    old = replace(acc, name=f"{p}old", values="zeros")
    guard = slot.guard + " and " + slot.guard.replace(f"{p}acc", f"{p}old")
    requires = slot.requires + tuple(r.replace(f"{p}acc", f"{p}old") for r in slot.requires)

    def build(defect: str | None) -> Phase:
        call = OWN_ATOMICS[form][0].format(a=acc.name, i=slot.index)
        body: list[Stmt] = [g.line(v, defect == "off-by-one read") for v, g in loads]
        body += [Line(f"{p}o = {call}", (value, compare)),
                 Line(f"{p}old[{slot.index}] = {p}o")]
        cond = guard.replace(" < ", " <= ", 1) if defect == "off-by-one" else guard
        stmts = body if defect == "dropped guard" else [Block("if " + cond, tuple(body))]
        return Phase("own-atomic", tuple(stmts), tuple(g.array for _, g in loads) + (acc, old),
                     (), requires + tuple(g.requires() for _, g in loads))
    return _own_defects(build, ("off-by-one read",))


def vectors(c: Choices, ctx: Ctx) -> Phase:
    """Vector and matrix loads, constructors, arithmetic and builtins."""
    p = ctx.prefix
    n = c.pick([3, 2, 4])
    vt, mt = f"vec{n}", f"mat{n}{n}"
    scope = Scope()
    g = gather(c, ctx, f"{p}x", vt, None)
    gm = gather(c, ctx, f"{p}m", mt, None) if c.chance(50) else None
    fscope = Scope()
    fscope.add(Expr("float32", f"{p}v[{c.integer(0, n - 1)}]"))
    fscope.add(Expr("float32", f"{p}v.x"))
    comps = tuple(expr(c, "float32", fscope, 2) for _ in range(n))
    ctor = op(vt, f"vk.{vt}(" + ", ".join(f"{{{k}}}" for k in range(n)) + ")", *comps)
    scope.add(Expr(vt, f"{p}v"))
    scope.add(Expr(vt, f"{p}w"))
    v, w = Expr(vt, f"{p}v"), Expr(vt, f"{p}w")
    s = expr(c, "float32", fscope, 1)
    forms = [op(vt, "({0} + {1})", v, w), op(vt, "({0} - {1})", w, v), op(vt, "({0} * {1})", w, s),
             op(vt, "({1} * {0})", v, s)]
    if n == 3:   # with Warp's rigid-body types built from the vectors
        forms += [op(vt, "vk.cross({0}, {1})", v, w),
                  op(vt, "vk.transform_point(vk.transform({0}, vk.quat_from_axis_angle("
                         "vk.normalize({1}), {2})), {1})", v, w, s),
                  op(vt, "vk.spatial_top(vk.spatial_cross(vk.spatial_vector({0}, {1}), "
                         "vk.spatial_vector({1}, {0})))", v, w)]
    if gm is not None:
        forms += [op(vt, f"({p}mm * {{0}})", w), op(vt, f"(vk.transpose({p}mm) * {{0}})", v)]
    r = c.pick(forms)
    scalar_out = c.chance(50)
    if scalar_out:
        val = c.pick([op("float32", "vk.dot({0}, {1})", r, v), op("float32", "vk.length({0})", r),
                      op("float32", f"{{0}}[{c.integer(0, n - 1)}]", r),
                      op("float32", "vk.length_sq({0})", r)])
    else:
        val = r
    slot = own_slot(c, ctx, f"{p}out", "float32" if scalar_out else vt)

    def build(defect: str | None) -> Phase:
        body: list[Stmt] = [g.line(f"{p}v", defect == "off-by-one read")]
        if gm is not None:
            body.append(gm.line(f"{p}mm"))
        body += [Line(f"{p}w = {{0}}", (ctor,)), Line(f"{p}out[{slot.index}] = {{0}}", (val,))]
        arrays = (g.array,) + ((gm.array,) if gm else ()) + (slot.array,)
        req = slot.requires + (g.requires(),) + ((gm.requires(),) if gm else ())
        return Phase("vector", tuple(_guarded(slot, body, defect)), arrays, (), req)
    return _own_defects(build, ("off-by-one read",))


GLOBAL_PHASES: dict[str, Callable[[Choices, Ctx], Phase]] = {
    "elementwise": elementwise, "loop": loop, "func": func_call, "atomic": atomics,
    "vector": vectors, "own-atomic": own_atomics,
}

__all__ = ["GLOBAL_PHASES", "COMPOSITES", "FLOAT_LIMIT", "INTS", "ATOMIC_TYPES", "scalar_value",
           "value_type"]
