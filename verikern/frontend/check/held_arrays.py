"""Arrays held by the elements of a struct array (docs/LANGUAGE.md section 2):
`X[b].h[j]`, `X[b].h.shape[0]`, `len(X[b].h)` and `blk = X[b]; blk.h[j]` for
`X` a 1-d array of a struct whose field `h` is a 1-d array (a kernel
parameter `X: wp.array(dtype=Block)` or a struct field
`ds.ngon_n_blocks: wp.array(dtype=UGDatasetHandle)`).

The model (hir.types.StructArrayType): each held leaf `X.h` is a padded 2-d
array [n, W] whose row b is element b's array, and `X.h.len` [n] (int32)
holds the lengths. Every held read is the HIR `IndexExpr` `X.h[b, j]` with
`held_lengths` = `X.h.len`, which lowers to a read of `X.h.len[b]`, an
`assert 0 <= j < X.h.len[b]` and the Load (frontend/lower/expressions.py);
`X[b].h.shape[0]` reads `X.h.len[b]`. The kernel requires
`all_in_range(X.h.len, 0, W + 1)` and `W < 2**31 - 1` (`held_requires`), so
every length the real arrays can have is one the proof covers: W is the
padded array's free symbolic width, never fixed. The model's held arrays
are memory of their own: two elements may hold the same array (only reads
are allowed through them, so their contents are free either way), and
`vk.launch` refuses a held array that overlaps any other array argument
(verikern/held_launch.py).

Invariants: the rewrite runs on the body before `_FieldNames`
(check/structs.py), and every chain that reaches a held array is one of the
three read forms, else a located `struct-use` error (writes, views, passing
a held array on, `wp.lower_bound` over one are refused); a held read is the
call `__vk_held__(Name leaf, row, j)` that only `check_held_read` takes, so
any other path that meets it fails closed (an unknown function).
"""
from __future__ import annotations

import ast
import copy

from verikern.hir import nodes as H
from verikern.hir.types import (
    BOOL, HELD_LENGTHS, I32, ArrayType, MatrixType, ScalarType, StructArrayType, StructType,
    UnmodelledField, VectorType, struct_leaves,
)

_RULE = "struct-use"
HELD_CALL = "__vk_held__"
#: the hidden local that keeps the element index of `blk = X[b]`
ROW_SUFFIX = ".__row"


def held_model_refusal(elem: StructType, ndim: int) -> str | None:
    """Why an array of `elem` of `ndim` dimensions has no model, else None."""
    if ndim != 1:
        return f"a {ndim}-d array of structs that hold arrays (verikern models 1-d ones)"
    for name, ft in _all_fields(elem, ""):
        if isinstance(ft, (StructArrayType, UnmodelledField)):
            return (f"its elements hold the struct array {name.lstrip('.')} (verikern models one "
                    "level of held arrays)")
        if isinstance(ft, ArrayType) and ft.ndim != 1:
            return f"its elements hold the {ft.ndim}-d array {name.lstrip('.')} (verikern models 1-d ones)"
    return None


def _all_fields(t: StructType, prefix: str):
    for name, ft in t.fields:
        yield f"{prefix}.{name}", ft
        if isinstance(ft, StructType):
            yield from _all_fields(ft, f"{prefix}.{name}")


def has_held(elem: StructType) -> bool:
    return any(isinstance(lt, ArrayType) for _, lt in struct_leaves(elem, ""))


def field_struct_arrays(t: StructType, prefix: str) -> dict[str, StructType]:
    """The struct-array fields of a struct variable: dotted path -> element type."""
    out: dict[str, StructType] = {}
    for name, ft in t.fields:
        if isinstance(ft, StructType):
            out.update(field_struct_arrays(ft, f"{prefix}.{name}"))
        elif isinstance(ft, StructArrayType):
            out[f"{prefix}.{name}"] = ft.elem
    return out


def leaf_paths(t: StructType, array: bool) -> tuple[tuple[str, ...], ...]:
    """How a launch finds each leaf of a struct parameter (mir.nodes.StructArg):
    attribute names, "[]" where the value is an array of structs whose
    elements the rest of the path reads (one array over the elements), and a
    last "#len" for a held array's lengths; in `struct_leaves` order. An
    array parameter whose elements hold arrays starts each path with "[]"."""
    def walk(st: StructType, at: tuple[str, ...]) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = []
        for name, ft in st.fields:
            if isinstance(ft, StructType):
                out += walk(ft, at + (name,))
            elif isinstance(ft, StructArrayType):
                out += elements(ft.elem, at + (name, "[]"))
            elif not isinstance(ft, UnmodelledField):
                out.append(at + (name,))
        return out

    def elements(elem: StructType, at: tuple[str, ...]) -> list[tuple[str, ...]]:
        out = []
        for path in walk(elem, at):
            out.append(path)
            if _leaf_type(elem, path[len(at):]).__class__ is ArrayType:
                out.append(path + ("#len",))
        return out

    if array and has_held(t):
        return tuple(elements(t, ("[]",)))
    return tuple(walk(t, ()))


def _leaf_type(t: StructType, path: tuple[str, ...]):
    x: object = t
    for attr in path:
        assert isinstance(x, StructType)
        x = x.field(attr)
    return x


class HeldReads(ast.NodeTransformer):
    """The rewrite of held reads (see the module docstring). `arrays`: every
    array of structs in scope (dotted key -> element type); `rows`: struct
    locals bound to an element, name -> (array key, hidden row local)."""

    def __init__(self, chk, arrays: dict[str, StructType], rows: dict[str, tuple[str, str]]):
        self.chk = chk
        self.arrays = {k: t for k, t in arrays.items() if has_held(t)}
        self.rows = rows

    def target(self, node: ast.AST):
        """(held leaf name, row expression) when `node` is a chain reaching a
        held array (`X[b].h`, `blk.inner.h`), else None."""
        attrs: list[str] = []
        base = node
        while isinstance(base, ast.Attribute):
            attrs.append(base.attr)
            base = base.value
        if not attrs:
            return None
        attrs.reverse()
        if isinstance(base, ast.Subscript) and (key := _dotted(base.value)) in self.arrays:
            elem, row = self.arrays[key], base.slice
        elif isinstance(base, ast.Name) and base.id in self.rows:
            key, hidden = self.rows[base.id]
            elem, row = self.arrays[key], ast.copy_location(ast.Name(id=hidden, ctx=ast.Load()), base)
        else:
            return None
        t: object = elem
        for k, attr in enumerate(attrs):
            if not isinstance(t, StructType) or t.field(attr) is None:
                return None
            t = t.field(attr)
            if isinstance(t, ArrayType):
                if k != len(attrs) - 1:
                    return None
                return ".".join([key, *attrs]), row
        return None

    def _name(self, leaf: str, like: ast.AST) -> ast.Name:
        return ast.copy_location(ast.Name(id=leaf, ctx=ast.Load()), like)

    def _lengths(self, leaf: str, row, like: ast.AST) -> ast.Subscript:
        return _located(ast.Subscript(value=self._name(f"{leaf}.{HELD_LENGTHS}", like),
                                      slice=self.visit(copy.deepcopy(row)), ctx=ast.Load()), like)

    def visit_Subscript(self, node: ast.Subscript):
        held = self.target(node.value)
        if held is not None:
            leaf, row = held
            if not isinstance(node.ctx, ast.Load):
                raise self.chk.error(f"{ast.unparse(node)}: the arrays held by the elements of a "
                                     "struct array are read-only here (two elements may hold "
                                     "the same array)", node, _RULE,
                                     "write into an array parameter of the kernel instead")
            if isinstance(node.slice, (ast.Tuple, ast.Slice)):
                raise self.chk.error(f"{ast.unparse(node)}: a held array is 1-d: index it "
                                     "with one index", node.slice, _RULE)
            return _located(ast.Call(func=ast.Name(id=HELD_CALL, ctx=ast.Load()),
                                     args=[self._name(leaf, node), self.visit(copy.deepcopy(row)),
                                           self.visit(node.slice)], keywords=[]), node)
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape" and (held := self.target(v.value)):
            if not (isinstance(node.slice, ast.Constant) and node.slice.value in (0, -1)):
                raise self.chk.error(f"{ast.unparse(node)}: a held array is 1-d: its shape "
                                     "has one dimension, shape[0]", node.slice, _RULE)
            return self._lengths(held[0], held[1], node)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and (held := self.target(node.args[0])) is not None:
            return self._lengths(held[0], held[1], node)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute):
        if self.target(node) is not None:
            raise self.chk.error(f"{ast.unparse(node)}: an array held by an element of a struct "
                                 "array can be indexed (`[j]`) or measured (`.shape[0]`, "
                                 "`len(...)`) and nothing else here", node, _RULE,
                                 "read the elements you need into locals")
        return self.generic_visit(node)


def row_binding(scope, value: ast.AST) -> str | None:
    """The array key when `value` is an element `X[b]` of a struct array
    whose elements hold arrays, else None."""
    if isinstance(value, ast.Subscript) and (key := _dotted(value.value)) in scope.arrays \
            and has_held(scope.arrays[key]):
        return key
    return None


def row_copy(scope, target: str, t: StructType, value: ast.AST, node) -> list:
    """`blk = X[b]` of an array whose elements hold arrays: the value fields
    copied, b kept in the hidden row local for `blk.h[j]`."""
    chk = scope.chk
    key, hidden = scope.rows[target]
    if not (isinstance(value, ast.Subscript) and _dotted(value.value) == key):
        raise chk.error(f"{target} holds an element of {key}, whose arrays it reads through "
                        f"that element; it can only be assigned elements of {key}", node,
                        _RULE, "use another variable")
    loc = chk.loc(node)
    out: list = []
    for (name, lt), part in zip(struct_leaves(t, target), scope.leaf_nodes(value, t)):
        if isinstance(lt, ArrayType):
            continue   # read through the row
        e = chk.check_expr(part)
        chk.declare(name, lt, node)
        out.append(H.Assign(name, e, loc))
    row = chk.check_int(value.slice)
    chk.declare(hidden, row.type, node)
    out.append(H.Assign(hidden, row, loc))
    return out


def check_held_read(chk, node: ast.Call) -> H.IndexExpr:
    """`__vk_held__(Name leaf, row, j)`: the HIR read of a held array."""
    leaf_node, row, j = node.args
    for part in (row, j):
        if any(isinstance(n, ast.Call) for n in ast.walk(part)):
            raise chk.error("the index of a struct array element whose arrays are read, and "
                            "the index into a held array, must not call anything", part, _RULE,
                            "compute the index into a variable first")
    assert isinstance(leaf_node, ast.Name)
    e = chk.check_expr(ast.copy_location(ast.Subscript(
        value=leaf_node, slice=ast.Tuple(elts=[row, j], ctx=ast.Load()), ctx=ast.Load()), node))
    assert isinstance(e, H.IndexExpr)
    lengths = chk.check_expr(ast.copy_location(ast.Name(id=f"{leaf_node.id}.{HELD_LENGTHS}",
                                                        ctx=ast.Load()), node))
    assert isinstance(lengths, H.ArrayRefExpr)
    return H.IndexExpr(e.array, e.indices, e.type, e.loc, held_lengths=lengths)


def held_requires(chk, arrays: dict[str, StructType], sites: dict[str, ast.AST]) -> list:
    """The kernel's contracts on each held leaf `L` of a struct array
    parameter (or field of one): every length in 0..W (`all_in_range(L.len,
    0, W + 1)`) with W = L.shape[1] below 2**31 - 1 (so W + 1 does not wrap)."""
    out: list = []
    for key, elem in arrays.items():
        loc = chk.loc(sites[key.split(".")[0]])
        for name, lt in struct_leaves(elem, key):
            if not isinstance(lt, ArrayType):
                continue
            padded = H.ArrayRefExpr(name, chk.arrays[name], loc)
            lengths = H.ArrayRefExpr(f"{name}.{HELD_LENGTHS}", chk.arrays[f"{name}.{HELD_LENGTHS}"], loc)
            width = H.ShapeExpr(padded, 1, I32, loc)
            out.append(H.RequiresStmt(H.CompareExpr("lt", width, H.Literal(2**31 - 1, I32, loc),
                                                    BOOL, loc), loc))
            out.append(H.RequiresArrayStmt("all_in_range", lengths, H.Literal(0, I32, loc),
                                           H.BinaryExpr("add", width, H.Literal(1, I32, loc),
                                                        I32, loc), loc))
    return out


def held_contract_leaf(stmt, arrays: set[str]) -> str | None:
    """The held leaf L when `stmt` is one of `held_requires`' contracts on it
    (`all_in_range(L.len, ...)`, `L.shape[1] < 2**31 - 1`; no source can name
    L or L.len), else None. A kernel that reads neither L nor L.len has no
    obligation they could help, so the driver drops them (fewer assumptions:
    a weaker claim, never a stronger one; frontend/driver.py)."""
    if isinstance(stmt, H.RequiresArrayStmt) and stmt.kind == "all_in_range" \
            and stmt.array.name.endswith("." + HELD_LENGTHS) \
            and stmt.array.name[:-len(HELD_LENGTHS) - 1] in arrays:
        return stmt.array.name[:-len(HELD_LENGTHS) - 1]
    c = stmt.cond if isinstance(stmt, H.RequiresStmt) else None
    if isinstance(c, H.CompareExpr) and c.op == "lt" and isinstance(c.lhs, H.ShapeExpr) \
            and c.lhs.dim == 1 and f"{c.lhs.array.name}.{HELD_LENGTHS}" in arrays \
            and isinstance(c.rhs, H.Literal) and c.rhs.value == 2**31 - 1:
        return c.lhs.array.name
    return None


def is_value(t) -> bool:
    return isinstance(t, (ScalarType, VectorType, MatrixType))


def _dotted(node: ast.AST) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _located(new, old: ast.AST):
    for n in ast.walk(new):
        ast.copy_location(n, old)
    return new
