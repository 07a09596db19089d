"""Which kernel definitions a proof of some kernels needs compiled.

A file of a released project can hold a hundred kernels and generic ones
with dozens of instances each; `verikern prove FILE -k NAME` and the re-proof
of a suggestion on the pasted source check only the definitions named here
(verikern.frontend.compile_file's `kernels`), the module itself still read
whole. Invariant: the set is a superset of what the names need, so a kernel
asked for is never missing (a few more compiled cost only time).
"""
from __future__ import annotations

import re


def definition_names(names) -> frozenset[str] | None:
    """The kernel definitions to compile for the kernels `names` (None: all): a
    generic instance `sort[int8]`, or its MIR name `sort__int8`, needs `sort`
    (every `__`-separated prefix is kept: `a__b` may be a definition's own name; a
    MIR name has lost the definition's leading underscores, `_sort__int8` -> `sort__int8`,
    so each prefix is kept with one and two leading underscores too)."""
    if names is None:
        return None
    out: set[str] = set()
    for name in names:
        parts = definition_of(name).strip().split("__")
        prefixes = {"__".join(parts[:i]) for i in range(1, len(parts) + 1)}
        out |= {lead + p for p in prefixes for lead in ("", "_", "__")}
    return frozenset(out)


def definition_of(name: str) -> str:
    """The kernel definition a report's kernel name belongs to: `sort` for a generic
    instance `sort[int8]` or its remainder `sort[...]`, and for a configuration's
    instance `sort{scalar_t=float64}` (frontend/configured.py), the name itself otherwise."""
    return re.split(r"[\[{]", name, maxsplit=1)[0]


def is_generic_instance(name: str) -> bool:
    """A generic kernel's instance (or remainder) name, `sort[int8]`."""
    return definition_of(name) != name
