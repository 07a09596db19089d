"""The verikern frontend: kernel source -> typed HIR -> MIR.

`compile_source(source, filename) -> ModuleResult`, `compile_file(path)`.
The file is parsed with `ast`, never executed (see docs/INTERFACES.md).
"""
from .driver import KernelResult, ModuleResult, compile_file, compile_source, lower_kernel

__all__ = ["KernelResult", "ModuleResult", "compile_file", "compile_source", "lower_kernel"]
