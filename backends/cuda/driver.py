"""The CUDA driver API through cuda-python, with every failure made explicit.

Invariant: every driver call goes through `call`, which returns the call's
results without the status code or raises: `DeviceUnavailableError` (one
sentence naming what is missing) when cuda-python, the driver library or the
device is absent, `CudaDriverError` for any other non-success status. No
function here returns a half-initialised handle.
"""
from __future__ import annotations

import functools
import threading

from verikern.errors import DeviceUnavailableError, VerikernError

# cuda-python is a dependency of verikern; only a broken install lacks it.
INSTALL_HINT = "cuda-python is not installed: pip install cuda-python"
NO_DRIVER = "no NVIDIA driver: libcuda.so.1 not found"

_lock = threading.RLock()
_contexts: dict[int, object] = {}


class CudaDriverError(VerikernError):
    """A CUDA driver call failed; `name` is the CUresult name (e.g. CUDA_ERROR_ILLEGAL_ADDRESS)."""

    def __init__(self, message: str, name: str = ""):
        super().__init__(message)
        self.name = name


@functools.lru_cache(maxsize=1)
def _import_driver():
    try:
        from cuda.bindings import driver  # lazy: optional dependency  # cuda-python >= 12.6
    except ImportError:
        try:
            from cuda import cuda as driver  # lazy: optional dependency  # older cuda-python
        except ImportError:
            return None
    return driver


def driver_module():
    """The cuda-python driver module; DeviceUnavailableError when not installed."""
    drv = _import_driver()
    if drv is None:
        raise DeviceUnavailableError(INSTALL_HINT)
    return drv


def error_name(drv, status) -> str:
    name = getattr(status, "name", None)  # CUresult is an enum in cuda-python
    if isinstance(name, str) and name.startswith("CUDA_"):
        return name
    try:
        err, name = drv.cuGetErrorName(status)
        if int(err) == 0 and name:
            return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # the name is best effort; the numeric code is always shown
        pass
    return f"CUresult {int(status)}"


def call(func_name: str, *args):
    """drv.<func_name>(*args) with its status checked (see the module invariant)."""
    drv = driver_module()
    try:
        out = getattr(drv, func_name)(*args)
    except RuntimeError as exc:
        # cuda-python raises when it cannot load libcuda (DynamicLibNotFoundError
        # is a RuntimeError subclass in cuda-pathfinder).
        text = str(exc).lower()
        if type(exc).__name__ == "DynamicLibNotFoundError" or (
                "cuda" in text and any(w in text for w in ("found", "dlopen", "load"))):
            raise DeviceUnavailableError(NO_DRIVER) from None
        raise
    status, rest = out[0], out[1:]
    if int(status) != 0:
        name = error_name(drv, status)
        if func_name == "cuInit" and name in ("CUDA_ERROR_NO_DEVICE",):
            raise DeviceUnavailableError("no CUDA device: the NVIDIA driver reports 0 devices")
        if func_name == "cuInit":
            raise DeviceUnavailableError(f"the NVIDIA driver failed to initialise ({name})")
        raise CudaDriverError(f"{func_name} failed: {name}", name)
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def event_done(event) -> bool:
    """cuEventQuery: True when the event completed, False while the GPU is
    still busy before it; any other status raises CudaDriverError."""
    drv = driver_module()
    status = drv.cuEventQuery(event)[0]
    if int(status) == 0:
        return True
    name = error_name(drv, status)
    if name == "CUDA_ERROR_NOT_READY":
        return False
    raise CudaDriverError(f"cuEventQuery failed: {name}", name)


@functools.lru_cache(maxsize=1)
def _init() -> None:
    call("cuInit", 0)


def init() -> None:
    """cuInit once per process (raises DeviceUnavailableError as documented)."""
    with _lock:
        _init()


def device_count() -> int:
    init()
    return int(call("cuDeviceGetCount"))


def get_device(index: int):
    count = device_count()
    if not 0 <= index < count:
        noun = "device" if count == 1 else "devices"
        raise DeviceUnavailableError(f"no CUDA device {index}: {count} {noun} present")
    return call("cuDeviceGet", index)


def compute_capability(index: int = 0) -> tuple[int, int]:
    drv = driver_module()
    dev = get_device(index)
    attr = drv.CUdevice_attribute
    major = call("cuDeviceGetAttribute", attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
    minor = call("cuDeviceGetAttribute", attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
    return int(major), int(minor)


def device_name(index: int = 0) -> str:
    name = call("cuDeviceGetName", 256, get_device(index))
    raw = bytes(name) if not isinstance(name, bytes) else name
    return raw.split(b"\0", 1)[0].decode(errors="replace")


def activate(index: int):
    """Make device `index`'s primary context current on this thread; returns it."""
    with _lock:
        ctx = _contexts.get(index)
        if ctx is None:
            ctx = call("cuDevicePrimaryCtxRetain", get_device(index))
            _contexts[index] = ctx
    call("cuCtxSetCurrent", ctx)
    return ctx


def cuda_available(index: int = 0) -> tuple[bool, str]:
    """(True, "") when device `index` can run kernels, else (False, the reason)."""
    try:
        get_device(index)
    except DeviceUnavailableError as exc:
        return False, str(exc)
    except CudaDriverError as exc:
        return False, f"the CUDA driver failed to start: {exc}"
    return True, ""
