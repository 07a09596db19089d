"""Warp structs in kernel and func bodies (docs/LANGUAGE.md section 2):
`@wp.struct` classes as parameters and locals, `s.field` reads and writes,
nested structs, and structs passed to funcs.

A struct never reaches HIR as a value: every struct variable is flattened
into one variable per leaf field, named by its dotted path (`s.pos`,
`s.inner.n`; `hir.types.struct_leaves`). Before a body is checked,
`StructScope.rewrite` replaces each attribute chain rooted at a struct
variable by the Name of the field it reaches (`s.inner.n` -> Name
"s.inner.n", `s.pos.x` -> Attribute(Name "s.pos", "x")), so the rest of the
checker sees ordinary scalars, vectors and arrays (an array field is an
array parameter named "s.points").

Invariants: the rewrite works on a copy of the body (the module's AST is
shared by every instance and overload); a struct variable's type is fixed
by its first binding (a parameter annotation, `S()`, another struct
variable); leaves keep declaration order, so a func's flattened parameters
line up with the leaves of the struct its caller passes; a struct is only
ever used through a field, as a whole in a copy `a = b`, or as a func
argument, and anything else is a located `struct-use` KernelError.
"""
from __future__ import annotations

import ast
import copy

from verikern.hir import nodes as H
from ..scan.annotations import parse_annotation
from verikern.hir.types import (
    ArrayType, MatrixType, ScalarType, StructType, VectorType, struct_leaves,
)

_RULE = "struct-use"


def struct_class_name(info, node: ast.AST | None) -> str | None:
    """The name of the `@wp.struct` class `node` names, or None."""
    if isinstance(node, ast.Name) and node.id in info.structs:
        return node.id
    return None


def struct_type(chk, name: str, _depth: int = 0) -> StructType:
    """The StructType of the module's `@wp.struct class name`, its field
    annotations read as parameter annotations are."""
    cls = chk.info.structs[name]
    if _depth > 16:
        raise chk.error(f"struct {name!r} contains itself", cls, _RULE)
    fields = []
    for stmt in cls.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue   # a docstring
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            raise chk.error(f"struct {name!r}: only annotated fields (`x: wp.float32`) are "
                            "supported in a @wp.struct body", stmt, _RULE)
        inner = struct_class_name(chk.info, stmt.annotation)
        ft = struct_type(chk, inner, _depth + 1) if inner is not None else \
            parse_annotation(chk, stmt.annotation, f"field {stmt.target.id!r} of {name}")
        fields.append((stmt.target.id, ft))
    return StructType(name, tuple(fields))


def zero_value(t, loc) -> H.Expr:
    """The zero of a scalar, vector or matrix type (Warp's default field value)."""
    if isinstance(t, ScalarType):
        return H.Literal(False if t.is_bool else (0.0 if t.is_float else 0), t, loc)
    n = t.length if isinstance(t, VectorType) else t.rows * t.cols
    zero = H.Literal(0.0 if t.dtype.is_float else 0, t.dtype, loc)
    return H.BuiltinCall("construct", (zero,) * n, t, loc)


class StructScope:
    """The struct variables of one body: name -> StructType."""

    def __init__(self, chk, params: dict[str, StructType]):
        self.chk = chk
        self.types: dict[str, StructType] = dict(params)

    def find_locals(self, body: list) -> None:
        """Locals bound to `S()` or to another struct variable (to a fixed point)."""
        changed = True
        while changed:
            changed = False
            for node in (n for s in body for n in ast.walk(s)):
                target, value, ann = _binding(node)
                if target is None or target in self.types:
                    continue
                t = self.type_of(value) if value is not None else None
                name = struct_class_name(self.chk.info, ann) if ann is not None else None
                if name is not None:
                    t = struct_type(self.chk, name)
                if t is not None:
                    self.types[target] = t
                    changed = True

    def type_of(self, node: ast.AST) -> StructType | None:
        """The struct type of a struct-valued expression (`S(...)`, a struct
        variable or a struct field of one), else None."""
        name = struct_class_name(self.chk.info, node.func) if isinstance(node, ast.Call) else None
        if name is not None:
            return struct_type(self.chk, name)
        path = _path(node)
        if path is None or path[0] not in self.types:
            return None
        t: object = self.types[path[0]]
        for attr in path[1:]:
            if not isinstance(t, StructType) or t.field(attr) is None:
                return None
            t = t.field(attr)
        return t if isinstance(t, StructType) else None

    def rewrite(self, body: list) -> list:
        """A copy of `body` with every field chain of a struct variable a Name."""
        return [_FieldNames(self.types).visit(copy.deepcopy(s)) for s in body]

    def leaf_names(self) -> set[str]:
        """The dotted names of every value (non-array) leaf of a struct variable."""
        return {n for root, t in self.types.items() for n, lt in struct_leaves(t, root)
                if is_value_leaf(lt)}

    # ------------------------------------------------------------ statements
    def assign(self, target: str, value: ast.AST, node) -> list | None:
        """The HIR of `target = value` for a struct variable `target` (one
        Assign per value leaf), or None when `target` is not a struct."""
        t = self.types.get(target)
        if t is None:
            return None
        chk = self.chk
        loc = chk.loc(node)
        leaves = struct_leaves(t, target)
        if any(isinstance(lt, ArrayType) for _, lt in leaves):
            raise chk.error(f"struct {t} has array fields: such a struct can be a parameter, "
                            "not a local variable", node, _RULE,
                            "read its fields from the parameter directly")
        if isinstance(value, ast.Call) and struct_class_name(chk.info, value.func) == t.name:
            if value.args or value.keywords:
                raise chk.error(f"{t.name}(...) with arguments: Warp builds a struct with "
                                "no arguments", value, _RULE,
                                f"write `{target} = {t.name}()` and set its fields")
            out = []
            for name, lt in leaves:
                chk.declare(name, lt, node)
                out.append(H.Assign(name, zero_value(lt, loc), loc))
            return out
        src = self.type_of(value)
        if src != t:
            raise chk.error(f"{target} is a {t}, assigned {ast.unparse(value)}", value, _RULE,
                            f"assign a {t.name}() or another {t.name} variable")
        prefix = ".".join(_path(value) or ())
        out = []
        for (name, lt), (src_name, _) in zip(leaves, struct_leaves(t, prefix)):
            e = chk.check_expr(ast.copy_location(ast.Name(id=src_name, ctx=ast.Load()), value))
            chk.declare(name, lt, node)
            out.append(H.Assign(name, e, loc))
        return out

    def call_args(self, params, args: list) -> list:
        """The call's arguments with each struct-valued one replaced by the
        Names of its leaves, lined up with the func's flattened `params`."""
        out: list = []
        for a in args:
            t = self.type_of(a)
            if t is None:
                out.append(a)
                continue
            prefix = ".".join(_path(a) or ())
            out += [ast.copy_location(ast.Name(id=n, ctx=ast.Load()), a)
                    for n, _ in struct_leaves(t, prefix)]
        return out


def is_value_leaf(t) -> bool:
    return isinstance(t, (ScalarType, VectorType, MatrixType))


def _binding(node):
    """(target name, value, annotation) of `x = v` / `x: T = v`, else (None, ...)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
            isinstance(node.targets[0], ast.Name):
        return node.targets[0].id, node.value, None
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id, node.value, node.annotation
    return None, None, None


def _path(node: ast.AST) -> list[str] | None:
    """["s", "inner", "n"] for `s.inner.n`, else None."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(attrs)]


class _FieldNames(ast.NodeTransformer):
    """Replaces `s.a.b` by Name "s.a.b" as far as the chain goes through
    struct fields (see the module docstring)."""

    def __init__(self, types: dict[str, StructType]):
        self.types = types

    def visit_Attribute(self, node: ast.Attribute):
        path = _path(node)
        if path is None or path[0] not in self.types:
            return self.generic_visit(node)
        t: object = self.types[path[0]]
        used = 1
        for attr in path[1:]:
            if not isinstance(t, StructType) or t.field(attr) is None:
                break
            t = t.field(attr)
            used += 1
        if used == 1:
            return node
        rest = path[used:]
        out: ast.expr = ast.Name(id=".".join(path[:used]),
                                 ctx=node.ctx if not rest else ast.Load())
        for k, attr in enumerate(rest):
            out = ast.Attribute(value=out, attr=attr,
                                ctx=node.ctx if k == len(rest) - 1 else ast.Load())
        return _located(out, node)


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    for n in ast.walk(new):
        ast.copy_location(n, old)
    return new
