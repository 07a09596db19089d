"""A file's @kernel / @func definitions and their decorator options, read
from the AST: `Definition` records, `register_definition`, and the module's
`set_module_options`.

Invariant: a definition is recorded only for a decorator that is the DSL's
kernel/func decorator (or a project decorator read as one); a decorator that
looks like a kernel decorator but is not one is a located error, never a
silently skipped kernel. Options are literal constants, or a located error.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verikern.errors import KernelError
from verikern.mir.nodes import SourceLoc
from .constants import NotConstant, eval_module_constant
from .decorators import MEANINGLESS_OPTIONS, decorator_of, kernel_like

if TYPE_CHECKING:
    from .module import ModuleInfo


@dataclass
class Definition:
    """A decorated top-level function: kind "kernel" or "func"."""

    kind: str
    node: ast.FunctionDef
    loc: SourceLoc
    block_dim: int | None = None
    # `@vk.requires(lambda x, y: ...)` decorators, top to bottom (kernels only)
    requires: tuple[ast.Call, ...] = ()
    # for a definition inside a function (a kernel factory): the names it can
    # capture from the enclosing functions (name -> factories.Capture); None
    # at module level
    scope: dict | None = None
    fast_math: bool | None = None    # @wp.kernel(module_options={"fast_math": ...})


def _decorator_kind(dec: ast.AST, info: ModuleInfo):
    """('kernel'|'func', keywords) for a DSL decorator, else None."""
    call = dec if isinstance(dec, ast.Call) else None
    target = call.func if call else dec
    name = info.dsl_name(target) or decorator_of(info, target)
    if name in ("kernel", "func"):
        return name, (call.keywords if call else []), (call.args if call else [])
    return None


def register_definition(stmt, info: ModuleInfo, scope=None) -> bool:
    """Record a @kernel/@func definition (True), or return False for a plain
    function. `scope`: the names a nested definition captures from its
    enclosing functions (None at module level)."""
    kinds = [k for k in (_decorator_kind(d, info) for d in stmt.decorator_list) if k]
    if not kinds:
        for d in stmt.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            if kernel_like(target):
                info.errors.append(info.error(
                    f"{stmt.name!r} is decorated with @{ast.unparse(target)}, which is neither Warp's "
                    "kernel decorator nor a project function verikern can read as one, so it is "
                    "not verified", d, "unknown-decorator",
                    "decorate it with @wp.kernel, or define the decorator in the project as a "
                    "function returning wp.kernel(f, ...) or wp.kernel(...)(f) of its parameter"))
        return False
    kind, keywords, args = kinds[0]
    loc = info.loc(stmt)
    reqs = tuple(d for d in stmt.decorator_list
                 if isinstance(d, ast.Call) and info.dsl_name(d.func) == "requires")
    if reqs and kind != "kernel":
        info.errors.append(info.error(
            f"@vk.requires on the func {stmt.name!r}: contracts belong to kernels",
            reqs[0], "requires-position", "state it on the kernels that call the func"))
        return True
    if isinstance(stmt, ast.AsyncFunctionDef):
        info.errors.append(info.error(f"{kind} {stmt.name!r} is async", stmt,
                                      "async", "remove `async`"))
        return True
    info.kernel_fast_math = None
    try:
        block_dim = _decorator_block_dim(keywords, args, info, kind)
    except KernelError as e:
        info.errors.append(e)
        return True
    same = [d for d in info.definitions if d.node.name == stmt.name]
    if scope is None and all(d.scope is None for d in same):
        # a later module-level definition of the same name replaces the earlier one
        # (Python), except a @func with other parameter types: a Warp overload
        info.definitions = [d for d in info.definitions if d.node.name != stmt.name or (
            kind == "func" and d.kind == "func" and _signature(d.node) != _signature(stmt))]
    elif kind == "func" and any(d.kind == "func" for d in same):
        info.ambiguous_funcs.add(stmt.name)
    info.definitions.append(Definition(kind, stmt, loc, block_dim, reqs, scope,
                                       info.kernel_fast_math))
    return True


def _signature(fn: ast.FunctionDef) -> tuple:
    return tuple(ast.unparse(a.annotation) if a.annotation is not None else ""
                 for a in fn.args.args)


def _decorator_block_dim(keywords, args, info: ModuleInfo, kind: str) -> int | None:
    if args:
        raise info.error(f"@{kind} takes keyword arguments only", args[0], "decorator-args",
                         "write @vk.kernel(block_dim=256)")
    block_dim = None
    for kw in keywords:
        if kind == "kernel" and kw.arg == "block_dim":
            try:
                v = eval_module_constant(kw.value, info)
            except NotConstant:
                v = None
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 1024:
                raise info.error("block_dim must be a constant integer in 1..1024", kw.value,
                                 "block-dim", "write e.g. @vk.kernel(block_dim=256)")
            block_dim = v
        elif kw.arg in MEANINGLESS_OPTIONS:
            continue  # Warp options that do not change what the kernel computes
        elif kind == "kernel" and kw.arg == "module_options":
            info.kernel_fast_math = _fast_math_option(kw.value, info)
        else:
            raise info.error(f"unknown @{kind} option {kw.arg!r}", kw.value or kw,
                             "decorator-args", "verikern reads block_dim, module_options "
                             "and Warp's code-generation options")
    return block_dim


def _fast_math_option(node, info: ModuleInfo):
    """`module_options={"fast_math": True, ...}`: the kernel's fast_math (None: the module's)."""
    if not isinstance(node, ast.Dict):
        raise info.error("module_options must be a literal dict", node, "decorator-args",
                         'write module_options={"fast_math": True}')
    for k, v in zip(node.keys, node.values):
        if isinstance(k, ast.Constant) and k.value == "fast_math":
            try:
                return bool(eval_module_constant(v, info))
            except NotConstant:
                raise info.error("fast_math must be a literal bool", v, "module-options",
                                 "write True or False") from None
    return None


def module_options(call: ast.Call, info: ModuleInfo) -> None:
    if len(call.args) != 1 or not isinstance(call.args[0], ast.Dict):
        info.errors.append(info.error("set_module_options takes one literal dict", call,
                                      "module-options", 'write vk.set_module_options({"fast_math": True})'))
        return
    d = call.args[0]
    for k, v in zip(d.keys, d.values):
        if isinstance(k, ast.Constant) and k.value == "fast_math":
            try:
                info.fast_math = bool(eval_module_constant(v, info))
            except NotConstant:
                info.errors.append(info.error("fast_math must be a literal bool", v,
                                              "module-options", "write True or False"))


@dataclass(eq=False)
class FuncIndex:
    """The func definitions of one `ModuleInfo.definitions` list by name, read up to its
    first `read` entries. The list is only ever appended to (or replaced by another list,
    which gets an index of its own), so its first `read` entries stay what they were:
    entries past `read` are added on the next look-up, never the whole list walked again
    (a module that takes a few thousand imported funcs made the index quadratic).

    Invariant: `by_name[n]` is every func definition named `n` among the first `read`
    entries, in list order; `funcs` (when `funcs_read == read`) is `{d.node.name: d}` over
    them, the last of a name winning, names in the order of their first definition."""

    defs: list
    read: int = 0
    last: object = None     # defs[read - 1] when read > 0 (the append-only check)
    by_name: dict = field(default_factory=dict)
    funcs: dict | None = None
    funcs_read: int = 0

    def fits(self, defs: list) -> bool:
        """Whether this index is of `defs` as it stands (the same list, only appended to)."""
        return self.defs is defs and len(defs) >= self.read and (
            self.read == 0 or defs[self.read - 1] is self.last)

    def caught_up(self) -> "FuncIndex":
        """This index with the entries appended since the last look-up added."""
        defs = self.defs
        for d in defs[self.read:]:
            if d.kind == "func":
                self.by_name.setdefault(d.node.name, []).append(d)
        if len(defs) > self.read:
            self.read, self.last = len(defs), defs[-1]
        return self

    def func_map(self) -> dict:
        """`{name: its last func definition}`, a dict of its own each time it changes
        (callers may hold an earlier one: it stays as it was)."""
        if self.funcs is None or self.funcs_read < self.read:
            made = {} if self.funcs is None else dict(self.funcs)
            for d in self.defs[self.funcs_read if self.funcs is not None else 0:self.read]:
                if d.kind == "func":
                    made[d.node.name] = d
            self.funcs, self.funcs_read = made, self.read
        return self.funcs
