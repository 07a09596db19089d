"""The "cpu:native:proved" device: cpu:native with the index checks whose
bounds obligations are proved left out (the run-time form of
`verikern build --checks unproved`).

Invariant: the kernel is proved (for every launch, default budget and
array bound) once per kernel object; a check is left out only as
`build_proofs.removable_checks` allows; `vk.launch` has checked the launch
geometry, argument types, distinct arrays and every contract before `run`
is called, and `run` itself refuses an array above the array bound the
proof assumed. Everything else is cpu:native's (backends/native).
"""
from __future__ import annotations

import dataclasses
import threading
import weakref
from typing import Any

from verikern.app.build_proofs import removable_checks
from verikern.backends import native
from verikern.errors import LaunchError
from verikern.mir.nodes import Kernel
from verikern.proofs.pipeline import prove_mir
from verikern.proofs.reporting.scope import mir_text, scope_of, sha256_bytes

_lock = threading.Lock()
#: id(kernel) -> (weak reference to it, its unchecked set)
_proved: dict[int, tuple[Any, frozenset]] = {}


def unchecked_for(kernel: Kernel) -> frozenset[tuple[str, int, int]]:
    """The index checks the kernel's proof removes (proved once, then cached)."""
    with _lock:
        hit = _proved.get(id(kernel))
    if hit is not None and hit[0]() is kernel:
        return hit[1]
    from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES  # lazy: z3, only to prove

    file = kernel.loc.file if kernel.loc is not None else "<kernel>"
    scope = scope_of(kernel, source=None, source_sha256=None, dims=None, block_dim=None,
                     budget=None)
    report = prove_mir(kernel, file=file)
    report = dataclasses.replace(report, scope=scope)
    unchecked, _ = removable_checks(kernel, report, sha256_bytes(mir_text(kernel).encode()),
                                    DEFAULT_MAX_ARRAY_BYTES)
    key = id(kernel)
    with _lock:
        _proved[key] = (weakref.ref(kernel, lambda _ref: _proved.pop(key, None)), unchecked)
    return unchecked


def run(kernel: Kernel, launch, arrays: dict, scalars: dict) -> None:
    """Device entry point ("cpu:native:proved"): launch checks done by vk.launch."""
    from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES  # lazy: z3's package, the bound only

    for name, a in arrays.items():
        if a.nbytes > DEFAULT_MAX_ARRAY_BYTES:
            raise LaunchError(f"kernel {kernel.name}: argument {name} has {a.nbytes} bytes, more "
                              f"than the {DEFAULT_MAX_ARRAY_BYTES} its proof assumes; run it on "
                              f"device='cpu:native'")
    native.run(kernel, launch, arrays, scalars, unchecked=unchecked_for(kernel))
