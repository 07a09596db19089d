"""A generic kernel whose own body uses a construct outside verikern's language
(docs/LANGUAGE.md section 2: tiles, meshes, volumes, hash grids, BVH queries,
textures) where Warp always builds it.

Invariants:
- such a call is one whose callee is Warp's builtin of that construct
  (builtins/table.py `outside_construct`, through the module's DSL alias) and
  that Warp builds whatever the kernel's types are: it is in the kernel's own
  body, outside every `if` and `x if c else y` whose test Warp may evaluate
  when it builds the module (codegen's `emit_If` keeps one branch of a test
  with a constant value: a test with a `wp.static(...)` or that reads no name
  the kernel binds -- a module constant, a literal), and outside nested
  functions and lambdas; calls in funcs the kernel reaches are not looked at
  (an overload Warp never picks may hold one);
- every typing of the kernel reaches that call, and the checker refuses it
  for every typing alike (builtins/calls.py), so the generic kernel has no
  instantiation to check: it is that located error, never an `unknown`
  whose reason is whichever other refusal a typing search met first (an
  unreadable module setting before the call, say). A kernel for which this
  finds nothing is enumerated as before.
"""
from __future__ import annotations

import ast
from typing import Iterator

from ..builtins.calls import outside_language_error
from ..builtins.table import outside_construct


def unconditional_outside_call(info, fn: ast.FunctionDef) -> tuple[ast.Call, str, str] | None:
    """(call, builtin name, construct) of the first call in `fn`'s body, in
    source order, to a builtin outside the language that Warp always builds
    (module docstring), else None."""
    bound = {a.arg for a in fn.args.args} | {n.id for n in ast.walk(fn)
                                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for call in _built_calls(info, fn.body, bound):
        if isinstance(call.func, ast.Name) and call.func.id in info.funcs:
            continue    # the module's own func of that name (`from warp import tile` shadowed)
        name = info.dsl_name(call.func)
        what = outside_construct(name) if name is not None else None
        if what is not None:
            return call, name, what
    return None


def outside_kernel_error(info, fn: ast.FunctionDef):
    """The located error of unconditional_outside_call's call, or None."""
    found = unconditional_outside_call(info, fn)
    if found is None:
        return None
    call, name, what = found
    return outside_language_error(info.error, call, name, what)


def _built_calls(info, nodes: list, bound: set[str]) -> Iterator[ast.Call]:
    """The calls under `nodes`, in source order, that Warp builds whatever the
    values of the module's constants are."""
    for node in nodes:
        yield from _walk(info, node, bound)


def _walk(info, node: ast.AST, bound: set[str]) -> Iterator[ast.Call]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return
    if isinstance(node, (ast.If, ast.IfExp)):
        yield from _walk(info, node.test, bound)
        if _may_be_constant(info, node.test, bound):
            return      # Warp may build one branch only
        for part in ([node.body] if isinstance(node, ast.IfExp) else node.body), \
                ([node.orelse] if isinstance(node, ast.IfExp) else node.orelse):
            yield from _built_calls(info, part, bound)
        return
    if isinstance(node, ast.Call):
        yield node
    for child in ast.iter_child_nodes(node):
        yield from _walk(info, child, bound)


def _may_be_constant(info, test: ast.AST, bound: set[str]) -> bool:
    """Whether Warp may find `test` a constant when it builds the module: it
    calls `wp.static`, or reads no name the kernel binds (its parameters and
    locals). Erring towards True only leaves a kernel to the enumeration."""
    nodes = list(ast.walk(test))
    if any(isinstance(n, ast.Call) and info.dsl_name(n.func) == "static" for n in nodes):
        return True
    return not any(isinstance(n, ast.Name) and n.id in bound for n in nodes)
