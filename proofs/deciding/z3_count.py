"""z3's resource count of the current context, and the order z3 frees terms in:
the two things a proof's unit counts rest on, apart from the meters that read them
(proofs.deciding.budget, which re-exports these names).

Invariant: `rlimit_count` reads the count of `z3.main_ctx()` now (a context made
since is counted from its own start), and `CONTEXT_CACHES` holds the `clear` of every
module cache that keeps z3 terms of a context, so that `budget.fresh_context` can
empty them all when it replaces the context."""
from __future__ import annotations

import contextlib
import gc

import z3

#: `clear` functions of the module caches that hold z3 terms of a context
#: (fresh_context empties them: see there).
CONTEXT_CACHES: list = []


#: (context, an idle solver of it): any solver of a context reports the
#: context's whole resource count, and asking an existing one is about ten
#: times cheaper than making a solver per question.
_COUNTER: list = []
CONTEXT_CACHES.append(_COUNTER.clear)


def rlimit_count() -> int:
    """z3's resource count of the current context so far."""
    ctx = z3.main_ctx()
    if not _COUNTER or _COUNTER[0] is not ctx:
        _COUNTER[:] = [ctx, z3.SolverFor("QF_BV", ctx=ctx)]
    stats = _COUNTER[1].statistics()
    for key in stats.keys():
        if key == "rlimit count":
            return int(stats.get_key_value(key))
    return 0



@contextlib.contextmanager
def z3_memory_order():
    """Run the block with Python's cyclic garbage collector paused.

    z3 numbers terms with ids it reuses once a term is freed, and those ids
    order its search: which term is freed when decides which model comes first
    and how many resource units a check costs. Reference counting frees terms
    at the same point of every run of the same proof; the cyclic collector
    runs whenever enough objects were allocated since its last run, which
    depends on the process's history (earlier kernels, the hash seed's set
    and dict layouts, the report format). Paused for a kernel's whole proof,
    its z3 terms are freed at the same points everywhere; the collector runs
    again afterwards and reclaims the proof's cycles then."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["CONTEXT_CACHES", "rlimit_count", "z3_memory_order"]
