"""Struct values passed through funcs by their type, as Warp passes them
(docs/LANGUAGE.md section 2): a struct argument given to a generic func's
`Any` parameter, the overload of a func chosen by its struct arguments, and
a func that returns a struct it builds without a `-> S` annotation.

Invariants:
- a struct argument has its struct's type, exactly: a generic func's `Any`
  parameter takes it (the func is specialized to that struct, its parameter
  then being the struct's leaves, like a declared struct parameter), and a
  parameter annotated with a struct takes it only when it names the same
  `@wp.struct` class (Warp compares struct classes, never their fields);
- the struct a call returns (`p = get(s, i)`) is read from the overloads
  that can take the call's struct arguments; when they do not all return
  the same struct, the call has no struct type here and the assignment is
  a located error (never a guess at the overload Warp picks: the checker
  picks it from every argument's type at the call, overloads.py, and the
  leaves unpacked from the call are checked against the struct read here);
- a func without a result annotation returns the struct `S` only when every
  `return` of its body (nested defs aside) returns `S(...)`.
"""
from __future__ import annotations

import ast

from verikern.hir.types import StructType, TupleType
from ..scan.annotations import is_any


def _struct_name(info, node) -> str | None:
    from .structs import struct_class_name    # lazy: structs.py imports this module
    return struct_class_name(info, node)


def class_key(info, name: str):
    """Where the `@wp.struct` class `name` is defined: (file, line, column, class name)."""
    cls = info.structs.get(name)
    if cls is None:
        return None
    origin = info.struct_origins.get(name, info)
    return getattr(origin, "filename", None), cls.lineno, cls.col_offset, cls.name


def same_struct(info, a: StructType, b: StructType) -> bool:
    """Whether two struct types are one `@wp.struct` class (the class Warp compares):
    the same name here, or names bound to the class defined at one place (a struct a
    taken func brings along under a `_vk_<module>__S` name is the one it imports)."""
    if a.name == b.name:
        return True
    ka = class_key(info, a.name)
    return ka is not None and ka == class_key(info, b.name)


def _returns(node: ast.FunctionDef) -> list[ast.Return]:
    """The `return` statements of a func's own body (not of nested defs)."""
    out: list[ast.Return] = []
    stack: list[ast.AST] = list(node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(n, ast.Return):
            out.append(n)
        stack.extend(ast.iter_child_nodes(n))
    return out


def returned_struct(info, node: ast.FunctionDef) -> str | None:
    """The struct a func returns: its `-> S`, or, without a result annotation,
    the `S` every one of its returns builds (`return S(...)`); else None."""
    if node.returns is not None:
        return _struct_name(info, node.returns)
    names = set()
    first = None
    for r in _returns(node):
        if not isinstance(r.value, ast.Call):
            return None
        name = _struct_name(info, r.value.func)
        if name is None:
            return None
        names.add(info.structs[name])
        first = name
    return first if len(names) == 1 else None


def result_annotation(info, node: ast.FunctionDef) -> ast.expr | None:
    """The func's result annotation, or for an unannotated func that returns a
    struct it builds, that struct's name as the annotation (located at the def)."""
    if node.returns is not None:
        return node.returns
    name = returned_struct(info, node)
    if name is None:
        return None
    return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)


def takes_struct(chk, param: ast.arg, t: StructType) -> bool:
    """Whether a func parameter takes the struct argument `t`: `Any` does, a
    struct annotation when it names the same class; nothing else does."""
    if is_any(chk.info, param.annotation):
        return not isinstance(param.annotation, (ast.Subscript, ast.Call))    # not an array of Any
    name = _struct_name(chk.info, param.annotation)
    if name is None:
        return False
    from .structs import struct_type    # lazy: structs.py imports this module
    return same_struct(chk.info, struct_type(chk, name), t)


def call_result_struct(scope, call: ast.Call, func: str | None):
    """The StructType the call of the func `func` returns, read from the
    overloads that can take its struct arguments (see the module docstring),
    or None."""
    chk = scope.chk
    registry = getattr(chk, "registry", None)
    defs = registry.overloads.get(func, []) if registry is not None and func is not None else []
    if not defs and func in chk.info.funcs:
        defs = [chk.info.funcs[func]]
    if call.keywords:
        defs = defs[-1:] if len(defs) == 1 else []    # keywords: only a func without overloads
    found = []
    for d in defs:
        params = d.node.args.args
        if len(call.args) > len(params):
            continue
        fits = True
        for p, a in zip(params, call.args):
            t = scope.type_of(a)
            if t is not None:
                fits = takes_struct(chk, p, t)
            elif _struct_name(chk.info, p.annotation) is not None:
                fits = False
            if not fits:
                break
        if fits:
            found.append(returned_struct(chk.info, d.node))
    if not found or found[0] is None:
        return None
    from .structs import struct_type    # lazy: structs.py imports this module
    first = struct_type(chk, found[0])
    if all(n is not None and same_struct(chk.info, struct_type(chk, n), first) for n in found):
        return first
    return None


def struct_refusal(chk, params: list, args: list, name: str):
    """The located error of the first struct argument of a call of `name` that its
    parameter does not take (a struct of another class, a scalar, vector or array
    annotation: Warp finds no function for it), else None."""
    for p, a in zip(params, args):
        t = chk.structs.type_of(a)
        if t is not None and not takes_struct(chk, p, t):
            want = ast.unparse(p.annotation) if p.annotation is not None else "untyped"
            return chk.error(f"argument {p.arg!r} of {name}() is {want}, got the struct {t}: Warp "
                             "takes a struct only where the parameter names its own class", a,
                             "type-mismatch", f"pass a {want}, or declare an overload for {t}")
    return None


def unpacked_result(chk, call: ast.Call, got, leaves) -> None:
    """A located error unless the call's result (`got`, the tuple the overload the checker
    picks returns) is the tuple of `leaves`, the struct `call_result_struct` read."""
    want = tuple(lt for _, lt in leaves)
    if not isinstance(got, TupleType) or tuple(got.elems) != want:
        raise chk.error(f"{ast.unparse(call)} does not return the struct its overloads were read to "
                        f"return ({got})", call, "struct-use", "annotate the func's result `-> S`")
