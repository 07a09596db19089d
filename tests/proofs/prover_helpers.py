"""Compile a kernel from source and summarise the prover's verdicts per kind."""
from __future__ import annotations

import contextlib
from unittest import mock

from verikern.proofs import prove_kernel
from verikern.proofs.deciding.prover import DECIDERS
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.obligations import Obligation, ObligationKind, Status
from shared_helpers import HEADER, mir_of  # noqa: F401  (HEADER: re-exported)


def compile_kernel(src: str):
    return mir_of(src, header=True, filename="<test>")


def prove_src(src: str, budget: float | None = None, *, timeout: float | None = None, **kw):
    """Prove the kernel of `src`; `budget` in million z3 resource units per
    check (`timeout` is its old name, one unit per former second)."""
    budget = budget if budget is not None else timeout
    return prove_kernel(compile_kernel(src), budget=SolverSession.from_megaunits(budget), **kw)


def _left_undecided(ctx, spec) -> Obligation:
    reason = "not decided: the test checks other kinds of obligation"
    return Obligation(spec.kind, spec.loc, Status.UNKNOWN, f"{spec.kind.value} undecided: {reason}",
                      reason=reason, other_loc=spec.other_loc, spec=spec)


@contextlib.contextmanager
def deciding_only(*kinds: ObligationKind):
    """Within the block the prover decides only the obligations of `kinds`,
    on its usual path (prove_kernel: the same context, repeats, cross-checks,
    explanations); every other obligation is `unknown` without a query. For a
    test of one kind's verdict whose kernel's other obligations (a race, most
    often) would cost it several times as much."""
    with mock.patch.dict(DECIDERS, {k: _left_undecided for k in ObligationKind if k not in kinds}):
        yield


def prove_src_only(src: str, *kinds: ObligationKind, budget: float | None = None, **kw):
    """`prove_src(src, budget, **kw)` deciding only the obligations of `kinds`
    (`deciding_only`); the others are `unknown`."""
    with deciding_only(*kinds):
        return prove_src(src, budget, **kw)


def verdicts(obligations) -> dict[str, set[str]]:
    """kind -> set of statuses over that kind's obligations."""
    out: dict[str, set[str]] = {}
    for o in obligations:
        out.setdefault(o.kind.value, set()).add(o.status.value)
    return out


def failing(obligations) -> set[str]:
    return {o.kind.value for o in obligations if o.status.value == "failed"}


def assert_verdicts(obligations, failed: set[str] = frozenset(), kinds: set[str] | None = None):
    """Exactly the kinds in `failed` have a failed obligation; every other
    obligation is proved; `kinds` (when given) are all present."""
    v = verdicts(obligations)
    msgs = [f"{o.kind.value} {o.status.value} L{o.loc.line}: {o.message}" for o in obligations]
    assert failing(obligations) == set(failed), msgs
    for kind, statuses in v.items():
        if kind not in failed:
            assert statuses == {"proved"}, msgs
    if kinds is not None:
        assert set(kinds) <= set(v), (kinds, msgs)
