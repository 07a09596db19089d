"""Enum classes read as constants: `class Flags(IntEnum)` members are ints,
a plain `Enum`'s members are read only through `.value`.

Invariant: a class is an enum constant only when its body is nothing but
`NAME = <int constant>` (and a docstring) under exactly one enum base, with no
decorators; anything else is not a constant (None).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .constants import NotConstant, eval_module_constant

if TYPE_CHECKING:
    from .module import ModuleInfo


class ValueEnumMembers(dict):
    """The {member: int} of a plain `class Scheme(Enum)`: a member is an Enum
    object, not an int (Warp refuses it as a number), so only `Scheme.M.value`
    reads as the int constant (check/expressions.py). An Enum's members cannot
    be reassigned (`Scheme.M = 5` raises), so their values are constants."""


def int_enum_members(cls: ast.ClassDef, info: ModuleInfo) -> dict[str, int] | None:
    """{member: value} of `class Flags(IntEnum)` (or IntFlag, from `enum`)
    whose body is only `NAME = <int constant>` (and a docstring), no
    decorators, no other bases; else None (the class is not a constant).
    For a plain `Enum` of such members: a ValueEnumMembers."""
    if cls.decorator_list or cls.keywords or len(cls.bases) != 1:
        return None
    base = cls.bases[0]
    if isinstance(base, ast.Name):
        kind = info.enum_imports.get(base.id)
    elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) \
            and info.std_modules.get(base.value.id) == "enum":
        kind = base.attr
    else:
        kind = None
    if kind not in ("IntEnum", "IntFlag", "Enum"):
        return None
    members: dict[str, int] = ValueEnumMembers() if kind == "Enum" else {}
    for stmt in cls.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str):
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)) or stmt.targets[0].id in members:
            return None
        try:
            v = eval_module_constant(stmt.value, info)
        except NotConstant:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or stmt.targets[0].id.startswith("_"):
            return None
        members[stmt.targets[0].id] = v
    return members
