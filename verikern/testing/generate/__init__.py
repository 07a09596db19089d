"""A generator of random kernels, well defined by construction, written as
source text (so the frontend is tested too): CLsmith for verikern (issue 25).

- `program_from_seed(seed)`: the plain generator (`random.Random(seed)`),
  for long campaigns; `programs()`: the hypothesis strategy (its decisions
  shrink). Both give a `Program`: `.source()` is the kernel file,
  `launch_of(program)` its launch.
- `plant(program, k)`: the program with one planted defect (a dropped
  guard, an off-by-one, a removed barrier, a plain store where an atomic
  was, a read before the write).
- `campaign.run_program` / `run_campaign`: run generated kernels on every
  backend that can express them, compare, shrink and save mismatches, and
  ask the prover (`verikern fuzz --generate N`,
  benchmarks/generated_campaign.py).

Modules: `model` (expressions, statements, phases, programs, rendering),
`choices` (where decisions come from), `exprs` (typed expressions),
`access` (in-bounds accesses), `phases` and `shared_phases` (the parts a
kernel is made of, with their defect variants), `program`, `shrink`,
`campaign`. Names are imported lazily, so importing this package is cheap.
"""
from __future__ import annotations

import importlib

_NAMES = {
    "program_from_seed": "program", "programs": "program", "generate": "program",
    "launch_of": "program", "plant": "program", "defects": "program",
    "Program": "model", "run_program": "campaign", "run_campaign": "campaign",
    "shrink": "shrink",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module 'verikern.testing.generate' has no attribute {name!r}")
