"""Running MIR kernels on an NVIDIA GPU: the `"cuda:N"` device of verikern.runtime.

Invariant: `run` either writes every array's final device contents back into
`arrays` and returns, or raises (DeviceUnavailableError before any work when
the device is missing; KernelRuntimeError when the kernel faults) and frees
whatever it allocated. Loaded modules are cached per (kernel, device, arch,
fast_math); the PTX is JIT-compiled by the driver, and when the driver
rejects it, assembled with ptxas for the device's own arch instead.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
import re

import numpy as np

from verikern.errors import KernelAssertionError, KernelRuntimeError
from verikern.mir.nodes import Kernel, ArrayRef

from . import driver as cu
from .abi import ERROR_STATUS, ERROR_STATUS_WORDS, PtxParam, pack_parameters, ptx_entry_params, AbiMismatchError
from .status import raise_for_status
from verikern.backends import ptx as ptx_backend   # functions read at call time: a replaced one is used
from verikern.backends.ptx import ArchError, check_arch, sm_number

# Newest first; a device whose own sm_XY this LLVM does not know runs PTX for
# the newest of these not above it (the driver JIT-compiles PTX forward).
_FALLBACK_ARCHS = ("sm_120", "sm_100", "sm_90", "sm_89", "sm_86", "sm_80", "sm_75")
NO_DEVICE_ARCH = "sm_80"
DEFAULT_TIMEOUT_S = 300.0
EVENT_DISABLE_TIMING = 2  # CU_EVENT_DISABLE_TIMING

_module_cache: dict = {}
_module_lock = threading.Lock()


def default_arch(device_index: int = 0) -> str:
    """sm_XY of device `device_index` (or the nearest older arch this LLVM
    knows); "sm_80" when there is no usable device."""

    ok, _ = cu.cuda_available(device_index)
    if not ok:
        return NO_DEVICE_ARCH
    major, minor = cu.compute_capability(device_index)
    own = f"sm_{major}{minor}"
    try:
        return check_arch(own)
    except ArchError:
        number = major * 10 + minor
        for arch in _FALLBACK_ARCHS:
            if sm_number(arch) <= number:
                return arch
        return NO_DEVICE_ARCH


@dataclass
class LoadedKernel:
    """A kernel's function handle on one device, with the PTX it came from."""

    kernel: Kernel
    device_index: int
    arch: str
    ptx: str
    module: object
    function: object
    params: tuple[PtxParam, ...]
    loaded_from: str  # "ptx-jit" or "ptxas-cubin"
    entry: str
    sites: list | None  # the lowering's ErrorSite list (None: locations unknown)


def load_kernel(kernel, device_index: int = 0, arch: str | None = None,
                fast_math: bool | None = None) -> LoadedKernel:
    """The cached `LoadedKernel` for `kernel` on `device_index`."""

    cu.activate(device_index)
    arch = arch or default_arch(device_index)
    key = (id(kernel), device_index, arch, fast_math)
    with _module_lock:
        hit = _module_cache.get(key)
        if hit is not None and hit.kernel is kernel:
            return hit
    ptx = ptx_backend.compile_ptx(kernel, arch, fast_math)
    entry = entry_name(ptx)
    params = ptx_entry_params(ptx, entry)
    module, source = _load_module(ptx, device_index)
    function = cu.call("cuModuleGetFunction", module, entry.encode())
    loaded = LoadedKernel(kernel, device_index, arch, ptx, module, function, params, source,
                          entry, error_sites(kernel, fast_math))
    with _module_lock:
        _module_cache[key] = loaded
    return loaded


def entry_name(ptx: str) -> str:
    """The name of the (only) `.entry` of a verikern PTX module."""

    names = re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx)
    if len(names) != 1:
        raise AbiMismatchError(f"expected exactly one .entry in the PTX, found {names}")
    return names[0]


def error_sites(kernel, fast_math: bool | None):
    """The check sites of the nvptx lowering (indexed by the status `site`
    word), or None when the LLVM backend does not expose them."""
    try:
        from verikern.backends import llvm as llvm_backend  # lazy: llvmlite, only to compile
    except ImportError:
        return None
    build = getattr(llvm_backend, "build", None)
    if build is None:
        return None
    fm = bool(kernel.fast_math) if fast_math is None else bool(fast_math)
    return list(build(kernel, "nvptx", fm).sites)


def _load_image(image: bytes):
    """cuModuleLoadData on a host buffer passed by address (the form every
    cuda-python version accepts); the buffer lives until the call returns."""
    buffer = np.frombuffer(image, dtype=np.uint8)
    return cu.call("cuModuleLoadData", buffer.ctypes.data)


def _load_module(ptx: str, device_index: int):
    try:
        return _load_image(ptx.encode() + b"\0"), "ptx-jit"
    except cu.CudaDriverError as jit_error:
        if ptx_backend.find_ptxas() is None:
            raise
        major, minor = cu.compute_capability(device_index)
        result = ptx_backend.assemble(ptx, f"sm_{major}{minor}")
        if not result.ok or result.cubin is None:
            raise cu.CudaDriverError(
                f"the driver could not JIT the PTX ({jit_error}) and ptxas failed too:\n{result.log}",
                jit_error.name) from None
        return _load_image(result.cubin), "ptxas-cubin"


class DeviceArrays:
    """Device copies of host arrays (C order); free with `free()` or `with`."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.host = arrays
        self.pointers: dict[str, int] = {}
        self.nbytes: dict[str, int] = {}
        try:
            for name, arr in arrays.items():
                data = np.ascontiguousarray(arr)
                nbytes = int(data.nbytes)
                ptr = cu.call("cuMemAlloc", max(nbytes, 1))
                self.pointers[name] = int(ptr)
                self.nbytes[name] = nbytes
                if nbytes:
                    cu.call("cuMemcpyHtoD", int(ptr), data.ctypes.data, nbytes)
        except BaseException:
            self.free()
            raise

    def copy_back(self) -> None:
        for name, arr in self.host.items():
            nbytes = self.nbytes[name]
            if not nbytes:
                continue
            out = np.empty(arr.shape, dtype=arr.dtype)
            cu.call("cuMemcpyDtoH", out.ctypes.data, self.pointers[name], nbytes)
            np.copyto(arr, out)

    def free(self) -> None:
        for ptr in self.pointers.values():
            try:
                cu.call("cuMemFree", ptr)
            except cu.CudaDriverError:
                pass  # after a sticky kernel fault, frees fail; the context is lost anyway
        self.pointers = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


def logical_shapes(kernel, arrays: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
    """Logical shapes (without the inner vector/matrix dims) of the global arrays."""

    shapes = {}
    for param in kernel.params:
        if isinstance(param, ArrayRef):
            shapes[param.name] = tuple(int(n) for n in arrays[param.name].shape[:param.ndim])
    return shapes


def launch_loaded(loaded: LoadedKernel, launch, pointers: dict[str, int],
                  shapes: dict[str, tuple[int, ...]], scalars: dict, stream=0) -> None:
    """Enqueue one launch of `loaded` (asynchronous; errors surface at sync)."""
    packed = pack_parameters(loaded.kernel, loaded.params, pointers=pointers, shapes=shapes,
                             scalars=scalars, dims=tuple(launch.dims))
    cu.call("cuLaunchKernel", loaded.function, int(launch.grid_dim), 1, 1,
            int(launch.block_dim), 1, 1, 0, stream, packed.address, 0)
    del packed  # the driver copied the parameter values when the launch was enqueued


def _timeout_s() -> float:
    """Seconds a launch may run before `synchronize` gives up (VERIKERN_CUDA_TIMEOUT_S)."""
    try:
        return float(os.environ.get("VERIKERN_CUDA_TIMEOUT_S", DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S


def synchronize(kernel_name: str, timeout_s: float | None = None) -> None:
    """Wait for the launched work, at most `timeout_s` (never hang on an endless
    kernel); a kernel fault becomes a KernelRuntimeError, a timeout too."""
    timeout = _timeout_s() if timeout_s is None else timeout_s
    hint = ("run it with device='cpu' to locate the problem, and restart the process "
            "(the CUDA context is unusable after a fault)")
    event = cu.call("cuEventCreate", EVENT_DISABLE_TIMING)
    try:
        cu.call("cuEventRecord", event, 0)
        deadline, pause = time.monotonic() + timeout, 1e-5
        while not cu.event_done(event):
            if time.monotonic() > deadline:
                raise KernelRuntimeError(
                    f"kernel {kernel_name} did not finish within {timeout:g} s on the GPU (an "
                    f"endless loop, or a block_until that never holds?); {hint}")
            time.sleep(pause)
            pause = min(pause * 2, 1e-3)
        cu.call("cuCtxSynchronize")
    except cu.CudaDriverError as exc:
        if exc.name == "CUDA_ERROR_ASSERT":
            raise KernelAssertionError(f"an assert failed in kernel {kernel_name} on the GPU; {hint}") from None
        raise KernelRuntimeError(f"kernel {kernel_name} faulted on the GPU ({exc.name}); {hint}") from None
    finally:
        try:
            cu.call("cuEventDestroy", event)
        except cu.CudaDriverError:
            pass


def run(kernel, launch, arrays: dict[str, np.ndarray], scalars: dict, *,
        device: int = 0, arch: str | None = None, fast_math: bool | None = None) -> None:
    """The device protocol of docs/INTERFACES.md for "cuda:N" (see the module
    invariant); `device` is N (verikern.runtime passes it by that name)."""
    device_index = int(device)
    cu.activate(device_index)  # raises DeviceUnavailableError before any compile
    loaded = load_kernel(kernel, device_index, arch, fast_math)
    if int(launch.size) == 0:
        return
    status = np.zeros(ERROR_STATUS_WORDS, dtype=np.int64)
    with DeviceArrays({**arrays, ERROR_STATUS: status}) as dev:
        launch_loaded(loaded, launch, dev.pointers, logical_shapes(kernel, arrays), scalars)
        synchronize(kernel.name)
        dev.copy_back()
    raise_for_status(status, loaded.sites, kernel.name, f"cuda:{device_index}")
