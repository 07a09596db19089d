"""verikern: prove and run GPU kernels written in a Warp-compatible Python DSL.

`import verikern as vk` gives the kernel language (`vk.kernel`, `vk.func`,
`vk.array`, `vk.float32`, `vk.tid`, ...; see docs/LANGUAGE.md) and `vk.launch`.
Names are resolved lazily, so `import verikern.mir` stays cheap and never
imports the frontend or the backends.
"""
from __future__ import annotations

import importlib

from verikern.version import __version__ as __version__  # `vk.__version__`

_RUNTIME_NAMES = {"launch", "check_launch"}


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)

    if name in _RUNTIME_NAMES:
        runtime = importlib.import_module(__name__ + ".runtime")
        return getattr(runtime, name)
    if name in ("lang", "runtime"):  # a submodule not imported yet: no recursion
        return importlib.import_module(f"{__name__}.{name}")
    lang = importlib.import_module(__name__ + ".lang")

    try:
        return getattr(lang, name)
    except AttributeError:
        raise AttributeError(f"module 'verikern' has no attribute {name!r}") from None
