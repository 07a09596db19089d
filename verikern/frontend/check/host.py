"""The state and methods the checker mixins read from the class that mixes
them in, declared for the type checker only (the lowerer's are lower/host.py's).

`body.BodyChecker` combines `ExprChecker`, `FlowChecker` and `WarpChecks`.
Each mixin reads attributes that the combined class's `__init__` sets and calls methods
another mixin defines. The mixins name these protocols as their base under
`typing.TYPE_CHECKING` only (at run time they derive from `object`), so mypy
checks every such use against one declaration; this module is never imported
at run time. Invariant: every name declared here is set or defined by
BodyChecker (or one of its mixins) with the declared type.
"""
from __future__ import annotations

import ast
from typing import Any, Protocol

from verikern.errors import KernelError
from verikern.hir import nodes as H
from verikern.hir.types import ArrayType
from verikern.mir.nodes import SourceLoc

from ..scan.module import Definition, ModuleInfo
from .registry import FuncRegistry


class _CheckerHostMethods(Protocol):
    """The methods of `body.BodyChecker` its mixins call."""

    def loc(self, node: ast.AST) -> SourceLoc: ...

    def error(self, message: str, node: Any, rule: str, hint: str | None = None) -> KernelError: ...

    def note_tid(self, arity: int, node: ast.AST) -> None: ...

    def note_launch_dim(self, k: int) -> None: ...

    def check_expr(self, node: ast.AST, expected: Any = None) -> H.Expr: ...

    def const_eval(self, node: ast.AST) -> Any: ...

    def is_const(self, node: ast.AST) -> bool: ...

    def is_literal_tree(self, node: ast.AST) -> bool: ...

    def structs_of_params(self) -> Any: ...

    def temp(self) -> str: ...

    def declare(self, name: str, t: Any, node: Any, read_first: bool = False) -> None: ...

    def _requires(self, call: ast.Call) -> Any: ...


class CheckerHost(_CheckerHostMethods):
    """What `body.BodyChecker` provides to its mixins (attributes here: mypy mis-types a
    protocol attribute that a subclass assigns)."""

    info: ModuleInfo
    defn: Definition
    name: str
    registry: FuncRegistry
    arrays: dict[str, ArrayType]
    views: dict[str, tuple[str, tuple[str, ...]]]   # array views (views.py)
    var_types: dict[str, Any]
    defined: set[str]
    maybe_defined: set[str]          # assigned on some path (assigned_reads.py)
    unassigned_reads: set[str]
    shadowed: frozenset[str]
    pending_flags: list[str]
    local_names: set[str]
    called: set[str]
    captures: dict[str, Any]
    module_constants: dict
    returns: Any
    result_pattern: tuple | None
    tuple_ok: bool
    current_node: ast.AST
    structs: Any            # structs.StructScope
    struct_params: dict[str, Any]   # struct parameter -> its StructType
    struct_arrays: dict[str, Any]   # array-of-structs parameter -> its element StructType
    param_arrays: set[str]
    node: Any               # the ast.FunctionDef being checked
    struct_return: Any      # a func's struct result type, or None
