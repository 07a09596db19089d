"""The kernel language's Python surface (`import verikern as vk`).

Kernel and func bodies are never executed: `@vk.kernel` returns a
KernelHandle whose MIR is compiled lazily from the defining file's source
(via `verikern.frontend.compile_file`). Types are usable on the host
(`vk.float32(1.5)` gives a numpy scalar, `vk.vec3(1, 2, 3)` a numpy array);
every builtin (`vk.tid`, `vk.atomic_add`, `vk.sqrt`, ...) is an object that
raises KernelOnlyError when called from plain Python.

Invariant: nothing here imports the frontend until a handle's `.mir`/`.hir`
is read, so importing a kernel module stays cheap.
"""
from __future__ import annotations

import builtins
import inspect
import math
import os
from dataclasses import dataclass

import numpy as np

from verikern.errors import KernelError, VerikernError
from verikern.mir.nodes import SourceLoc
from verikern.mir.types import SCALAR_TYPES


class KernelOnlyError(VerikernError, RuntimeError):
    """A kernel-language builtin was called from plain Python."""


# ------------------------------------------------------------------ types
@dataclass(frozen=True)
class ScalarTypeHandle:
    """`vk.float32` etc.: an annotation in kernels, a numpy cast on the host."""

    name: str

    @property
    def mir(self):
        return SCALAR_TYPES[self.name]

    @property
    def np_dtype(self) -> np.dtype:
        return self.mir.np_dtype

    def __call__(self, value=0):
        return self.np_dtype.type(value)

    def __repr__(self):
        return f"vk.{self.name}"


@dataclass(frozen=True)
class VectorTypeHandle:
    """`vk.vec3`, `vk.mat33`, `vk.quat`, `vk.transform`, ...: float32 value types; on the host,
    calling builds a numpy float32 array of `shape`."""

    name: str
    shape: tuple

    @property
    def length(self) -> int:
        return int(np.prod(self.shape))

    @property
    def np_dtype(self) -> np.dtype:
        return np.dtype(np.float32)

    def __call__(self, *components):
        if not components:
            return np.zeros(self.shape, np.float32)
        if len(components) == 1 and self.length > 1:
            c = np.asarray(components[0], np.float32)
            return np.broadcast_to(c, self.shape).copy() if c.ndim == 0 else c.reshape(self.shape)
        return np.asarray(components, np.float32).reshape(self.shape)

    def __repr__(self):
        return f"vk.{self.name}"


for _n in SCALAR_TYPES:
    globals()[_n] = ScalarTypeHandle(_n)
bool_ = ScalarTypeHandle("bool")
vec2 = VectorTypeHandle("vec2", (2,))
vec3 = VectorTypeHandle("vec3", (3,))
vec4 = VectorTypeHandle("vec4", (4,))
mat22 = VectorTypeHandle("mat22", (2, 2))
mat33 = VectorTypeHandle("mat33", (3, 3))
mat44 = VectorTypeHandle("mat44", (4, 4))
quat = VectorTypeHandle("quat", (4,))
transform = VectorTypeHandle("transform", (7,))   # p (3) then q (4), Warp's layout
spatial_vector = VectorTypeHandle("spatial_vector", (6,))
spatial_matrix = VectorTypeHandle("spatial_matrix", (6, 6))


def struct(cls):
    """`@vk.struct` (Warp's `@wp.struct`): a class of annotated fields, used
    as a kernel or func parameter type and as a local (`s = S()`). On the
    host it stays the plain class: an instance with its fields set as
    attributes (or a dict of them) is what `vk.launch` takes."""
    return cls


def _dtype_handle(dtype):
    if dtype is int:
        return ScalarTypeHandle("int32")
    if dtype is float:
        return ScalarTypeHandle("float32")
    if dtype is builtins.bool:
        return ScalarTypeHandle("bool")
    if isinstance(dtype, (ScalarTypeHandle, VectorTypeHandle)):
        return dtype
    raise TypeError(f"unsupported array dtype {dtype!r}; use a verikern scalar or vector type")


@dataclass(frozen=True)
class ArrayType:
    """`vk.array(dtype=T, ndim=N)`: an array parameter annotation."""

    dtype: object
    ndim: int = 1

    def __repr__(self):
        return f"vk.array(dtype={self.dtype!r}, ndim={self.ndim})"


def array(dtype=None, ndim: int = 1, shape=None) -> ArrayType:
    if dtype is None:
        raise TypeError("vk.array needs a dtype, e.g. vk.array(dtype=vk.float32)")
    if not isinstance(ndim, int) or not 1 <= ndim <= 4:
        raise TypeError("vk.array ndim must be 1..4")
    return ArrayType(_dtype_handle(dtype), ndim)


def array1d(dtype=None):
    return array(dtype, 1)


def array2d(dtype=None):
    return array(dtype, 2)


def array3d(dtype=None):
    return array(dtype, 3)


def array4d(dtype=None):
    return array(dtype, 4)


# --------------------------------------------------------------- builtins
class Builtin:
    """A kernel-only builtin; calling it from Python raises KernelOnlyError."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise KernelOnlyError(
            f"vk.{self.name}() can only be used inside a @vk.kernel or @vk.func body; kernel "
            "bodies are compiled, never executed in Python. Launch kernels with vk.launch(...)")

    def __repr__(self):
        return f"<verikern builtin {self.name}>"


BUILTIN_NAMES = (
    "tid", "thread_idx", "block_idx", "block_dim", "grid_dim", "launch_dim",
    "sync_threads", "block_until",
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_exch", "atomic_cas",
    "atomic_and", "atomic_or", "atomic_xor",
    "all_in_range", "all_distinct", "all_sorted", "invariant",
    "min", "max", "clamp", "abs", "floor", "ceil", "sqrt", "sqrt_precise", "sin", "cos",
    "tan", "exp", "log", "erf", "erfc", "pow", "atan2",
    "dot", "cross", "length", "length_sq", "normalize", "cw_mul", "cw_div", "mul",
    "quat_rotate", "quat_inverse", "quat_identity", "quat_from_axis_angle", "transpose",
    "quat_rotate_inv", "quat_to_matrix", "transform_identity", "transform_point",
    "transform_vector", "transform_multiply", "transform_inverse", "transform_get_translation",
    "transform_get_rotation", "spatial_top", "spatial_bottom", "spatial_dot", "spatial_cross",
    "spatial_cross_dual", "spatial_adjoint", "inverse", "determinant", "outer", "diag",
    "get_diag", "skew", "ddot", "identity", "matrix_from_rows", "matrix_from_cols",
    "where", "select",
    "isnan", "isinf", "isfinite", "lerp", "mod", "quat_rpy", "smoothstep", "sign", "static",
    "radians", "degrees", "rand_init", "randi", "randu", "randf", "randn",
    "expect_eq", "expect_neq", "expect_near", "lower_bound",
)
for _n in BUILTIN_NAMES:
    globals()[_n] = Builtin(_n)


def requires(condition):
    """`@vk.requires(lambda x, y: ...)` above or below `@vk.kernel` /
    `@wp.kernel`: a launch precondition (docs/LANGUAGE.md section 5). At run time
    the decorator returns the kernel unchanged, so Warp launches it as
    before; the frontend reads the lambda from the source, the prover assumes
    it and vk.launch / vk.check_launch check it. The in-body form
    `vk.requires(cond)` is kernel code, never run in Python."""
    if callable(condition) and not isinstance(condition, Builtin):
        return lambda kernel_or_function: kernel_or_function
    raise KernelOnlyError(
        "vk.requires(cond) can only be used inside a @vk.kernel body; above or below the "
        "@kernel decorator write @vk.requires(lambda x, y: ...)")


class _SharedNamespace:
    """`vk.shared.array(shape=..., dtype=...)`, kernel-only."""

    array = Builtin("shared.array")

    def __repr__(self):
        return "<verikern shared memory>"


shared = _SharedNamespace()

pi = math.pi
e = math.e
tau = math.tau
inf = math.inf


def constant(value):
    """`X = vk.constant(5)`: a module constant visible in kernels (as in Warp)."""
    return value


_MODULE_OPTIONS: dict[str, dict] = {}


def set_module_options(options: dict, module: str | None = None) -> None:
    """Record module options (the frontend reads them from the source text)."""
    if not isinstance(options, dict) or set(options) - {"fast_math", "enable_backward", "mode"}:
        raise TypeError('set_module_options takes a dict such as {"fast_math": True}')
    if module is None:
        here = inspect.currentframe()
        frame = here.f_back if here is not None else None
        module = frame.f_globals.get("__name__", "__main__") if frame else "__main__"
    _MODULE_OPTIONS.setdefault(module, {}).update(options)


def get_module_options(module: str) -> dict:
    return dict(_MODULE_OPTIONS.get(module, {}))


# ------------------------------------------------------ kernels and funcs
_COMPILED: dict[tuple, object] = {}


def _compile_cached(path: str):
    from verikern.frontend import compile_file  # lazy: `import verikern` stays light
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        stamp = None
    key = (path, stamp)
    if key not in _COMPILED:
        _COMPILED[key] = compile_file(path)
    return _COMPILED[key]


class KernelHandle:
    """What `@vk.kernel` returns: `.name`, `.source_file`, `.block_dim`, and
    `.mir` / `.hir` compiled lazily from the defining file (KernelError if
    the kernel does not compile)."""

    def __init__(self, fn, block_dim: int | None = None):
        self.fn = fn
        self.name = fn.__name__
        self.block_dim = block_dim
        try:
            self.source_file = inspect.getsourcefile(fn)
        except TypeError:
            self.source_file = None
        try:
            self.line = inspect.getsourcelines(fn)[1]
        except (OSError, TypeError):
            self.line = 0
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    @property
    def loc(self) -> SourceLoc:
        return SourceLoc(self.source_file or "<unknown>", self.line, 1)

    def result(self):
        if not self.source_file or not os.path.exists(self.source_file):
            raise KernelError(f"cannot find the source file of kernel {self.name!r}; define "
                              "kernels in a .py file", self.loc, rule="no-source",
                              hint="verikern compiles kernels from their file's source")
        module = _compile_cached(self.source_file)
        same = [k for k in module.kernels if k.name == self.name]
        if len(same) > 1:   # kernel factories: the one whose `def` follows our first line
            after = [k for k in same if k.loc.line >= self.line]
            return min(after or same, key=lambda k: k.loc.line)
        try:
            return module.kernel(self.name)
        except KeyError:
            for err in module.errors:
                raise err from None
            raise KernelError(f"kernel {self.name!r} was not found in {self.source_file}",
                              self.loc, rule="no-source",
                              hint="decorate it at module level with @vk.kernel") from None

    def overloads(self) -> list:
        """The compiled instances of a generic kernel (`name[int8]`, ...:
        frontend/check/generic_kernels.py)."""
        if not self.source_file or not os.path.exists(self.source_file):
            return []
        module = _compile_cached(self.source_file)
        return [k for k in module.kernels if k.name.startswith(self.name + "[")]

    @property
    def hir(self):
        r = self.result()
        if r.error is not None:
            raise r.error
        return r.hir

    @property
    def mir(self):
        r = self.result()
        if r.error is not None:
            raise r.error
        return r.mir

    @property
    def ptx(self) -> str:
        """PTX for sm_80 (other archs: verikern.backends.ptx.ptx_for(handle, arch))."""
        from verikern.backends.ptx import ptx_for  # lazy: `import verikern` stays light

        return ptx_for(self)

    def __call__(self, *args, **kwargs):
        raise KernelOnlyError(f"kernel {self.name!r} cannot be called directly; launch it "
                              f"with vk.launch({self.name}, dim, inputs=[...])")

    def __repr__(self):
        return f"<verikern kernel {self.name} from {self.source_file}>"


class FuncHandle:
    """What `@vk.func` returns: callable only from kernels."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __call__(self, *args, **kwargs):
        raise KernelOnlyError(f"@vk.func {self.name!r} can only be called from a kernel or "
                              "another @vk.func")

    def __repr__(self):
        return f"<verikern func {self.name}>"


def kernel(fn=None, *, block_dim: int | None = None, **warp_options):
    """`@vk.kernel` or `@vk.kernel(block_dim=256)`."""
    if block_dim is not None and (not isinstance(block_dim, int) or not 1 <= block_dim <= 1024):
        raise TypeError("block_dim must be an int in 1..1024")
    if fn is None:
        return lambda f: KernelHandle(f, block_dim)
    return KernelHandle(fn, block_dim)


def func(fn):
    """`@vk.func`: a device function, inlined into the kernels that call it."""
    return FuncHandle(fn)
