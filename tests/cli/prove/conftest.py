"""The full mutation set runs only with `-m slow` (see session_results), and only
then is every mutant compiled (mutation_set.compile_every_mutant)."""
from __future__ import annotations


def pytest_configure(config):
    from mutation_set import compile_every_mutant
    from tiers import runs_every_case

    compile_every_mutant(runs_every_case(config.option.markexpr))


def pytest_collection_modifyitems(config, items):
    from session_results import deselect_full_set

    deselect_full_set(config, items)
