"""Where the generator's decisions come from: a seeded `random.Random` (the
plain generator, for long campaigns) or hypothesis draws (the strategy,
which then shrinks the decisions).

Invariant: every decision is `integer(lo, hi)` (inclusive) or built on it,
and the first option of every `pick` is the simplest, so hypothesis'
shrinking (towards lo) shrinks the program.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any, Sequence, TypeVar

T = TypeVar("T")


class Choices(ABC):
    """The decisions of one generated program (a source of integers)."""

    @abstractmethod
    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi], inclusive."""

    def pick(self, options: Sequence[T]) -> T:
        return options[self.integer(0, len(options) - 1)]

    def chance(self, percent: int) -> bool:
        """True with about `percent`% probability (False is the simpler side)."""
        return self.integer(0, 99) >= 100 - percent

    def subset(self, options: Sequence[T], most: int) -> list[T]:
        n = self.integer(1, min(most, len(options)))
        pool = list(options)
        return [pool.pop(self.integer(0, len(pool) - 1)) for _ in range(n)]


class RandomChoices(Choices):
    """Decisions from `random.Random(seed)`: the same seed, the same program."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class DrawChoices(Choices):
    """Decisions drawn from hypothesis (inside `st.composite`)."""

    def __init__(self, draw: Any):
        from hypothesis import strategies as st  # lazy: hypothesis, heavy

        self.draw = draw
        self.st = st

    def integer(self, lo: int, hi: int) -> int:
        return int(self.draw(self.st.integers(lo, hi)))
