"""Contract templates: the preconditions real Warp code relies on, as
candidate conjuncts for a suggested `@vk.requires(lambda ...)`
(proofs.deciding.suggest searches them).

An `Atom` is one conjunct: a launch dimension equal to or bounded by an array
length (`x.shape[0] == vk.launch_dim()`, `vk.launch_dim(1) <= x.shape[1]`),
lengths equal to each other, to a multiple of the launch, to a scalar
parameter or captured module constant, or to the bound W an index is guarded
or clamped at (`i == W - 1`), non-empty arrays, positive or bounded int32
parameters, a one-thread launch for a race on elements no thread id picks,
a length equal to the int64 product of the int32 parameters a flat index
is built from and guarded or clamped by (`vk.int64(a.shape[0]) ==
vk.int64(n) * vk.int64(m)` for `a[i * m + j]` under `i < n`, `j < m`:
stated in int64 so that the product cannot wrap to match a small length),
and `vk.all_in_range(idx, 0, x.shape[k])` / `vk.all_distinct(idx)` for int32
index arrays -- `vk.all_in_range(ends, 0, x.shape[k] + 1)` for an int32 array
whose elements bound an index in a guard or loop (a count held in a
one-element array, `if i < count[0]`; CSR offsets, `for k in range(off[s],
off[s + 1])`), where the end equal to the length is legal, and
`vk.all_sorted(off)` for such offsets when segments are written (disjoint).
Candidates are generated per failed obligation from what its operands (and
the branch conditions guarding it) depend on, so only arrays, parameters and
launch dimensions that matter there appear.

Invariant: a candidate is an `Atom` (proofs/deciding/contract_atoms.py, where
the MIR each compiles to is kept exact); generating one decides nothing, the
suggester proves the kernel with the candidates it keeps.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from verikern.mir import facts
from verikern.mir.cfg import dominators
from verikern.mir.nodes import (
    ArrayRef, Assert, BinOp, Branch, Cast, Compare, Const, Kernel, Load, Operand, Phi,
    ParamOrigin, ScalarParam, ShapeOf, Special, Value,
)
from verikern.mir.types import I32
from verikern.proofs.obligations import ObligationKind, ObligationSpec
from verikern.proofs.deciding.contract_atoms import ZERO, Atom, Term, param_term
from verikern.proofs.deciding.contract_compaction import compaction_scans, keeps
from verikern.proofs.deciding.contract_offsets import (
    next_offset_atoms, offset_atoms, same_as_core, segment_length_array,
)
from verikern.proofs.deciding.contract_packed import packed_row_atoms
from verikern.proofs.deciding.contract_segments import segment_head_arrays
from verikern.proofs.deciding.contract_strides import stride_length_atoms

#: Multipliers of the launch a length may equal (`x.shape[0] == 3 * vk.launch_dim()`):
#: int32 constants the kernel multiplies by, in this range.
SCALES = range(2, 65)


# ------------------------------------------------------------------ candidates
@dataclass
class _Deps:
    """What some operands depend on: thread ids, launch dims, lengths, int32
    parameters, int32 index arrays read, and multipliers."""

    thread: bool = False
    launch: set = field(default_factory=set)
    shapes: set = field(default_factory=set)
    params: set = field(default_factory=set)
    indexes: set = field(default_factory=set)
    scales: set = field(default_factory=set)
    loads: set = field(default_factory=set)      # sites of the loads read
    component: int | None = None                  # the `wp.tid()` component an index is
    consts: set = field(default_factory=set)     # lengths W an index is guarded at
    bounds: set = field(default_factory=set)     # int32 parameters N it is guarded or clamped at
    ends: set = field(default_factory=set)       # int32 arrays whose elements an index is guarded below
    step: int = 0                                 # the constant o > 0 of an index `i + o`
    element: str | None = None                    # the int32 array the index is an element of
    type_lengths: set = field(default_factory=set)   # 2**bits of a uint8/uint16 value indexed by
    capped: set = field(default_factory=set)     # (index array, length) its elements are compared with
    own_indexes: set | None = None               # index arrays the index itself reads (None: all)


class _Walker:
    def __init__(self, kernel: Kernel):
        self.kernel = kernel
        self.defs = facts.definitions(kernel)
        self.params = {p.value.id: p.name for p in kernel.params
                       if isinstance(p, ScalarParam) and p.value.type == I32
                       and p.origin is not ParamOrigin.COMPONENT}
        self.written = {ins.array.name for _, ins in kernel.instructions() if facts.writes_memory(ins)}
        # `vk.all_distinct` / `vk.all_sorted` are for 1-d arrays only (docs/LANGUAGE.md section 5)
        self.flat = {p.name for p in kernel.params if isinstance(p, ArrayRef) and p.ndim == 1}
        self.capped = self._capped_index_arrays()
        self.dom = dominators(kernel)
        self.sites = {id(ins): (b.label, i) for b in kernel.blocks for i, ins in enumerate(b.instrs)}

    def component(self, op, depth: int = 0) -> int | None:
        """Which launch dimension's thread index `op` is (up to constant
        offsets and factors): `vk.tid()` gives component k of an n-d launch as
        `(linear // prod(D[k+1:])) % D[k]` (no `%` for k = 0); None when it
        is not one."""
        ins = self.defs.get(op.id) if isinstance(op, Value) and depth < 12 else None
        if isinstance(ins, Special) and ins.kind in ("thread_idx", "block_idx"):
            return 0 if self.kernel.launch_ndim == 1 else None
        if not isinstance(ins, BinOp):
            return self.component(ins.operand, depth + 1) if isinstance(ins, Cast) else None
        if ins.op == "mod":
            dims = self._launch_product(ins.rhs)
            return dims[0] if dims and len(dims) == 1 else None
        if ins.op in ("floordiv", "div"):
            dims = self._launch_product(ins.rhs)
            return min(dims) - 1 if dims and min(dims) >= 1 else None
        if ins.op in ("add", "sub", "mul"):
            sides = [self.component(x, depth + 1) for x in (ins.lhs, ins.rhs) if not isinstance(x, Const)]
            found = {c for c in sides if c is not None}
            return found.pop() if len(found) == 1 and (len(sides) == 1 or
                                                      self.kernel.launch_ndim == 1) else None
        return None

    def offset(self, op) -> int:
        """The constant `o` of an index `x + o` (or `o + x`, `x - (-o)`), else 0."""
        ins = self.defs.get(op.id) if isinstance(op, Value) else None
        if isinstance(ins, BinOp) and ins.op in ("add", "sub"):
            for side, sign in ((ins.rhs, 1 if ins.op == "add" else -1),
                               (ins.lhs, 1 if ins.op == "add" else 0)):
                if isinstance(side, Const) and side.type.is_int and not side.type.is_bool:
                    return sign * int(side.value)
        return 0

    def _launch_product(self, op) -> list[int] | None:
        """The launch dims `op` multiplies (`D1 * D2` -> [1, 2]), or None."""
        ins = self.defs.get(op.id) if isinstance(op, Value) else None
        if isinstance(ins, Special) and ins.kind == "launch_dim":
            return [ins.dim]
        if isinstance(ins, BinOp) and ins.op == "mul":
            a, b = self._launch_product(ins.lhs), self._launch_product(ins.rhs)
            return a + b if a is not None and b is not None else None
        return None

    def deps(self, operands, block: str | None) -> _Deps:
        """What `operands` read, and (for `block`) the branch conditions every
        path to it passes; a bound compared or clamped against counts only
        when the other side is an operand's own value (`i == W - 1` guarding
        an index made from `i`)."""
        d, seen = _Deps(), set[int]()
        self._walk(list(operands), d, seen, core=None)
        core = frozenset(seen)
        guards = []
        if block is not None:
            for lbl in self.dom.get(block, ()):
                term = self.kernel.block(lbl).terminator
                if lbl != block and isinstance(term, Branch):
                    guards.append(term.cond)
        self._walk(guards, d, seen, core=core)
        return d

    def _walk(self, todo: list, d: _Deps, seen: set, core) -> _Deps:
        while todo:
            op = todo.pop()
            if not isinstance(op, Value) or op.id in seen:
                continue
            seen.add(op.id)
            if op.id in self.params:
                d.params.add(self.params[op.id])
            ins = self.defs.get(op.id)
            if ins is None:
                continue
            if isinstance(ins, Special):
                if ins.kind == "launch_dim":
                    d.launch.add(ins.dim)
                elif ins.kind in ("thread_idx", "block_idx"):
                    d.thread = True
            elif isinstance(ins, ShapeOf):
                if ins.array.space == "global":
                    d.shapes.add((ins.array.name, ins.dim))
            elif isinstance(ins, Load):
                arr = ins.array
                d.loads.add(self.sites[id(ins)])
                if arr.space == "global" and arr.dtype == I32 and not arr.inner:
                    d.indexes.add(arr.name)      # any rank: `j = neighbor_matrix[i, slot]`
            elif isinstance(ins, Phi) or not facts.accesses_memory(ins):   # arithmetic, phis
                if isinstance(ins, BinOp) and ins.op == "mul":
                    for side in (ins.lhs, ins.rhs):
                        if isinstance(side, Const) and side.type.is_int and side.value in SCALES:
                            d.scales.add(int(side.value))
                if isinstance(ins, BinOp) and ins.op == "mod" and isinstance(ins.rhs, Const) \
                        and 1 <= ins.rhs.value < 2 ** 30 and core is None:
                    d.consts.add(int(ins.rhs.value))      # `(i + 1) % W`: a periodic index
                src = ins.operand.type if isinstance(ins, Cast) else None
                if src is not None and src.is_int and not src.is_signed and not src.is_bool \
                        and src.bits <= 16 and core is None:
                    # `table[int(kinds[i])]` of a uint8/uint16 value: a table of every value
                    # the type holds (warp-simdata's 256-entry cell-type tables)
                    d.type_lengths.add(2 ** src.bits)
                if isinstance(ins, Compare) and core is not None:
                    d.ends |= self._guard_ends(ins, core)
                if isinstance(ins, Compare) or (isinstance(ins, BinOp) and ins.op in ("min", "max")):
                    pair = (ins.lhs, ins.rhs)
                    for n, (side, other) in enumerate((pair, pair[::-1])):
                        if isinstance(side, Const) and side.type.is_int and not side.type.is_bool \
                                and 1 <= side.value < 2 ** 30 and \
                                (core is None or (isinstance(other, Value) and other.id in core)):
                            # the length W the bound stands for: `x >= W`, `x < W` (or
                            # `W <= x`, `W > x`) name it; `i == W - 1`, `i > W - 1`,
                            # `clamp(x, 0, W - 1)` name W - 1
                            at_w = ins.op in (("le", "gt"), ("ge", "lt"))[n] \
                                if isinstance(ins, Compare) else False
                            d.consts.add(int(side.value) + (0 if at_w else 1))
                        name = self._param_bound(side)
                        if name is not None and \
                                (core is None or (isinstance(other, Value) and other.id in core)):
                            d.bounds.add(name)    # `j <= N - 2`, `clamp(x, 0, n - 1)`: N, n
                todo += list(ins.operands())
        return d

    def _guard_ends(self, cmp: Compare, core) -> set:
        """The int32 index arrays an index (a `core` value) is compared below
        in `cmp` (`i < count[0]`, `k < off[s + 1]`, `count[0] > i`)."""
        below = {"lt": (cmp.lhs, cmp.rhs), "le": (cmp.lhs, cmp.rhs),
                 "gt": (cmp.rhs, cmp.lhs), "ge": (cmp.rhs, cmp.lhs)}.get(cmp.op)
        if below is None or not (isinstance(below[0], Value) and same_as_core(self, below[0], core)):
            return set()
        name = self.loaded_index_array(below[1]) or segment_length_array(self, below[1])
        return {name} if name is not None else set()

    def _capped_index_arrays(self) -> dict[str, set]:
        """Index array -> the lengths `(x, k)` one of its elements is ordered
        against anywhere in the kernel (`j = neighbor_matrix[i, slot]`, then
        `if j >= num_atoms: continue` with `num_atoms = positions.shape[0]`):
        elements of an int32 global array of any rank, loaded and compared as
        they are (no arithmetic between)."""
        out: dict[str, set] = {}
        for _, ins in self.kernel.instructions():
            if not isinstance(ins, Compare) or ins.op not in ("lt", "le", "gt", "ge"):
                continue
            for side, other in ((ins.lhs, ins.rhs), (ins.rhs, ins.lhs)):
                load = self.defs.get(side.id) if isinstance(side, Value) else None
                length = self.defs.get(other.id) if isinstance(other, Value) else None
                if isinstance(load, Load) and isinstance(length, ShapeOf) and length.array.space == "global" \
                        and load.array.space == "global" and load.array.dtype == I32 and not load.array.inner:
                    out.setdefault(load.array.name, set()).add((length.array.name, length.dim))
        return out

    def own_deps(self, op) -> _Deps:
        """What `op` itself reads, its guards left out."""
        d = _Deps()
        self._walk([op], d, set(), core=None)
        return d

    def reads_thread(self, op) -> bool:
        """`op` itself (its guards left out) is computed from a thread id or a
        launch dimension: false for a loop counter over a length (`for i in
        range(n_total)`), an element of an index array (`idx[i]`: loads are
        not looked through) and a constant."""
        d = self.own_deps(op)
        return d.thread or bool(d.launch)

    def loaded_index_array(self, op, depth: int = 0) -> str | None:
        """The int32 1-d global array `op` is an element of (through casts), else None."""
        ins = self.defs.get(op.id) if isinstance(op, Value) and depth < 4 else None
        if isinstance(ins, Cast):
            return self.loaded_index_array(ins.operand, depth + 1)
        if isinstance(ins, Load):
            arr = ins.array
            if arr.space == "global" and arr.dtype == I32 and arr.ndim == 1 and not arr.inner:
                return arr.name
        return None

    def strides(self, op, depth: int = 0) -> list[str]:
        """The int32 parameters a flat index multiplies by, innermost first
        (`(z * n + y) * n + x` -> [n, n]; `i * m + j` -> [m]), through sums
        and casts."""
        ins = self.defs.get(op.id) if isinstance(op, Value) and depth < 12 else None
        if isinstance(ins, Cast):
            return self.strides(ins.operand, depth + 1)
        if isinstance(ins, BinOp) and ins.op == "add":
            return self.strides(ins.lhs, depth + 1) + self.strides(ins.rhs, depth + 1)
        if isinstance(ins, BinOp) and ins.op == "mul":
            for inner, outer in ((ins.lhs, ins.rhs), (ins.rhs, ins.lhs)):
                name = self._param_bound(outer, 4)      # the parameter itself, no offset
                if name is not None:
                    return self.strides(inner, depth + 1) + [name]
        return []

    def thread_products(self, op) -> list[tuple[int, str]]:
        """(c, k) for each product `x * k` that `op` is computed from, x
        (up to offsets and factors) the `wp.tid()` component of launch
        dimension c and k an int32 parameter (`start = t * per_thread`), through
        sums, min/max, casts and phis; in the order found."""
        out: list[tuple[int, str]] = []
        todo, seen = [op], set[int]()
        while todo and len(seen) < 64:
            cur = todo.pop()
            if not isinstance(cur, Value) or cur.id in seen:
                continue
            seen.add(cur.id)
            ins = self.defs.get(cur.id)
            if isinstance(ins, BinOp) and ins.op == "mul":
                for x, k in ((ins.lhs, ins.rhs), (ins.rhs, ins.lhs)):
                    c = self.component(x)
                    name = self.params.get(k.id) if isinstance(k, Value) else None
                    if c is not None and name is not None and (c, name) not in out:
                        out.append((c, name))
            if isinstance(ins, BinOp) and ins.op in ("add", "sub", "mul", "min", "max"):
                todo += [ins.lhs, ins.rhs]
            elif isinstance(ins, Cast):
                todo.append(ins.operand)
            elif isinstance(ins, Phi):
                todo += [v for _, v in ins.incoming]
        return out

    def sums_indices(self, op, depth: int = 0) -> bool:
        """`op` is (through casts and constant offsets) a sum or difference of
        two non-constant values (`i * m + j`)."""
        ins = self.defs.get(op.id) if isinstance(op, Value) and depth < 12 else None
        if isinstance(ins, Cast):
            return self.sums_indices(ins.operand, depth + 1)
        if isinstance(ins, BinOp) and ins.op in ("add", "sub"):
            rest = [x for x in (ins.lhs, ins.rhs) if not isinstance(x, Const)]
            return len(rest) == 2 or (len(rest) == 1 and self.sums_indices(rest[0], depth + 1))
        return False

    def _param_bound(self, op, depth: int = 0) -> str | None:
        """The int32 parameter `op` is up to constant offsets (`N`, `N - 2`,
        `n + 1`), else None."""
        if not isinstance(op, Value) or depth > 4:
            return None
        if op.id in self.params:
            return self.params[op.id]
        ins = self.defs.get(op.id)
        if isinstance(ins, BinOp) and ins.op in ("add", "sub"):
            consts = [x for x in (ins.lhs, ins.rhs) if isinstance(x, Const)]
            rest = [x for x in (ins.lhs, ins.rhs) if not isinstance(x, Const)]
            if len(consts) == 1 and len(rest) == 1:
                return self._param_bound(rest[0], depth + 1)
        return None


def _launch_terms(kernel: Kernel, d: _Deps, k: int) -> list[Term]:
    """Launch dims an index may follow: those it reads, every one when it
    reads thread ids (dimension k first); only its own when it is a known
    `wp.tid()` component (`d.component`)."""
    if d.component is not None:          # `i, j = wp.tid()`: i follows dimension 0 only
        return [Term("launch", index=d.component)]
    dims = set(d.launch) | (set(range(kernel.launch_ndim)) if d.thread else set())
    return [Term("launch", index=j) for j in sorted(dims, key=lambda j: (j != k, j))]


def _length_atoms(kernel: Kernel, s: Term, d: _Deps, k: int, written: set) -> list[Atom]:
    """Candidates making an index that depends on `d` fit in length `s`."""
    out = []
    scaled = 0 if d.scales else 2        # `x[2 * i + 1]`: a multiple of the launch first
    for lt in _launch_terms(kernel, d, k):
        out.append(Atom("eq", s, lt, family=2 - scaled, weaker=Atom("le", lt, s, family=2 - scaled)))
        if d.step == 1:   # `off[s + 1]`: one more element than threads (`vk.launch_dim() < off.shape[0]`)
            out.append(Atom("lt", lt, s, family=2 - scaled))
    for idx, (name, m) in sorted(d.capped):
        if idx != s.name and idx not in written:
            # the kernel compares the array's elements with a length and skips those
            # at or past it (`if j >= num_atoms: continue`): padding equal to the length
            # is legal, a negative element is not -- first, the guard covers the upper end
            out.append(Atom("all_in_range", rhs=Term("shape", name, m, offset=1), array=idx, family=-1))
    capped = {idx for idx, _ in d.capped}
    for idx in sorted(d.indexes):
        if d.own_indexes is not None and idx not in d.own_indexes and idx not in d.ends:
            continue      # read only by a guard (`if batch_idx[i] == b`): its elements index nothing here
        if idx != s.name and idx not in written and idx not in capped:
            # (a capped array's padding equals its guard's length: no `[0, s)` for it)
            if idx in d.ends:
                # the index stays below an element (`if i < count[0]`, `for k in
                # range(off[s], off[s + 1])`): an element may equal the length --
                # first, before the launch relation (the launch is not what bounds it)
                out.append(Atom("all_in_range", rhs=replace(s, offset=1), array=idx, family=-1))
            # the index is an element of `idx` (`energy[batch_idx[i]]`): no launch relation
            # bounds it, whatever thread ids its guards read -- first (ranked before them)
            out.append(Atom("all_in_range", rhs=s, array=idx, family=-1 if idx == d.element else 1))
    for c in sorted(d.scales):
        for lt in _launch_terms(kernel, d, k):
            big = replace(lt, scale=c)
            out.append(Atom("eq", s, big, family=scaled, weaker=Atom("le", big, s, family=scaled)))
    for name, m in sorted(d.shapes):
        other = Term("shape", name, m)
        if other != s:
            if d.step == 1:   # `ptr[i + 1]` for i below `counts.shape[0]`: one more element (prefix sums)
                out.append(Atom("lt", other, s, family=3))
            out.append(Atom("eq", s, other, family=3, weaker=Atom("le", other, s, family=3)))
    # an index guarded or clamped at a Warp grid constant W: the length is W --
    # first when the index is no thread id component (`int(x / cell)` clamped to
    # [0, W - 1], `(i - 1) % W`): the launch does not bound it then
    cfam = -1 if d.component is None else 3
    for w in sorted(d.type_lengths):   # first: the type bounds the index on every path
        bound = Term("const", index=w)
        out.append(Atom("eq", s, bound, family=cfam, weaker=Atom("le", bound, s, family=cfam)))
    for w in sorted(d.consts - d.type_lengths):
        bound = Term("const", index=w)
        out.append(Atom("eq", s, bound, family=cfam, weaker=Atom("le", bound, s, family=cfam)))
    for p in sorted(d.bounds):
        # the index is guarded or clamped at parameter N (`if j <= N - 2: f[j + 1]`):
        # the length covers N, whatever the launch -- after the launch relation,
        # which needs no `N >= 0` besides (a negative N wraps `N - 2`)
        out.append(Atom("le", param_term(kernel, p), s, family=3))
    for p in sorted(d.params):
        n = param_term(kernel, p)
        out.append(Atom("le", n, s, family=4))
        out.append(Atom("lt", n, s, family=5))
        out.append(Atom("ge", n, ZERO, family=6))
    out.append(Atom("gt", s, ZERO, family=7))
    out += [Atom("eq", s, param_term(kernel, p), family=8) for p in sorted(d.params)]
    return out


def _product_atoms(kernel: Kernel, s: Term, d: _Deps, strides: list[str]) -> list[Atom]:
    """A flat index `(i * n1 + j) * n2 + k` guarded or clamped at parameters
    (`i < n0`, ...): the length is the product of a leading extent and the
    strides, in int64 (`vk.int64(a.shape[0]) == vk.int64(n0) * ...`), where
    it cannot wrap to match a small length; first a guard bound that is no
    stride (`i < n` for `i * m + j`), else the stride itself (a cube)."""
    if not strides or not d.bounds or len(strides) > 3:
        return []
    wide = replace(s, wide=True)
    leads = sorted(d.bounds, key=lambda b: (b in strides, b))[:2]
    out = []
    for lead in leads:
        prod = Term("product", factors=tuple(param_term(kernel, p) for p in [lead] + strides))
        out.append(Atom("eq", wide, prod, family=-1, weaker=Atom("le", prod, wide, family=-1)))
    return out


#: The largest int32 value: a product of a launch dimension and a per-thread
#: count at most this (in int64) does not wrap in int32.
INT32_MAX = 2 ** 31 - 1


def _thread_product_atoms(kernel: Kernel, w: _Walker, index) -> list[Atom]:
    """An index from a thread index times an int32 parameter (`start = t *
    per_thread` of a run-length or chunked kernel, launched with
    `ceil(n / per_thread)` threads): the parameter is positive and the launch
    times it fits in int32 (`vk.int64(vk.launch_dim()) * vk.int64(per_thread)
    <= vk.int64(2147483647)`), so neither `t * per_thread` nor the chunk's end
    `t * per_thread + per_thread` wraps -- stated in int64, where the product
    cannot wrap to match the bound."""
    out = []
    for c, name in w.thread_products(index):
        k = param_term(kernel, name)
        prod = Term("product", factors=(Term("launch", index=c), k))
        positive = Atom("gt", k, ZERO, family=-1)
        fits = Atom("le", prod, Term("const", index=INT32_MAX, wide=True), family=-1)
        out.append(replace(fits, companions=(positive,)))
        out.append(replace(positive, companions=(fits,)))
    return out


def _indirect_ranked(a: Atom, s: Term, d: _Deps, chunk: tuple = ()) -> Atom:
    """`a` re-ranked for an index that is no thread id: a chunked one (`start =
    t * per_thread`, launched with `ceil(n / per_thread)` threads), an element
    of an index array (`out[idx[i]]`) or one computed from no thread id at all
    (a loop counter `for i in range(positions.shape[0])`). The length covers the count `n` the index
    is guarded or clamped at (`if start >= n: return`, `wp.min(start +
    per_thread, n)`) -- first; a relation between the length and the launch,
    which such launches do not keep, last; `chunk` (the chunk's int32 fit
    and positive count, `_thread_product_atoms`) is picked with that count
    (`Atom.companions`): without them a chunk start may wrap, and the query
    deciding the index without them can spend the search's whole work. Only
    ranks: every candidate is still proved."""
    launch = any(t.kind == "launch" for t in (a.lhs, a.rhs))
    if launch and a.op in ("eq", "le", "lt"):
        return replace(a, family=a.family + 10, weaker=a.weaker and replace(a.weaker, family=a.family + 10))
    if a.op == "le" and a.rhs == s and a.lhs.kind == "param" and a.lhs.name in d.bounds:
        return replace(a, family=-1, companions=a.companions + chunk)
    return a


def _scalar_atoms(kernel: Kernel, d: _Deps) -> list[Atom]:
    out = [Atom("gt", param_term(kernel, p), ZERO, family=0) for p in sorted(d.params)]
    out += [Atom("gt", Term("shape", n, m), ZERO, family=1) for n, m in sorted(d.shapes)]
    return out


def _access_at(kernel: Kernel, site: tuple[str, int]) -> facts.MemoryAccess:
    """The memory access at `site` (a race obligation's other site is one)."""
    ins = kernel.block(site[0]).instrs[site[1]]
    if not facts.accesses_memory(ins):
        raise TypeError(f"site {site} of kernel {kernel.name} is not a memory access")
    return ins


def candidates(kernel: Kernel, spec: ObligationSpec, walker: "_Walker | None" = None) -> list[Atom]:
    """The ranked candidate conjuncts for one obligation (empty when no
    template applies: its kind, or nothing it depends on, has one)."""
    w = walker or _Walker(kernel)
    lbl, pos = spec.site
    ins = kernel.block(lbl).instrs[pos]
    out: list[Atom] = []
    if spec.kind is ObligationKind.BOUNDS and facts.accesses_memory(ins) and ins.array.space == "global":
        s = Term("shape", ins.array.name, spec.dim)
        d = w.deps([ins.indices[spec.dim]], lbl)
        d.component = w.component(ins.indices[spec.dim])
        d.element = w.loaded_index_array(ins.indices[spec.dim])
        # `f[j + 1]` under `j <= W - 2`: the length is the bound plus the offset
        step = d.step = w.offset(ins.indices[spec.dim])
        d.consts |= {c + step for c in d.consts if 0 < step and c + step < 2 ** 30}
        d.type_lengths = {c + step for c in d.type_lengths} if step > 0 else d.type_lengths
        d.capped = {(idx, length) for idx in d.indexes for length in w.capped.get(idx, ())}
        d.own_indexes = w.own_deps(ins.indices[spec.dim]).indexes
        out = _length_atoms(kernel, s, d, spec.dim, w.written)
        index = ins.indices[spec.dim]
        chunked = _thread_product_atoms(kernel, w, index)
        # a flat index `i * m + j` sums the product with another index; a chunk's
        # start `t * per_thread` (+ a constant) is no flat index of a length
        flat = [] if chunked and not w.sums_indices(index) else \
            _product_atoms(kernel, s, d, w.strides(index))
        if chunked or not w.reads_thread(index):
            out = [_indirect_ranked(a, s, d, tuple(chunked)) for a in out]
        out = offset_atoms(w, s, index) + packed_row_atoms(kernel, w, s, index) + chunked + flat + \
            next_offset_atoms(w, s, index, step) + out
        if w.sums_indices(index):    # `s * 36 + beta * 12 + ...`: a row of strides, first
            out = stride_length_atoms(s, d.shapes, d.scales) + out
        if isinstance(index, Const) and 0 <= index.value < 2 ** 30:
            # `out[0]` (a result, a count): the array holds that element, whatever the
            # loop before it ran to -- first, before lengths tied to its guards
            out.insert(0, Atom("gt", s, Term("const", index=int(index.value)), family=-2))
    elif spec.kind is ObligationKind.DIV_ZERO and isinstance(ins, BinOp):
        out = _scalar_atoms(kernel, w.deps(_division_operands(ins), None))
    elif spec.kind in (ObligationKind.ASSERT, ObligationKind.INVARIANT, ObligationKind.UNASSIGNED) \
            and isinstance(ins, Assert):
        d = w.deps([ins.cond], lbl)
        out = _scalar_atoms(kernel, d)
        for name, m in sorted(d.shapes):
            out += [a for a in _length_atoms(kernel, Term("shape", name, m), d, m, w.written)
                    if a.family < 7]
    elif spec.kind is ObligationKind.RACE and spec.other is not None and facts.accesses_memory(ins):
        other = _access_at(kernel, spec.other)
        per_thread = False
        for access in (ins, other):
            d = w.deps(access.indices[:access.array.ndim], None)
            per_thread = per_thread or d.thread or bool(d.launch) or bool(d.indexes)
            if facts.writes_memory(access) and access.array.space == "global":
                out += [Atom("all_distinct", array=i, family=1) for i in sorted(d.indexes)
                        if i not in w.written and i in w.flat]
                # a segment `for k in range(off[s], off[s + 1])` written: CSR offsets are sorted
                site = spec.site if access is ins else spec.other
                ends = w.deps(access.indices[:access.array.ndim], site[0]).ends
                out += [Atom("all_sorted", array=i, family=0) for i in sorted(ends) if i not in w.written]
                # a segment's first element writes (`if i == 0 or ids[i - 1] != ids[i]`): sorted ids
                out += [Atom("all_sorted", array=i, family=0)
                        for i in sorted(segment_head_arrays(w, access, site[0]))]
        if not per_thread and ins.array.space == "global":
            # both touch elements no thread id picks (`counter[0] += 1`): Warp code
            # launches such a kernel with one thread
            out += [Atom("eq", Term("launch", index=j), Term("const", index=1), family=2)
                    for j in range(kernel.launch_ndim)]
    scans = compaction_scans(w, ins, lbl) if facts.accesses_memory(ins) else set()
    seen, ranked = set(), []
    for a in sorted(out, key=lambda a: a.family):
        if a.key() not in seen and all(n.isidentifier() for n in a.names()) and keeps(a, scans):
            seen.add(a.key())
            ranked.append(a)
    return ranked


def _division_operands(ins: BinOp) -> tuple:
    """What a division's obligation reads: the divisor, and the dividend too
    where INT_MIN / -1 may fault (facts.may_overflow)."""
    return (ins.rhs, ins.lhs) if facts.may_overflow(ins) else (ins.rhs,)


def upstream(kernel: Kernel, spec: ObligationSpec, walker: "_Walker | None" = None) -> frozenset:
    """The sites of the loads whose values the obligation's index (or
    divisor, or condition) and guards read: while one of those loads can
    be out of bounds, its value (and so this obligation) is unconstrained."""
    w = walker or _Walker(kernel)
    lbl, pos = spec.site
    ins = kernel.block(lbl).instrs[pos]
    ops: list[Operand | None]
    if spec.kind is ObligationKind.BOUNDS and facts.accesses_memory(ins):
        ops = [ins.indices[spec.dim]]
    elif spec.kind is ObligationKind.DIV_ZERO and isinstance(ins, BinOp):
        ops = list(_division_operands(ins))
    else:
        ops = list(getattr(ins, "indices", ())) or [getattr(ins, "cond", None)]
    return frozenset(w.deps([o for o in ops if o is not None], lbl).loads - {spec.site})


def walker(kernel: Kernel) -> _Walker:
    """A reusable dependency walker for `candidates` on one kernel."""
    return _Walker(kernel)
