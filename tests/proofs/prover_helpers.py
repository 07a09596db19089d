"""Compile a kernel from source and summarise the prover's verdicts per kind."""
from __future__ import annotations

from verikern.proofs import prove_kernel
from verikern.proofs.deciding.session import SolverSession
from shared_helpers import HEADER, mir_of  # noqa: F401  (HEADER: re-exported)


def compile_kernel(src: str):
    return mir_of(src, header=True, filename="<test>")


def prove_src(src: str, budget: float | None = None, *, timeout: float | None = None, **kw):
    """Prove the kernel of `src`; `budget` in million z3 resource units per
    check (`timeout` is its old name, one unit per former second)."""
    budget = budget if budget is not None else timeout
    return prove_kernel(compile_kernel(src), budget=SolverSession.from_megaunits(budget), **kw)


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
