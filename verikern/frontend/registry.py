"""The module's @vk.func table: call graph, recursion detection and a cache
of checked funcs.

Invariant: `get(name)` checks each func at most once and always returns the
same FuncInfo (or raises the same KernelError); `reaches(a, b)` follows the
syntactic call graph, so a cycle is reported at the call that closes it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from verikern.errors import KernelError
from verikern.hir import nodes as H
from .module import ModuleInfo


@dataclass(frozen=True)
class FuncInfo:
    fdef: H.FuncDef
    uses_block: bool
    tid_arity: int | None
    launch_dim_max: int
    called: frozenset
    captures: tuple = ()     # (name, type) of captured unknown constants it reads


class FuncRegistry:
    def __init__(self, info: ModuleInfo):
        self.info = info
        self.funcs = info.funcs
        self.calls: dict[str, set[str]] = {}
        for name, d in self.funcs.items():
            self.calls[name] = {n.func.id for n in ast.walk(d.node)
                                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                and n.func.id in self.funcs}
        self._done: dict[str, FuncInfo | KernelError] = {}

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

    def get(self, name: str) -> FuncInfo:
        from .checker import BodyChecker
        if name not in self._done:
            chk = BodyChecker(self.info, self.funcs[name], self)
            try:
                fdef = chk.check_func()
                self._done[name] = FuncInfo(fdef, chk.uses_block, chk.tid_arity,
                                            chk.launch_dim_max, frozenset(chk.called),
                                            tuple(sorted(chk.captures.items())))
            except KernelError as e:
                self._done[name] = e
            except RecursionError:
                self._done[name] = self.info.error(
                    f"func {name!r} is nested too deeply to compile", self.funcs[name].loc,
                    "too-deep", "split it into smaller funcs")
            except Exception as e:  # a checker bug: reported, never a bare traceback
                self._done[name] = self.info.error(
                    f"internal compiler error while checking func {name!r}: "
                    f"{type(e).__name__}: {e}", self.funcs[name].loc, "internal",
                    "please report this func to the verikern developers")
        r = self._done[name]
        if isinstance(r, KernelError):
            raise r
        return r

    def errors(self) -> list[KernelError]:
        out = []
        for name in self.funcs:
            try:
                self.get(name)
            except KernelError as e:
                out.append(e)
        return out
