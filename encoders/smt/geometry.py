"""Theorems about the launch geometry of multi-dimensional launches, stated
on the very terms the encoder builds so that they survive the nonlinear
abstraction (encoders/smt/abstraction.py) and spare the exact query its
multiplier and divider circuits.

The hardware facts of `LaunchModel` (docs/LANGUAGE.md section 5) are: every launch
dim D_k >= 1, the product D_0*...*D_{n-1} computed without unsigned overflow
equals the launch size, and the size is below 2**31. From them, as integers:

- **dim products** (`DimProducts`): a product of *distinct* launch dims (each
  at most once, in any association and order) is at least 1 and at most the
  size, so it does not wrap in int32 and is positive as a signed value. The
  frontend builds such products for vk.tid() (`D_1*D_2`), and kernels write
  them (`vk.launch_dim(0) * vk.launch_dim(1)`).
- **leading bounds** (`leading_component_bounds`): i_0 = L // P_0 is at most
  L >> k once P_0 >= 2**k (the abstraction keeps no other bound of D_0).
- **tid components** (`tid_component_facts`): with L = block_idx*block_dim +
  thread_idx in [0, size), the frontend's components (docs/MIR.md: i_0 =
  L // P_0, i_k = (L // P_k) % D_k, P_k = D_{k+1}*...*D_{n-1}) satisfy
  0 <= i_k < D_k, and L = sum_k i_k*P_k (mixed radix, digits below their
  radix), so equal components of two threads mean equal linear ids
  (`tid_injectivity`).
- **block rows** (`same_block_facts`): when the last launch dim is a
  multiple of block_dim B, two threads of one block (L = b*B + t, L' = b*B +
  t') have equal leading components and last components that differ by t -
  t': b*B = q*D + r with B | r, so r + t < D and L // D = q, L % D = r + t;
  every leading component is a function of L // D. This is what tiles of a
  2-D launch with `launch_dim(1) % block_dim == 0` rest on (the threads of a
  block share a row and one tile column).

Invariant: every formula returned here is implied by the launch facts and the
thread-identity facts (`ThreadIdentity.fresh`) of the copies it mentions;
adding it to a query changes no answer of an exact solver
(tests/proofs/test_geometry.py checks each at small widths, where z3 decides
it outright, and that a product with a repeated dim gets no fact).
"""
from __future__ import annotations

import itertools
from typing import Sequence

import z3

from verikern.mir.types import I32, ScalarType

from .semantics import int_binop
from .terms import is_op, unseen_children


def suffix_products(dims: Sequence[z3.ExprRef], t: ScalarType = I32) -> list:
    """P_k = D_{k+1} * ... * D_{n-1} as the frontend multiplies them (left to
    right), None for the last component (no division)."""
    out = []
    for k in range(len(dims)):
        suffix = None
        for d in dims[k + 1:]:
            suffix = d if suffix is None else int_binop("mul", suffix, d, t)
        out.append(suffix)
    return out


def tid_components(linear: z3.ExprRef, dims: Sequence[z3.ExprRef],
                   t: ScalarType = I32) -> list:
    """vk.tid()'s components of the linear id `linear`, term for term as the
    frontend lowers them (verikern/frontend/lower/expressions.py: lower_tid)."""
    out = []
    for k, suffix in enumerate(suffix_products(dims, t)):
        q = linear if suffix is None else int_binop("floordiv", linear, suffix, t)
        if k > 0:
            q = int_binop("mod", q, dims[k], t)
        out.append(q)
    return out


def tid_component_facts(linear: z3.ExprRef, dims: Sequence[z3.ExprRef],
                        t: ScalarType = I32) -> list:
    """0 <= i_k < D_k for every component of an n-d launch (n >= 2)."""
    if len(dims) < 2:
        return []
    zero = z3.BitVecVal(0, t.bits)
    return [z3.And(c >= zero, c < d) for c, d in zip(tid_components(linear, dims, t), dims)]


#: Leading-component bounds are stated for divisors of at least 2**k, k in
#: these: a last dim of at least a warp (32). Each costs every abstract query
#: of a multi-dimensional launch some work (two: 20% more on 3-D stencils).
LEADING_BOUND_SHIFTS = (5,)


def leading_component_bounds(linear: z3.ExprRef, dims: Sequence[z3.ExprRef],
                             t: ScalarType = I32) -> list:
    """`P_0 >= 2**k  =>  i_0 <= L >> k` for k in LEADING_BOUND_SHIFTS (n >= 2):
    i_0 = L // P_0 with 0 <= L, so a divisor of at least 2**k leaves at most
    L / 2**k. The abstraction loses `size == D_0*...*D_{n-1}`, and with it
    every bound on D_0 but `D_0 <= size`: the tile row `by * 16` of a launch
    whose last dim is required to be a multiple of 256 then seemed to wrap,
    and only the exact query (a multiplier circuit) proved it in bounds."""
    if len(dims) < 2:
        return []
    suffix = suffix_products(dims, t)[0]
    first = tid_components(linear, dims, t)[0]
    return [z3.Implies(z3.UGE(suffix, z3.BitVecVal(1 << k, t.bits)),
                       z3.ULE(first, z3.LShR(linear, k)))
            for k in LEADING_BOUND_SHIFTS if k < t.bits - 1]


def tid_injectivity(linear1: z3.ExprRef, linear2: z3.ExprRef,
                    dims: Sequence[z3.ExprRef], t: ScalarType = I32) -> list:
    """Equal vk.tid() components mean equal linear ids (n >= 2)."""
    if len(dims) < 2:
        return []
    c1, c2 = tid_components(linear1, dims, t), tid_components(linear2, dims, t)
    return [z3.Implies(z3.And(*[a == b for a, b in zip(c1, c2)]), linear1 == linear2)]


def unseen_apps(formulas, seen: dict):
    """Every application term of `formulas` (subterms included) whose id is
    not in `seen`, each once, parents before their children; each yielded
    term is recorded in `seen` (kept alive, so its id is not reused)."""
    stack = list(formulas)
    while stack:
        e = stack.pop()
        i = e.get_id()
        if i in seen or not z3.is_app(e):
            continue
        seen[i] = e
        yield e
        stack.extend(unseen_children(e, seen))


def dim_factors(e: z3.ExprRef, dim_ids) -> list | None:
    """The ids of the launch dims `e` multiplies (`dim_ids`: the ids of the
    non-literal launch dims), or None when `e` is not a product of launch
    dims alone."""
    if e.get_id() in dim_ids:
        return [e.get_id()]
    if not is_op(e, z3.Z3_OP_BMUL):
        return None
    out = []
    for a in e.children():
        f = dim_factors(a, dim_ids)
        if f is None:
            return None
        out += f
    return out


class DimProducts:
    """`1 <= P <= size` for every product P of distinct launch dims met in
    the formulas given so far (each formula node walked once per instance)."""

    def __init__(self, dims: Sequence[z3.ExprRef], size: z3.ExprRef):
        self._dims = {d.get_id(): d for d in dims if not z3.is_bv_value(d)}
        self._size = size
        self._seen: dict[int, z3.ExprRef] = {}
        self._facts: list[z3.BoolRef] = []

    def for_formulas(self, formulas) -> list:
        """The facts of every product of distinct launch dims in `formulas`
        (and in every formula given before)."""
        if len(self._dims) < 2:
            return []
        for e in unseen_apps(formulas, self._seen):
            if is_op(e, z3.Z3_OP_BMUL):
                f = dim_factors(e, self._dims)
                if f is not None and len(f) == len(set(f)) and e.size() == self._size.size():
                    one = z3.BitVecVal(1, e.size())
                    self._facts.append(z3.And(e >= one, z3.ULE(e, self._size)))
        return list(self._facts)


def same_block_facts(ids1: tuple, ids2: tuple, block_dim: z3.ExprRef,
                     dims: Sequence[z3.ExprRef], t: ScalarType = I32) -> list:
    """For threads (block, thread) `ids1` and `ids2` of an n-d launch (n >= 2)
    with linear ids block*block_dim + thread in [0, size): in the same block,
    when D_{n-1} % block_dim == 0, the leading vk.tid() components are equal
    and the last ones differ by the thread indices' difference; in different
    blocks, a leading component or the last one's `// block_dim` differs; and
    each leading component is at most its thread's block index."""
    if len(dims) < 2:
        return []
    (b1, t1), (b2, t2) = ids1, ids2
    c1 = tid_components(b1 * block_dim + t1, dims, t)
    c2 = tid_components(b2 * block_dim + t2, dims, t)
    same = [a == b for a, b in zip(c1[:-1], c2[:-1])]
    same.append(c1[-1] - t1 == c2[-1] - t2)
    aligned = z3.URem(dims[-1], block_dim) == 0
    # in different blocks the leading components or the last one's block
    # column (c // block_dim) differ: with D_{n-1} = m * block_dim they are
    # (block // m, block % m) in 2-d, which determine the block
    apart = [a != b for a, b in zip(c1[:-1], c2[:-1])]
    apart.append(z3.UDiv(c1[-1], block_dim) != z3.UDiv(c2[-1], block_dim))
    # a leading component is at most the block index: c_k <= linear // D_{n-1}
    # = (block * block_dim + thread) // (m * block_dim) <= block
    small = [z3.ULE(c, b) for cs, b in ((c1, b1), (c2, b2)) for c in cs[:-1]]
    return [z3.Implies(z3.And(aligned, b1 == b2), z3.And(*same)),
            z3.Implies(z3.And(aligned, b1 != b2), z3.Or(*apart)),
            z3.Implies(aligned, z3.And(*small))]


def abstraction_geometry_facts(launch, encs) -> list:
    """`leading_component_bounds` of each thread copy in `encs`: for the
    query under the nonlinear abstraction only (the exact query has the
    launch product itself; there they only cost its search)."""
    if len(launch.dims) < 2:
        return []
    out = []
    for e in encs:
        out += leading_component_bounds(e.ident.block_idx * launch.block_dim + e.ident.thread_idx,
                                        launch.dims)
    return out


def thread_geometry_facts(launch, encs) -> list:
    """`tid_component_facts` of each thread copy in `encs` (objects with an
    `ident`: ThreadIdentity) and `tid_injectivity` of each pair, for the
    launch model `launch`; nothing for a 1-d launch. With a fixed block_dim
    (a cheap remainder) also `same_block_facts` of each pair."""
    dims = launch.dims
    if len(dims) < 2:
        return []
    linear = [e.ident.block_idx * launch.block_dim + e.ident.thread_idx for e in encs]
    fixed_block = z3.is_bv_value(launch.block_dim)
    out = []
    for lin in linear:
        out += tid_component_facts(lin, dims)
    for i in range(len(linear)):
        for j in range(i + 1, len(linear)):
            out += tid_injectivity(linear[i], linear[j], dims)
            if fixed_block:
                out += same_block_facts((encs[i].ident.block_idx, encs[i].ident.thread_idx),
                                        (encs[j].ident.block_idx, encs[j].ident.thread_idx),
                                        launch.block_dim, dims)
    return out


#: a nested product's overflow guard names at most this many factors (the
#: launch dims are at most 4; a guard states one implication per assignment
#: of distinct dims to the factors)
MAX_GUARD_LEAVES = 4


def _product_leaves(e) -> list:
    """The factors of a product of non-literal terms (`(a * b) * c` ->
    [a, b, c]); `[e]` for any other term."""
    if is_op(e, z3.Z3_OP_BMUL) and e.num_args() == 2 and \
            not any(z3.is_bv_value(a) for a in e.children()):
        return _product_leaves(e.arg(0)) + _product_leaves(e.arg(1))
    return [e]


def _no_overflow(x, y):
    return z3.BVMulNoOverflow(x, y, signed=True)


def _extended_bits(e) -> tuple[int, bool] | None:
    """(k, zero) when `e` is sign- (zero=False) or zero-extended (zero=True)
    from k bits, else None."""
    if is_op(e, z3.Z3_OP_SIGN_EXT):
        return e.arg(0).size(), False
    if is_op(e, z3.Z3_OP_ZERO_EXT):
        return e.arg(0).size(), True
    return None


def _half_width_product(h, w) -> bool:
    """`h * w` cannot overflow as a signed n-bit product because both are
    extended from narrow values: sign-extended from k bits, |x| <= 2**(k-1);
    zero-extended from k bits, 0 <= x < 2**k. With k1 + k2 <= n the product
    stays in the signed range unless both are zero-extended (then
    (2**k1 - 1)*(2**k2 - 1) may reach 2**(n-1): two uint32 values
    zero-extended to int64 wrap negative), which needs k1 + k2 <= n - 1."""
    a, b = _extended_bits(h), _extended_bits(w)
    if a is None or b is None:
        return False
    limit = h.size() - 1 if a[1] and b[1] else h.size()
    return a[0] + b[0] <= limit


class MonotoneProducts:
    """Instances of monotonicity for products that share a factor (signed
    comparisons; each a theorem of bit-vector arithmetic):

    - `0 <= a < h, 0 <= w, h*w without signed overflow  =>
       0 <= a*w <= h*w - w, and a*w without signed overflow` (as integers
       a*w <= (h - 1)*w; a flat index `y*w + x` with `x < w` stays below h*w);
    - `a1 == a2  =>  a1*w == a2*w` (congruence, lost by the abstraction),
      and for a product of two launch dims and any other product
      `(a == c and b == d) or (a == d and b == c)  =>  a*b == c*d`;
    - the overflow guard itself: `h == D_i, w == D_j` for distinct launch dims
      (their product is at most the launch size), and for a nested product
      `h = (a * b) * c` each factor and `w` equal to distinct launch dims
      (every partial product is then a product of distinct dims, at most the
      launch size); or h and w extended from at most half the width
      (`int64(y) * int64(width)`). Literal bounds give the guard too
      (`product_bounds.py`).

    - flat-index injectivity: `a1*w + x1 == a2*w + x2` with `0 <= x_i < w`,
      `0 <= a_i`, no product or sum overflowing, implies `a1 == a2` and
      `x1 == x2` (division with remainder is unique), for sums of a product
      and another term.

    For every pair of products met in the formulas given so far whose
    operands share a term (at most MAX_MONOTONE_PAIRS pairs per context)."""

    MAX_MONOTONE_PAIRS = 96
    MAX_CONGRUENCES = 64
    MAX_SUM_BOUNDS = 64

    def __init__(self, dims: Sequence[z3.ExprRef]):
        self._dims = [d for d in dims if not z3.is_bv_value(d)]
        self._dim_ids = {d.get_id() for d in self._dims}
        self._seen: dict[int, z3.ExprRef] = {}
        self._products: list[z3.ExprRef] = []
        self._pairs = 0
        self._congruences = 0
        self._sum_bounds = 0
        self._guards: set[int] = set()
        self._facts: list[z3.BoolRef] = []
        self._sums: list[tuple] = []       # (sum, a, w, x)
        self._quotients: list[tuple] = []  # (x / s, x, s): signed, s not a literal

    def _guard_facts(self, h, w) -> None:
        key = _no_overflow(h, w)
        if key.get_id() in self._guards:
            return
        self._guards.add(key.get_id())
        if _half_width_product(h, w):
            self._facts.append(key)
            return
        if h.size() != 32:
            return
        leaves = _product_leaves(h) + [w]
        if len(leaves) > len(self._dims) or len(leaves) > MAX_GUARD_LEAVES:
            return
        # the leaves equal distinct launch dims: every partial product is a
        # product of distinct dims, at most the launch size (below 2**31)
        for ds in itertools.permutations(self._dims, len(leaves)):
            self._facts.append(z3.Implies(z3.And(*[x == d for x, d in zip(leaves, ds)]), key))

    def _pair(self, p, q) -> None:
        zero = z3.BitVecVal(0, p.size())
        for a, w in ((p.arg(0), p.arg(1)), (p.arg(1), p.arg(0))):
            for h, w2 in ((q.arg(0), q.arg(1)), (q.arg(1), q.arg(0))):
                if not w.eq(w2) or a.eq(h):
                    continue
                self._facts.append(z3.Implies(
                    z3.And(a >= zero, a < h, w >= zero, _no_overflow(h, w)),
                    z3.And(p >= zero, p <= q - w, _no_overflow(a, w))))
                self._facts.append(z3.Implies(a == h, p == q))
                self._guard_facts(h, w)
                self._pairs += 1
                return
        if not self._of_dims(q) or self._of_dims(p):
            return
        # q = D_i * D_j and p = a * w share no term: monotonicity once a
        # factor of p equals one of q (`i * w` against the launch size when
        # `w == launch_dim(1)` is required)
        for a, w in ((p.arg(0), p.arg(1)), (p.arg(1), p.arg(0))):
            for h, w2 in ((q.arg(0), q.arg(1)), (q.arg(1), q.arg(0))):
                self._facts.append(z3.Implies(
                    z3.And(a >= zero, a < h, w == w2, _no_overflow(h, w2)),
                    z3.And(p >= zero, p <= q - w2, _no_overflow(a, w))))
                self._guard_facts(h, w2)
        self._pairs += 1

    def _of_dims(self, p) -> bool:
        """`p` multiplies two launch dims, directly."""
        return all(a.get_id() in self._dim_ids for a in p.children())

    def _congruence(self, p, q) -> None:
        """`p = a*b` and `q = c*d` are equal when their operands are, in
        either order (`w*h` in a contract is the launch size `D0*D1` once
        `h == D0` and `w == D1`). Stated only where one of them is a product
        of launch dims: the exact query never needs it, and each instance
        costs every other query some work."""
        (a, b), (c, d) = p.children(), q.children()
        self._facts.append(z3.Implies(z3.Or(z3.And(a == c, b == d), z3.And(a == d, b == c)),
                                      p == q))
        self._congruences += 1

    def _sum(self, e) -> None:
        """Record `e = a*w + x` (any operand order) and state injectivity
        against every recorded sum over the same `w`."""
        for prod, x in ((e.arg(0), e.arg(1)), (e.arg(1), e.arg(0))):
            if not (is_op(prod, z3.Z3_OP_BMUL) and prod.num_args() == 2) or \
                    any(z3.is_bv_value(c) for c in prod.children()):
                continue
            for a, w in ((prod.arg(0), prod.arg(1)), (prod.arg(1), prod.arg(0))):
                for s2, a2, w2, x2 in self._sums:
                    if self._pairs >= self.MAX_MONOTONE_PAIRS or not w.eq(w2) \
                            or s2.size() != e.size():
                        continue
                    zero = z3.BitVecVal(0, e.size())
                    ok = [zero <= x, x < w, zero <= x2, x2 < w, zero <= a, zero <= a2,
                          _no_overflow(a, w), _no_overflow(a2, w),
                          z3.BVAddNoOverflow(prod, x, True),
                          z3.BVAddNoOverflow(s2.arg(0), s2.arg(1), True)]
                    self._facts.append(z3.Implies(z3.And(e == s2, *ok),
                                                  z3.And(a == a2, x == x2)))
                    self._pairs += 1
                self._sums.append((e, a, w, x))
                for q in self._products:
                    self._sum_bound((e, a, w, x), q)
            return

    def _sum_bound(self, rec: tuple, q) -> None:
        """For a recorded sum `e = a*w + x` and a product `q` of `h` and the
        same `w`: `0 <= a < h, 0 <= x < w, 0 <= w`, `h*w` without signed
        overflow  =>  `0 <= e < h*w`, and neither `a*w` nor the sum
        overflows (as integers a*w + x <= (h-1)*w + w - 1 < h*w). Chains a
        mixed-radix index `(z*ny + y)*nx + x` level by level without the
        solver redoing the arithmetic of each level."""
        e, a, w, x = rec
        if q.size() != e.size() or self._sum_bounds >= self.MAX_SUM_BOUNDS:
            return
        for h, w2 in ((q.arg(0), q.arg(1)), (q.arg(1), q.arg(0))):
            if not w.eq(w2) or a.eq(h):
                continue
            zero = z3.BitVecVal(0, e.size())
            prod = e.arg(1) if e.arg(0).eq(x) else e.arg(0)
            self._facts.append(z3.Implies(
                z3.And(a >= zero, a < h, x >= zero, x < w, w >= zero, _no_overflow(h, w)),
                z3.And(e >= zero, e < q, _no_overflow(a, w),
                       z3.BVAddNoOverflow(prod, x, True))))
            self._guard_facts(h, w)
            self._sum_bounds += 1
            return

    def _below_quotient(self, p, quotient) -> None:
        """`0 <= a < x / s` (x >= 0, s > 0) bounds `a * s` by `x - s`: a
        segment `[b*s, b*s + s)` of a block `b < x // s` lies inside `x`."""
        q, x, d = quotient
        for a, w in ((p.arg(0), p.arg(1)), (p.arg(1), p.arg(0))):
            if w.eq(d) and p.size() == q.size():
                zero = z3.BitVecVal(0, p.size())
                self._facts.append(z3.Implies(
                    z3.And(a >= zero, a < q, x >= zero, d > zero),
                    z3.And(p >= zero, p <= x - d, _no_overflow(a, d))))
                self._pairs += 1

    def for_formulas(self, formulas) -> list:
        for e in unseen_apps(formulas, self._seen):
            if is_op(e, z3.Z3_OP_BADD) and e.num_args() == 2:
                self._sum(e)
                continue
            if (is_op(e, z3.Z3_OP_BSDIV) or is_op(e, z3.Z3_OP_BSDIV_I)) \
                    and not z3.is_bv_value(e.arg(1)) \
                    and dim_factors(e.arg(1), self._dim_ids) is None:   # vk.tid()'s divisors
                quotient = (e, e.arg(0), e.arg(1))
                self._quotients.append(quotient)
                for p in self._products:
                    if self._pairs < self.MAX_MONOTONE_PAIRS:
                        self._below_quotient(p, quotient)
                continue
            if not (is_op(e, z3.Z3_OP_BMUL) and e.num_args() == 2) or \
                    any(z3.is_bv_value(a) for a in e.children()):
                continue
            for quotient in self._quotients:
                if self._pairs < self.MAX_MONOTONE_PAIRS:
                    self._below_quotient(e, quotient)
            for q in self._products:
                if q.size() == e.size() and self._congruences < self.MAX_CONGRUENCES and \
                        (self._of_dims(e) or self._of_dims(q)):
                    self._congruence(e, q)
                if self._pairs >= self.MAX_MONOTONE_PAIRS:
                    continue
                if q.size() == e.size():
                    self._pair(e, q)
                    self._pair(q, e)
            for rec in self._sums:
                self._sum_bound(rec, e)
            self._products.append(e)
        return list(self._facts)
