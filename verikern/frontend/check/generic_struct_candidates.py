"""Struct typings of a generic kernel whose `Any` parameters are structs
(warpsphcore's `queryState: Any`, a `particleDataSoA_N` passed on to
`getParticleData(queryState, i)`), for generic_kernels.py's enumeration.

A bare `Any` parameter is *struct-shaped* when the kernel (or a generic func
it is passed on to, through `Any` parameters) reads a field of it that
no vector, matrix or array has (`q.masses`), or passes it to a func every
overload of which takes a struct there. Only a struct typing can build such
a kernel in Warp (a scalar has no field; a func whose overloads all take
structs finds none for a scalar), so the scalar, vector and matrix typings are not tried for it
(the other generic parameters take the usual candidates: the scalars, vec3,
mat33, quat, vec3i and a float32 array).

Its candidates are the module's `@wp.struct` classes that the funcs it is
passed to name at that position (the overloads of `getParticleData` name
`particleDataSoA_1/2/3`), or else every struct that has all the fields read,
each class once, and only those that have every field read.

Invariants:
- every typing made here is checked by the kernel checker like any other
  typing (each call resolved to the overload Warp picks for the struct's
  exact class, check/overloads.py); a typing the checker refuses with a type
  error is skipped as one Warp cannot build, any other error is an error
  instance;
- the search is bounded by counts, never by time: at most
  MAX_STRUCT_CANDIDATES structs per parameter, MAX_STRUCT_TYPINGS typings in
  all (beyond it, the structs are taken together by their rank in each
  parameter's candidates, sorted by name: `_1` with `_1`), the walk through
  funcs at most MAX_WALK calls deep; `kernel[...]` always stays, `unknown`,
  standing for the typings not enumerated, and its reason says when a bound
  was hit.
"""
from __future__ import annotations

import ast
import itertools

from verikern.errors import KernelError
from verikern.hir.types import ArrayType, StructType
from ..scan.class_funcs import qualified_func
from .registry import is_any
from .structs import struct_class_name, struct_type
from .struct_passing import class_key
from .component_obligations import checked_with_obligations
from . import generic_struct_search

#: the most struct candidates one parameter takes (a count, not a time)
MAX_STRUCT_CANDIDATES = 8
#: the most typings (struct and scalar parameters together) checked for one kernel
MAX_STRUCT_TYPINGS = 64
#: the most func calls followed through `Any` parameters from the kernel
MAX_WALK = 6
#: attributes that vectors, matrices, quats and arrays have: no evidence of a struct
_VALUE_ATTRS = frozenset({"x", "y", "z", "w", "shape", "ndim", "dtype", "length", "size", "ptr"})


def _fields(cls: ast.ClassDef) -> set[str]:
    return {s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}


class _Evidence:
    """What the body (and the generic funcs it passes the parameter to) does with one parameter."""

    def __init__(self):
        self.fields: set[str] = set()        # fields read: `p.masses`
        self.named: dict = {}                # struct classes the funcs name there: class key -> name
        self.forced = False                  # a func whose every overload takes a struct there
        self.walked = 0


def _callee(chk, call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name) and call.func.id in chk.registry.overloads:
        return call.func.id
    name = qualified_func(chk, call.func)
    return name if name in chk.registry.overloads else None


def _walk(chk, body: list, param: str, ev: _Evidence, depth: int) -> None:
    """Gather the evidence of `param` in `body` (a kernel's or a generic func's)."""
    for node in (n for s in body for n in ast.walk(s)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == param:
            if node.attr not in _VALUE_ATTRS:
                ev.fields.add(node.attr)
        if not isinstance(node, ast.Call):
            continue
        func = _callee(chk, node)
        if func is None:
            continue
        at = [k for k, a in enumerate(node.args) if isinstance(a, ast.Name) and a.id == param]
        for k in at:
            structs_here, every = [], True
            for d in chk.registry.overloads[func]:
                params = d.node.args.args
                if k >= len(params):
                    every = False
                    continue
                p = params[k]
                name = struct_class_name(chk.info, p.annotation)
                if name is not None:
                    structs_here.append(name)
                    continue
                every = False
                if is_any(chk.info, p.annotation) and not isinstance(p.annotation, (ast.Subscript, ast.Call)) \
                        and depth < MAX_WALK and ev.walked < 64:
                    ev.walked += 1
                    _walk(chk, d.node.body, p.arg, ev, depth + 1)
            for name in structs_here:
                ev.named.setdefault(class_key(chk.info, name), name)
            ev.forced = ev.forced or (every and bool(structs_here))


def struct_pools(chk, kernel: ast.FunctionDef) -> tuple[dict[str, list[str]], list[str]]:
    """({struct-shaped parameter: its candidate struct names}, the bounds hit)."""
    pools: dict[str, list[str]] = {}
    bounds: list[str] = []
    classes: dict = {}
    for name in chk.info.structs:
        classes.setdefault(class_key(chk.info, name), name)
    for arg in kernel.args.args:
        if not is_any(chk.info, arg.annotation) or isinstance(arg.annotation, (ast.Subscript, ast.Call)):
            continue
        ev = _Evidence()
        _walk(chk, kernel.body, arg.arg, ev, 0)
        known = {f for cls in chk.info.structs.values() for f in _fields(cls)}
        struct_fields = {f for f in ev.fields if f in known}
        if not (struct_fields or ev.forced):
            continue
        names = list(ev.named.values()) or list(classes.values())
        names = sorted({n for n in names if ev.fields <= _fields(chk.info.structs[n])}, key=_display)
        if len(names) > MAX_STRUCT_CANDIDATES:
            bounds.append(f"{arg.arg} has {len(names)} candidate structs, of which the first "
                          f"{MAX_STRUCT_CANDIDATES} by name were tried")
            names = names[:MAX_STRUCT_CANDIDATES]
        if names:
            pools[arg.arg] = names
    return pools, bounds


def _display(name: str) -> str:
    """A struct's own class name (a `_vk_<module>__S` name shown as S), for ordering."""
    return name.rsplit("__", 1)[-1] if name.startswith("_vk_") else name


#: the order the other generic parameters' candidates are tried in (by type, an array by its
#: element type): the types projects pass most first; the rest after them, in their own order
_PREFERRED = ("float32", "vec3", "int32", "float64", "vec2", "mat33")
#: the most combinations of the other parameters' candidates ordered by preference
_MAX_ORDERED = 20000


def _rank(t) -> int:
    name = str(t.dtype) if isinstance(t, ArrayType) else str(t)
    return _PREFERRED.index(name) if name in _PREFERRED else len(_PREFERRED)


def _ordered_combos(pools: list[list]) -> list[tuple]:
    """The combinations of `pools`, those of the most preferred candidates first (by the sum
    of their ranks in each pool sorted by _PREFERRED), at most MAX_STRUCT_TYPINGS of them;
    each pool cut to its first k candidates so that at most _MAX_ORDERED are ordered."""
    pools = [sorted(p, key=_rank) for p in pools]
    k = max((len(p) for p in pools), default=1)
    while k > 1 and k ** len(pools) > _MAX_ORDERED:
        k -= 1
    index_combos = sorted(itertools.product(*(range(min(k, len(p))) for p in pools)),
                          key=lambda ix: (sum(ix), ix))
    return [tuple(p[i] for p, i in zip(pools, ix)) for ix in index_combos[:MAX_STRUCT_TYPINGS]]


def struct_typings(struct_pools_: dict[str, list], other_pools: dict[str, list]) -> tuple[list[dict], list[str]]:
    """The typings to check ({param: type}, struct parameters by StructType) and the bounds hit:
    every combination when there are at most MAX_STRUCT_TYPINGS, else the structs taken by
    rank together (each parameter's k-th candidate); the other parameters' combinations
    most preferred first (_ordered_combos), each with every struct combination before the next."""
    names = list(struct_pools_)
    others = list(other_pools)
    total = 1
    for pool in (*struct_pools_.values(), *other_pools.values()):
        total *= len(pool)
    other_combos = _ordered_combos([other_pools[p] for p in others])
    bounds: list[str] = []
    if total <= MAX_STRUCT_TYPINGS:
        struct_combos = list(itertools.product(*(struct_pools_[p] for p in names)))
    else:
        ranks = max(len(struct_pools_[p]) for p in names)
        struct_combos = [tuple(struct_pools_[p][min(k, len(struct_pools_[p]) - 1)] for p in names)
                         for k in range(ranks)]
        bounds.append(f"{total} typings of its generic parameters exceed {MAX_STRUCT_TYPINGS}, so "
                      "its struct parameters were given their candidates by rank together")
    out: list = []
    for oc in other_combos:
        for sc in struct_combos:
            if len(out) >= MAX_STRUCT_TYPINGS:
                bounds.append(f"only the first {MAX_STRUCT_TYPINGS} typings were checked, the "
                              "most common types (float32, vec3, int32, ...) first")
                return out, bounds
            out.append({**dict(zip(names, sc)), **dict(zip(others, oc))})
    return out, bounds


def _instance_name(e, types: dict) -> str:
    """`kernel[T, ...]` as generic_kernels names it, a struct by its class's own name
    (its full name when another struct of the module has the same class name)."""
    shown = []
    for a in e.generic:
        t = types[a.arg]
        if isinstance(t, StructType):
            short = _display(t.name)
            clash = any(_display(n) == short and class_key(e.info, n) != class_key(e.info, t.name)
                        for n in e.info.structs)
            shown.append(t.name if clash else short)
        elif isinstance(t, ArrayType) and isinstance(a.annotation, (ast.Subscript, ast.Call)):
            shown.append(str(t.dtype))      # an array of Any by its element type
        else:
            shown.append(str(t))
    return f"{e.d.node.name}[{', '.join(shown)}]"


def struct_instances(e, make, mir_name, seen: set) -> list | None:
    """The instances of the generic kernel of the enumerator `e` (generic_kernels._Enumerator)
    with struct-shaped parameters: one per typing that compiles or fails with an error other
    than a type refusal, and `kernel[...]`, unknown, for the rest; None when no parameter is
    struct-shaped (`make`: the Instance class, `mir_name`: its identifier rule)."""
    pools, bounds = struct_pools(e.chk, e.d.node)
    if not pools:
        return None
    typed: dict[str, list] = {}
    for p, names in pools.items():
        typed[p] = []
        for n in names:
            try:
                typed[p].append(struct_type(e.chk, n))
            except KernelError:
                bounds.append(f"the struct {_display(n)} has a field verikern cannot read")
        if not typed[p]:
            return None
    others = {a.arg: e.candidates(a, probes=True) for a in e.generic if a.arg not in pools}
    typings, more = struct_typings(typed, others)
    bounds += more
    out: list = []
    obliged: list[str] = []     # typings reading a component past its type (component_obligations.py)

    def add(types: dict) -> None:
        name = _instance_name(e, types)
        if name in seen or not e.premise_admits(types):     # a row a joint typing premise leaves out
            return
        hir, err = e.check(types)
        if err is not None and err.rule == "component-range":   # Warp builds it: an obligation
            hir, err = checked_with_obligations(e, types)
            if hir is not None:
                obliged.append(name)
        if hir is None and err is None:      # a type refusal: a typing Warp cannot build either
            return
        seen.add(name)
        out.append(make(e.d, name, mir_name(name), types, err, hir))
    for types in typings:
        add(types)
    if not any(i.hir is not None and i.name not in obliged for i in out):   # searched (generic_struct_search.py)
        names = list(typed)
        ranks = max(len(typed[p]) for p in names)
        by_rank = [tuple(typed[p][min(k, len(typed[p]) - 1)] for p in names) for k in range(ranks)]
        searched = generic_struct_search.searched_typings(e, by_rank, names, others)
        for types in searched:
            add(types)
        bounds.append(f"then a typing per struct typing was searched one parameter at a time "
                      f"(at most {generic_struct_search.MAX_SEARCH_CHECKS} checks; where that found none, "
                      f"each field type of its structs was given to every other parameter at once), "
                      f"which found {len(searched)}")
    if obliged:
        bounds.append(f"{', '.join(obliged)} read{'s' if len(obliged) == 1 else ''} a constant vector or "
                      "matrix component past its type, which Warp builds: there, each such index "
                      "is an obligation (vector index in range)")
    kernel = e.d.node.name
    tried = ", ".join(f"{p} as {' or '.join(_display(n) for n in names)}" for p, names in pools.items())
    out.append(make(e.d, f"{kernel}[...]", mir_name(kernel + "__more"), {}, e.info.error(
        f"the generic kernel {kernel!r} takes structs in its generic parameters ({tried}); verikern "
        f"checked {len(typings)} typings of them"
        + (f" ({'; '.join(dict.fromkeys(bounds))})" if bounds else "")
        + ", but Warp instantiates it at launch with whatever types it is given, so it cannot be "
        "proved for every instantiation (the typings enumerated are proved one by one)",
        e.d.loc, "generic-kernel", "give the parameters concrete struct types (one kernel per struct)"),
        unknown=True))
    return out
