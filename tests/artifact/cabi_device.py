"""A `vk.launch` device ("c-lib", registered by the tests that use it) that
runs a kernel through the C library `verikern build` writes for its file:
vk.launch checks and converts the arguments, this module builds the library
once per (file, kernel, check mode) and calls its C entry point with ctypes."""
from __future__ import annotations

import ctypes
import tempfile
from pathlib import Path

import numpy as np

from cabi_helpers import Status
from verikern.app.build import BuildOptions, build
from verikern.mir.nodes import ArrayRef

CHECKS = {"mode": "unproved"}
_folder = tempfile.TemporaryDirectory(prefix="vk-cabi-device-")
_libraries: dict = {}

_SCALARS = {"bool": ctypes.c_uint8, "int8": ctypes.c_int8, "int16": ctypes.c_int16,
            "int32": ctypes.c_int32, "int64": ctypes.c_int64, "uint8": ctypes.c_uint8,
            "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
            "float16": ctypes.c_uint16, "float32": ctypes.c_float, "float64": ctypes.c_double}


def library(kernel):
    """The ctypes library built from the kernel's file with only this kernel."""
    key = (kernel.loc.file, kernel.name, CHECKS["mode"])
    if key not in _libraries:
        out = Path(_folder.name) / f"lib{len(_libraries)}"
        result = build(kernel.loc.file, out, BuildOptions(checks=CHECKS["mode"],
                                                          kernels=(kernel.name,)))
        _libraries[key] = (ctypes.CDLL(str(out / f"lib{result.manifest['library']}.so")),
                           result)
    return _libraries[key]


def _scalar(value, type_name: str):
    if type_name == "float16":
        return ctypes.c_uint16(int(np.float16(value).view(np.uint16)))
    if type_name == "bool":
        return ctypes.c_uint8(int(bool(value)))
    return _SCALARS[type_name](value.item() if hasattr(value, "item") else value)


def run(kernel, launch, arrays: dict, scalars: dict) -> None:
    """The device entry point: raises RuntimeError with the library's message
    when the call returns an error code."""
    lib, _ = library(kernel)
    args: list = []
    for p in kernel.params:
        if isinstance(p, ArrayRef):
            a = arrays[p.name]
            args.append(ctypes.c_void_p(a.ctypes.data))
            args += [ctypes.c_int64(int(a.shape[d])) for d in range(p.ndim)]
        else:
            args.append(_scalar(scalars[p.name], p.value.type.name))
    args += [ctypes.c_int64(int(d)) for d in launch.dims]
    args.append(ctypes.c_int32(int(launch.block_dim)))
    st = Status()
    fn = getattr(lib, f"vk_{kernel.name}")
    fn.restype = ctypes.c_int32
    if fn(*args, ctypes.byref(st)) != 0:
        raise RuntimeError(f"{kernel.name}: status {st.code}: {st.message.decode()}")
