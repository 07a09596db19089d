"""C entry points of built kernels (`verikern build`): the header, the
boundary checks (the C form of `vk.check_launch`) and the wrappers that call
the LLVM code (CPU, `cpu.py`) or launch the PTX through the CUDA driver API
(`cuda.py`).

Invariant: a generated entry point runs the kernel only after it has checked
everything the proof of the kernel assumes about a launch (geometry, shapes,
array sizes, distinct arrays, `requires`, array contracts); any violation
returns a VK_ERR_* code with a message naming the source location, and the
kernel does not run.
"""
from .signature import CEntry, c_entry, header_text, STATUS_CODES

__all__ = ["CEntry", "c_entry", "header_text", "STATUS_CODES"]
