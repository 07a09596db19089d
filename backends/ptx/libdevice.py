"""Linking NVIDIA's libdevice (the `__nv_*` math library) into NVPTX modules.

Invariant: `link_libdevice(module)` leaves `module` with a definition for
every `__nv_*` function it calls, every function except the kernels
internal (so the optimiser keeps only what is used), and raises
`LibdeviceNotFoundError` (naming where it looked and how to get it) when a
`__nv_*` function is called but no libdevice.10.bc exists. A module that
calls no `__nv_*` function is returned untouched, libdevice or not.
"""
from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

from verikern.errors import VerikernError
from .toolchain import find_ptxas

LIBDEVICE_NAME = "libdevice.10.bc"
LIBDEVICE_HINT = ("install the CUDA toolkit (nvvm/libdevice), or pip install nvidia-nvvm "
                  "(or 'verikern[cuda]'), or set VERIKERN_LIBDEVICE to the path of libdevice.10.bc")


class LibdeviceNotFoundError(VerikernError):
    """A kernel needs libdevice math but no libdevice.10.bc was found."""


def _candidates() -> list[Path]:
    paths: list[Path] = []
    env = os.environ.get("VERIKERN_LIBDEVICE")
    if env:
        paths.append(Path(env))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        home = os.environ.get(var)
        if home:
            paths.append(Path(home) / "nvvm" / "libdevice" / LIBDEVICE_NAME)

    ptxas = find_ptxas()
    if ptxas is not None:  # <toolkit>/bin/ptxas -> <toolkit>/nvvm/libdevice
        paths.append(ptxas.resolve().parent.parent / "nvvm" / "libdevice" / LIBDEVICE_NAME)
    for entry in sys.path:
        root = Path(entry) / "nvidia"
        for sub in ("cu13", "cu12", "cuda_nvcc"):
            paths.append(root / sub / "nvvm" / "libdevice" / LIBDEVICE_NAME)
    paths.append(Path("/usr/local/cuda/nvvm/libdevice") / LIBDEVICE_NAME)
    for entry in sys.path:  # NVIDIA Warp ships a copy
        paths.append(Path(entry) / "warp" / "native" / "libdevice" / LIBDEVICE_NAME)
    return paths


def find_libdevice() -> Path | None:
    """The first existing libdevice.10.bc (see `_candidates` for the order)."""
    for path in _candidates():
        if path.is_file():
            return path
    return None


@functools.lru_cache(maxsize=4)
def _libdevice_bytes(path: str) -> bytes:
    return Path(path).read_bytes()


def calls_libdevice(module) -> bool:
    return any(fn.is_declaration and fn.name.startswith("__nv_") for fn in module.functions)


def link_libdevice(module, kernel_names: set[str]):
    """Link libdevice into the llvmlite binding `module` (see the invariant)."""
    import llvmlite.binding as llvm  # lazy: llvmlite, only to compile

    if not calls_libdevice(module):
        return module
    path = find_libdevice()
    if path is None:
        looked = ", ".join(str(p) for p in _candidates()[:6])
        raise LibdeviceNotFoundError(
            f"the kernel calls libdevice math but {LIBDEVICE_NAME} was not found (looked in {looked}, ...): "
            f"{LIBDEVICE_HINT}")
    lib = llvm.parse_bitcode(_libdevice_bytes(str(path)))
    lib.triple = module.triple
    lib.data_layout = module.data_layout
    module.link_in(lib)
    for fn in module.functions:
        if not fn.is_declaration and fn.name not in kernel_names:
            fn.linkage = "internal"
    return module
