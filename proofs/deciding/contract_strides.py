"""Contract template for a flat column built from a loop counter times a
literal stride: `contribs[i, s * 36 + beta * 12 + alpha * 4 + lm]` for `s <
grad_raw.shape[1]` (nvalchemi's multipole k-space kernels pack 3 x 3 x 4
values per basis function in one row). The row's length covers the stride
times the counter's bound, stated in int64 so that the product cannot wrap to
match a short row: `vk.int64(36) * vk.int64(grad_raw.shape[1]) <=
vk.int64(contribs.shape[1])`.

Invariant: this only names candidates (proofs.deciding.contract_templates
ranks them, proofs.deciding.suggest decides the kernel under them): a column
whose other terms reach past the stride (`beta * 13` for `beta < 3`) still
fails under it.
"""
from __future__ import annotations

from dataclasses import replace

from verikern.proofs.deciding.contract_atoms import Atom, Term


def stride_length_atoms(s: Term, shapes, scales) -> list[Atom]:
    """`s` (an array length) at least each literal stride of `scales` times each
    other length of `shapes` ((name, dim) pairs an index and its guards read),
    in int64; the largest stride first (the outermost counter's)."""
    wide = replace(s, wide=True)
    out = []
    for c in sorted(scales, reverse=True):
        for name, m in sorted(shapes):
            other = Term("shape", name, m)
            if other != s:
                prod = Term("product", factors=(Term("const", index=c), other))
                out.append(Atom("le", prod, wide, family=-1))
    return out
