"""PTX generation and assembly for NVIDIA GPUs (sm_75 and newer).

`compile_ptx(kernel, arch)` lowers a MIR kernel with verikern.backends.llvm
(target "nvptx") and emits PTX with llvmlite's NVPTX backend;
`assemble(ptx, arch)` runs ptxas -v on it and reports registers, shared
memory, stack and spills. Invariants are stated in each submodule.
"""
from .arch import MIN_SM, ArchError, check_arch, llvm_knows_arch, sm_number
from .compile import (
    DEFAULT_ARCH, PtxCompileError, compile_llvm_ir, compile_ptx, compile_ptx_bundle, emit_ptx, nvptx_ir,
    parse_nvptx_ir, ptx_for,
)
from .libdevice import LibdeviceNotFoundError, find_libdevice
from .toolchain import (
    PTXAS_HINT, AssembleResult, EntryResources, PtxasNotFoundError, assemble, assemble_many,
    find_ptxas, parse_ptxas_verbose, ptxas_archs, ptxas_version,
)

__all__ = [
    "MIN_SM", "ArchError", "check_arch", "llvm_knows_arch", "sm_number",
    "DEFAULT_ARCH", "PtxCompileError", "compile_llvm_ir", "compile_ptx", "compile_ptx_bundle", "emit_ptx",
    "nvptx_ir", "parse_nvptx_ir", "ptx_for", "LibdeviceNotFoundError", "find_libdevice",
    "PTXAS_HINT", "AssembleResult", "EntryResources", "PtxasNotFoundError", "assemble",
    "assemble_many", "find_ptxas", "parse_ptxas_verbose", "ptxas_archs", "ptxas_version",
]
