"""Hypothesis strategies for launches of a kernel: launch dims, block size,
scalar parameters and array shapes and contents that satisfy its contracts.

Invariants:
- Every `Launch` drawn was accepted by `verikern.runtime.prepare_launch`
  (argument types, launch geometry, the barrier rule "launch size a multiple
  of block_dim", every `vk.requires`, every `all_in_range`/`all_distinct`).
  Nothing is filtered blindly: hypothesis draws *targets* (dims, block size,
  shapes, integer scalars), and z3 returns the assignment closest to them
  (fewest targets changed) that satisfies the integer `requires` and the
  geometry rules, so tight contracts still generate. Only `requires` that z3
  cannot encode (floats, array contents) are checked afterwards, and a draw
  that breaks one is rejected (`hypothesis.reject`).
- Shrinking shrinks the targets towards 1 thread, small blocks, empty or
  short arrays and 0, so a failure shrinks to the smallest launch the
  contracts admit.
- Edges are drawn on purpose: NaN, +-inf, +-0.0 and subnormals for floats;
  INT_MIN/INT_MAX (0, 1 and the maximum for unsigned) for integers, within
  any content contract; empty arrays wherever the contracts admit them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

import numpy as np

from verikern.errors import ContractError, KernelRuntimeError, LaunchError
from verikern.inputs import (
    FLOAT_WIDTHS, SOLVER_RLIMIT, SOLVER_SAFETY_NET_MS, _contract_bounds, _int_array_strategy,
    array_contracts, coerce_scalar,
)
from verikern.input_values import (
    InputGenerationError, _Unencodable, _UniformEvaluator, _UniformTerms,
)
from verikern.mir.nodes import ArrayRef, ParamOrigin, Requires, RequiresArray, Special
from verikern.mir.params import captured_params
from verikern.mir.types import ScalarType

from .target import KernelUnderTest, TestingError, kernel_under_test
from verikern.runtime import _captured_values
from verikern.runtime import prepare_launch

#: Default limits: small launches keep the simulator fast and failures short.
MAX_THREADS = 1024
MAX_EXTENT = 64          # targets for array lengths are drawn in [0, MAX_EXTENT]
MAX_ELEMENTS = 1 << 16   # a solved launch with more array elements is rejected


@dataclass(frozen=True, eq=False)
class Launch:
    """One generated launch: `dims`, `block_dim` and `values` (numpy arrays
    and numpy scalars by MIR parameter name, in parameter order)."""

    dims: tuple[int, ...]
    block_dim: int
    values: Mapping[str, Any] = field(default_factory=dict)

    def inputs(self) -> list:
        """Fresh copies of the values in parameter order (as `vk.launch` takes
        them), each array in its own memory layout (C or Fortran order)."""
        return [v.copy(order="K") if isinstance(v, np.ndarray) else v for v in self.values.values()]

    @property
    def dim(self):
        return self.dims if len(self.dims) > 1 else self.dims[0]

    def __repr__(self) -> str:
        return "Launch(" + self.describe().replace("\n", "; ") + ")"

    def describe(self, limit: int = 8) -> str:
        """One line per value: dims, block size, scalars, shapes and (short) contents."""
        lines = [f"launch dim={list(self.dims)}, block_dim={self.block_dim}"]
        for name, v in self.values.items():
            if isinstance(v, np.ndarray):
                flat = v.reshape(-1)
                shown = np.array2string(flat[:limit], separator=", ", threshold=limit)
                more = f" ... ({flat.size} elements)" if flat.size > limit else ""
                lines.append(f"{name}: {v.dtype}{list(v.shape)} = {shown}{more}")
            else:
                lines.append(f"{name} = {v!r}")
        return "\n".join(lines)


def _int_edges(t: ScalarType, lo: int, hi: int) -> list[int]:
    """INT_MIN/INT_MAX, 0, 1, -1 (as the type has them), within [lo, hi)."""
    raw = [t.min_value, t.max_value, 0, 1, -1, lo, hi - 1]
    return [v for v in dict.fromkeys(raw) if lo <= v < hi]


def int_values(t: ScalarType, lo: int | None = None, hi: int | None = None):
    """Integers of type `t` in [lo, hi) (default: the whole type), edges first."""
    from hypothesis import strategies as st  # lazy: hypothesis, heavy

    lo = t.min_value if lo is None else max(lo, t.min_value)
    hi = t.max_value + 1 if hi is None else min(hi, t.max_value + 1)
    return st.one_of(st.integers(lo, hi - 1), st.sampled_from(_int_edges(t, lo, hi)))


def float_values(t: ScalarType, finite: bool = False, float_range=None):
    """Floats of type `t`: NaN, +-inf, +-0.0 and subnormals included unless
    `finite`; within `float_range` (lo, hi) when given (then finite, with
    +-0.0 and subnormals still drawn)."""
    from hypothesis import strategies as st  # lazy: hypothesis, heavy

    width: Literal[16, 32, 64] = FLOAT_WIDTHS[t.bits]
    tiny = float(np.finfo(t.np_dtype).smallest_subnormal)
    edges = [0.0, -0.0, 1.0, -1.0, tiny, -tiny]
    if float_range is not None:
        lo, hi = float_range
        base = st.floats(lo, hi, width=width, allow_subnormal=True)
        return st.one_of(base, st.sampled_from([e for e in edges if lo <= e <= hi] or [lo]))
    base = st.floats(width=width, allow_nan=not finite, allow_infinity=not finite,
                     allow_subnormal=True)
    if not finite:
        edges += [math.nan, math.inf, -math.inf]
    return st.one_of(base, st.sampled_from(edges))


def _scalar_target(t: ScalarType, finite: bool, float_range=None):
    from hypothesis import strategies as st  # lazy: hypothesis, heavy

    if t.is_bool:
        return st.booleans()
    if t.is_float:
        return float_values(t, finite, float_range)
    # small values first (they shrink to 0), then the type's edges
    lo, hi = max(t.min_value, -64), min(t.max_value, 64)
    return st.one_of(st.integers(max(lo, 0), hi), st.integers(lo, hi),
                     st.sampled_from(_int_edges(t, t.min_value, t.max_value + 1)))


# -------------------------------------------------------------------- solve
@dataclass(frozen=True)
class Targets:
    """What hypothesis drew: z3 finds the admitted launch closest to it."""

    dims: tuple[int, ...]
    block_dim: int
    shapes: tuple[tuple[str, tuple[int, ...]], ...]
    scalars: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Solved:
    dims: tuple[int, ...]
    block_dim: int
    shapes: tuple[tuple[str, tuple[int, ...]], ...]
    scalars: tuple[tuple[str, Any], ...]


class LaunchSolver:
    """z3 for the launch geometry, shapes and integer/bool scalars of one
    kernel: hard constraints are the encodable `requires`, array-contract
    bounds (lo < hi, room for distinct values), launch limits and the
    barrier rule; soft constraints keep each drawn target."""

    def __init__(self, target: KernelUnderTest, *, max_threads: int = MAX_THREADS,
                 max_extent: int = 1 << 16, fixed_shapes: Mapping[str, tuple] | None = None,
                 fixed_scalars: Mapping[str, Any] | None = None,
                 fixed_dims: tuple[int, ...] | None = None, fixed_block: int | None = None,
                 cover: str | None = None):
        self.target = target
        self.cover = cover
        self.kernel = target.mir
        self.max_threads = max_threads
        self.max_extent = max_extent
        self.fixed_shapes = dict(fixed_shapes or {})
        self.fixed_scalars = dict(fixed_scalars or {})
        self.fixed_dims = fixed_dims
        self.fixed_block = fixed_block or self.kernel.block_dim
        self._cache: dict[Targets, Solved | None] = {}

    def solve(self, t: Targets) -> Solved | None:
        if t not in self._cache:
            self._cache[t] = self._solve(t)
        return self._cache[t]

    def _solve(self, t: Targets) -> Solved | None:
        import z3  # lazy: z3, heavy

        k = self.kernel
        types = {p.name: p.value.type for p in k.scalar_params}
        captured = {p.name for p in captured_params(k)}
        shapes_t = dict(t.shapes)
        scalars_t = dict(t.scalars)
        dim_vars = [z3.BitVec(f"launch_dim[{i}]", 32) for i in range(k.launch_ndim)]
        block = z3.BitVec("block_dim", 32)
        shape_vars: dict[tuple[str, int], Any] = {}
        scalar_vars: dict[str, Any] = {}

        def shape_term(name, dim):
            if name in self.fixed_shapes:
                return z3.BitVecVal(self.fixed_shapes[name][dim], 32)
            return shape_vars.setdefault((name, dim), z3.BitVec(f"{name}.shape[{dim}]", 32))

        def scalar_term(name):
            ty = types[name]
            if ty.is_float:
                return None
            if name in self.fixed_scalars or name in captured:
                v = self.fixed_scalars.get(name, scalars_t.get(name))
                return z3.BoolVal(bool(v)) if ty.is_bool else z3.BitVecVal(ty.wrap(int(v)), ty.bits)
            var = z3.Bool(name) if ty.is_bool else z3.BitVec(name, ty.bits)
            scalar_vars[name] = var
            return var

        terms = _UniformTerms(k, (1,) * k.launch_ndim, 1, shape_term, scalar_term)
        size64 = z3.BitVecVal(1, 64)
        for d in dim_vars:
            size64 = size64 * z3.ZeroExt(32, d)
        size = z3.Extract(31, 0, size64)
        geometry = {"block_dim": block, "grid_dim": z3.UDiv(size + block - 1, block)}
        for _, ins in k.instructions():   # symbolic launch values, seeded into the term cache
            if isinstance(ins, Special) and ins.kind == "launch_dim":
                terms.terms[ins.result.id] = dim_vars[ins.dim]
            elif isinstance(ins, Special) and ins.kind in geometry:
                terms.terms[ins.result.id] = geometry[ins.kind]
        hard: list = []
        for d in dim_vars:
            hard += [z3.UGE(d, 1), z3.ULE(d, self.max_threads)]
        hard.append(z3.ULE(size64, self.max_threads))
        hard += [z3.UGE(block, 1), z3.ULE(block, 1024)]
        if self.fixed_block:
            hard.append(block == self.fixed_block)
        if self.fixed_dims:
            for d, v in zip(dim_vars, self.fixed_dims):
                hard.append(d == v)
        if self.cover is not None:   # one thread per element of this array
            ndim = next(a.ndim for a in k.params if isinstance(a, ArrayRef) and a.name == self.cover)
            for i in range(min(ndim, k.launch_ndim)):
                hard.append(dim_vars[i] == shape_term(self.cover, i))
        if k.uses_block_features:
            hard.append(z3.URem(size, block) == 0)
        counts = {}
        for a in k.params:
            if isinstance(a, ArrayRef):
                n = z3.BitVecVal(math.prod(a.inner), 64)
                for dim in range(a.ndim):
                    s = shape_term(a.name, dim)
                    n = n * z3.ZeroExt(32, s)
                counts[a.name] = n
        for _, ins in k.instructions():
            try:
                if isinstance(ins, Requires):
                    hard.append(terms.term(ins.cond))
                elif isinstance(ins, RequiresArray) and ins.lo is not None and ins.hi is not None:
                    lo, hi = terms.term(ins.lo), terms.term(ins.hi)
                    signed = ins.lo.type.is_signed
                    hard.append(lo < hi if signed else z3.ULT(lo, hi))
                    if ins.kind == "all_distinct" or self._distinct(ins.array.name):
                        bits = ins.lo.type.bits
                        span = (z3.SignExt if signed else z3.ZeroExt)(64 - bits, hi) - \
                            (z3.SignExt if signed else z3.ZeroExt)(64 - bits, lo)
                        hard.append(z3.UGE(span, counts[ins.array.name]))
            except _Unencodable:
                continue
        for c in terms.side:
            hard.append(c)
        for var in shape_vars.values():
            hard += [var >= 0, var <= self.max_extent]
        wanted = [(d, z3.BitVecVal(t.dims[i], 32)) for i, d in enumerate(dim_vars)]
        wanted.append((block, z3.BitVecVal(t.block_dim, 32)))
        wanted += [(var, z3.BitVecVal(shapes_t[name][dim], 32))
                   for (name, dim), var in shape_vars.items()]
        for name, var in scalar_vars.items():
            ty, want = types[name], scalars_t[name]
            wanted.append((var, z3.BoolVal(bool(want)) if ty.is_bool
                           else z3.BitVecVal(ty.wrap(int(want)), ty.bits)))
        m = self._closest(hard, wanted)
        if m is None:
            return None

        def val(v):
            return m.eval(v, model_completion=True)

        dims = tuple(val(d).as_long() for d in dim_vars)
        shapes = {a.name: [shapes_t[a.name][i] for i in range(a.ndim)]
                  for a in k.params if isinstance(a, ArrayRef)}
        for name, fixed in self.fixed_shapes.items():
            shapes[name] = list(fixed)
        for (name, dim), var in shape_vars.items():
            shapes[name][dim] = val(var).as_signed_long()
        scalars = dict(scalars_t)
        for name, var in scalar_vars.items():
            ty = types[name]
            v = val(var)
            scalars[name] = coerce_scalar(
                ty, z3.is_true(v) if ty.is_bool else (v.as_signed_long() if ty.is_signed else v.as_long()),
                name)
        return Solved(dims, val(block).as_long(), tuple((n, tuple(s)) for n, s in shapes.items()),
                      tuple(scalars.items()))

    @staticmethod
    def _closest(hard: list, wanted: list):
        """A model of `hard` keeping the (var, value) targets it can: the
        targets themselves when they satisfy `hard` (evaluated, no search);
        else targets are given up one at a time, the latest drawn among
        those in z3's unsatisfiable core first (dims, then the block size,
        are kept longest). None when unsatisfiable within the budget."""
        import z3  # lazy: z3, heavy

        check = z3.simplify(z3.substitute(z3.And(*hard), *wanted)) if hard else z3.BoolVal(True)
        s = z3.Solver()
        s.set("rlimit", SOLVER_RLIMIT)
        s.set("timeout", SOLVER_SAFETY_NET_MS)
        if not z3.is_true(check):
            s.add(*hard)
        keep = [z3.Bool(f"keep!{i}") for i in range(len(wanted))]
        for p, (v, w) in zip(keep, wanted):
            s.add(z3.Implies(p, v == w))
        live = list(keep)
        while True:
            r = s.check(*live)
            if r == z3.sat:
                return s.model()
            if r != z3.unsat or not live:
                return None
            core = {str(c) for c in s.unsat_core()}
            drop = [p for p in live if str(p) in core] or live
            live.remove(drop[-1])

    def _distinct(self, name: str) -> bool:
        return bool(getattr(array_contracts(self.kernel).get(name), "distinct", False))


# ---------------------------------------------------------------- strategy
def launches(kernel, *, dims=None, block_dim: int | None = None,
             sizes: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None,
             elements: Mapping[str, Any] | None = None, finite: bool = False, float_range=None,
             max_threads: int = MAX_THREADS, max_extent: int = MAX_EXTENT,
             max_elements: int = MAX_ELEMENTS, cover: str | None = None):
    """A hypothesis strategy of `Launch`es of `kernel` (a @vk.kernel, a Warp
    kernel object, a MIR Kernel or a KernelUnderTest) that its contracts admit.

    dims / block_dim: fix the launch (default: generated, the block size
    within the kernel's fixed `block_dim` and the barrier rule). sizes: fix
    array shapes by name. params: fix scalar parameters by name (a value, or
    a hypothesis strategy of values). elements: a strategy of elements for an
    array, by name. finite: no NaN or infinities in floats; float_range:
    (lo, hi) bounds for floats. max_threads: the
    largest launch; max_extent: the largest drawn array length (the
    contracts may force longer ones, up to max_elements in all). cover:
    the name of an array whose shape the launch dims follow (one thread per
    element; for references written over whole arrays).
    """
    from hypothesis import strategies as st  # lazy: hypothesis, heavy

    target = kernel_under_test(kernel)
    k = target.mir
    captured_ps = captured_params(k)
    if captured_ps and target.obj is None:
        names = ", ".join(p.user_name for p in captured_ps)
        raise TestingError(f"{target.where}: kernel {k.name} reads {names} from the code around "
                           "it; pass the kernel object (import its module) so the values can be read")
    captured = {}
    if captured_ps:
        captured = dict(zip((p.name for p in captured_ps), _captured_values(target.obj, k, captured_ps)))
    sizes = {n: ((int(s),) if isinstance(s, (int, np.integer)) else tuple(int(x) for x in s))
             for n, s in (sizes or {}).items()}
    params = dict(params or {})
    arrays = [p for p in k.params if isinstance(p, ArrayRef)]
    scalars = [p for p in k.scalar_params if p.origin is not ParamOrigin.CAPTURED]
    _check_names(target, sizes, params, elements or {}, arrays, scalars)
    if cover is not None and cover not in {a.name for a in arrays}:
        raise TestingError(f"{target.where}: cover={cover!r}: kernel {target.name} has no array "
                           f"parameter {cover!r} (arrays: {', '.join(a.name for a in arrays) or 'none'})")
    fixed_scalars = {n: v for n, v in params.items() if not isinstance(v, st.SearchStrategy)}
    types = {p.name: p.value.type for p in k.scalar_params}
    fixed_scalars = {n: coerce_scalar(types[n], v, n) for n, v in fixed_scalars.items()}
    fixed_scalars.update(captured)
    if dims is not None:
        dims = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)
    solver = LaunchSolver(target, max_threads=max(max_threads, math.prod(dims or (1,))),
                          fixed_shapes=sizes, fixed_scalars=fixed_scalars, fixed_dims=dims,
                          fixed_block=block_dim, cover=cover)
    contracts = array_contracts(k)
    dim_target = st.integers(1, max_threads) if k.launch_ndim == 1 else \
        st.integers(1, max(1, int(round(max_threads ** (1.0 / k.launch_ndim)))))
    block_target = st.one_of(st.integers(0, 10).map(lambda e: 1 << e), st.integers(1, 1024))

    @st.composite
    def draw_launch(draw):
        from hypothesis import reject  # lazy: hypothesis, heavy

        t_block = block_dim or k.block_dim or draw(block_target)
        if dims:
            t_dims = dims
        elif k.uses_block_features:   # the barrier rule by construction: size = blocks * block
            rest = tuple(draw(dim_target) for _ in range(k.launch_ndim - 1))
            per = max(1, max_threads // max(1, t_block * math.prod(rest)))
            t_dims = rest + (t_block * draw(st.integers(1, per)),)
        else:
            t_dims = tuple(draw(dim_target) for _ in range(k.launch_ndim))
        pool = list(dict.fromkeys(t_dims + (0,)))   # the launch's lengths, empty, other arrays'
        t_shapes = []
        for a in arrays:
            shape = sizes.get(a.name)
            if shape is None:
                shape = tuple(draw(st.one_of(st.sampled_from(pool), st.integers(0, max_extent)))
                              for _ in range(a.ndim))
                pool += [n for n in shape if n not in pool]
            t_shapes.append((a.name, shape))
        t_shapes = tuple(t_shapes)
        t_scalars = []
        for p in scalars:
            v = params.get(p.name)
            if isinstance(v, st.SearchStrategy):
                v = coerce_scalar(p.value.type, draw(v), p.name)
            elif p.name in fixed_scalars:
                v = fixed_scalars[p.name]
            else:
                v = draw(_scalar_target(p.value.type, finite, float_range))
            t_scalars.append((p.name, v))
        t_scalars += list(captured.items())
        solved = solver.solve(Targets(t_dims, t_block, t_shapes, tuple(t_scalars)))
        if solved is None:
            reject()
        shapes = dict(solved.shapes)
        if sum(math.prod(s + a.inner) for a in arrays for s in [shapes[a.name]]) > max_elements:
            reject()
        solved_scalars = {n: (v if isinstance(v, (np.generic, np.ndarray)) else
                              coerce_scalar(types[n], v, n)) for n, v in solved.scalars}
        try:
            ev = _UniformEvaluator(k, solved.dims, solved.block_dim, shapes, solved_scalars)
        except InputGenerationError:
            reject()
        values: dict[str, Any] = {}
        for p in k.params:
            if not isinstance(p, ArrayRef):
                values[p.name] = solved_scalars[p.name]
                continue
            try:
                bounds = _contract_bounds(p, contracts.get(p.name), ev)
            except InputGenerationError:
                reject()
            values[p.name] = draw(_array(p, shapes[p.name], contracts.get(p.name), bounds,
                                         (elements or {}).get(p.name), finite, float_range))
        launch = Launch(solved.dims, solved.block_dim, values)
        try:
            prepare_launch(k, launch.dim, list(values.values()), launch.block_dim)
        except (ContractError, LaunchError, KernelRuntimeError, InputGenerationError):
            reject()   # a requires z3 could not encode (floats, contents) failed
        return launch

    return draw_launch()


def _array(a: ArrayRef, shape, contract, bounds, elements, finite: bool, float_range=None):
    from hypothesis import strategies as st  # lazy: hypothesis, heavy
    from hypothesis.extra import numpy as hnp  # lazy: hypothesis, heavy

    full = tuple(shape) + a.inner
    t = a.dtype
    if elements is not None:
        return hnp.arrays(t.np_dtype, full, elements=elements)
    if t.is_bool:
        return hnp.arrays(t.np_dtype, full, elements=st.booleans())
    if t.is_float:
        return hnp.arrays(t.np_dtype, full, elements=float_values(t, finite, float_range))
    lo, hi = bounds if bounds is not None else (t.min_value, t.max_value + 1)
    if hi <= lo:
        if math.prod(full) == 0:
            return st.just(np.zeros(full, t.np_dtype))
        raise InputGenerationError(f"all_in_range({a.name}, {lo}, {hi}) is empty")
    if contract is not None and contract.distinct:
        ints = _int_array_strategy(t, full, lo, hi, True)
    else:
        ints = hnp.arrays(t.np_dtype, full, elements=int_values(t, lo, hi))
    return ints.map(np.sort) if contract is not None and contract.sorted else ints


def _check_names(target, sizes, params, elements, arrays, scalars):
    array_names = {a.name for a in arrays}
    scalar_names = {p.name for p in scalars}
    for name in list(sizes) + list(elements):
        if name not in array_names:
            raise TestingError(f"{target.where}: kernel {target.name} has no array parameter "
                               f"{name!r} (arrays: {', '.join(sorted(array_names)) or 'none'})")
    for name in params:
        if name not in scalar_names:
            raise TestingError(f"{target.where}: kernel {target.name} has no scalar parameter "
                               f"{name!r} (scalars: {', '.join(sorted(scalar_names)) or 'none'})")
    by_name = {a.name: a for a in arrays}
    for name, shape in sizes.items():
        if len(shape) != by_name[name].ndim or any(s < 0 for s in shape):
            raise TestingError(f"{target.where}: {list(shape)} is not a shape for the "
                               f"{by_name[name].ndim}-d array {name}")
