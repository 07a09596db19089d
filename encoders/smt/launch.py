"""Symbolic launch of one kernel: launch dims, block size, grid, shapes, scalar
parameters, and the per-thread identity of each thread copy.

Invariant: `LaunchModel.facts` are exactly the hardware guarantees of
docs/LANGUAGE.md section 5 (1 <= block_dim <= 1024, every launch dim >= 1, total
threads < 2**31, grid_dim = ceil(size / block_dim), size % block_dim == 0 when
the kernel uses block features, every global array of at most
`max_array_bytes` bytes: the product of its dims times its element size,
vector/matrix components included, computed without wrap-around) plus the
fixed parts of the launch; nothing about memory contents (the size bound of a
multi-dimensional array is a `LazyFact`: queries add it when a model breaks
it). Every thread copy adds only 0 <= thread_idx < block_dim,
0 <= block_idx < grid_dim and block_idx*block_dim + thread_idx < size.
"""
from __future__ import annotations

from dataclasses import dataclass

import z3

from verikern.mir.nodes import ArrayRef, Kernel, ScalarParam, Special, Value
from verikern.mir.types import I32

from .semantics import int_binop

I32_BITS = 32
#: The default bound on one array's size in bytes (docs/LANGUAGE.md section 5:
#: every array fits in one device's memory; `--max-array-bytes` changes it).
DEFAULT_MAX_ARRAY_BYTES = 1 << 40
#: The largest `max_array_bytes` accepted (the bound's arithmetic is sized for it).
MAX_ARRAY_BYTES_LIMIT = 1 << 64


class LazyFact(z3.BoolRef):
    """A launch fact a query may leave out until a model breaks it
    (proofs.deciding.solving.check): an answer `unsat` without it is `unsat`
    with it, and a model that satisfies it is a model with it. Used for the
    array-size bound of a multi-dimensional array, whose product of dims
    costs a wide multiplier in every query and is almost never needed (a
    model with small shapes satisfies it). It is still a fact like any
    other: code that rebuilds formulas (And, the nonlinear abstraction)
    simply keeps it."""

    @staticmethod
    def of(fact: z3.BoolRef) -> "LazyFact":
        return LazyFact(fact.as_ast(), fact.ctx)


def _u32(v: int) -> z3.BitVecRef:
    return z3.BitVecVal(v, I32_BITS)


def launch_option_error(kernel: Kernel, dims: tuple[int, ...] | None,
                        block_dim: int | None) -> str | None:
    """Why a fixed launch (--dim, --block-dim) cannot apply to `kernel`, or None."""
    n = kernel.launch_ndim
    if dims is not None and len(dims) != n:
        return (f"kernel {kernel.name} has {n} launch dimension(s) but --dim gives "
                f"{len(dims)}: give {n} dims (e.g. --dim {','.join(['64'] * n)})")
    if block_dim is not None and kernel.block_dim is not None and block_dim != kernel.block_dim:
        return (f"kernel {kernel.name} fixes block_dim={kernel.block_dim} "
                f"(@vk.kernel(block_dim={kernel.block_dim})) but --block-dim {block_dim} was "
                f"given: drop --block-dim or give {kernel.block_dim}")
    fixed_block = kernel.block_dim if kernel.block_dim is not None else block_dim
    if fixed_block is not None and not 1 <= int(fixed_block) <= 1024:
        return f"block_dim {fixed_block} is outside 1..1024"
    return None


#: Leading dims of the multi-dimensional probes (`LaunchModel.probes`):
#: distinct and in different orders, so that two launch dims confused with
#: each other differ either way (in 2-D: (3, 32) and (8, 6), the first dim
#: below the last and above it); for the block-4 probe with an even product
#: (times its last dim 6, a multiple of 4: a launch with barriers needs whole
#: blocks), so that rows straddle blocks.
_PROBE_LEADING = ((3, 2, 5), (8, 5, 3))


#: Largest dim of an array of 2, 3 or 4 dims in a concrete-launch probe.
PROBE_SHAPE_LIMIT = {2: 4096, 3: 1024, 4: 256}


class LaunchModel:
    """The launch-level symbols shared by every thread copy of one kernel."""

    def __init__(self, kernel: Kernel, dims: tuple[int, ...] | None,
                 block_dim: int | None, max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES):
        self.kernel = kernel
        self.max_array_bytes = check_max_array_bytes(max_array_bytes)
        n = kernel.launch_ndim
        bad = launch_option_error(kernel, dims, block_dim)
        if bad is not None:
            raise ValueError(bad)
        fixed_block = kernel.block_dim if kernel.block_dim is not None else block_dim
        # fixed parts of the launch are literals (cheaper than equations)
        if dims is not None:
            self.dims = tuple(_u32(int(v)) for v in dims)
        else:
            self.dims = tuple(z3.BitVec(f"launch_dim{k}", I32_BITS) for k in range(n))
        self.block_dim = _u32(int(fixed_block)) if fixed_block is not None \
            else z3.BitVec("block_dim", I32_BITS)
        self.size = z3.BitVec("launch_size", I32_BITS)
        self.grid_dim = z3.BitVec("grid_dim", I32_BITS)
        if dims is not None:
            total = 1
            for v in dims:
                total *= int(v)
            if not 1 <= total < 2 ** 31 or any(int(v) < 1 for v in dims):
                raise ValueError(f"launch dims {tuple(dims)} are outside the hardware limits")
            self.size = _u32(total)
            if fixed_block is not None and kernel.uses_block_features and total % int(fixed_block):
                raise ValueError(f"kernel {kernel.name} uses shared memory or barriers, so the "
                                 f"launch size {total} must be a multiple of block_dim "
                                 f"{fixed_block}")
            if fixed_block is not None:
                self.grid_dim = _u32(-(-total // int(fixed_block)))
        facts = []
        for d in self.dims:
            facts.append(d >= 1)
        prod = self.dims[0]
        for d in self.dims[1:]:
            facts.append(z3.BVMulNoOverflow(prod, d, signed=False))
            prod = prod * d
        facts.append(self.size == prod)
        facts.append(z3.ULT(self.size, _u32(2 ** 31)))
        facts.append(z3.And(self.block_dim >= 1, self.block_dim <= 1024))
        # grid_dim's definition (a divider circuit, slow to bit-blast) only when
        # the kernel reads it; thread ids are bounded without it (ThreadIdentity).
        if any(isinstance(ins, Special) and ins.kind == "grid_dim"
               for _, ins in kernel.instructions()):
            facts.append(self.grid_dim == z3.UDiv(self.size + self.block_dim - 1,
                                                  self.block_dim))
            facts += [self.grid_dim >= 1, z3.ULE(self.grid_dim, self.size)]
            # the same fact restated linearly over the product grid_dim*block_dim
            # (both operand orders), which survives nonlinear abstraction
            for total in (self.grid_dim * self.block_dim, self.block_dim * self.grid_dim):
                facts += [z3.UGE(total, self.size), z3.ULT(total - self.block_dim, self.size),
                          z3.ULT(total, _u32(2 ** 31 + 1024))]
        if kernel.uses_block_features:
            facts.append(z3.URem(self.size, self.block_dim) == 0)
        self.fixed_dims = tuple(dims) if dims is not None else None
        self.fixed_block = fixed_block
        self.shapes: dict[tuple[str, int], z3.BitVecRef] = {}
        for a in kernel.params:
            if isinstance(a, ArrayRef):
                for k in range(a.ndim):
                    s = z3.BitVec(f"shape_{a.name}_{k}", I32_BITS)
                    self.shapes[(a.name, k)] = s
                    facts.append(s >= 0)
                bound = array_size_bound(a, [self.shapes[(a.name, k)] for k in range(a.ndim)],
                                         self.max_array_bytes)
                if bound is not None:
                    # a product of dims is a wide multiplier circuit: asked for only
                    # when a model breaks it (LazyFact)
                    facts.append(LazyFact.of(bound) if a.ndim > 1 else bound)
        self.scalars: dict[int, z3.ExprRef] = {}
        for p in kernel.params:
            if isinstance(p, ScalarParam):
                t = p.value.type
                if t.is_bool:
                    self.scalars[p.value.id] = z3.Bool(f"param_{p.name}")
                else:
                    self.scalars[p.value.id] = z3.BitVec(f"param_{p.name}", t.bits)
        self.facts: list[z3.BoolRef] = facts
        #: launch_of's answers per model (kept with the model, so its id stays its own)
        self._launches: dict[tuple[int, bool], tuple[z3.ModelRef, list[z3.BoolRef]]] = {}
        self._free_terms: dict[bool, list[z3.ExprRef]] = {}

    def shape(self, array: ArrayRef, k: int) -> z3.BitVecRef:
        """Length of logical dimension k: symbolic for global arrays, the
        constant for shared ones."""
        if array.space == "shared":
            assert array.shape is not None   # a shared array's shape is static (MIR verifier)
            return _u32(int(array.shape[k]))
        return self.shapes[(array.name, k)]

    def probes(self) -> list[list[z3.BoolRef]]:
        """A few concrete launches (block size and dims) to search for
        counterexamples before the fully symbolic (nonlinear) query, the first
        of them also with integer scalars within +-64 and lengths at most 64
        when the kernel has integer scalars; empty when the launch is already
        fixed. Each only adds constraints to the exact query."""
        if self.fixed_dims is not None and self.fixed_block is not None:
            return []
        n = len(self.dims)
        out = []
        for b in ([self.fixed_block] if self.fixed_block is not None else [32, 4]):
            if self.fixed_dims is not None:
                dims = self.fixed_dims
            elif n == 1:
                dims = (2 * b if self.kernel.uses_block_features else 2 * b + 3,)
            elif b == 4:     # rows that straddle blocks (last dim 6 with block 4)
                dims = tuple(_PROBE_LEADING[1][:n - 1]) + (b + 2,)
            else:            # distinct leading dims: a dim mix-up shows
                dims = tuple(_PROBE_LEADING[0][:n - 1]) + (b,)
            out.append([self.block_dim == _u32(b)] +
                       [d == _u32(v) for d, v in zip(self.dims, dims)] + self._probe_shapes())
        if any(p.value.type.is_int for p in self.kernel.scalar_params):
            # first the first launch with integer scalars and lengths small too: a
            # model that needs `rows * cols == flat.shape[0]` exactly is found there
            # without the search through 64-bit multipliers of free values
            out = [p + self.small_model_hints(1 << 31, 64, 64)[1:] for p in out[:1]] + out
        return out

    def unit_probe(self) -> list[z3.BoolRef]:
        """The smallest launch: one thread of one block, every array dim and
        integer scalar 1 -- every product of dims and counts a constant, so a
        model needs no multiplier of free values (the admissibility check's
        first try). Only adds
        constraints; a dim or block the launch fixes otherwise makes it unsat."""
        ones = [self.scalars[p.value.id] == z3.BitVecVal(1, p.value.type.bits)
                for p in self.kernel.scalar_params if p.value.type.is_int and p.value.id in self.scalars]
        return ([self.block_dim == _u32(1)] + [d == _u32(1) for d in self.dims] +
                [s == _u32(1) for s in self.shapes.values()] + ones)

    def _probe_shapes(self) -> list[z3.BoolRef]:
        """Dims of multi-dimensional arrays at most PROBE_SHAPE_LIMIT[ndim] in
        a probe: within the default array-size bound whatever the other dims
        (4096**2, 1024**3, 256**4 elements of at most 64 bytes), so a probe
        needs no wide multiplier of free shapes to find a model."""
        ndim: dict[str, int] = {}
        for (name, k) in self.shapes:
            ndim[name] = max(ndim.get(name, 0), k + 1)
        return [z3.ULE(s, _u32(PROBE_SHAPE_LIMIT[min(ndim[name], 4)]))
                for (name, _), s in self.shapes.items() if ndim[name] > 1]

    def compact_probe(self, block: int) -> list[z3.BoolRef] | None:
        """A concrete multi-dimensional launch with fewer threads than the
        one `probes` gives for block size `block`: two blocks along the last
        dimension, 1 in the others (a search hint only, like `probes`).
        None when the launch is 1-D or its dims are fixed."""
        n = len(self.dims)
        if self.fixed_dims is not None or n == 1:
            return None
        dims = tuple([1] * (n - 1) + [2 * int(block)])
        return [self.block_dim == _u32(int(block))] + \
            [d == _u32(v) for d, v in zip(self.dims, dims)]

    def launch_of(self, model: z3.ModelRef, sizes: bool = True) -> list[z3.BoolRef]:
        """The launch dims, block size and (`sizes`) scalar parameters and
        array shapes of `model` (one counterexample), as equalities: a
        concrete launch in which to look for another violation (a search
        hint only, like `probes`); the parts the launch already fixes are
        left out. Built once per model (a kernel asks it of each earlier
        counterexample for every later query): the same equalities each time,
        since a completed model keeps the values it completed."""
        key = (id(model), sizes)
        known = self._launches.get(key)
        if known is not None and known[0] is model:
            return list(known[1])
        equalities = [t == model.eval(t, model_completion=True) for t in self.free_terms(sizes)]
        self._launches[key] = (model, equalities)
        return list(equalities)

    def free_terms(self, sizes: bool = True) -> list[z3.ExprRef]:
        """The launch dims and block size, and (`sizes`) scalar parameters and
        array shapes, that the launch leaves free (not literals), in that order."""
        terms = self._free_terms.get(sizes)
        if terms is None:
            terms = list(self.dims) + [self.block_dim]
            if sizes:
                terms += list(self.scalars.values()) + list(self.shapes.values())
            terms = self._free_terms[sizes] = [
                t for t in terms if not (z3.is_bv_value(t) or z3.is_true(t) or z3.is_false(t))]
        return list(terms)

    def small_model_hints(self, size_limit: int = 4096, shape_limit: int = 4096,
                          scalar_limit: int | None = 4096,
                          edge: int | None = None) -> list[z3.BoolRef]:
        """Soft bounds that keep counterexamples replayable (a launch of at
        most `size_limit` threads, array dims of at most `shape_limit`,
        integer scalars within +-`scalar_limit`, or with `edge` one of them
        may instead be within `edge` of its type's extremes: a wrap-around
        needs a value near them, while every other scalar -- a loop's trip
        count -- stays small); used only when they stay satisfiable, so they
        never change a verdict."""
        hints = [z3.ULE(self.size, _u32(size_limit))]
        near: list[z3.BoolRef] = []
        bounds = _trip_count_params(self.kernel) if edge is not None else set()
        for s in self.shapes.values():
            hints.append(z3.ULE(s, _u32(shape_limit)))
        for p in self.kernel.scalar_params if scalar_limit is not None else ():
            assert scalar_limit is not None
            t = p.value.type
            v = self.scalars[p.value.id]
            if t.is_int:      # the limit clamped to the type (z3 would wrap it)
                if t.is_signed:
                    lim = min(scalar_limit, (1 << (t.bits - 1)) - 1)
                    small = z3.And(v >= -lim, v <= lim)
                    if edge is not None:
                        e = min(edge, (1 << (t.bits - 1)) - 1)
                        near.append(z3.Or(v >= t.max_value - e, v <= t.min_value + e))
                else:
                    small = z3.ULE(v, min(scalar_limit, (1 << t.bits) - 1))
                    if edge is not None:
                        near.append(z3.UGE(v, max(t.max_value - edge, 0)))
                # a range loop's start/stop stays small: replay runs every iteration
                free = edge is not None and p.value.id not in bounds
                hints.append(z3.Or(small, near[-1]) if free else small)
        if len(near) > 1:
            hints.append(z3.PbLe([(b, 1) for b in near], 1))
        return hints

    def small_model_tiers(self) -> list[list[z3.BoolRef]]:
        """`small_model_hints` for each of SMALL_MODEL_TIERS, smallest first;
        a tier with an `edge` only when some integer scalar parameter is not a
        loop's trip count (otherwise it repeats the tier before it)."""
        bounds = _trip_count_params(self.kernel)
        edges = any(p.value.type.is_int and not p.value.type.is_bool
                    and p.value.id not in bounds for p in self.kernel.scalar_params)
        return [self.small_model_hints(*tier) for tier in SMALL_MODEL_TIERS
                if tier[3] is None or edges]


#: Soft size tiers for counterexample models, smallest first, as (launch
#: threads, array dim, |integer scalar| or None for no limit, and the width
#: near the type's extremes also allowed, or None) limits: a replay
#: simulates every thread and allocates every array, so the smallest
#: satisfiable tier replays fastest; scalars go free last (a product of two
#: parameters that wraps needs large values, not large arrays), after a tier
#: where each is small or near an extreme (a wrap-around of `n + 3*steps`
#: with a short loop, not one of 411,041,792 iterations).
SMALL_MODEL_TIERS: tuple[tuple[int, int, int | None, int | None], ...] = (
    (512, 64, 64, None), (4096, 4096, 4096, None), (4096, 4096, 1 << 20, 1 << 20),
    (4096, 4096, None, None))


def _trip_count_params(kernel: Kernel) -> set[int]:
    """Ids of the scalar parameters that are the start or stop of a range
    loop (directly): their size is the number of iterations a replay runs."""
    params = {p.value.id for p in kernel.scalar_params}
    out = set()
    for lp in kernel.loops:
        r = lp.range
        if r is None:
            continue
        for op in (r.start, r.stop):
            if isinstance(op, Value) and op.id in params:
                out.add(op.id)
    return out


@dataclass(frozen=True)
class ThreadIdentity:
    """One symbolic thread: its block and thread index (int32) and linear id."""

    tag: str
    block_idx: z3.BitVecRef
    thread_idx: z3.BitVecRef

    @staticmethod
    def fresh(tag: str, launch: LaunchModel) -> tuple["ThreadIdentity", list]:
        b = z3.BitVec(f"block_idx_{tag}", I32_BITS)
        t = z3.BitVec(f"thread_idx_{tag}", I32_BITS)
        # b < ceil(size/B)  <=>  b*B < size (without wrap-around); then b*B + t
        # cannot wrap either, since size < 2**31 and t < B <= 1024.
        start = b * launch.block_dim
        facts = [z3.ULT(t, launch.block_dim),
                 z3.BVMulNoOverflow(b, launch.block_dim, signed=False),
                 z3.ULT(start, launch.size), z3.ULT(start + t, launch.size)]
        facts += _tid_lemmas(start + t, launch)
        return ThreadIdentity(tag, b, t), facts


def _tid_lemmas(linear, launch: LaunchModel) -> list:
    """vk.tid()'s first component linear // (D1*...*Dn-1) is below D0 (the
    frontend's lowering, docs/MIR.md), stated on the very terms the encoder builds
    so that it survives the nonlinear abstraction."""
    dims = launch.dims
    if len(dims) < 2:
        return []
    rest = dims[1:]
    products = []
    left = rest[0]
    for d in rest[1:]:
        left = left * d
    products.append(left)
    right = rest[-1]
    for d in reversed(rest[:-1]):
        right = d * right
    products.append(right)
    out = []
    for p in products:
        q = int_binop("floordiv", linear, p, I32)
        out.append(z3.And(q >= 0, q < dims[0]))
    return out


def check_max_array_bytes(value) -> int:
    """`value` as the array-size bound, or ValueError when it is not an
    integer in 1..MAX_ARRAY_BYTES_LIMIT."""
    if isinstance(value, bool) or not isinstance(value, int) or \
            not 1 <= value <= MAX_ARRAY_BYTES_LIMIT:
        raise ValueError(f"bad max_array_bytes {value!r}: give an integer from 1 to 2**64")
    return value


def element_bytes(array: ArrayRef) -> int:
    """Bytes of one logical element: the scalar's size times the
    vector/matrix components (vec3f -> 12)."""
    n = int(array.dtype.np_dtype.itemsize)
    for k in array.inner:
        n *= int(k)
    return n


def array_size_bound(array: ArrayRef, shape: list, max_bytes: int) -> z3.BoolRef | None:
    """The fact `prod(shape) * element_bytes(array) <= max_bytes` over the
    signed-nonnegative int32 dims `shape`, or None when every int32 shape
    satisfies it. Exact: the product is 0 when a dim is 0; otherwise every
    prefix product is at most the whole, so requiring each prefix to stay
    within the element limit (computed in bit-vectors wide enough that a
    prefix within the limit times a dim below 2**31 cannot wrap) is the
    same as requiring it of the whole product."""
    limit = max_bytes // element_bytes(array)        # elements
    if limit >= ((1 << 31) - 1) ** len(shape):
        return None
    if len(shape) == 1:
        return z3.ULE(shape[0], _u32(limit))
    width = max(limit.bit_length(), 1) + I32_BITS
    wide = [z3.ZeroExt(width - I32_BITS, s) for s in shape]
    cap = z3.BitVecVal(limit, width)
    prefix, within = wide[0], [z3.ULE(wide[0], cap)]
    for s in wide[1:]:
        prefix = prefix * s
        within.append(z3.ULE(prefix, cap))
    return z3.Or(z3.Or(*[s == 0 for s in shape]), z3.And(*within))
