"""The fast mutation set's lazy selection (tools/mutate.py `select_compiled`):
the same mutants as `select` over the compiled ones plus the compiled mutants
of the rare kinds, with each mutant compiled at most once and only where the
selection needs it (tests/cli/prove/mutation_set.py `_fast_candidates`)."""
from __future__ import annotations

import random
from dataclasses import dataclass

from tools.mutate import KINDS, select, select_compiled


@dataclass(frozen=True)
class _Fake:
    kind: str
    n: int
    compiles: bool


def _reference(mutants, cap, start, every_of):
    kept = [m for m in mutants if m.compiles]
    chosen = set(map(id, select(kept, cap, start)))
    return [m for m in kept if id(m) in chosen or m.kind in every_of]


def test_the_lazy_selection_is_selects_on_the_compiled_mutants_and_compiles_each_once():
    rng = random.Random(19)
    fewer = 0
    for case in range(600):
        kinds = rng.sample(KINDS, rng.randint(1, len(KINDS)))
        mutants = [_Fake(rng.choice(kinds), n, rng.random() < 0.8) for n in range(rng.randint(0, 40))]
        cap, start = rng.choice([0, 1, 2, 4, 8]), rng.randint(0, 20)
        every_of = frozenset(rng.sample(KINDS, rng.randint(0, 3)))
        asked: list = []

        def compiles(m, asked=asked):
            asked.append(m.n)
            return m.compiles
        got = select_compiled(mutants, compiles, cap, start, every_of=every_of)
        assert got == _reference(mutants, cap, start, every_of), case
        assert len(asked) == len(set(asked)), case                 # each compiled at most once
        fewer += len(asked) < len(mutants)
    assert fewer > 300          # most selections leave mutants uncompiled: the point of it


def test_a_mutant_that_does_not_compile_is_never_taken_and_a_cap_of_zero_compiles_only_rare_kinds():
    mutants = [_Fake("guard-bound", 0, False), _Fake("guard-bound", 1, True), _Fake("lt-to-le", 2, True),
               _Fake("div-guard", 3, False), _Fake("div-guard", 4, True)]
    asked: list = []
    got = select_compiled(mutants, lambda m: asked.append(m.n) or m.compiles, 1, 0)
    assert got == [mutants[1]] and asked == [0, 1, 2, 3, 4]     # `present` needs each kind's first
    asked.clear()
    got = select_compiled(mutants, lambda m: asked.append(m.n) or m.compiles, 0, 0, every_of={"div-guard"})
    assert got == [mutants[4]] and asked == [3, 4]
