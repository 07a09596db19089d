"""A project's own kernel and func decorators, recognised by reading their
source (never executed): warp-simdata's `@simdata.kernel`, defined as

    def kernel(warp_kernel=None, /, **kwargs):
        def decorator(fn):
            return assert_static_resolved(wp.kernel(**kwargs)(fn))
        if warp_kernel is not None:
            return decorator(warp_kernel)
        return decorator

Invariants:
- a module-level function is a `kernel` (or `func`) decorator only when every
  `return` of its own body returns its first parameter passed through
  `wp.kernel` (`wp.kernel(p, ...)` or `wp.kernel(...)(p)`), through a nested
  function that is such a decorator itself (`decorator(p)`), or that nested
  decorator (the `@deco(option=...)` form); an identity guard (a module-level
  undecorated function whose every return is its unchanged first parameter)
  may wrap any of these; the first parameter is never rebound; the options it
  gives `wp.kernel` are only `**kwargs` passed through and Warp's
  code-generation options, so the kernel is the decorated function's own
  source under the call site's options;
- such a decorator reaches other modules through imports of it (`from .utils
  import kernel`), module aliases (`simdata.kernel`) and single module-level
  rebindings (`kernel = utils.kernel`), never when its name can be rebound;
- any other decorator whose name ends in `kernel` on a function is an error at
  the decorator naming it (the function would otherwise be silently skipped).
"""
from __future__ import annotations

import ast

from .project import module_member

#: Warp's @kernel/@func options that only steer code generation or naming
MEANINGLESS_OPTIONS = frozenset({
    "enable_backward", "module", "name", "launch_bounds", "cuda_max_registers",
    "enable_cuda_smem_spilling", "cluster_dim", "entry_point_abi", "grid_stride", "inline",
})


def _first_param(fn: ast.FunctionDef) -> str | None:
    args = fn.args.posonlyargs + fn.args.args
    return args[0].arg if args else None


def _rebinds(fn: ast.FunctionDef, name: str) -> bool:
    """Whether `fn`'s own body (nested functions aside) can rebind `name`."""
    for node in _own_nodes(fn):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
    return False


def _own_nodes(fn: ast.FunctionDef):
    """The nodes of `fn`'s body, not descending into nested functions, classes or lambdas."""
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def _returns(fn: ast.FunctionDef) -> list[ast.expr | None]:
    return [n.value for n in _own_nodes(fn) if isinstance(n, ast.Return)]


def is_identity_guard(fn: ast.AST) -> bool:
    """An undecorated function returning its unchanged first parameter on every return."""
    if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
        return False
    p = _first_param(fn)
    rets = _returns(fn)
    if p is None or not rets or _rebinds(fn, p):
        return False
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _own_nodes(fn)):
        return False
    return all(isinstance(r, ast.Name) and r.id == p for r in rets) and _ends_in_return(fn.body)


def _ends_in_return(body: list[ast.stmt]) -> bool:
    """Every path through `body` ends in a return or a raise (no implicit `return None`)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _ends_in_return(last.body) and _ends_in_return(last.orelse)
    return False


class _Reader:
    """Reads one candidate decorator of module `info`."""

    def __init__(self, info, guards: dict):
        self.info, self.guards = info, guards

    def kind(self, fn: ast.FunctionDef) -> str | None:
        """'kernel' or 'func' when `fn` is a decorator (module docstring), else None."""
        if fn.decorator_list or not isinstance(fn, ast.FunctionDef):
            return None
        p = _first_param(fn)
        if p is None or _rebinds(fn, p):
            return None
        defs = [s for s in fn.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        inner = {}
        for stmt in defs:   # nested decorators defined once at the top of the body, never rebound
            if isinstance(stmt, ast.FunctionDef) and sum(d.name == stmt.name for d in defs) == 1 \
                    and not _rebinds(fn, stmt.name):
                k = self.kind(stmt)
                if k is not None:
                    inner[stmt.name] = k
        rets = _returns(fn)
        if not rets or not _ends_in_return(fn.body):
            return None
        kinds: set[str | None] = set()
        for r in rets:
            if isinstance(r, ast.Name) and r.id in inner:
                kinds.add(inner[r.id])
            else:
                kinds.add(self.wrapped(r, p, inner))
        return kinds.pop() if len(kinds) == 1 and None not in kinds else None

    def wrapped(self, node: ast.expr | None, p: str, inner: dict) -> str | None:
        """'kernel'/'func' when `node` is `p` passed through wp.kernel / wp.func."""
        if not isinstance(node, ast.Call):
            return None
        if len(node.args) == 1 and not node.keywords:
            f = node.func
            if isinstance(f, ast.Name) and f.id in self.guards:
                return self.wrapped(node.args[0], p, inner)
            if isinstance(f, ast.Name) and f.id in inner and _is_param(node.args[0], p):
                return inner[f.id]
            if isinstance(f, ast.Call) and _is_param(node.args[0], p):
                return self._dsl_decorator(f.func, f.args, f.keywords)
        if node.args and _is_param(node.args[0], p):
            return self._dsl_decorator(node.func, node.args[1:], node.keywords)
        return None

    def _dsl_decorator(self, target: ast.expr, args: list, keywords: list) -> str | None:
        name = self.info.dsl_name(target)
        if name not in ("kernel", "func") or args:
            return None
        if all(k.arg is None or k.arg in MEANINGLESS_OPTIONS for k in keywords):
            return name
        return None


def _is_param(node: ast.expr, p: str) -> bool:
    return isinstance(node, ast.Name) and node.id == p


def read_definition(fn: ast.AST, info) -> None:
    """Record module-level function `fn` of `info` as an identity guard or a
    kernel/func decorator (module docstring), when it is one and its name
    cannot be rebound."""
    if not isinstance(fn, ast.FunctionDef) or info.rebinding(fn.name) is not None:
        return
    info.decorators.pop(fn.name, None)
    info.guards.pop(fn.name, None)
    if is_identity_guard(fn):
        info.guards[fn.name] = fn
        return
    kind = _Reader(info, info.guards).kind(fn)
    if kind is not None:
        info.decorators[fn.name] = kind


def decorator_of(info, target: ast.AST) -> str | None:
    """The kind ('kernel'/'func') of the project decorator `target` names in
    `info` (a local or imported name, or `alias.name` of a project module)."""
    if isinstance(target, ast.Name):
        return info.decorators.get(target.id) if info.rebinding(target.id) is None else None
    member = module_member(info, target)
    if member is not None:
        defining, name = member
        return defining.decorators.get(name)
    return None


def kernel_like(target: ast.AST) -> bool:
    """A decorator named like a kernel decorator (`kernel`, `x.kernel`)."""
    return (isinstance(target, ast.Name) and target.id == "kernel") or (
        isinstance(target, ast.Attribute) and target.attr == "kernel")
