"""The parsed tree of a kernel file's text, parsed once for every report part that reads it.

A generic kernel's instances each carry the whole file's text (nvalchemi's lbfgs.py: 132
instances), and each instance's scope (scope.py `contracts_of`) and pasted suggestion
(paste.py `vk_import_line_in`) parsed it again: a quarter of such a file's proof.

Invariant: `parsed_source(text)` is `ast.parse(text)` -- a function of the text alone --
kept for the last few texts; the tree is shared, so its readers only read it (they walk
it and take source segments); a text that does not parse raises as `ast.parse` does,
each time (nothing is kept for it).
"""
from __future__ import annotations

import ast
import functools

#: the most texts whose trees are kept (a proof reads one file, a project run one per process)
KEPT_TEXTS = 4


@functools.lru_cache(maxsize=KEPT_TEXTS)
def parsed_source(text: str) -> ast.Module:
    """`ast.parse(text)`, shared (module docstring): never change the tree."""
    return ast.parse(text)


__all__ = ["KEPT_TEXTS", "parsed_source"]
