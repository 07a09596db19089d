"""`copy_tree`: `copy.deepcopy` of a Python AST, without deepcopy's generic machinery.

Invariant: `copy_tree(x)` builds exactly what `copy.deepcopy(x)` builds -- every
AST node and list copied (each object once: a node reached twice, such as the
parser's shared `ast.Load()`, gives one copy reached twice), every attribute in
a node's `__dict__` copied with it (fields, positions, and the attributes the
frontend sets, such as the file of an imported func), immutable atoms shared,
and anything else handed to `copy.deepcopy` with the same memo. Imported funcs
are copied once per importing module (imported_funcs.py), which made deepcopy
the largest cost of compiling a file whose project star-imports big modules.
"""
from __future__ import annotations

import ast
import copy
from typing import Any

#: the types deepcopy returns as they are (a subset of copy's atomic types)
_ATOMS = frozenset({str, int, float, complex, bytes, bool, type(None), type(Ellipsis)})


def copy_tree(node):
    """A deep copy of `node` (an AST, a list of them, or anything deepcopy takes)."""
    return _copy(node, {})


def _copy(x, memo: dict):
    cls: Any = type(x)
    if cls in _ATOMS:
        return x
    done = memo.get(id(x))
    if done is not None:
        return done
    if cls is list:
        made: list = []
        memo[id(x)] = made
        _keep(x, memo)
        made.extend([_copy(v, memo) for v in x])
        return made
    if isinstance(x, ast.AST) and getattr(cls, "__deepcopy__", None) is None \
            and cls.__reduce_ex__ is ast.AST.__reduce_ex__:
        node = cls.__new__(cls)
        memo[id(x)] = node
        _keep(x, memo)
        node.__dict__.update({k: _copy(v, memo) for k, v in x.__dict__.items()})
        return node
    return copy.deepcopy(x, memo)


def _keep(x, memo: dict) -> None:
    """Keep `x` alive for the copy's length, as deepcopy does (its id stays its own)."""
    memo.setdefault(id(memo), []).append(x)
