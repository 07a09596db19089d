"""Mutation testing of the prover: a typical bug injected into a correct
kernel must never be reported PROVED, and most must be caught (some
obligation FAILED); the mutation score (caught / compiled mutants) is
printed at the end of the session and must reach SCORE_FLOOR
(tests/cli/prove/conftest.py checks it once every mutant of a set ran).

The mutants and their outcomes are defined in `mutation_set.py`. A mutant
still PROVED is a test failure unless `mutation_allowed.py` names it with
the reason it is still a correct kernel (every entry reviewed by reading
the mutant); an allowed mutant is proved again whenever its set runs, and
the entry must go once it is no longer PROVED or no longer generated. An `unknown` mutant (the budget
ran out) passes its test but is not caught: it lowers the score.
"""
from __future__ import annotations

import json

import pytest

from mutation_allowed import ALLOWED, ALLOWED_FULL
from mutation_set import (
    EXTRA_SOURCES, FULL_ONLY, MUTANT_BUDGET, SCORE_FLOOR, candidates_and_drops, compiles_every_mutant,
    mutation_set, outcome,
)
from prove_args import driver_kwargs
from tools.mutate import REFUSAL_KINDS

#: Allow-listed mutants are proved with whichever set holds them (no longer forced
#: into `fast`: re-proving correct kernels is the full set's job, tests/tiers.py).
ALWAYS: frozenset = frozenset()


def _params(name):
    if name == "full" and not compiles_every_mutant():
        return []     # deselected without `-m slow` anyway (session_results.deselect_full_set)
    marks = [pytest.mark.slow] if name == "full" else []
    return [pytest.param(p, id=p.test_id, marks=marks) for p in mutation_set(name, ALWAYS)]


def _prove(planned):
    from verikern.app.prove import prove_source

    kwargs = driver_kwargs(planned.source.prove_args, budget=MUTANT_BUDGET)
    if kwargs["kernel"] is None:
        kwargs["kernel"] = planned.mutant.kernels
    return prove_source(planned.mutant.source, f"{planned.source.path.stem}.mutant.py", **kwargs)


def _check(planned, set_name, record_property):
    import time

    from verikern.proofs.reporting.render import render_text

    start = time.process_time()
    reports = _prove(planned)
    result, failed_kinds = outcome(reports)
    m = planned.mutant
    record_property("mutant", json.dumps({
        "set": set_name, "size": len(mutation_set(set_name, ALWAYS)), "key": list(planned.key),
        "kind": m.kind, "outcome": result, "failed": failed_kinds,
        "allowed": planned.key in ALLOWED or planned.key in ALLOWED_FULL,
        "cpu_s": round(time.process_time() - start, 3)}))
    where = f"{m.description} at {planned.source.path.name}:{m.loc.line}:{m.loc.col} ({m.kind})"
    why = ALLOWED.get(planned.key) or ALLOWED_FULL.get(planned.key)
    if why is not None:
        assert result == "proved", (f"mutation_allowed.py lists {planned.key}, but the mutant is now "
                                    f"{result}: remove the entry\n" + render_text(reports))
        return
    assert result != "proved", f"mutant survived: {where} is reported PROVED\n" + render_text(reports)
    if m.kind in REFUSAL_KINDS:
        assert result == "refused", f"{where}: the rebinding was not refused ({result})\n" + render_text(reports)
        return
    assert result not in ("error", "refused"), f"a compiled mutant got no verdict: {where}\n" + render_text(reports)


@pytest.mark.parametrize("planned", _params("fast"))
def test_fast_mutant_is_not_proved(planned, record_property):
    _check(planned, "fast", record_property)


@pytest.mark.parametrize("planned", _params("full"))
def test_full_mutant_is_not_proved(planned, record_property):
    _check(planned, "full", record_property)


def test_allow_list_entries_are_generated_compiled_mutants_with_reasons():
    keys = {p.key for name in ("fast", "full") for p in mutation_set(name, ALWAYS)}
    assert not set(ALLOWED) & set(ALLOWED_FULL)
    for key, reason in [*ALLOWED.items(), *ALLOWED_FULL.items()]:
        assert key in keys, f"mutation_allowed.py names a mutant that is not generated (or does not compile): {key}"
        assert len(reason) > 40


def test_every_kind_is_in_the_fast_set():
    """The default run's fast set (compiled alone, without the full set's mutants)
    holds a mutant of every kind, none of FULL_ONLY."""
    from tools.mutate import KINDS

    fast = mutation_set("fast", ALWAYS)
    assert {p.mutant.kind for p in fast} == set(KINDS), sorted(set(KINDS) - {p.mutant.kind for p in fast})
    assert not FULL_ONLY & {p.key for p in fast}


def test_every_kind_is_in_the_fast_set_and_only_benign_candidates_are_dropped(record_property):
    from tools.mutate import KINDS

    fast = mutation_set("fast", ALWAYS)
    kinds = {p.mutant.kind for p in fast}
    assert kinds == set(KINDS), sorted(set(KINDS) - kinds)
    # the costly mutants left to the full set are generated, compiled and there
    assert FULL_ONLY <= {p.key for p in mutation_set("full", ALWAYS)}, FULL_ONLY
    total, drops = candidates_and_drops()
    record_property("mutation-drops", json.dumps({"candidates": total, "drops": dict(drops)}))
    # a dropped requires leaves the others first in the body: never illegal
    assert not [r for r in drops if r.startswith("drop-requires")], drops
    assert sum(drops.values()) <= total // 20, drops
    assert set(SCORE_FLOOR) == {"fast", "full"}


@pytest.mark.parametrize("path", sorted(EXTRA_SOURCES.glob("*.py")), ids=lambda p: p.stem)
def test_mutation_sources_are_proved(path):
    """A mutant means something only if the kernel it mutates is proved."""
    from verikern.app.prove import prove_file
    from verikern.proofs.obligations import KernelStatus
    from verikern.proofs.reporting.render import render_text

    reports = prove_file(path, **driver_kwargs((), budget=MUTANT_BUDGET))
    assert reports and all(r.status is KernelStatus.PROVED for r in reports), render_text(reports)
