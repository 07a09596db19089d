"""What the lowerer's mixins read from `lowerer.Lowerer`, which combines
`ExprLowering` and `BuiltinLowering`: declared for mypy only, as
check/host.py explains for the checker. Invariant: every name declared here
is set or defined by Lowerer (or one of its mixins) with the declared type.
"""
from __future__ import annotations

from typing import Any, Protocol

from verikern.hir import nodes as H
from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import ArrayRef, Const


class _LowererHostMethods(Protocol):
    """The methods of `lowerer.Lowerer` its mixins call."""

    def new_block(self, hint: str) -> str: ...

    def set_block(self, label: str | None) -> None: ...

    def emit(self, ins: Any) -> Any: ...

    def terminate(self, t: Any) -> None: ...

    def lower_stmts(self, stmts: Any) -> None: ...

    def const(self, value: Any, t: Any) -> Const: ...

    def lower_expr(self, e: Any, hint: str = "", eager: bool = False) -> tuple: ...

    def lower_builtin(self, e: H.BuiltinCall, hint: Any) -> Any: ...

    def vector_binary(self, op: Any, a: Any, b: Any, lt: Any, rt: Any, t: Any, loc: Any, hint: Any) -> Any: ...

    def inline(self, call: H.FuncCall, hint: Any) -> Any: ...

    def array_of(self, name: str) -> tuple[ArrayRef, tuple]: ...


class LowererHost(_LowererHostMethods):
    """What `lowerer.Lowerer` provides to its mixins (attributes here: mypy mis-types a
    protocol attribute that a subclass assigns)."""

    k: H.KernelDef
    b: MirBuilder
    arrays: dict[str, Any]  # ArrayRef, or a contexts.ArrayView (a func parameter bound to a view)
    views: dict[str, tuple[str, tuple[str, ...]]]   # H.ViewDecl: name -> (array viewed, leading locals)
    funcs: list[Any]        # contexts.FuncContext
    cur: str | None
    env: dict[str, tuple]
    loops: list[Any]        # contexts.LoopContext
