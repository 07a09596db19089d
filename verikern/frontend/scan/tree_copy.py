"""`copy_tree`: `copy.deepcopy` of a Python AST, without deepcopy's generic machinery;
`renamed_tree`: a tree with some names renamed, sharing what the renaming leaves alone.

Invariant: `copy_tree(x)` builds exactly what `copy.deepcopy(x)` builds -- every
AST node and list copied (each object once: a node reached twice, such as the
parser's shared `ast.Load()`, gives one copy reached twice), every attribute in
a node's `__dict__` copied with it (fields, positions, and the attributes the
frontend sets, such as the file of an imported func), immutable atoms shared,
and anything else handed to `copy.deepcopy` with the same memo. Imported funcs
are copied once per importing module (imported_funcs.py), which made deepcopy
the largest cost of compiling a file whose project star-imports big modules.

`renamed_tree(x, renames)` reads as `copy_tree(x)` with every `ast.Name` load whose
id is in `renames` renamed (imported_funcs.py `_rename_globals`): the nodes on the way
from `x` to a renamed name are new (shallow copies with the new children), every other
subtree is `x`'s own, shared. The frontend never changes a func's nodes in place once it
is read (a statement it rewrites is copied first: check/body.py), which is what already
lets funcs taken without renames share their original's body.
"""
from __future__ import annotations

import ast
import copy
from typing import Any, TypeVar

_Node = TypeVar("_Node", bound=ast.AST)

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


def renamed_tree(node, renames: dict[str, str]):
    """`node` with the `ast.Name` loads named in `renames` renamed, as new nodes on the
    way to them; `node` itself when none is (module docstring)."""
    if not renames:
        return node
    return _renamed(node, renames, {})


def _renamed(x: ast.AST, renames: dict[str, str], memo: dict):
    done = memo.get(id(x))
    if done is not None:    # a node reached twice: one new node, as copy_tree gives
        return done[1]
    if type(x) is ast.Name:
        if x.id not in renames or not isinstance(x.ctx, ast.Load):
            return x
        load = _shallow(x)
        load.id = renames[x.id]
        memo[id(x)] = (x, load)
        return load
    changed: dict | None = None
    for field in x._fields:
        value = getattr(x, field, None)
        if isinstance(value, ast.AST):
            new = _renamed(value, renames, memo)
            if new is not value:
                changed = {} if changed is None else changed
                changed[field] = new
        elif type(value) is list:
            items = None
            for i, v in enumerate(value):
                if isinstance(v, ast.AST):
                    new = _renamed(v, renames, memo)
                    if new is not v:
                        items = list(value) if items is None else items
                        items[i] = new
            if items is not None:
                changed = {} if changed is None else changed
                changed[field] = items
    if changed is None:
        return x
    made = _shallow(x)
    made.__dict__.update(changed)
    memo[id(x)] = (x, made)
    return made


def _shallow(x: _Node) -> _Node:
    """A new node of `x`'s class with `x`'s attributes (fields, positions, the frontend's)."""
    made = type(x).__new__(type(x))
    made.__dict__.update(x.__dict__)
    return made
