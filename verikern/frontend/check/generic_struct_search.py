"""A typing search for a generic kernel with struct-shaped parameters when none
of the typings generic_struct_candidates.py checks by rank type-checks.

warpsphcore's tensor operators (`computeSPHCurlTensor_Kernel`,
`computeCRKMoments_Kernel`) take their values and outputs as `Any` too, and
only a typing matching the structs' dimension type-checks: a vec3 array of
values and a vec3 output beside `particleDataSoA_3`, a float32 `m_0`, a vec3
`m_1` and a mat33 `m_2` beside it -- far beyond the first 64 typings by rank,
and some (a vec1 beside `particleDataSoA_1`, a vec3 array for a bare `Any`)
among no candidate at all. So, for each struct typing (the structs by rank
together), the other parameters' typing is searched one parameter at a time
(generic_start.py, directed by the refusal), with the vector and matrix types
the structs' own fields have (an array field by its element type; and the
square matrix of each vector type, `wp.outer` of two of them) added to
each parameter's candidates (an array of them for a bare `Any`): a module
launches its struct kernels with the types its structs hold. The refusal
points first at the parameters the refused expression itself names
(`zero_like_warp(output_m_1[i])` passed where a vector is taken), then at
those its statement names (generic_hints.py).

Invariants:
- every typing found is one the kernel checker accepted, or one it refused
  with an error other than a type refusal (a tile that `laneSum` reaches in
  the `*_KernelTiled` operators, outside the language), which ends the search
  as well and is an error instance, as in the typings by rank; the caller
  checks it again before making it an instance, and the search only chooses
  which typings are tried, so it never makes a typing Warp cannot build an
  instance;
- bounded by counts, never by time: at most MAX_SEARCH_CHECKS typings
  checked for one kernel, all struct typings together (each an equal part of
  what the ones before it left), in a fixed order, so the instances found are
  deterministic; and at most MAX_UNIFORM_CHECKS more per struct typing, the
  uniform typings below, counted apart so that the searches' parts are the
  same with or without them;
- `kernel[...]` stays, `unknown`, for every typing not enumerated.

When the one-parameter-at-a-time search finds nothing for a struct typing,
each of the structs' field types is given to every other parameter at once
(an array of it for an array of `Any` and for a bare `Any`), in field order:
warpsphcore's `computeSPHLaplacianDotJVP_Kernel` needs its four value arrays
and its output the same vector type (`(fj - fi) * B`, `(dfj - dfi) * B`, and
the result passed where a `vector(length=Any)` is taken), so every single
change and every pair types the body less far than the all-float32 start and
the search stops there; all vec2 beside `particleDataSoA_2` type-checks.
"""
from __future__ import annotations

import ast

from verikern.errors import KernelError
from verikern.hir.types import (
    ArrayType, MatrixType, StructType, VectorType, is_quat, is_transform, matrix_type,
)
from .generic_hints import implicated as statement_tiers
from .generic_start import search_typing

#: the most typings the searches of one kernel check, all its struct typings together
MAX_SEARCH_CHECKS = 240
#: the most uniform typings (one field type for every other parameter) checked for one
#: struct typing whose search found nothing
MAX_UNIFORM_CHECKS = 8
#: the candidates tried first, by name (as generic_kernels._START_ORDER)
_FIRST = {"float32": 0, "vec3": 1, "int32": 2}


def field_types(structs) -> list:
    """The vector and matrix types of the fields of `structs` (an array field by its
    element type, a nested struct's fields too), in field order, each once; then the
    square matrix of each vector type (`wp.outer` of two positions: a mat22 beside vec2)."""
    out: list = []
    todo = list(structs)
    while todo:
        s = todo.pop(0)
        for _, t in s.fields:
            t = t.dtype if isinstance(t, ArrayType) else t
            if isinstance(t, StructType):
                todo.append(t)
            elif isinstance(t, (VectorType, MatrixType)) and t not in out:
                out.append(t)
    squares = [matrix_type(t.length, t.length, t.dtype) for t in out
               if isinstance(t, VectorType) and not (is_quat(t) or is_transform(t))]
    return out + [m for m in dict.fromkeys(squares) if m not in out]


def _shown(t) -> str:
    return str(t.dtype) if isinstance(t, ArrayType) else str(t)


def _pool(candidates: list, extra: list, ndim: int | None) -> list:
    """The component type of the first field type (the structs' own precision: float32, or
    float16 beside `vec3h` fields), else the first preferred candidate, then the fields' types -- as the element
    type of an array of `Any` (`ndim`), else both as a 1-d array of it and as a value (a
    bare `Any` the body indexes, `queryValues[i]`: an array first, since a vector indexes
    as well and would stop the search at the next array argument) -- then the other candidates, the preferred
    ones first: where two types type the body equally far, the search keeps the first,
    so a vec1 beside `particleDataSoA_1` goes before the vec3 of the candidates."""
    ordered = sorted(candidates, key=lambda t: _FIRST.get(_shown(t), len(_FIRST)))
    scalar = extra[0].dtype if extra else None       # the structs' own precision (float16, ...)
    first = [scalar if ndim is None else ArrayType(scalar, ndim)] if scalar is not None else []
    out = [t for t in first if t in ordered] or ordered[:1]
    for t in extra:
        for made in ([ArrayType(t, ndim)] if ndim is not None else [ArrayType(t, 1), t]):
            if made not in out:
                out.append(made)
    return out + [t for t in ordered[1:] if t not in out]


def _exact(kernel: ast.FunctionDef, names: list[str], filename: str, loc) -> list[str]:
    """The parameters of `names` that the outermost expression starting at `loc` names."""
    if loc is None or loc.file != filename:
        return []
    for node in ast.walk(kernel):
        if isinstance(node, ast.expr) and getattr(node, "lineno", None) == loc.line \
                and node.col_offset == loc.col - 1:
            named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            return [p for p in names if p in named]
    return []


def searched_typings(e, struct_combos: list[tuple], struct_names: list[str],
                     others: dict[str, list]) -> list[dict]:
    """The typings ({param: type}) the search finds (or ends at: an error other than a
    type refusal), one per struct typing at most,
    in the order of `struct_combos` (`e`: generic_kernels._Enumerator; `others`: the
    other generic parameters' candidates)."""
    params = list(others)
    ndims = {a.arg: e.ndim(a) for a in e.generic}
    checks = [0]
    found: list[dict] = []
    for k, combo in enumerate(struct_combos):
        share = (MAX_SEARCH_CHECKS - checks[0]) // (len(struct_combos) - k)   # each its part
        if share <= 0:
            break
        fixed = dict(zip(struct_names, combo))
        extra = field_types(combo)
        pools = [_pool(others[p], extra, ndims[p]) for p in params]

        def full(typing, fixed=fixed):
            return {**fixed, **dict(zip(params, typing))}

        def attempt(typing, full=full):
            checks[0] += 1
            hir, err = e.check(full(typing))      # (None, None): a type refusal
            return (hir if err is None else err), e.progress

        def implicated(typing, full=full):
            err = e.attempt(full(typing))[1]
            loc = err.loc if err is not None else None
            tiers = [_exact(e.d.node, params, e.info.filename, loc)]
            tiers += statement_tiers(e.d.node, params, e.info.filename, loc)
            return [[params.index(p) for p in tier] for tier in tiers if tier]

        hit = search_typing(pools, attempt, share, implicated=implicated)
        if hit is None:
            spent = checks[0]
            hit = _uniform(params, extra, ndims, attempt)
            checks[0] = spent       # counted apart: the next struct typings' parts stay the same
        if hit is not None:
            found.append(full(hit[0]))
    return found


def _uniform(params: list[str], extra: list, ndims: dict, attempt) -> tuple | None:
    """(typing,) of the first typing giving every one of `params` the same field type of
    `extra` (an array of it: of the parameter's ndim for an array of `Any`, 1-d for a bare
    `Any`) that type-checks all through, else None; at most MAX_UNIFORM_CHECKS checks. One
    refused by an error other than a type refusal is not taken: unlike the search's, it
    was reached by no step that typed the body further, so it would only add an error
    instance to a kernel the search left without one."""
    for t in extra[:MAX_UNIFORM_CHECKS]:
        typing = [ArrayType(t, ndims[p] or 1) for p in params]
        got = attempt(typing)[0]
        if got is not None and not isinstance(got, KernelError):
            return (typing,)
    return None
