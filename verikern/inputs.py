"""Input generation for a MIR kernel and a launch.

Invariant: `make_inputs` returns only inputs that `verikern.runtime.prepare_launch`
accepted (argument dtypes and ranks, every `vk.requires`, every array contract);
when no candidate is accepted it raises `InputGenerationError` naming the
contract that failed and the --param/--size options that would fix it.
Array contents respect `all_in_range` (values in [lo, hi)) and `all_distinct`
(distinct values) by construction; `inputs_strategy` gives the same inputs as
hypothesis strategies.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from verikern.errors import ContractError, LaunchError, VerikernError
from verikern.mir.nodes import (
    ArrayRef, Assert, Atomic, Barrier, BinOp, Cast, Compare, Const, Kernel, Load, Operand,
    Phi, Requires, RequiresArray, ScalarParam, Select, ShapeOf, Special, Store, UnaryOp,
)
from verikern.mir.types import ScalarType

MAX_ELEMENTS = 1 << 22       # alternative shape candidates stay below 4M elements in all
MAX_ATTEMPTS = 120           # candidate (shapes, scalars) combinations tried


class InputGenerationError(VerikernError):
    """No generated inputs satisfy the kernel's contracts, or an override is bad."""


@dataclass(frozen=True)
class ArrayContract:
    """The content contracts of one integer array: bounds are evaluated operands."""

    lo: Operand | None = None
    hi: Operand | None = None
    distinct: bool = False
    loc: Any = None


# ------------------------------------------------------------ uniform values
_INT_BINOPS: dict[str, Callable[[int, int, ScalarType], int]] = {
    "add": lambda a, b, t: a + b,
    "sub": lambda a, b, t: a - b,
    "mul": lambda a, b, t: a * b,
    "div": lambda a, b, t: _trunc_div(a, b),
    "floordiv": lambda a, b, t: a // b,
    "mod": lambda a, b, t: a - _trunc_div(a, b) * b,
    "min": lambda a, b, t: min(a, b),
    "max": lambda a, b, t: max(a, b),
    "and": lambda a, b, t: a & b,
    "or": lambda a, b, t: a | b,
    "xor": lambda a, b, t: a ^ b,
    "shl": lambda a, b, t: a << (b & (t.bits - 1)),
    "shr": lambda a, b, t: (a if t.is_signed else a & ((1 << t.bits) - 1)) >> (b & (t.bits - 1)),
}
_COMPARES = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
             "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class _UniformEvaluator:
    """Integer values of the kernel's uniform (launch-constant) SSA values:
    scalar params, shapes, launch geometry and integer arithmetic on them."""

    def __init__(self, kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                 shapes: Mapping[str, tuple[int, ...]], scalars: Mapping[str, Any]):
        size = math.prod(dims)
        self.geometry = {"block_dim": block_dim, "grid_dim": -(-size // block_dim)}
        self.dims = dims
        self.shapes = shapes
        self.values: dict[int, Any] = {p.value.id: scalars[p.name] for p in kernel.scalar_params}
        self.defs = {ins.result.id: ins for _, ins in kernel.instructions()
                     if getattr(ins, "result", None) is not None}

    def eval(self, op: Operand) -> int:
        if isinstance(op, Const):
            return int(op.value)
        if op.id in self.values:
            v = self.values[op.id]
            return int(v)
        ins = self.defs.get(op.id)
        if ins is None:
            raise InputGenerationError(f"cannot evaluate {op} (not a uniform value)")
        value = self._eval_instr(ins)
        self.values[op.id] = value
        return value

    def _eval_instr(self, ins) -> int:
        handler = UNIFORM_TABLE.get(type(ins).OPCODE)
        if handler is None:
            raise InputGenerationError(f"{ins.loc}: no uniform evaluation for {type(ins).__name__}")
        value = handler(self, ins)
        if value is None:
            raise InputGenerationError(
                f"{ins.loc}: cannot evaluate this array-contract bound for input generation "
                f"({type(ins).__name__} {getattr(ins, 'op', getattr(ins, 'kind', ''))}); "
                "contract bounds must be integer arithmetic on parameters, shapes and "
                "launch geometry")
        return value


def _special(ev: _UniformEvaluator, ins: Special) -> int | None:
    if ins.kind == "launch_dim":
        return ev.dims[ins.dim]
    return ev.geometry.get(ins.kind)     # thread_idx / block_idx are not uniform


def _binop(ev: _UniformEvaluator, ins: BinOp) -> int | None:
    t = ins.result.type
    if not t.is_int or ins.op not in _INT_BINOPS:
        return None
    a, b = ev.eval(ins.lhs), ev.eval(ins.rhs)
    if ins.op in ("div", "floordiv", "mod") and b == 0:
        raise InputGenerationError(f"{ins.loc}: contract bound divides by zero")
    return t.wrap(_INT_BINOPS[ins.op](a, b, t))


def _compare(ev: _UniformEvaluator, ins: Compare) -> int | None:
    if ins.lhs.type.is_float:
        return None
    return int(_COMPARES[ins.op](ev.eval(ins.lhs), ev.eval(ins.rhs)))


def _cast(ev: _UniformEvaluator, ins: Cast) -> int | None:
    t = ins.result.type
    if ins.operand.type.is_float or t.is_float:
        return None
    v = ev.eval(ins.operand)
    return int(v != 0) if t.is_bool else t.wrap(v)


def _unary(ev: _UniformEvaluator, ins: UnaryOp) -> int | None:
    t = ins.result.type
    if not t.is_int or ins.op not in ("neg", "abs", "invert"):
        return None
    v = ev.eval(ins.operand)
    return t.wrap({"neg": -v, "abs": abs(v), "invert": ~v}[ins.op])


def _select(ev: _UniformEvaluator, ins: Select) -> int:
    return ev.eval(ins.if_true) if ev.eval(ins.cond) else ev.eval(ins.if_false)


def _not_uniform(ev: _UniformEvaluator, ins) -> None:
    return None


# OPCODE -> evaluation of a uniform integer value (None: not evaluable here).
UNIFORM_TABLE: dict[str, Callable[[_UniformEvaluator, Any], int | None]] = {
    BinOp.OPCODE: _binop, Compare.OPCODE: _compare, UnaryOp.OPCODE: _unary,
    Cast.OPCODE: _cast, Select.OPCODE: _select, Special.OPCODE: _special,
    ShapeOf.OPCODE: lambda ev, ins: ev.shapes[ins.array.name][ins.dim],
    Load.OPCODE: _not_uniform, Store.OPCODE: _not_uniform, Atomic.OPCODE: _not_uniform,
    Barrier.OPCODE: _not_uniform, Assert.OPCODE: _not_uniform, Requires.OPCODE: _not_uniform,
    RequiresArray.OPCODE: _not_uniform, Phi.OPCODE: _not_uniform,
}


def array_contracts(kernel: Kernel) -> dict[str, ArrayContract]:
    """The merged RequiresArray contracts of each global array, by name."""
    out: dict[str, ArrayContract] = {}
    for _, ins in kernel.instructions():
        if isinstance(ins, RequiresArray):
            c = out.get(ins.array.name, ArrayContract(loc=ins.loc))
            if ins.kind == "all_distinct":
                c = ArrayContract(c.lo, c.hi, True, c.loc)
            elif ins.kind == "all_in_range":
                if c.lo is not None:
                    raise InputGenerationError(
                        f"{ins.loc}: {ins.array.name} has two all_in_range contracts; "
                        "input generation supports one per array")
                c = ArrayContract(ins.lo, ins.hi, c.distinct, ins.loc)
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
    the launch), then square, transposed and launch-size variants. Overrides
    in `sizes` are kept in every candidate."""
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
    two_d = [a.name for a in arrays if a.ndim >= 2 and a.name not in sizes]
    # mixes where some 2-D arrays are transposed (e.g. out of a transpose)
    for flips in itertools.product((False, True), repeat=min(len(two_d), 4)):
        shapes = dict(base[0])
        for name, flip in zip(two_d, flips):
            if flip:
                shapes[name] = tuple(reversed(shapes[name]))
        base.append(shapes)
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
    lo, hi = ev.eval(contract.lo), ev.eval(contract.hi)
    return max(lo, a.dtype.min_value), min(hi, a.dtype.max_value + 1)


def ordered_inputs(kernel: Kernel, values: Mapping[str, Any]) -> list:
    """Inputs by name as the positional list `vk.launch` takes (parameter order)."""
    return [values[p.name] for p in kernel.params]


def _launch_check(kernel: Kernel, dims: tuple[int, ...], block_dim: int,
                  values: Mapping[str, Any]) -> None:
    from verikern.runtime import prepare_launch

    prepare_launch(kernel, dims if len(dims) > 1 else dims[0], ordered_inputs(kernel, values), block_dim)


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
    shape_list = list(_shape_candidates(kernel, dims, block_dim, sizes))
    attempts = 0
    for scalars in _scalar_candidates(kernel, dims, block_dim, rng, params):
        for shapes in shape_list:
            yield shapes, scalars
            attempts += 1
            if attempts >= MAX_ATTEMPTS:
                return


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
        except (ContractError, InputGenerationError) as exc:
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
        "for array shapes")


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


# --------------------------------------------------------------- hypothesis
def inputs_strategy(kernel: Kernel, dims, block_dim: int, *,
                    sizes: Mapping[str, Any] | None = None,
                    params: Mapping[str, Any] | None = None, seed: int = 0):
    """A hypothesis strategy of input dicts like `make_inputs`'s: shapes and
    scalars are fixed to a combination `prepare_launch` accepts; array contents
    vary (floats finite in [-1e3, 1e3]; integer contents within their
    contracts)."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

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
            elements = st.floats(-1e3, 1e3, width=t.bits, allow_nan=False, allow_infinity=False)
            parts[a.name] = hnp.arrays(t.np_dtype, full, elements=elements)
        elif t.is_bool:
            parts[a.name] = hnp.arrays(t.np_dtype, full, elements=st.booleans())
        else:
            lo, hi = bounds if bounds else (0, max(1, min(full[0] if full else 1, t.max_value + 1)))
            parts[a.name] = _int_array_strategy(t, full, lo, hi, bool(c and c.distinct))
    return st.fixed_dictionaries(parts)


def _int_array_strategy(t: ScalarType, full: tuple[int, ...], lo: int, hi: int, distinct: bool):
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    count = math.prod(full)
    if not distinct:
        return hnp.arrays(t.np_dtype, full, elements=st.integers(lo, hi - 1))
    if hi - lo < count:
        raise InputGenerationError(f"{count} distinct values do not fit in [{lo}, {hi})")
    perm = st.permutations(list(range(count)))
    offset = st.integers(0, hi - lo - count)
    return st.tuples(perm, offset).map(
        lambda po: (np.asarray(po[0], np.int64) + lo + po[1]).astype(t.np_dtype).reshape(full))
