"""The fast mutation set's barren sources (mutation_set.FAST_BARREN): sources
none of whose mutants compiles, which the default run does not compile at all.

The skip is sound only while the claim holds: the nightly test compiles every
mutant of each barren source and finds none that compiles (were one to compile,
the fast set would be missing what the caps take of it, and the test names it).
"""
from __future__ import annotations

import mutation_set as ms
from tools import mutate


def _barren_sources():
    return [(n, src) for n, src in enumerate(ms.sources()) if src.path.stem in ms.FAST_BARREN]


def test_a_barren_source_is_a_fast_source_and_compiles_nothing(monkeypatch):
    """Each FAST_BARREN name is a source the fast set would take mutants of (every
    source's RARE_KINDS mutants, and up to its cap, zero for a corpus case outside the
    sample since session 21's eighth), and its fast candidates are found without
    compiling any mutant."""
    barren = _barren_sources()
    assert sorted(src.path.stem for _, src in barren) == sorted(ms.FAST_BARREN)

    def refuse(*args, **kwargs):
        raise AssertionError("a barren source's mutant was compiled")
    monkeypatch.setattr(mutate, "compile_problem", refuse)
    for n, src in barren:
        assert ms._fast_candidates(src.path, src.per_file, n) == ()


def test_no_mutant_of_a_barren_source_compiles():
    """The claim FAST_BARREN rests on, checked on every mutant (about 8 CPU s: the
    nightly run, tests/tiers_nightly.py)."""
    for _, src in _barren_sources():
        kept, dropped, candidates = ms._compile_mutants(src.path)
        assert candidates > 0 and sum(n for _, n in dropped) > 0, src.path.name
        assert kept == (), (src.path.name, [m.ident for m in kept])
