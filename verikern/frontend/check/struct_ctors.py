"""Warp struct constructors with arguments, `S(a, b, c)` and `S(a=.., c=.., b=..)`
(docs/LANGUAGE.md section 2): Warp 1.19 builds a struct inside a kernel or func
from no arguments (every field zero) or from every field, positionally in
declaration order or by name in any order; a partial list is a Warp error
("Couldn't find function overload"), and so it is here.

`ctor_parts` gives the constructor's argument expressions in leaf order (a
nested struct field's argument, a struct-valued expression, gives its own
leaves), which the struct checks of check/structs.py then type-check leaf by
leaf against the field types.

Invariant: the leaves are evaluated in leaf (declaration) order. Warp evaluates
the arguments in the order they are written, so a call whose named arguments
are written out of declaration order is taken only when at most one argument
reads memory or calls anything (then no order of evaluation can be told apart);
otherwise it is a located error.
"""
from __future__ import annotations

import ast

from verikern.hir.types import StructType, UnmodelledField

_RULE = "struct-use"


def ctor_parts(scope, call: ast.Call, t: StructType) -> list[ast.expr]:
    """The leaf expressions of `t(...)` (`scope`: the body's StructScope)."""
    chk = scope.chk
    fields = [name for name, _ in t.fields]
    if len(call.args) > len(fields):
        raise chk.error(f"{t.name}(...) has {len(call.args)} arguments, and {t.name} has "
                        f"{len(fields)} fields", call, _RULE,
                        f"pass one value per field of {t.name}")
    given: dict[str, ast.expr] = dict(zip(fields, call.args))
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in fields:
            raise chk.error(f"{t.name} has no field {kw.arg!r}" if kw.arg else
                            f"{t.name}(**...) is not allowed", kw.value, _RULE,
                            f"its fields are {', '.join(fields)}")
        if kw.arg in given:
            raise chk.error(f"{t.name}(...) is given its field {kw.arg!r} twice", kw.value, _RULE)
        given[kw.arg] = kw.value
    missing = [f for f in fields if f not in given]
    if missing:
        raise chk.error(f"{t.name}(...) without its field{'s' if len(missing) > 1 else ''} "
                        f"{', '.join(missing)}: Warp builds a struct from no arguments or from "
                        "every field", call, _RULE,
                        f"give every field, or write `s = {t.name}()` and set the fields")
    written = [*call.args, *(kw.value for kw in call.keywords)]
    order = [*range(len(call.args)), *(fields.index(str(kw.arg)) for kw in call.keywords)]
    if order != sorted(order) and sum(_effectful(a) for a in written) > 1:
        raise chk.error(f"{t.name}(...) names its fields out of declaration order, and more "
                        "than one argument reads memory or calls something: verikern evaluates "
                        "them in declaration order, Warp in the written order", call, _RULE,
                        f"name the fields in {t.name}'s order, or compute them into variables first")
    out: list[ast.expr] = []
    for name, ft in t.fields:
        arg = given[name]
        if isinstance(ft, UnmodelledField):   # no leaf to hold it
            raise chk.error(f"{t.name}(...) gives its field {name!r}: {ft.reason}", arg, _RULE,
                            ft.hint)
        if isinstance(ft, StructType):
            if scope.type_of(arg) != ft:
                raise chk.error(f"the field {name!r} of {t.name} is a {ft.name}, given "
                                f"{ast.unparse(arg)}", arg, _RULE, f"pass a {ft.name} value")
            out += scope.leaf_nodes(arg, ft)
        else:
            out.append(arg)
    return out


def _effectful(node: ast.AST) -> bool:
    """`node` reads memory or calls something (a vector constructor included)."""
    return any(isinstance(n, (ast.Call, ast.Subscript)) for n in ast.walk(node))
