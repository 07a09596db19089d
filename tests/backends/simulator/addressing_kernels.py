"""Kernels that exercise every shape of an element address, written as source
text, with an independent numpy reference (tests/backends/simulator/
test_sim_addressing.py runs them on the simulator and on cpu:native).

One `AddressCase` is an array of 1 to 4 logical dimensions (extents
SHAPE[:ndim]), shared (row- or column-major) or global, whose elements are
int32 scalars, vec3 or mat22. Its kernel (one block of BLOCK threads per
block; shared arrays: NBLOCKS blocks, each with its own copy):

1. fills every element from `src` (every index varying per lane);
2. runs one phase per subset of the dimensions: the dimensions in the subset
   take indices that vary per lane (a strided loop over their elements), the
   others a uniform index -- a literal for even dimensions, one computed from
   the scalar parameter `c` for odd ones -- and writes `src[same index] +
   bump(block, phase)` there;
3. after the fill and after every phase (a barrier either side), copies the
   whole array to `snap[block, phase, flat element]`;
4. reads one element per lane for every subset (varying dimensions indexed
   `(5 * t + block + k) % extent`, the others uniform as in 2) into
   `rd[global thread, subset]`.

Every access of the array, of `src`, of `snap` and of `rd` mixes uniform and
per-lane index parts, with the vector/matrix component indices (constants)
last: a dropped or misplaced term of the flat address shows as a wrong value
in `snap` or `rd`. The kernels are well defined: each phase writes distinct
elements, barriers separate phases, every element is written before it is
read.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

SHAPE = (3, 4, 2, 3)
BLOCK = 8
#: subsets per kernel: a kernel's native compile time grows faster than its
#: barrier count, so a 3-D or 4-D array's subsets are split over kernels
PER_KERNEL = 4
NBLOCKS = 3
#: element kind -> (source spelling, inner shape)
ELEMENTS = {"int32": ("vk.int32", ()), "vec3": ("vk.vec3", (3,)), "mat22": ("vk.mat22", (2, 2))}


@dataclass(frozen=True)
class AddressCase:
    ndim: int
    space: str            # "shared" | "global"
    layout: str           # "row_major" | "column_major" (shared only)
    element: str          # a key of ELEMENTS
    part: int = 0         # which PER_KERNEL subsets (of every subset) this kernel covers

    @property
    def name(self) -> str:
        lay = "" if self.layout == "row_major" else "_cm"
        return f"{self.space}{self.ndim}d{lay}_{self.element}_{self.part}"

    @property
    def shape(self) -> tuple[int, ...]:
        return SHAPE[:self.ndim]

    @property
    def inner(self) -> tuple[int, ...]:
        return ELEMENTS[self.element][1]

    @property
    def subsets(self) -> list[tuple[int, ...]]:
        """This part's subsets of the dimensions, the varying ones of a phase or read."""
        return every_subset(self.ndim)[self.part * PER_KERNEL:(self.part + 1) * PER_KERNEL]

    @property
    def blocks(self) -> int:
        return NBLOCKS if self.space == "shared" else 1


def every_subset(ndim: int) -> list[tuple[int, ...]]:
    dims = range(ndim)
    return [s for r in range(ndim + 1) for s in itertools.combinations(dims, r)]


def all_cases() -> list[AddressCase]:
    """Every (dims, space, layout, element), each split in parts that
    together cover every subset of its dimensions."""
    out = []
    for ndim in (1, 2, 3, 4):
        parts = -(-len(every_subset(ndim)) // PER_KERNEL)
        for element in ELEMENTS:
            for part in range(parts):
                out.append(AddressCase(ndim, "global", "row_major", element, part))
                for layout in ("row_major", "column_major"):
                    out.append(AddressCase(ndim, "shared", layout, element, part))
    return out


# ---------------------------------------------------------------- index text
def _uniform(k: int, phase: int, extent: int) -> tuple[str, object]:
    """The uniform index of dimension k in `phase`: (source text, function c -> value)."""
    v = (phase + k) % extent
    if k % 2 == 0:
        return str(v), (lambda c: v)
    return f"(c + {phase + k}) % {extent}", (lambda c: (c + phase + k) % extent)


def _decompose(var: str, dims: tuple[int, ...], shape: tuple[int, ...]) -> dict[int, str]:
    """Row-major decomposition of the loop variable over `dims`: {dim: text}."""
    out, below = {}, 1
    for k in reversed(dims):
        out[k] = f"{var} // {below} % {shape[k]}" if below != 1 else f"{var} % {shape[k]}"
        below *= shape[k]
    return out


def _count(dims: tuple[int, ...], shape: tuple[int, ...]) -> int:
    n = 1
    for k in dims:
        n *= shape[k]
    return n


def _value(case: AddressCase, index: str, bump: str) -> str:
    if case.element == "int32":
        return f"src[{index}] + ({bump})"
    spelling = ELEMENTS[case.element][0]
    comps = 3 if case.element == "vec3" else 4
    return f"src[{index}] + {spelling}({', '.join(['w'] * comps)})"


def source(case: AddressCase, checked: bool = False) -> str:
    """The kernel's source text (a module with one kernel, `addr`).
    `checked`: two more parameters, `want_snap` and `want_rd` (the
    reference's snap and rd), and asserts at the end that every element
    the thread wrote to snap and rd equals them, component by component --
    for backends that report failed checks rather than hand back arrays
    (the C replay)."""
    elem, _ = ELEMENTS[case.element]
    shape, d = case.shape, case.ndim
    every = tuple(range(d))
    total = _count(every, shape)
    params = [f"src: vk.array(dtype={elem}, ndim={d})"]
    if case.space == "global":
        params.append(f"s: vk.array(dtype={elem}, ndim={d})")
    params += [f"snap: vk.array(dtype={elem}, ndim=3)", f"rd: vk.array(dtype={elem}, ndim=2)"]
    if checked:
        params += [f"want_snap: vk.array(dtype={elem}, ndim=3)",
                   f"want_rd: vk.array(dtype={elem}, ndim=2)"]
    params.append("c: vk.int32")
    lines = ["import verikern as vk", "", "", f"@vk.kernel(block_dim={BLOCK})",
             f"def addr({', '.join(params)}):"]
    body = []
    if case.space == "shared":
        lay = "" if case.layout == "row_major" else ', layout="column_major"'
        body.append(f"s = vk.shared.array(shape={shape}, dtype={elem}{lay})")
    body += ["t = vk.thread_idx()", "b = vk.block_idx()"]

    def write_phase(phase: int, varying: tuple[int, ...]) -> None:
        parts = _decompose("e", varying, shape)
        idx = ", ".join(parts[k] if k in parts else _uniform(k, phase, shape[k])[0]
                        for k in range(d))
        bump = f"b * 100000 + {phase * 1000}"
        body.append(f"for e in range(t, {_count(varying, shape)}, {BLOCK}):")
        if case.element != "int32":
            body.append(f"    w = float({bump})")
        body.append(f"    s[{idx}] = {_value(case, idx, bump)}")
        body.append("vk.sync_threads()")
        parts = _decompose("e", every, shape)
        whole = ", ".join(parts[k] for k in range(d))
        body.append(f"for e in range(t, {total}, {BLOCK}):")
        body.append(f"    snap[b, {phase}, e] = s[{whole}]")
        body.append("vk.sync_threads()")

    write_phase(0, every)
    for p, varying in enumerate(case.subsets, start=1):
        write_phase(p, varying)
    final = len(case.subsets) + 1
    for m, varying in enumerate(case.subsets):
        idx = ", ".join(f"(5 * t + b + {k}) % {shape[k]}" if k in varying
                        else _uniform(k, final, shape[k])[0] for k in range(d))
        body.append(f"rd[b * {BLOCK} + t, {m}] = s[{idx}]")
    if checked:
        comps = [""] + [f"[{j}]" for j in range(3)] if case.element == "vec3" else \
            [f"[{i}, {j}]" for i in range(2) for j in range(2)] if case.element == "mat22" else [""]
        comps = [x for x in comps if x or case.element == "int32"]
        for m in range(len(case.subsets)):
            for x in comps:
                body.append(f"assert rd[b * {BLOCK} + t, {m}]{x} == want_rd[b * {BLOCK} + t, {m}]{x}")
        body.append(f"for p in range({final}):")
        body.append(f"    for e in range(t, {total}, {BLOCK}):")
        for x in comps:
            body.append(f"        assert snap[b, p, e]{x} == want_snap[b, p, e]{x}")
    lines += ["    " + ln for ln in body]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------- reference
def inputs(case: AddressCase, seed: int = 0, c: int = 5) -> list:
    """Fresh launch inputs in parameter order."""
    rng = np.random.default_rng(seed)
    full = case.shape + case.inner
    dtype = np.int32 if case.element == "int32" else np.float32
    src = rng.integers(-50, 50, size=full).astype(dtype)
    phases = len(case.subsets) + 1
    total = _count(tuple(range(case.ndim)), case.shape)
    snap = np.full((case.blocks, phases, total) + case.inner, -7, dtype)
    rd = np.full((case.blocks * BLOCK, len(case.subsets)) + case.inner, -7, dtype)
    out = [src]
    if case.space == "global":
        out.append(np.full(full, -3, dtype))
    return out + [snap, rd, c]


def reference(case: AddressCase, args: list) -> list:
    """The arrays the kernel must leave (in parameter order), computed with
    numpy multi-indices, not flat addresses."""
    src, c = args[0], args[-1]
    out = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    snap, rd = out[-3], out[-2]
    shape, d = case.shape, case.ndim
    every = tuple(range(d))
    cells = list(itertools.product(*(range(n) for n in shape)))

    def phase(arr: np.ndarray, b: int, p: int, varying: tuple[int, ...]) -> None:
        ranges = [range(shape[k]) if k in varying else [_uniform(k, p, shape[k])[1](c)]
                  for k in range(d)]
        for ix in itertools.product(*ranges):
            arr[ix] = src[ix] + src.dtype.type(b * 100000 + p * 1000)
        for e, ix in enumerate(cells):
            snap[(b, p, e)] = arr[ix]

    for b in range(case.blocks):
        arr = out[1] if case.space == "global" else np.zeros(shape + case.inner, src.dtype)
        phase(arr, b, 0, every)
        for p, varying in enumerate(case.subsets, start=1):
            phase(arr, b, p, varying)
        final = len(case.subsets) + 1
        for t in range(BLOCK):
            for m, varying in enumerate(case.subsets):
                ix = tuple((5 * t + b + k) % shape[k] if k in varying
                           else _uniform(k, final, shape[k])[1](c) for k in range(d))
                rd[(b * BLOCK + t, m)] = arr[ix]
    return out


# ---------------------------------------------------- global only, no barriers
#: real Warp kernels (tests/warp_compat/test_warp_addressing.py): what Warp
#: can express of the above -- global arrays, every uniform/varying mix of
#: their indices, read (1-4 dims) and written (1-3 dims: a slab per subset)
WARP_ELEMENTS = {"int32": ("wp.int32", ()), "vec3": ("wp.vec3", (3,)), "mat22": ("wp.mat22", (2, 2))}
WARP_THREADS = 40


def warp_kernel_name(ndim: int, element: str) -> str:
    return f"gather{ndim}d_{element}"


def warp_source() -> str:
    """A Warp module with one kernel per (dims, element): thread g reads
    src at every subset's index into rd[g, subset] and, for up to 3 dims,
    copies src into dst[subset, index] at the subset's written index (the
    varying dimensions decomposed from g, guarded by their element count)."""
    lines = ["import warp as wp", ""]
    for ndim in (1, 2, 3, 4):
        shape = SHAPE[:ndim]
        for element, (spelling, _) in WARP_ELEMENTS.items():
            writes = ndim <= 3
            params = [f"src: wp.array(dtype={spelling}, ndim={ndim})",
                      f"rd: wp.array(dtype={spelling}, ndim=2)"]
            if writes:
                params.append(f"dst: wp.array(dtype={spelling}, ndim={ndim + 1})")
            params.append("c: int")
            lines += ["", "@wp.kernel", f"def {warp_kernel_name(ndim, element)}({', '.join(params)}):",
                      "    g = wp.tid()"]
            for m, varying in enumerate(every_subset(ndim)):
                idx = ", ".join(f"(5 * g + {k}) % {shape[k]}" if k in varying
                                else _uniform(k, m, shape[k])[0] for k in range(ndim))
                lines.append(f"    rd[g, {m}] = src[{idx}]")
                if writes:
                    parts = _decompose("g", varying, shape)
                    widx = ", ".join(parts[k] if k in parts else _uniform(k, m, shape[k])[0]
                                     for k in range(ndim))
                    lines += [f"    if g < {_count(varying, shape)}:",
                              f"        dst[{m}, {widx}] = src[{widx}]"]
    return "\n".join(lines) + "\n"


def warp_inputs(ndim: int, element: str, c: int = 5) -> list:
    rng = np.random.default_rng(ndim)
    inner = WARP_ELEMENTS[element][1]
    dtype = np.int32 if element == "int32" else np.float32
    shape = SHAPE[:ndim]
    subsets = len(every_subset(ndim))
    out = [rng.integers(-50, 50, size=shape + inner).astype(dtype),
           np.full((WARP_THREADS, subsets) + inner, -7, dtype)]
    if ndim <= 3:
        out.append(np.full((subsets,) + shape + inner, -7, dtype))
    return out + [c]


def warp_reference(ndim: int, element: str, args: list) -> list:
    src, c = args[0], args[-1]
    out = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    shape = SHAPE[:ndim]
    for m, varying in enumerate(every_subset(ndim)):
        for g in range(WARP_THREADS):
            ix = tuple((5 * g + k) % shape[k] if k in varying else _uniform(k, m, shape[k])[1](c)
                       for k in range(ndim))
            out[1][(g, m)] = src[ix]
        if ndim <= 3:
            ranges = [range(shape[k]) if k in varying else [_uniform(k, m, shape[k])[1](c)]
                      for k in range(ndim)]
            for ix in itertools.product(*ranges):
                out[2][(m,) + ix] = src[ix]
    return out
