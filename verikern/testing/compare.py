"""Comparing the outputs of two runs of a kernel.

Invariants (docs/LANGUAGE.md section 6): integers and bools must be equal
bit for bit; floats agree when within `rtol` relative or `ulps` units in
the last place (1e-6 / 4 ULP with fast_math off, 1e-5 / 64 ULP with it on,
the tolerance differential tests state), with NaN equal to NaN (any
payload) and +0.0 equal to -0.0. A run that stopped with a kernel runtime
error agrees only with a run that stopped with the same kind of error.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

RTOL, ULPS = 1e-6, 4
FAST_RTOL, FAST_ULPS = 1e-5, 64


@dataclass(frozen=True)
class Tolerance:
    rtol: float = RTOL
    ulps: int = ULPS
    atol: float = 0.0

    @staticmethod
    def for_kernel(kernel) -> "Tolerance":
        return Tolerance(FAST_RTOL, FAST_ULPS) if getattr(kernel, "fast_math", False) else Tolerance()

    def __str__(self) -> str:
        if self.atol:
            return f"rtol {self.rtol:g}, atol {self.atol:g}"
        return f"{self.rtol:g} relative or {self.ulps} ULP"


@dataclass(frozen=True)
class RunError:
    """A run that stopped: `kind` (out-of-bounds, assert, ...) and the message."""

    kind: str
    message: str

    def __str__(self) -> str:
        return f"stopped with {self.kind}: {self.message}"


@dataclass(frozen=True)
class Difference:
    """Where two outcomes first differ: `array` (None when one run stopped),
    the element `index`, and both values as text."""

    array: str | None
    index: tuple[int, ...]
    left: str
    right: str
    count: int = 1

    def describe(self, left_name: str, right_name: str) -> str:
        if self.array is None:
            return f"{left_name}: {self.left}\n{right_name}: {self.right}"
        idx = ", ".join(map(str, self.index))
        more = f" (and {self.count - 1} more element{'s' if self.count > 2 else ''})" \
            if self.count > 1 else ""
        return (f"{self.array}[{idx}] differs{more}:\n"
                f"  {left_name}: {self.left}\n  {right_name}: {self.right}")


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place of their float type (0 for NaN vs
    NaN, and for +0.0 vs -0.0)."""
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia = a.view(ints).astype(np.int64)
    ib = b.view(ints).astype(np.int64)
    lo = np.iinfo(ints).min
    ia = np.where(ia < 0, lo - ia, ia)     # sign-magnitude to a monotonic integer line
    ib = np.where(ib < 0, lo - ib, ib)
    dist = np.abs(ia - ib)
    return np.where(np.isnan(a) & np.isnan(b), 0, dist)


def close_mask(a: np.ndarray, b: np.ndarray, tol: Tolerance) -> np.ndarray:
    """Elementwise agreement of two arrays of one dtype and shape."""
    if a.dtype.kind != "f":
        return a == b
    with np.errstate(all="ignore"):
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        finite = np.isfinite(a) & np.isfinite(b)
        rel = np.abs(a.astype(np.float64) - b.astype(np.float64)) <= \
            tol.rtol * np.maximum(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
        return same | (finite & (rel | (ulp_distance(a, b) <= tol.ulps)))


def _text(v) -> str:
    if isinstance(v, np.floating):
        return f"{float(v)!r} ({v.dtype}, bits 0x{v.view(np.dtype(f'u{v.itemsize}')).item():0{2 * v.itemsize}x})"
    return repr(v.item() if hasattr(v, "item") else v)


def first_difference(left: Mapping[str, Any] | RunError, right: Mapping[str, Any] | RunError,
                     tol: Tolerance) -> Difference | None:
    """None when the outcomes agree, else where they first differ (arrays in
    parameter order, elements in C order)."""
    if isinstance(left, RunError) or isinstance(right, RunError):
        if isinstance(left, RunError) and isinstance(right, RunError) and left.kind == right.kind:
            return None
        return Difference(None, (), str(left) if isinstance(left, RunError) else "ran to the end",
                          str(right) if isinstance(right, RunError) else "ran to the end")
    for name, a in left.items():
        b = right[name]
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return Difference(name, (), f"{a.dtype}{list(a.shape)}", f"{b.dtype}{list(b.shape)}")
        ok = close_mask(a, b, tol)
        if not ok.all():
            bad = np.argwhere(~ok)
            idx = tuple(int(i) for i in bad[0])
            return Difference(name, idx, _text(a[idx]), _text(b[idx]), int(bad.shape[0]))
    return None
