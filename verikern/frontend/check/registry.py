"""The module's @vk.func table: overloads, generic specializations, call
graph, recursion detection and a cache of checked funcs.

Invariant: `get(key)` checks each func (or each specialization of a generic
func, one per tuple of argument types) at most once and always returns the
same FuncInfo (or raises the same KernelError); `reaches(a, b)` follows the
syntactic call graph by name, so a cycle is reported at the call that closes
it. Overloads (several module-level @func of one name with different
annotations, as Warp allows) are chosen by Warp's rules (overloads.py).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, Callable

from verikern.errors import KernelError
from verikern.hir import nodes as H
from verikern.hir.types import ScalarType
from ..scan.module import ModuleInfo
from ..scan.annotations import is_any  # noqa: F401  (re-exported: the checkers import it from here)
from .length_generic import length_generic
from .func_costs import FuncCosts


@dataclass(frozen=True)
class FuncInfo:
    fdef: H.FuncDef
    uses_block: bool
    tid_arity: int | None
    launch_dim_max: int
    called: frozenset
    captures: tuple = ()     # (name, type) of captured unknown constants it reads
    module_constants: tuple = ()   # mir.nodes.ModuleConstantRead: module attributes it reads


#: Warp's constrained type variables (`wp.Float`, `wp.Int`, `wp.Scalar`): a
#: func parameter so annotated is generic, specialized to its argument's
#: type, which must be a scalar of these kinds (Warp finds no overload else).
TYPE_VARIABLE_KINDS = {"Float": ("float",), "Int": ("int", "uint"),
                       "Scalar": ("float", "int", "uint")}


def type_variable(info: ModuleInfo, node) -> str | None:
    """"Float", "Int" or "Scalar" for `wp.Float` (or the name imported from
    warp; warp.types has none of them in Warp 1.19), else None."""
    name = info.dsl_name(node) if node is not None else None
    return name if name in TYPE_VARIABLE_KINDS else None


def type_variable_takes(variable: str, t) -> bool:
    """Whether Warp's type variable `variable` ("Float", "Int", "Scalar")
    matches the argument type `t`."""
    return isinstance(t, ScalarType) and t.kind in TYPE_VARIABLE_KINDS[variable]


class FuncRegistry:
    """The funcs of one module. `checker` is the body checker class
    (body.BodyChecker; passed in, so this module does not import the checker
    that imports it): `checker(info, definition, registry, param_types=...,
    func_key=...)` with `check_func() -> H.FuncDef`."""

    def __init__(self, info: ModuleInfo, checker: Callable[..., Any]):
        self.info = info
        self.checker = checker
        self.overloads: dict[str, list] = {}
        for d in info.definitions:
            if d.kind == "func":
                self.overloads.setdefault(d.node.name, []).append(d)
        self.funcs = {n: ds[-1] for n, ds in self.overloads.items()}
        self.calls: dict[str, set[str]] = {}
        for name, ds in self.overloads.items():
            self.calls[name] = {n.func.id for d in ds for n in ast.walk(d.node)
                                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                and n.func.id in self.overloads}
        self._done: dict[str, FuncInfo | KernelError] = {}
        self._keys: dict[str, tuple] = {}
        # what checking each func in `_done` cost (verikern.mir.work), charged again on reuse
        self.costs = FuncCosts()

    def reaches(self, start: str, target: str) -> bool:
        """Whether `target` is reachable from `start` in the call graph."""
        seen, stack = set(), [start]
        while stack:
            f = stack.pop()
            for g in self.calls.get(f, ()):
                if g == target:
                    return True
                if g not in seen:
                    seen.add(g)
                    stack.append(g)
        return False

    def candidates(self, name: str) -> list:
        """[(index, Definition, generic)] of the overloads of `name`, in order."""
        return [(i, d, any(is_any(self.info, a.annotation)
                           or type_variable(self.info, a.annotation) is not None
                           or length_generic(self.info, a.annotation) is not None
                           for a in d.node.args.args))
                for i, d in enumerate(self.overloads.get(name, []))]

    def key(self, name: str, index: int, types: tuple | None = None) -> str:
        """The unique name of one overload (specialized to `types` when generic)."""
        if len(self.overloads[name]) == 1 and types is None:
            key = name
        else:
            key = f"{name}#{index}"
            if types is not None:
                key += "<" + ", ".join(str(t) for t in types) + ">"
        self._keys[key] = (name, index, types)
        return key

    def get(self, key: str) -> FuncInfo:
        name, index, types = self._keys.get(key, (key, len(self.overloads.get(key, ())) - 1,
                                                  None))
        if key in self._done:       # checked before: charged as its own check (func_costs.py)
            self.costs.reused(key)
        else:
            d = self.overloads[name][index]
            chk = self.checker(self.info, d, self, param_types=types, func_key=key)
            with self.costs.checking(key):
                try:
                    fdef = chk.check_func()
                    self._done[key] = FuncInfo(fdef, chk.uses_block, chk.tid_arity,
                                               chk.launch_dim_max, frozenset(chk.called),
                                               tuple(sorted(chk.captures.items())),
                                               tuple(chk.module_constants.values()))
                except KernelError as e:
                    self._done[key] = e
                except RecursionError:
                    self._done[key] = self.info.error(
                        f"func {name!r} is nested too deeply to compile", d.loc,
                        "too-deep", "split it into smaller funcs")
                except Exception as e:  # a checker bug: reported, never a bare traceback
                    self._done[key] = self.info.error(
                        f"internal compiler error while checking func {name!r}: "
                        f"{type(e).__name__}: {e}", d.loc, "internal",
                        "please report this func to the verikern developers")
        r = self._done[key]
        if isinstance(r, KernelError):
            raise r
        return r

    def errors(self) -> list[KernelError]:
        """Errors of every non-generic overload (generic ones are checked per call)."""
        out = []
        for name in self.overloads:
            for i, _, generic in self.candidates(name):
                if generic:
                    continue
                try:
                    self.get(self.key(name, i))
                except KernelError as e:
                    out.append(e)
        return out
