"""A MIR kernel's launch, checked: geometry, arguments, `requires` and
array contracts -- what every device and replay needs before anything runs.

Invariant: `prepare_mir_launch` performs every check (argument dtypes,
ndims, scalar ranges, overlap, writeable outputs, launch geometry,
`requires` and array contracts) before anything runs, and every refusal is a
LaunchError/ContractError that names the kernel, the parameter and what to
do.  Resolving @vk.kernel handles and Warp kernel objects, and user-order
arguments, is verikern.runtime's job (above this layer).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from verikern.backends.contracts import check_contracts
from verikern.backends.per_kernel import per_kernel
from verikern.errors import LaunchError
from verikern.mir import facts
from verikern.mir.nodes import ArrayRef, Kernel, ScalarParam

MAX_THREADS = 2 ** 31
DEFAULT_BLOCK_DIM = 256


@dataclass(frozen=True)
class LaunchConfig:
    """dims: the launch shape (1..4 positive ints); size = prod(dims) < 2**31;
    grid_dim = ceil(size / block_dim)."""

    dims: tuple[int, ...]
    block_dim: int
    grid_dim: int
    size: int



# ------------------------------------------------------------- launch shape
def launch_config(kernel: Kernel, dim, block_dim) -> LaunchConfig:
    name = kernel.name
    dims: tuple[int, ...]
    if isinstance(dim, (numbers.Integral,)) and not isinstance(dim, bool):
        dims = (int(dim),)
    elif isinstance(dim, (tuple, list)) and dim and all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in dim):
        dims = tuple(int(d) for d in dim)
    else:
        raise LaunchError(f"kernel {name}: dim must be a positive int or a tuple of 1 to 4 "
                          f"positive ints, got {dim!r}")
    if len(dims) > 4:
        raise LaunchError(f"kernel {name}: dim has {len(dims)} dimensions; at most 4 are "
                          f"allowed")
    if any(d < 1 for d in dims):
        raise LaunchError(f"kernel {name}: every launch dimension must be >= 1, got "
                          f"{dims}; skip the launch instead of launching zero threads")
    if len(dims) != kernel.launch_ndim:
        raise LaunchError(f"kernel {name}: it unpacks vk.tid() into {kernel.launch_ndim} "
                          f"index(es), so dim must have {kernel.launch_ndim} dimension(s); "
                          f"got {dims}")
    if not isinstance(block_dim, numbers.Integral) or isinstance(block_dim, bool):
        raise LaunchError(f"kernel {name}: block_dim must be an int, got {block_dim!r}")
    block_dim = int(block_dim)
    if not 1 <= block_dim <= 1024:
        raise LaunchError(f"kernel {name}: block_dim must be in 1..1024, got {block_dim}")
    if kernel.block_dim is not None and block_dim != kernel.block_dim:
        raise LaunchError(f"kernel {name}: it is declared with @vk.kernel(block_dim="
                          f"{kernel.block_dim}); launch it with block_dim={kernel.block_dim}, "
                          f"not {block_dim}")
    size = 1
    for d in dims:
        size *= d
    if size >= MAX_THREADS:
        raise LaunchError(f"kernel {name}: the launch has {size} threads; the total must be "
                          f"below 2**31")
    if kernel.uses_block_features and size % block_dim != 0:
        raise LaunchError(f"kernel {name}: it uses shared memory or barriers, so the launch "
                          f"size ({size}) must be a multiple of block_dim ({block_dim}); "
                          f"pad the launch to {-(-size // block_dim) * block_dim} threads and "
                          f"guard the extra ones")
    return LaunchConfig(dims, block_dim, -(-size // block_dim), size)


# ------------------------------------------------------------------ arguments
def _array_type_text(ref: ArrayRef) -> str:
    inner = f" of {'x'.join(map(str, ref.inner))} elements" if ref.inner else ""
    return f"{ref.ndim}-D array of {ref.dtype.name}{inner}"


def check_array(kname: str, ref: ArrayRef, value) -> np.ndarray:
    where = f"kernel {kname}: argument {ref.name}"
    if not isinstance(value, np.ndarray):
        raise LaunchError(f"{where} must be a numpy array ({_array_type_text(ref)}), got "
                          f"{type(value).__name__}; wrap it with numpy.asarray(..., "
                          f"dtype=numpy.{ref.dtype.np_dtype.name})")
    want = ref.dtype.np_dtype
    if value.dtype != want:
        raise LaunchError(f"{where} has dtype {value.dtype}, but the kernel declares "
                          f"{ref.dtype.name}; convert it with .astype(numpy.{want.name})")
    full = ref.ndim + len(ref.inner)
    if value.ndim != full:
        shape_hint = "(n, " + ", ".join(map(str, ref.inner)) + ")" if ref.inner else ""
        extra = f" with shape {shape_hint}" if ref.inner else ""
        raise LaunchError(f"{where} has {value.ndim} dimension(s), but the kernel declares a "
                          f"{_array_type_text(ref)}: pass a {full}-D numpy array{extra}")
    if ref.inner and tuple(value.shape[ref.ndim:]) != tuple(ref.inner):
        raise LaunchError(f"{where} has shape {value.shape}; its trailing dimensions must be "
                          f"{tuple(ref.inner)} for elements of this type")
    if any(s >= MAX_THREADS for s in value.shape[:ref.ndim]):
        raise LaunchError(f"{where} has a dimension of 2**31 elements or more, which "
                          f"a.shape (int32) cannot describe")
    return value


def warp_scalar_value(value):
    """The Python number inside a Warp scalar object (`wp.int32(3)`,
    `wp.float32(0.5)`: what a kernel factory binds a capture to, as verikern's
    own hint advises), else `value` unchanged. Warp's scalar types are not
    numbers.Number; they are read by duck typing (warp is not imported)."""
    t = type(value)
    if t.__module__.split(".")[0] == "warp" and any(b.__name__ == "scalar_base" for b in t.__mro__):
        inner = getattr(value, "value", None)
        if isinstance(inner, (numbers.Number, np.generic)):
            return inner
    return value


def convert_scalar(kname: str, p: ScalarParam, value):
    t = p.value.type
    where = f"kernel {kname}: argument {p.name} ({t.name})"
    value = warp_scalar_value(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if t.is_bool:
        if isinstance(value, (bool, np.bool_)):
            return np.bool_(value)
        raise LaunchError(f"{where} must be a bool, got {value!r}")
    if t.is_int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise LaunchError(f"{where} must be an integer, got {value!r} "
                              f"({type(value).__name__}); convert it with int(...)")
        v = int(value)
        if not t.min_value <= v <= t.max_value:
            raise LaunchError(f"{where} = {v} is out of range {t.min_value}..{t.max_value}; "
                              f"pass a value that fits {t.name}")
        return t.np_dtype.type(v)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise LaunchError(f"{where} must be a number, got {value!r}")
    with np.errstate(over="ignore"):
        converted = t.np_dtype.type(value)
    if np.isinf(converted) and np.isfinite(float(value)):
        raise LaunchError(f"{where} = {value!r} is too large for {t.name} (it would become "
                          f"infinity); pass a value within +-{float(np.finfo(t.np_dtype).max):g}")
    return converted


def check_overlap(kname: str, arrays: dict) -> None:
    names = list(arrays)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            x, y = arrays[a], arrays[b]
            if np.may_share_memory(x, y) and np.shares_memory(x, y):
                raise LaunchError(f"kernel {kname}: arguments {a} and {b} overlap in memory; "
                                  f"array arguments of one launch must be distinct (pass a "
                                  f"copy, e.g. {b}.copy())")


@per_kernel
def written_globals(k: Kernel) -> frozenset[str]:
    """The global arrays `k` writes (stores and atomics), found once per
    kernel object (a launch checks that each is writeable)."""
    return frozenset(ins.array.name for _, ins in k.instructions()
                     if facts.writes_memory(ins) and ins.array.space == "global")


def prepare_mir_launch(k: Kernel, dim, inputs: list, block_dim: int | None = None):
    """Check a launch of `k` with one value per MIR parameter; return
    (k, LaunchConfig, arrays, scalars). block_dim None: the kernel's fixed
    block_dim, else 256."""
    if block_dim is None:
        block_dim = k.block_dim or DEFAULT_BLOCK_DIM
    if len(inputs) != len(k.params):
        raise LaunchError(f"kernel {k.name}: takes {len(k.params)} argument(s), "
                          f"but inputs has {len(inputs)}")
    launch = launch_config(k, dim, block_dim)
    arrays: dict = {}
    scalars: dict = {}
    for p, value in zip(k.params, inputs):
        if isinstance(p, ArrayRef):
            arrays[p.name] = check_array(k.name, p, value)
        else:
            scalars[p.name] = convert_scalar(k.name, p, value)
    check_overlap(k.name, arrays)
    for name in sorted(written_globals(k)):
        if name in arrays and not arrays[name].flags.writeable:
            raise LaunchError(f"kernel {k.name}: argument {name} is a read-only array, but the "
                              f"kernel writes it; pass a writeable array (e.g. {name}.copy())")
    check_contracts(k, launch, {n: np.ascontiguousarray(a) for n, a in arrays.items()},
                    scalars)
    return k, launch, arrays, scalars
