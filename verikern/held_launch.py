"""Launch values for arrays of structs whose elements hold arrays
(frontend/check/held_arrays.py has the model): each held 1-d array field
`h` becomes the padded 2-d array [n, W] (W the longest element's length,
rows zero-padded) and the int32 lengths [n]; each value field the array of
its values over the elements.

The struct array is a Warp struct array on the CPU (its ctypes memory is
read: each held array's data pointer, length and stride), or a list or
tuple of struct instances, objects or dicts whose held fields are numpy
arrays or Warp CPU arrays (a null array, Warp's unset field, has length 0).

Invariants (what makes the model's proof cover the launch, else a
LaunchError): the padded arrays are fresh memory the kernel only reads, so
a held array that overlaps any other array argument of the launch, whose
writes the model would not see, is refused (`check_held_overlap`); two
elements may hold the same array. A value field of a list's elements is a
copy, so a kernel that writes one is refused that input.
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from verikern.errors import LaunchError

_MARK, _LEN = "[]", "#len"


class HeldValues:
    """The packed leaves of one launch's struct arrays, and the byte ranges
    of the held arrays they were read from."""

    def __init__(self, kname: str, dtypes: dict[str, np.dtype], written: frozenset[str],
                 inner: dict[str, tuple[int, ...]] | None = None):
        self.kname = kname
        self.dtypes = dtypes        # MIR parameter name -> element dtype
        self.inner = inner or {}    # MIR parameter name -> an element's vector/matrix shape
        self.written = written      # MIR parameters the kernel writes
        self.sources: list[tuple[str, int, int]] = []   # (leaf, first byte, end byte)
        self.packed: set[int] = set()                     # id() of the arrays made here
        self._rows: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}

    def leaf(self, leaf: str, value, rest: tuple[str, ...]):
        """The launch value of `leaf`: `rest` is its path inside an element
        of the struct array `value` (a last "#len": a held array's lengths)."""
        if _MARK in rest:
            raise LaunchError(f"kernel {self.kname}: {leaf} is reached through two struct "
                              "arrays, which verikern does not model")
        elements = _elements(self.kname, leaf, value)
        if rest and rest[-1] == _LEN:
            return self._held(leaf[: -len(".len")], elements, rest[:-1])[1]
        if (leaf + ".len") in self.dtypes:   # a held array: its padded rows
            return self._held(leaf, elements, rest)[0]
        if isinstance(elements, np.ndarray):   # a Warp struct array's memory: a view
            out = elements
            for attr in rest:
                out = out[attr]
            return out
        if leaf in self.written:
            raise LaunchError(f"kernel {self.kname}: the kernel writes {leaf}, a field of the "
                              "elements of a list of structs, which verikern can only copy; pass "
                              "a Warp struct array (wp.array(..., dtype=S))")
        vals = [_field(self.kname, leaf, e, rest) for e in elements]
        out = np.array([np.asarray(v) for v in vals], dtype=self.dtypes[leaf])
        self.packed.add(id(out))
        return out

    def _held(self, leaf: str, elements, rest) -> tuple[np.ndarray, np.ndarray]:
        key = (id(elements), leaf)
        if key not in self._rows:
            rows = [self._row(leaf, e, rest) for e in _iter(elements)]
            width = max((len(r) for r in rows), default=0)
            padded = np.zeros((len(rows), width) + self.inner.get(leaf, ()), dtype=self.dtypes[leaf])
            for b, r in enumerate(rows):
                padded[b, :len(r)] = r
            lengths = np.array([len(r) for r in rows], dtype=np.int32)
            self.packed |= {id(padded), id(lengths)}
            self._rows[key] = (padded, lengths)
        return self._rows[key]

    def _row(self, leaf: str, element, rest) -> np.ndarray:
        v = element
        if isinstance(element, np.void):   # a Warp struct array's record: an array_t
            for attr in rest:
                v = v[attr]
            return self._from_pointer(leaf, v)
        v = _field(self.kname, leaf, element, rest)
        if v is None:
            return self._empty(leaf)
        if not isinstance(v, np.ndarray):
            device = getattr(v, "device", None)
            if device is not None and not getattr(device, "is_cpu", True):
                raise LaunchError(f"kernel {self.kname}: {leaf} holds a GPU array; pass CPU arrays")
            v = v.numpy()
        inner = self.inner.get(leaf, ())
        if v.ndim != 1 + len(inner) or v.shape[1:] != inner or v.dtype != self.dtypes[leaf]:
            raise LaunchError(f"kernel {self.kname}: {leaf} holds an array of shape {v.shape} and "
                              f"{v.dtype}, the struct declares a 1-d array of {self.dtypes[leaf]}"
                              + (f" elements of shape {inner}" if inner else ""))
        if v.size:
            lo, hi = _byte_bounds(v)
            self.sources.append((leaf, lo, hi))
        return v

    def _empty(self, leaf: str) -> np.ndarray:
        return np.zeros((0,) + self.inner.get(leaf, ()), dtype=self.dtypes[leaf])

    def _from_pointer(self, leaf: str, rec) -> np.ndarray:
        ptr, n, stride = int(rec["data"]), int(rec["shape"][0]), int(rec["strides"][0])
        if ptr == 0 or n == 0:
            return self._empty(leaf)
        if int(rec["ndim"]) != 1:
            raise LaunchError(f"kernel {self.kname}: {leaf} holds a {int(rec['ndim'])}-d array")
        dt, inner = self.dtypes[leaf], self.inner.get(leaf, ())
        size = dt.itemsize * int(np.prod(inner, dtype=np.int64))   # one element (a vector's components)
        span = (n - 1) * stride + size
        raw = memoryview((ctypes.c_ubyte * span).from_address(ptr)).cast("B")
        inner_strides = tuple(int(x) for x in np.zeros(inner, dtype=dt).strides) if inner else ()
        view = np.ndarray((n,) + inner, dtype=dt, buffer=raw,   # checks the extent
                          strides=(stride,) + inner_strides)
        self.sources.append((leaf, ptr, ptr + span))
        return np.array(view)


def check_held_overlap(kname: str, held: HeldValues, others: dict[str, np.ndarray]) -> None:
    """Refuse a launch where a held array overlaps another array argument
    (see the module docstring)."""
    for name, arr in others.items():
        if id(arr) in held.packed or not isinstance(arr, np.ndarray) or arr.size == 0:
            continue
        lo, hi = _byte_bounds(arr)
        for leaf, a, b in held.sources:
            if a < hi and lo < b:
                raise LaunchError(f"kernel {kname}: an array held by {leaf} overlaps the argument "
                                  f"{name}; the arrays held by struct array elements must be "
                                  "distinct from the launch's other arrays (pass a copy)")


def _byte_bounds(a: np.ndarray) -> tuple[int, int]:
    """The first and past-the-end byte addresses of `a`'s memory."""
    fn: Any = getattr(getattr(np.lib, "array_utils", None), "byte_bounds", None) \
        or getattr(np, "byte_bounds", None)   # numpy < 2
    lo, hi = fn(a)
    return int(lo), int(hi)


def _elements(kname: str, leaf: str, value):
    """A struct array as something `_iter` walks: a Warp struct array's
    structured memory (CPU only), or the list/tuple itself."""
    if isinstance(value, (list, tuple)):
        return value
    if isinstance(value, np.ndarray) and value.dtype.names is not None:
        return value
    if callable(getattr(value, "numpy", None)):
        device = getattr(value, "device", None)
        if device is not None and not getattr(device, "is_cpu", True):
            raise LaunchError(f"kernel {kname}: {leaf} is read from a GPU struct array; pass a CPU one")
        host = value.numpy()
        if isinstance(host, np.ndarray) and host.dtype.names is not None:
            return host
    raise LaunchError(f"kernel {kname}: {leaf} is read from {type(value).__name__}; pass a Warp "
                      "struct array or a list of struct instances")


def _iter(elements):
    return list(elements) if not isinstance(elements, np.ndarray) else [elements[i] for i in range(len(elements))]


def _field(kname: str, leaf: str, element, rest):
    v = element
    for attr in rest:
        try:
            v = v[attr] if isinstance(v, dict) else getattr(v, attr)
        except (KeyError, AttributeError):
            raise LaunchError(f"kernel {kname}: an element has no field {'.'.join(rest)} "
                              f"(for {leaf})") from None
    return v
