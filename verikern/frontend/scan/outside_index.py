"""A project file read once for every module whose outside rebindings are looked
for in it (project.rebindings_from_outside, rebinding.outside_rebindings).

A kernel file's project modules are each checked for rebindings from every
other project file: a file that imports six project modules had each of some
twenty other files parsed and walked six times (`_lbfgs_cell_kappa_kernel`'s
file: 132 parses, 3 million nodes walked, a third of its whole proof's CPU).
What those walks read does not depend on the module looked for: the import
statements, the assignments, the nodes that may store into a module, and for
each expression the names and attributes under it. An `OutsideIndex` holds
them, built by one walk of one parse per file content.

Invariant: every answer read from an index is the one the walk of the same
tree gives -- the same nodes in `ast.walk` order, and `may_be_module` is
rebinding._may_be_module for the same handles -- so the compile results
(MIR, errors, the constants a kernel reads) are unchanged; only the repeated
work is gone. The cache key is the file's path and the sha256 of its bytes.
"""
from __future__ import annotations

import ast
import hashlib

#: Attribute or name spellings through which an expression may reach a module object
#: (as rebinding._MODULE_HANDLES).
MODULE_HANDLES = frozenset(("modules", "import_module", "__import__", "reload"))
_NAMESPACE_CALLS = frozenset(("update", "setdefault", "__setitem__", "pop", "__delitem__", "clear"))


def _may_store(n: ast.AST) -> bool:
    """A node rebinding.outside_rebindings looks at (any handles)."""
    if isinstance(n, (ast.Attribute, ast.Subscript)):
        return isinstance(n.ctx, (ast.Store, ast.Del))
    if isinstance(n, ast.Call):
        return (isinstance(n.func, ast.Name) and n.func.id in ("setattr", "delattr")) or (
            isinstance(n.func, ast.Attribute) and n.func.attr in _NAMESPACE_CALLS)
    return False


class OutsideIndex:
    """One project file's parse and walk (module docstring). Immutable once built:
    `reach` fills lazily, per expression, with what its own walk finds."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        nodes = list(ast.walk(tree))
        self.imports = [n for n in nodes if isinstance(n, (ast.Import, ast.ImportFrom))]
        self.assigns = [n for n in nodes if isinstance(n, ast.Assign)]
        self.sites = [n for n in nodes if _may_store(n)]
        self._reach: dict[int, tuple[bool, frozenset[str]]] = {}

    def _names_under(self, node: ast.AST) -> tuple[bool, frozenset[str]]:
        """(an attribute under `node` is one of MODULE_HANDLES, the names under it)."""
        key = id(node)          # nodes of self.tree, which the index keeps alive
        found = self._reach.get(key)
        if found is None:
            attr, names = False, set()
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute) and sub.attr in MODULE_HANDLES:
                    attr = True
                elif isinstance(sub, ast.Name):
                    names.add(sub.id)
            found = self._reach[key] = (attr, frozenset(names))
        return found

    def may_be_module(self, node: ast.AST, handles: set[str]) -> bool:
        """rebinding._may_be_module(node, handles), for a node of this index's tree."""
        if isinstance(node, ast.Name):
            return node.id in handles or node.id == "__import__"
        attr, names = self._names_under(node)
        return attr or not names.isdisjoint(handles) or not names.isdisjoint(MODULE_HANDLES)


#: (path, sha256 of its bytes) -> its OutsideIndex, or None when it does not parse.
_INDEXES: dict[tuple[str, str], "OutsideIndex | None"] = {}


def outside_index(path: str, data: bytes) -> OutsideIndex | None:
    """The index of the project file `path` holding `data` (None: it does not parse,
    so it cannot run either), built once per path and content in this process."""
    key = (path, hashlib.sha256(data).hexdigest())
    if key not in _INDEXES:
        try:
            _INDEXES[key] = OutsideIndex(ast.parse(data.decode("utf-8", "replace"), filename=path))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            _INDEXES[key] = None
    return _INDEXES[key]
