"""Whole generated programs: launch geometry, phases, launch values, and
planted defects.

Invariants:
- `generate(choices)` returns a program that is well defined by
  construction on every launch its contracts admit (see the phase modules)
  and whose own launch (`launch_of`) satisfies them: block-level programs
  fix `block_dim` in their decorator and launch a multiple of it.
- `launch_of(program)` is a pure function of the program (its `seed`
  draws the array contents), so a program and its launch reproduce exactly.
- `plant(program, k)` replaces one phase by one of its defect variants;
  the result is not well defined on some admitted launch.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..strategies import Launch
from .access import Ctx
from .choices import Choices, DrawChoices, RandomChoices
from .exprs import FLOAT_LIMIT
from .model import COMPOSITES, ArrayParam, Program, kind, np_dtype
from .phases import GLOBAL_PHASES
from .shared_phases import SHARED_PHASES

PHASES = {**GLOBAL_PHASES, **SHARED_PHASES}
BLOCK_DIMS = (1, 2, 4, 8, 16, 32, 64)
MAX_PHASES = 3


def _split(c: Choices, total: int, rank: int) -> tuple[int, ...]:
    """`total` threads as `rank` launch dimensions (product exactly `total`)."""
    dims = [1] * rank
    n, k = total, 2
    while n > 1:
        while n % k == 0:
            dims[c.integer(0, rank - 1)] *= k
            n //= k
        k += 1
    return tuple(dims)


def generate(c: Choices, seed: int, name: str = "generated", max_phases: int = MAX_PHASES) -> Program:
    """One random program of 1 to `max_phases` phases (decisions from `c`;
    `seed` draws its launch values)."""
    block_level = c.chance(40)
    rank = c.pick([1, 1, 2, 3, 4])
    bd = c.pick(BLOCK_DIMS[2:5] if block_level else BLOCK_DIMS)
    blocks = c.integer(1, 3)
    total = bd * blocks - (0 if block_level else c.integer(0, bd - 1))
    dims = _split(c, total, rank)
    count = c.integer(1, max_phases)
    kinds = [c.pick(list(GLOBAL_PHASES)) for _ in range(count)]
    if block_level:
        kinds[c.integer(0, count - 1)] = c.pick(list(SHARED_PHASES))
        for j in range(count):
            if c.chance(20):
                kinds[j] = c.pick(list(SHARED_PHASES))
    phases = tuple(PHASES[k](c, Ctx(dims, bd, f"p{j}_")) for j, k in enumerate(kinds))
    return Program(name, dims, bd, phases, seed)


def program_from_seed(seed: int, name: str | None = None, max_phases: int = MAX_PHASES) -> Program:
    """The plain generator: the same seed always gives the same program."""
    return generate(RandomChoices(seed), seed, name or f"gen_{seed}", max_phases)


def programs(name: str = "generated", max_phases: int = MAX_PHASES):
    """A hypothesis strategy of programs (its decisions shrink towards
    fewer, simpler phases)."""
    from hypothesis import strategies as st  # lazy: hypothesis, heavy

    @st.composite
    def draw_program(draw):
        c = DrawChoices(draw)
        return generate(c, c.integer(0, 2 ** 31 - 1), name, max_phases)
    return draw_program()


# ------------------------------------------------------------------ launch
def _int_data(rng: np.random.Generator, dt: np.dtype, shape) -> np.ndarray:
    info = np.iinfo(dt)
    out = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    n = out.size
    if n:
        flat = out.reshape(-1)
        small = rng.random(n) < 0.4
        flat[small] = rng.integers(max(info.min, -9), 10, size=int(small.sum())).astype(dt)
        edges = np.array([info.min, info.max, 0, 1] + ([-1] if info.min < 0 else []), dtype=dt)
        pick = rng.random(n) < 0.15
        flat[pick] = rng.choice(edges, size=int(pick.sum()))
    return out


def array_values(a: ArrayParam, rng: np.random.Generator) -> np.ndarray:
    """Contents of array `a` for its launch (see exprs: floats small, integers
    over the whole range with edge values)."""
    shape = a.shape + COMPOSITES.get(a.dtype, ())
    dt = np_dtype(a.dtype)
    if a.values == "zeros":
        return np.zeros(shape, dtype=dt)
    if kind(a.dtype) == "b":
        return rng.random(shape) < 0.5
    if dt.kind == "f":
        if a.int_valued:
            return rng.integers(-16, 17, size=shape).astype(dt)
        limit = FLOAT_LIMIT.get(a.dtype, FLOAT_LIMIT["float32"])
        return (rng.uniform(-limit, limit, size=shape) * 8).round().astype(dt) / dt.type(8) \
            if rng.random() < 0.3 else rng.uniform(-limit, limit, size=shape).astype(dt)
    return _int_data(rng, dt, shape)


def launch_of(program: Program) -> Launch:
    """The program's launch: its dims and block size, its arrays' contents
    drawn from `program.seed`, its scalars."""
    rng = np.random.default_rng(program.seed)
    values: dict = {}
    for a in program.arrays():
        v = array_values(a, rng)
        values[a.name] = np.asfortranarray(v) if a.fortran else v
    for s in program.scalars():
        values[s.name] = np_dtype(s.dtype).type(s.value)
    assert math.prod(program.dims) >= 1
    return Launch(program.dims, program.block_dim, values)


# ----------------------------------------------------------------- defects
def defects(program: Program) -> list[tuple[int, str]]:
    """(phase index, defect name) of every defect that can be planted."""
    return [(j, name) for j, p in enumerate(program.phases) for name, _ in p.defects]


def plant(program: Program, choice: int) -> Program:
    """`program` with defect number `choice` (modulo their count) planted."""
    options = defects(program)
    j, name = options[choice % len(options)]
    variant = dict(program.phases[j].defects)[name]
    phases = list(program.phases)
    phases[j] = variant
    return replace(program, phases=tuple(phases), defect=f"{name} in phase {j} ({variant.kind})")
