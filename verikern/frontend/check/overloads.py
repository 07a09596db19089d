"""Choosing a `@wp.func` overload by Warp's rules (warp/_src/context.py,
`Function.get_overload`, and codegen's `func_match_args`).

Invariant: the overload chosen is the one Warp 1.19 builds for the call, or
the call is a located error (never a guess):

- each argument has the type Warp gives it: a bare literal its default type
  (`1` int32, `1.0` float32, `True` bool), whatever parameter it is passed to;
  a default value likewise;
- the non-generic overloads are tried first, in definition order (a later
  definition with the same parameter types replacing the earlier in its
  place, as Warp's signature table does), then the generic ones (`Any`
  parameters), in definition order;
- a scalar, vector or matrix parameter takes exactly its own type; an array
  parameter an array of its dtype (Warp does not compare the ndim when it
  chooses; a wrong ndim is then an error at the call); an `Any` parameter
  anything, an array-of-`Any` parameter any array; a struct argument is
  taken by `Any` and by a parameter annotated with the same `@wp.struct`
  class only (check/struct_passing.py), a struct parameter by nothing else;
- the first overload all of whose parameters take the arguments wins.
"""
from __future__ import annotations

import ast

from verikern.errors import KernelError
from verikern.hir.types import ArrayType, StructType
from ..scan.annotations import parse_annotation
from .registry import is_any, type_variable, type_variable_takes
from .length_generic import length_generic
from .struct_passing import takes_struct
from .structs import struct_class_name


def arg_types(chk, node: ast.Call) -> list:
    """The types Warp gives the arguments of `node` (literals their defaults; a
    struct-valued argument its StructType)."""
    return [st if (st := chk.structs.type_of(a)) is not None else chk.check_expr(a).type
            for a in node.args]


def _takes(chk, param: ast.arg, t) -> bool:
    if isinstance(t, StructType) or struct_class_name(chk.info, param.annotation) is not None:
        return isinstance(t, StructType) and takes_struct(chk, param, t)   # the same class only
    variable = type_variable(chk.info, param.annotation)   # wp.Float, wp.Int, wp.Scalar
    if variable is not None:
        return type_variable_takes(variable, t)
    pattern = length_generic(chk.info, param.annotation)   # vector(length=Any, dtype=T)
    if pattern is not None:
        return pattern.takes(t)
    if is_any(chk.info, param.annotation):
        if isinstance(param.annotation, (ast.Subscript, ast.Call)):   # an array of Any
            return isinstance(t, ArrayType)
        return True
    want = parse_annotation(chk, param.annotation, f"parameter {param.arg!r}")
    if isinstance(want, ArrayType):
        return isinstance(t, ArrayType) and t.dtype == want.dtype
    return t == want


def _warp_table(chk, plain: list) -> list:
    """Warp's table of non-generic overloads: keyed by signature, a later
    definition with the same parameter types (`float` and `wp.float32` are
    one) replaces the earlier one in its place."""
    table: dict = {}
    for cand in plain:
        try:
            sig: tuple = tuple(parse_annotation(chk, a.annotation, f"parameter {a.arg!r}")
                               for a in cand[1].node.args.args)
        except KernelError:
            sig = ("unreadable", cand[0])   # its own error comes when it is checked
        table[sig] = cand    # dict order: the first definition's place
    return list(table.values())


def pick_overload(chk, cands: list, call: ast.Call, name: str, with_defaults):
    """The candidate (index, Definition, generic) Warp picks for `call`, or a
    KernelError. `with_defaults(chk, call, fdef)` spells the call positionally."""
    ordered = _warp_table(chk, [c for c in cands if not c[2]]) + [c for c in cands if c[2]]
    shown = None
    for cand in ordered:
        fdef = cand[1].node
        params = fdef.args.args
        node = with_defaults(chk, call, fdef)
        if len(node.args) != len(params):
            supplied = len(call.args) + len(call.keywords)
            if len(params) - len(fdef.args.defaults) <= supplied <= len(params):
                raise chk.error(f"verikern cannot tell which overload of {name}() Warp picks: "
                                f"the defaults of the overload at line {cand[1].loc.line} are "
                                "not constants", call, "overload-ambiguous",
                                "pass every argument explicitly")
            continue
        types = arg_types(chk, node)
        shown = shown or types
        if all(_takes(chk, p, t) for p, t in zip(params, types)):
            return cand
    got = ", ".join(str(t) for t in shown) if shown is not None else "these arguments"
    raise chk.error(f"no overload of {name}() takes ({got}): Warp chooses an overload by the "
                    "exact argument types (a bare literal 1 is int32, 1.0 float32)", call,
                    "no-overload", "convert the arguments to the types of one overload, "
                    "e.g. wp.float32(1.0)")
