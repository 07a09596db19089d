"""The float constants of `math` and `numpy` that kernel code may read
(`np.pi`, `math.tau`, warpsphcore's `scalar_t(np.nan)`): Warp 1.19 reads a
module attribute in a kernel as the Python value it holds when the kernel is
built, and these are Python floats, read as `wp.pi` and `wp.nan` are (an
untyped float literal that the context types).

Invariant: only the names listed, of a name the file binds to the module
itself (`import numpy as np`, `import math`; ModuleInfo.std_modules, which
follows imports and brought names), give a value; anything else gives None.
"""
from __future__ import annotations

import ast
import math

#: module.attribute -> value (Python floats: float('nan') for nan)
STD_FLOAT_CONSTANTS = {
    "math.pi": math.pi, "math.e": math.e, "math.tau": math.tau, "math.inf": math.inf,
    "math.nan": math.nan,
    "numpy.pi": math.pi, "numpy.e": math.e, "numpy.inf": math.inf, "numpy.nan": math.nan,
}


def std_float_constant(info, node: ast.AST, local_names) -> float | None:
    """The value of `np.pi` / `math.nan` (module docstring), else None; a
    local of the kernel named like the module hides it."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)) \
            or node.value.id in local_names or node.value.id not in info.std_modules:
        return None
    return STD_FLOAT_CONSTANTS.get(f"{info.std_modules[node.value.id]}.{node.attr}")
