"""One query for every index of a multi-dimensional access
(`prover._every_dim_in_bounds`): its violations joined, under the
abstraction; `unsat` proves each dimension's obligation (each violation
implies the join), anything else leaves every dimension to its own search
and counterexample. A later dimension proved by the shared query lists it as
its own (exported queries, cross-checks: `SolverSession.reuse`)."""
from __future__ import annotations

import logging

from verikern.proofs.deciding.smtlib_export import obligation_queries
from verikern.proofs.obligations import ObligationKind, Status
from verikern.proofs.pipeline import prove_mir

from shared_helpers import mir_of

GUARDED = """
@vk.kernel
def scale(a: vk.array(dtype=vk.float32, ndim=2)):
    i, j = vk.tid()
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = a[i, j] * 2.0
"""

# the row is guarded, the column is not: j may pass a.shape[1]
COLUMN_UNGUARDED = """
@vk.kernel
def scale(a: vk.array(dtype=vk.float32, ndim=2)):
    i, j = vk.tid()
    if i < a.shape[0]:
        a[i, j] = a[i, j] * 2.0
"""


def _queries(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "verikern.proofs.solver"]


def test_both_indices_of_a_guarded_access_are_proved_by_one_query(caplog):
    kernel = mir_of(GUARDED, header=True)
    with caplog.at_level(logging.DEBUG, logger="verikern.proofs.solver"):
        report = prove_mir(kernel, file="scale.py")
    bounds = [o for o in report.obligations if o.kind is ObligationKind.BOUNDS]
    assert len(bounds) == 4 and all(o.status is Status.PROVED for o in bounds)
    names = _queries(caplog)
    bounds_queries = [n for n in names if ".bounds@" in n]
    # one joined query per access (the load and the store), nothing per dimension
    assert len(bounds_queries) == 2, bounds_queries
    assert all(".every-dim-abstract: unsat" in n for n in bounds_queries), bounds_queries


def test_a_column_out_of_bounds_is_failed_alone_and_the_row_proved():
    kernel = mir_of(COLUMN_UNGUARDED, header=True)
    report = prove_mir(kernel, file="scale.py")
    bounds = {(o.loc.col, o.spec.dim): o for o in report.obligations
              if o.kind is ObligationKind.BOUNDS}
    assert len(bounds) == 4
    for (_col, dim), o in bounds.items():
        if dim == 0:
            assert o.status is Status.PROVED, o.message
        else:
            assert o.status is Status.FAILED, o.message
            cex = o.counterexample
            assert cex.facts["index"] >= cex.facts["shape"], cex.facts
    # the load runs first: replay confirms its column (the store's is the
    # same element, reached only past the load's fault)
    (load_col,) = {col for (col, _d) in bounds if col != min(c for c, _ in bounds)}
    assert bounds[(load_col, 1)].confirmed, bounds[(load_col, 1)].message


def test_the_second_index_lists_the_shared_query_as_its_own():
    groups = dict(obligation_queries(mir_of(GUARDED, header=True)))
    ids = [k for k in groups if k.startswith("bounds@")]
    assert len(ids) == 4, list(groups)
    for key in ids:        # #0 asked it, #1 rests on it: both list it
        (query,) = groups[key]
        assert query[0].endswith("every-dim-abstract") and query[1] == "unsat", (key, query)
