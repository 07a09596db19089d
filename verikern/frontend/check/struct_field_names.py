"""The field-name rewrite of check/structs.py (`StructScope.rewrite`): each
attribute chain rooted at a struct variable becomes the Name of the leaf
field it reaches (`s.inner.n` -> Name "s.inner.n", `s.pos.x` ->
Attribute(Name "s.pos", "x")), and an element of an array of structs the
element of the leaf's own array (`parts[i].pos` -> `parts.pos[i]`); with
the small AST helpers structs.py shares (`_path`, `_binding`, `_shape`,
`_located`). Moved out of structs.py unchanged.

Invariant: the rewrite works on a copy of the body and copies each
replaced node's location onto its replacement, so errors still point at the
source the user wrote.
"""
from __future__ import annotations

import ast

from verikern.hir.types import StructType, struct_array_leaves


def _shape(name: str, d: int) -> ast.expr:
    return ast.Subscript(value=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()),
                                             attr="shape", ctx=ast.Load()),
                         slice=ast.Constant(d), ctx=ast.Load())


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

    def __init__(self, types: dict[str, StructType], arrays: dict[str, StructType]):
        self.types = types
        self.arrays = arrays

    def visit_Call(self, node: ast.Call):
        """`len(arr)` of an array of structs: the length of its first field."""
        key = ".".join(_path(node.args[0]) or ()) if len(node.args) == 1 else ""
        if isinstance(node.func, ast.Name) and node.func.id == "len" and key in self.arrays:
            first = struct_array_leaves(self.arrays[key], key)[0][0]
            node.args[0] = _located(ast.Name(id=first, ctx=ast.Load()), node.args[0])
            return node
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute):
        element = _element_chain(node, self.arrays, self.visit)
        if element is not None:
            return element
        path = _path(node)
        if path is not None and ".".join(path[:-1]) in self.arrays \
                and path[-1] == "shape":   # the shape of an array of structs: its first field's
            key = ".".join(path[:-1])
            first = struct_array_leaves(self.arrays[key], key)[0][0]
            return _located(ast.Attribute(value=ast.Name(id=first, ctx=ast.Load()),
                                          attr="shape", ctx=node.ctx), node)
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


def _element_chain(node: ast.Attribute, arrays: dict[str, StructType], visit):
    """`arr[i].a.b` (arr an array of structs) as `arr.a.b[i]`, with any
    attributes past the struct fields kept (`arr[i].pos.x`), else None."""
    attrs: list[str] = []
    base: ast.AST = node
    while isinstance(base, ast.Attribute):
        attrs.append(base.attr)
        base = base.value
    if not isinstance(base, ast.Subscript):
        return None
    key = ".".join(_path(base.value) or ())
    if key not in arrays:
        return None
    attrs.reverse()
    t: object = arrays[key]
    used = 0
    for attr in attrs:
        if not isinstance(t, StructType) or t.field(attr) is None:
            break
        t = t.field(attr)
        used += 1
    if used == 0 or isinstance(t, StructType):
        return None   # the element, or a struct inside it, as a whole
    base.slice = visit(base.slice)   # struct field chains inside the index
    rest = attrs[used:]
    out: ast.expr = ast.Subscript(value=ast.Name(id=".".join([key, *attrs[:used]]),
                                                 ctx=ast.Load()),
                                  slice=base.slice, ctx=node.ctx if not rest else ast.Load())
    for k, attr in enumerate(rest):
        out = ast.Attribute(value=out, attr=attr,
                            ctx=node.ctx if k == len(rest) - 1 else ast.Load())
    return _located(out, node)


def _located(new, old: ast.AST):
    for n in ast.walk(new):
        ast.copy_location(n, old)
    return new
