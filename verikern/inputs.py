"""Input generation for a MIR kernel and a launch.

Invariant: `make_inputs` returns only inputs that `verikern.backends.launch.prepare_mir_launch`
accepted (argument dtypes and ranks, every `vk.requires`, every array contract);
when no candidate is accepted it raises `InputGenerationError` naming the
contract that failed and the --param/--size options that would fix it.
Array contents respect `all_in_range` (values in [lo, hi)), `all_distinct`
(distinct values) and `all_sorted` (non-decreasing) by construction; `inputs_strategy` gives the same inputs as
hypothesis strategies.

Candidates, in order: launch-shaped defaults; then a z3 model of the integer
`requires` (exact machine arithmetic, changing as few defaults as it can);
then heuristic variations. z3 only proposes: `prepare_launch` decides.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Literal, Mapping

import numpy as np

from verikern.backends.launch import prepare_mir_launch
from verikern.errors import ContractError, KernelRuntimeError, LaunchError
from verikern.mir.nodes import (
    ArrayRef, Kernel, Operand, Requires, RequiresArray, ScalarParam,
)
from verikern.mir.types import ScalarType

from .input_values import (  # noqa: F401  (re-exported)
    UNIFORM_TABLE, InputGenerationError, UnsupportedBoundError, _Unencodable, _UniformEvaluator,
    _UniformTerms,
)

MAX_ELEMENTS = 1 << 22       # alternative shape candidates stay below 4M elements in all
MAX_ATTEMPTS = 120           # candidate (shapes, scalars) combinations tried
#: hypothesis's `floats(width=...)` for each float type's bit width
FLOAT_WIDTHS: dict[int, Literal[16, 32, 64]] = {16: 16, 32: 32, 64: 64}


@dataclass(frozen=True)
class ArrayContract:
    """The content contracts of one integer array: bounds are evaluated operands;
    `more`: the (lo, hi) of further `all_in_range` contracts on the array, which
    every element meets too (the generated range is their intersection)."""

    lo: Operand | None = None
    hi: Operand | None = None
    distinct: bool = False
    loc: Any = None
    sorted: bool = False
    more: tuple[tuple[Operand, Operand], ...] = ()


def array_contracts(kernel: Kernel) -> dict[str, ArrayContract]:
    """The merged RequiresArray contracts of each global array, by name."""
    out: dict[str, ArrayContract] = {}
    for _, ins in kernel.instructions():
        if isinstance(ins, RequiresArray):
            c = out.get(ins.array.name, ArrayContract(loc=ins.loc))
            if ins.kind == "all_distinct":
                c = replace(c, distinct=True)
            elif ins.kind == "all_sorted":
                c = replace(c, sorted=True)
            elif ins.kind == "all_in_range":
                assert ins.lo is not None and ins.hi is not None   # an all_in_range has both bounds
                # several ranges (a CSR offset array bounded by two arrays' lengths): each holds
                c = replace(c, lo=ins.lo, hi=ins.hi, loc=ins.loc) if c.lo is None else \
                    replace(c, more=c.more + ((ins.lo, ins.hi),))
            else:
                raise InputGenerationError(f"{ins.loc}: unknown array contract {ins.kind!r}")
            out[ins.array.name] = c
    return out


# ------------------------------------------------------------------- shapes
def _global_arrays(kernel: Kernel) -> tuple[ArrayRef, ...]:
    return tuple(p for p in kernel.params if isinstance(p, ArrayRef))


def _shape_candidates(kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                      sizes: Mapping[str, tuple[int, ...]]) -> Iterator[dict[str, tuple[int, ...]]]:
    """Logical shapes for every global array: the launch-shaped default first
    (1-D arrays: the launch size; n-d arrays: launch dim k for dimension k, or
    an even split of the launch size when the array has more dimensions than
    the launch), then square, reversed and launch-size variants (relations
    between shapes are left to `_solve_requires`). Overrides in `sizes` are
    kept in every candidate."""
    arrays = _global_arrays(kernel)
    size = math.prod(dims)

    def per_dim(a: ArrayRef, lengths: tuple[int, ...]) -> tuple[int, ...]:
        if a.ndim == 1:
            return (size,)
        if a.ndim > len(lengths):
            # more array dims than launch dims: split the launch evenly (4096 -> 64 x 64)
            root = max(1, int(round(size ** (1.0 / a.ndim))))
            while root ** a.ndim > size and root > 1:
                root -= 1
            return (root,) * a.ndim
        return tuple(lengths[k] for k in range(a.ndim))

    def uniform(n: int) -> Callable[[ArrayRef], tuple[int, ...]]:
        return lambda a: (n,) * a.ndim

    rules: list[Callable[[ArrayRef], tuple[int, ...]]] = [lambda a: per_dim(a, dims)]
    for n in dict.fromkeys([*dims, size, block_dim]):
        rules.append(uniform(n))
    rules.append(lambda a: per_dim(a, tuple(reversed(dims))))
    seen = set()
    base = [{a.name: sizes.get(a.name) or rule(a) for a in arrays} for rule in rules]
    for k, shapes in enumerate(base):
        key = tuple(sorted(shapes.items()))
        total = sum(math.prod(s) for s in shapes.values())
        if key not in seen and (k == 0 or total <= max(MAX_ELEMENTS, 4 * size)):
            seen.add(key)
            yield shapes


def _scalar_candidates(kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                       rng: np.random.Generator,
                       params: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Scalar parameter assignments: all defaults first, then one parameter
    varied at a time, then random mixes of the candidate values."""
    size = math.prod(dims)
    options: dict[str, list] = {}
    for p in kernel.scalar_params:
        t = p.value.type
        if p.name in params:
            options[p.name] = [coerce_scalar(t, params[p.name], p.name)]
        elif t.is_bool:
            options[p.name] = [np.bool_(True), np.bool_(False)]
        elif t.is_float:
            first = float(np.round(rng.uniform(0.5, 2.0), 3))
            options[p.name] = [coerce_scalar(t, v, p.name) for v in (first, 1.0, 0.5, 2.0, 0.0, -1.0)]
        else:
            raw = [size, 1, 2, block_dim, 0, 3, 4, 8, 16, 32, *dims]
            ok = [v for v in dict.fromkeys(raw) if t.min_value <= v <= t.max_value]
            options[p.name] = [coerce_scalar(t, v, p.name) for v in ok]
    names = list(options)
    default = {n: options[n][0] for n in names}
    yield default
    for n in names:
        for v in options[n][1:]:
            yield {**default, n: v}
    for _ in range(MAX_ATTEMPTS):
        yield {n: options[n][int(rng.integers(len(options[n])))] for n in names}


def coerce_scalar(t: ScalarType, value: Any, name: str = "value") -> Any:
    """`value` (a number or its text) as a numpy scalar of type `t`; raises
    InputGenerationError when it does not fit."""
    try:
        if isinstance(value, str):
            text = value.strip()
            if t.is_bool:
                if text.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(text)
                value = text.lower() in ("true", "1")
            elif t.is_float:
                value = float(text)
            else:
                value = int(text, 0)
        if t.is_bool:
            return np.bool_(bool(value))
        if t.is_float:
            return t.np_dtype.type(float(value))
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(value)
        v = int(value)
    except (TypeError, ValueError):
        raise InputGenerationError(
            f"parameter {name}: {value!r} is not a valid {t.name}") from None
    if not t.min_value <= v <= t.max_value:
        raise InputGenerationError(
            f"parameter {name}: {v} does not fit in {t.name} [{t.min_value}, {t.max_value}]")
    return t.np_dtype.type(v)


# ----------------------------------------------------------------- contents
def _fill(a: ArrayRef, shape: tuple[int, ...], rng: np.random.Generator,
          contract: ArrayContract | None, bounds: tuple[int, int] | None) -> np.ndarray:
    full = shape + a.inner
    count = math.prod(full)
    t = a.dtype
    if t.is_float:
        return rng.uniform(-1.0, 1.0, full).astype(t.np_dtype)
    if t.is_bool:
        return rng.random(full) < 0.5
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = 0, max(1, min(shape[0] if shape else 1, t.max_value + 1))
    if hi <= lo:
        raise InputGenerationError(f"all_in_range({a.name}, {lo}, {hi}) is empty")
    if contract is not None and contract.distinct:
        if hi - lo < count:
            raise InputGenerationError(
                f"{a.name} needs {count} distinct values but all_in_range allows {hi - lo}")
        values = rng.choice(hi - lo, size=count, replace=False) + lo
    else:
        values = rng.integers(lo, hi, size=count, dtype=np.int64)
    if contract is not None and contract.sorted:
        values = np.sort(values)
    return values.astype(t.np_dtype).reshape(full)


def _contract_bounds(a: ArrayRef, contract: ArrayContract | None,
                     ev: _UniformEvaluator) -> tuple[int, int] | None:
    if contract is None:
        return None
    if contract.lo is None:
        if contract.distinct:
            # distinct values anywhere in the type: a permutation near zero
            n = math.prod(ev.shapes[a.name] + a.inner)
            return (0, max(n, 1)) if a.dtype.max_value >= n - 1 else (a.dtype.min_value, a.dtype.max_value + 1)
        return None
    assert contract.hi is not None   # an all_in_range contract has both bounds
    lo, hi = ev.eval(contract.lo), ev.eval(contract.hi)
    for more_lo, more_hi in contract.more:
        lo, hi = max(lo, ev.eval(more_lo)), min(hi, ev.eval(more_hi))
    return max(lo, a.dtype.min_value), min(hi, a.dtype.max_value + 1)


def ordered_inputs(kernel: Kernel, values: Mapping[str, Any]) -> list:
    """Inputs by name as the positional list `vk.launch` takes (parameter order)."""
    return [values[p.name] for p in kernel.params]


def _launch_check(kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                  values: Mapping[str, Any]) -> None:

    prepare_mir_launch(kernel, dims if len(dims) > 1 else dims[0], ordered_inputs(kernel, values), block_dim)


def _check_overrides(kernel: Kernel, sizes: Mapping, params: Mapping) -> dict[str, tuple[int, ...]]:
    arrays = {a.name: a for a in _global_arrays(kernel)}
    scalars = {p.name for p in kernel.scalar_params}
    for name in params:
        if name not in scalars:
            raise InputGenerationError(
                f"--param {name}: kernel {kernel.name} has no scalar parameter {name!r} "
                f"(scalar parameters: {', '.join(sorted(scalars)) or 'none'})")
    out = {}
    for name, shape in sizes.items():
        if name not in arrays:
            raise InputGenerationError(
                f"--size {name}: kernel {kernel.name} has no array parameter {name!r} "
                f"(arrays: {', '.join(sorted(arrays)) or 'none'})")
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
        if len(shape) != arrays[name].ndim or any(s < 0 for s in shape):
            raise InputGenerationError(
                f"--size {name}: {list(shape)} is not a shape for a {arrays[name].ndim}-d array")
        out[name] = shape
    return out


def _candidates(kernel, dims, block_dim, rng, sizes, params):
    """(shapes, scalars) to try: the defaults, then a solution of the requires
    (z3, keeping as many defaults as it can), then heuristic variations."""
    shape_list = list(_shape_candidates(kernel, dims, block_dim, sizes))
    scalar_iter = _scalar_candidates(kernel, dims, block_dim, rng, params)
    default_scalars = next(scalar_iter)
    yield shape_list[0], default_scalars
    solved = _solve_requires(kernel, dims, block_dim, shape_list[0], default_scalars,
                             set(sizes), set(params))
    if solved is not None:
        yield solved
    attempts = 0
    for scalars in itertools.chain([default_scalars], scalar_iter):
        for shapes in shape_list:
            yield shapes, scalars
            attempts += 1
            if attempts >= MAX_ATTEMPTS:
                return


#: Work limit of the input solver (z3 resource units: deterministic, unlike
#: seconds); a wall-clock limit far above it stays as a safety net only.
SOLVER_RLIMIT = 3_000_000
SOLVER_SAFETY_NET_MS = 300_000


def _solve_requires(kernel: Kernel, dims, block_dim: int, shapes: Mapping[str, tuple[int, ...]],
                    scalars: Mapping[str, Any], fixed_arrays: set, fixed_params: set):
    """Shapes and integer/bool scalars satisfying every requires that is integer
    arithmetic (others are left to prepare_launch), changing as few of the given
    defaults as possible; None when z3 finds no such assignment within its budget."""
    import z3  # lazy: z3, only to solve for inputs

    shape_vars: dict[tuple[str, int], Any] = {}
    scalar_vars: dict[str, Any] = {}
    types = {p.name: p.value.type for p in kernel.scalar_params}

    def shape_term(name, dim):
        if name in fixed_arrays:
            return z3.BitVecVal(shapes[name][dim], 32)
        return shape_vars.setdefault((name, dim), z3.BitVec(f"{name}.shape[{dim}]", 32))

    def scalar_term(name):
        t = types[name]
        if t.is_float:
            return None
        if name in fixed_params:
            return z3.BoolVal(bool(scalars[name])) if t.is_bool else z3.BitVecVal(int(scalars[name]), t.bits)
        var = z3.Bool(name) if t.is_bool else z3.BitVec(name, t.bits)
        scalar_vars[name] = var
        return var

    terms = _UniformTerms(kernel, tuple(dims), block_dim, shape_term, scalar_term)
    opt = z3.Optimize()
    opt.set("rlimit", SOLVER_RLIMIT)
    opt.set("timeout", SOLVER_SAFETY_NET_MS)
    encoded = 0
    for _, ins in kernel.instructions():
        try:
            if isinstance(ins, Requires):
                opt.add(terms.term(ins.cond))
                encoded += 1
            elif isinstance(ins, RequiresArray) and ins.lo is not None and ins.hi is not None:
                lo, hi = terms.term(ins.lo), terms.term(ins.hi)
                opt.add(lo < hi if ins.lo.type.is_signed else z3.ULT(lo, hi))
        except _Unencodable:
            continue
    if not encoded:
        return None
    for c in terms.side:
        opt.add(c)
    for (name, dim), var in shape_vars.items():
        opt.add(var >= 0, var <= MAX_ELEMENTS)
        opt.add_soft(var == shapes[name][dim], 2)
        opt.add_soft(var >= 1, 1)
    for name, var in scalar_vars.items():
        default = scalars[name]
        opt.add_soft(var == (z3.BoolVal(bool(default)) if types[name].is_bool
                             else z3.BitVecVal(int(default), types[name].bits)), 2)
    if opt.check() != z3.sat:
        return None
    model = opt.model()
    new_shapes = {n: list(s) for n, s in shapes.items()}
    for (name, dim), var in shape_vars.items():
        new_shapes[name][dim] = model.eval(var, model_completion=True).as_signed_long()
    new_scalars = dict(scalars)
    for name, var in scalar_vars.items():
        v = model.eval(var, model_completion=True)
        t = types[name]
        value = z3.is_true(v) if t.is_bool else (v.as_signed_long() if t.is_signed else v.as_long())
        new_scalars[name] = coerce_scalar(t, value, name)
    return {n: tuple(s) for n, s in new_shapes.items()}, new_scalars


def _resolve(kernel: Kernel, dims, block_dim: int, rng: np.random.Generator,
             sizes, params) -> tuple[dict[str, tuple[int, ...]], dict[str, Any], dict[str, Any]]:
    """The first (shapes, scalars, inputs) that prepare_launch accepts."""
    dims = tuple(int(d) for d in ((dims,) if isinstance(dims, (int, np.integer)) else dims))
    sizes = _check_overrides(kernel, sizes or {}, params or {})
    contracts = array_contracts(kernel)
    last: Exception | None = None
    for shapes, scalars in _candidates(kernel, dims, block_dim, rng, sizes, params or {}):
        try:
            ev = _UniformEvaluator(kernel, dims, block_dim, shapes, scalars)
            values: dict[str, Any] = {}
            for p in kernel.params:     # parameter order
                if isinstance(p, ScalarParam):
                    values[p.name] = scalars[p.name]
                else:
                    c = contracts.get(p.name)
                    values[p.name] = _fill(p, shapes[p.name], rng, c, _contract_bounds(p, c, ev))
            _launch_check(kernel, dims, block_dim, values)
        except UnsupportedBoundError:
            raise
        except (ContractError, InputGenerationError, KernelRuntimeError) as exc:
            last = exc
            continue
        except LaunchError as exc:     # geometry, dtypes...: no other input fixes it
            raise InputGenerationError(str(exc)) from None
        return shapes, scalars, values
    raise InputGenerationError(
        f"could not generate inputs for kernel {kernel.name} that satisfy its contracts "
        f"(launch {list(dims)}, block_dim {block_dim}); the last candidate failed with:\n"
        f"  {last}\n"
        "  pass the values yourself: --param NAME=VALUE for scalars, --size NAME=N[,M] "
        "for array shapes (or change --dim / --block-dim if it constrains the launch)")


def make_inputs(kernel: Kernel, dims, block_dim: int, rng: np.random.Generator, *,
                sizes: Mapping[str, Any] | None = None,
                params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Inputs by parameter name (numpy arrays, numpy scalars) for a launch of
    `kernel` with `dims` and `block_dim`, accepted by `prepare_launch`.

    Default array shapes follow the launch (1-D arrays: the launch size;
    n-d arrays: launch dim k for dimension k); `sizes` overrides shapes by
    array name, `params` fixes scalar parameters by name.
    """
    return _resolve(kernel, dims, block_dim, rng, sizes, params)[2]


def block_dim_candidates(kernel: Kernel, dims) -> list[int]:
    """Block sizes to try when neither the user nor the kernel fixes one:
    min(256, size) first, then other powers of two (dividing the launch size
    when the kernel uses shared memory or barriers)."""
    size = math.prod((dims,) if isinstance(dims, (int, np.integer)) else dims)
    out = []
    for b in (min(256, size), 128, 64, 32, 512, 1024, 16, 8, 4, 2, 1):
        if b <= size and (not kernel.uses_block_features or size % b == 0) and b not in out:
            out.append(b)
    return out or [min(256, size)]


def make_launch_inputs(kernel: Kernel, dims, rng: np.random.Generator, *,
                       block_dim: int | None = None, sizes: Mapping[str, Any] | None = None,
                       params: Mapping[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    """(block_dim, inputs) like `make_inputs`; when `block_dim` is None and the
    kernel fixes none, the first of `block_dim_candidates` whose inputs satisfy
    the contracts. Errors are those of the first candidate."""
    fixed = block_dim or kernel.block_dim
    if fixed:
        return fixed, make_inputs(kernel, dims, fixed, rng, sizes=sizes, params=params)
    first: InputGenerationError | None = None
    for b in block_dim_candidates(kernel, dims):
        try:
            return b, make_inputs(kernel, dims, b, rng, sizes=sizes, params=params)
        except InputGenerationError as exc:
            first = first or exc
    assert first is not None
    raise InputGenerationError(f"{first}\n  (tried block_dim {block_dim_candidates(kernel, dims)};"
                               " fix one with --block-dim B)")


# --------------------------------------------------------------- hypothesis
def inputs_strategy(kernel: Kernel, dims, block_dim: int, *,
                    sizes: Mapping[str, Any] | None = None,
                    params: Mapping[str, Any] | None = None, seed: int = 0):
    """A hypothesis strategy of input dicts like `make_inputs`'s: shapes and
    scalars are fixed to a combination `prepare_launch` accepts; array contents
    vary (floats finite in [-1e3, 1e3]; integer contents within their
    contracts)."""
    from hypothesis import strategies as st  # lazy: hypothesis, only to generate inputs
    from hypothesis.extra import numpy as hnp  # lazy: hypothesis, only to generate inputs

    shapes, scalars, _ = _resolve(kernel, dims, block_dim, np.random.default_rng(seed),
                                  sizes, params)
    dims_t = tuple(int(d) for d in ((dims,) if isinstance(dims, (int, np.integer)) else dims))
    ev = _UniformEvaluator(kernel, dims_t, block_dim, shapes, scalars)
    contracts = array_contracts(kernel)
    parts: dict[str, Any] = {name: st.just(v) for name, v in scalars.items()}
    for a in _global_arrays(kernel):
        full = shapes[a.name] + a.inner
        c = contracts.get(a.name)
        bounds = _contract_bounds(a, c, ev)
        t = a.dtype
        if t.is_float:
            elements = st.floats(-1e3, 1e3, width=FLOAT_WIDTHS[t.bits], allow_nan=False, allow_infinity=False)
            parts[a.name] = hnp.arrays(t.np_dtype, full, elements=elements)
        elif t.is_bool:
            parts[a.name] = hnp.arrays(t.np_dtype, full, elements=st.booleans())
        else:
            lo, hi = bounds if bounds else (0, max(1, min(full[0] if full else 1, t.max_value + 1)))
            parts[a.name] = _int_array_strategy(t, full, lo, hi, bool(c and c.distinct))
            if c is not None and c.sorted:
                parts[a.name] = parts[a.name].map(np.sort)
    return st.fixed_dictionaries(parts)


def _int_array_strategy(t: ScalarType, full: tuple[int, ...], lo: int, hi: int, distinct: bool):
    from hypothesis import strategies as st  # lazy: hypothesis, only to generate inputs
    from hypothesis.extra import numpy as hnp  # lazy: hypothesis, only to generate inputs

    count = math.prod(full)
    if not distinct:
        return hnp.arrays(t.np_dtype, full, elements=st.integers(lo, hi - 1))
    if hi - lo < count:
        raise InputGenerationError(f"{count} distinct values do not fit in [{lo}, {hi})")
    perm = st.permutations(list(range(count)))
    offset = st.integers(0, hi - lo - count)
    return st.tuples(perm, offset).map(
        lambda po: (np.asarray(po[0], np.int64) + lo + po[1]).astype(t.np_dtype).reshape(full))
