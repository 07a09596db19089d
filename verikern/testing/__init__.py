"""Property-based testing of kernels with hypothesis (docs/TESTING.md).

- `launches(kernel, ...)`: a hypothesis strategy of `Launch`es (dims,
  block size, scalars, arrays) that the kernel's contracts admit, solved
  with z3, edge values included.
- `fuzz(kernel, backends, ...)`: compare backends on generated launches
  (what `verikern fuzz` runs); returns a `FuzzResult`.
- `differential(kernel, backends=[...])` and `matches(kernel, reference)`:
  test functions for a pytest suite (hypothesis settings and profiles apply).
- `pytest --verikern-prove [PATH]` (the plugin in `verikern.testing.plugin`,
  registered through the `pytest11` entry point) gates a test run on proofs.

Names are imported lazily, so `import verikern.testing` stays cheap.
"""
from __future__ import annotations

import importlib

_NAMES = {
    "launches": "strategies", "Launch": "strategies", "float_values": "strategies",
    "int_values": "strategies",
    "fuzz": "fuzzing", "differential": "fuzzing", "matches": "fuzzing",
    "FuzzResult": "fuzzing", "Mismatch": "fuzzing",
    "DifferentialFailure": "fuzzing", "compare_launch": "fuzzing",
    "Backend": "backends", "BACKENDS": "backends", "resolve_backends": "backends",
    "Tolerance": "compare", "first_difference": "compare",
    "KernelUnderTest": "target", "kernel_under_test": "target", "compile_kernels": "target",
    "TestingError": "target",
    "diagnose": "explain", "save_launch": "explain", "load_launch": "explain",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module 'verikern.testing' has no attribute {name!r}")
