"""Solver sessions: where every solver of a proof comes from.

A `SolverSession` makes the solvers of one part of a kernel's proof under
its deterministic work budget (proofs.deciding.budget), names their queries
(`label`, `topic`, a running number), logs every check, and, as its
`SolverSettings` say, writes each query as SMT-LIB 2 (`--dump-smt`) and has a
second solver re-decide each answer (`--cross-check`,
proofs.deciding.crosscheck); it keeps the cross-check records and, when
asked, the queries' text (`captured`).

Invariant: the settings come from the run's options (verikern.app.prove's
ProofOptions -> `solver_settings`), never from the environment, so they
travel with the options to worker processes and Dask workers; a session made
without explicit settings takes those of the proof in progress
(`current_settings`; none outside a proof).
"""
from __future__ import annotations

import contextlib
import contextvars
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import z3

from verikern.proofs.deciding.budget import (
    DEFAULT_CHECK_RLIMIT, KERNEL_CHECKS, MIN_CHECK_RLIMIT, MIN_KERNEL_RLIMIT, SAFETY_NET_S, SEED,
    UnitCount, charge_query, per_check_units, rlimit_count, work_left,
)
from verikern.proofs.deciding import crosscheck
from verikern.proofs.deciding.smtlib_text import standard_smtlib

LOG = logging.getLogger("verikern.proofs.solver")


@dataclass(frozen=True)
class SolverSettings:
    """What a session does with its queries besides deciding them:
    `dump_smt`, a folder each query is written to as SMT-LIB 2; `cross_check`,
    the second solver (proofs.deciding.crosscheck.SOLVERS) that re-decides
    every answer. Neither changes a verdict by itself."""

    dump_smt: str | None = None
    cross_check: str | None = None


NO_SETTINGS = SolverSettings()
_CURRENT: contextvars.ContextVar[SolverSettings] = contextvars.ContextVar("verikern_solver_settings",
                                                                          default=NO_SETTINGS)


def current_settings() -> SolverSettings:
    """The settings of the proof in progress (NO_SETTINGS outside one)."""
    return _CURRENT.get()


@contextlib.contextmanager
def solver_settings(settings: SolverSettings) -> Iterator[SolverSettings]:
    """Run the block (a kernel's proof) with `settings` for every session it makes."""
    token = _CURRENT.set(settings)
    try:
        yield settings
    finally:
        _CURRENT.reset(token)


class SolverSession:
    """The solvers of one part of a kernel's proof (see module docstring):
    it makes them under its work budget, names and logs their queries, and
    dumps and cross-checks them as its `settings` say.

    `per_check` bounds one check, `total` the whole kernel (the count is z3's
    own, read from the context, so it covers every check made through this
    session and anything else z3 did meanwhile). `settings`: None takes those
    of the proof in progress (`current_settings`)."""

    def __init__(self, per_check: int = DEFAULT_CHECK_RLIMIT, total: int | None = None,
                 label: str = "", settings: SolverSettings | None = None):
        """`label` prefixes the names of this session's queries (logs, dumps)."""
        self.settings = settings if settings is not None else current_settings()
        if per_check <= 0:
            raise ValueError(f"bad solver budget {per_check}: it must be positive")
        self.per_check = int(per_check)
        self.total = int(total) if total is not None else \
            max(KERNEL_CHECKS * self.per_check, MIN_KERNEL_RLIMIT)
        #: from now, in the current context or the one a proof made after it
        #: (budget.own_context: a session made before `prove_kernel` is called)
        self._count = UnitCount.now()
        self.label = label
        self.topic = ""          # what the queries are about now (an obligation)
        self.queries = 0
        self.cross_checks: list = []   # proofs.deciding.crosscheck.CrossCheck, in query order
        #: when a list: every decided query as (name, topic, answer, SMT-LIB text)
        self.captured: list | None = None

    @classmethod
    def from_megaunits(cls, budget: float | None, label: str = "",
                       settings: SolverSettings | None = None) -> "SolverSession":
        """The session of `--budget N` (N million units per check; None: default)."""
        if budget is None:
            return cls(label=label, settings=settings)
        return cls(per_check_units(budget), label=label, settings=settings)

    @property
    def spent(self) -> int:
        return self._count.units()

    def mark(self) -> tuple[int, int]:
        """Where the records of the queries asked from now on will start."""
        return len(self.cross_checks), len(self.captured or ())

    def records_since(self, mark: tuple[int, int]) -> tuple[list, list]:
        """The cross-check and captured records of the queries since `mark`."""
        return self.cross_checks[mark[0]:], list((self.captured or [])[mark[1]:])

    def reuse(self, records: tuple[list, list]) -> None:
        """Record queries asked earlier again, now under the current topic: a
        later obligation whose verdict rests on their answers (an exported
        or cross-checked obligation lists every query it rests on)."""
        checks, captured = records
        self.cross_checks.extend(checks)
        if self.captured is not None:
            self.captured.extend((name, self.topic, answer, text)
                                 for name, _topic, answer, text in captured)

    def limit(self, cap: int | None = None) -> int:
        """The rlimit of the next check: the per-check budget, at most `cap`
        and what the session has left, at least MIN_CHECK_RLIMIT (or `cap`
        when that is smaller) -- and never more than the whole kernel's
        meter has left (budget.kernel_work; 1 unit once it is spent: the
        check ends UNKNOWN at once)."""
        left = self.total - self.spent
        limit = min(self.per_check, max(left, MIN_CHECK_RLIMIT))
        limit = min(limit, cap) if cap is not None else limit
        kernel_left = work_left()
        if kernel_left is not None:
            limit = min(limit, kernel_left)
        return max(1, limit)

    def solver(self, cap: int | None = None, purpose: str = "check",
               logic: str = "QF_BV", formulas: int = 0) -> "LoggedSolver":
        """A fresh solver for `logic` limited to `limit(cap)` units (z3's
        bit-blasting preprocessing is only used by non-incremental solvers,
        so every check gets its own). Its checks are logged under
        `verikern.proofs.solver` and, when the settings name a dump folder,
        written there as SMT-LIB (`purpose` names the query). `formulas`: how
        many formulas the caller will assert (budget.charge_query)."""
        self.queries += 1
        charge_query(formulas)   # its Python work counts on the kernel's total, before its limit is read
        s = LoggedSolver(f"{self.label}{self.queries:05d}.{self.topic}{purpose}", self, logic)
        s.topic = self.topic
        s.set("rlimit", self.limit(cap))
        s.set("random_seed", SEED)
        s.set("timeout", int(SAFETY_NET_S * 1000))
        return s


class LoggedSolver(z3.Solver):
    """A solver for one logic (QF_BV, or QF_LIA for the integer relaxation)
    whose every check is logged (DEBUG: the query's name, answer and the z3
    units it spent) and, when its session's settings name a dump folder,
    written as an SMT-LIB 2 file named after the query there; with a
    cross-check solver set, every sat/unsat answer is decided again."""

    def __init__(self, name: str, budget: "SolverSession | None" = None, logic: str = "QF_BV"):
        ctx = z3.main_ctx()
        super().__init__(solver=z3.Z3_mk_solver_for_logic(ctx.ref(), z3.to_symbol(logic, ctx)),
                         ctx=ctx)
        self.name = name
        self.budget = budget
        self.logic = logic

    def add_all(self, formulas) -> None:
        """Assert `formulas` in order, as `add` does: the same assertions, without
        z3's Python-side sort check of each (a query of a hundred facts, asked
        thousands of times per kernel, spent more in that check than in z3);
        anything but a Boolean term of this solver's context goes through `add`."""
        ctx = self.ctx
        ref, solver = ctx.ref(), self.solver
        for f in formulas:
            if isinstance(f, z3.BoolRef) and f.ctx is ctx:
                z3.Z3_solver_assert(ref, solver, f.as_ast())
            else:
                self.add(f)

    def smtlib(self) -> str:
        """The query as a standard SMT-LIB 2 script (its logic, ending in check-sat)."""
        return f"(set-logic {self.logic})\n" + standard_smtlib(self.to_smt2())

    def check(self, *assumptions):
        logging_units = LOG.isEnabledFor(logging.DEBUG)
        before = rlimit_count() if logging_units else 0
        started = time.monotonic()
        result = super().check(*assumptions)
        # only for telling the safety net from the budget when z3 says "canceled"
        self.hit_safety_net = time.monotonic() - started >= SAFETY_NET_S
        if logging_units:
            LOG.debug("%s: %s (%d z3 units)", self.name, result, rlimit_count() - before)
        settings = self.budget.settings if self.budget is not None else current_settings()
        folder = settings.dump_smt
        if folder:
            path = Path(folder) / f"{_safe(self.name)}.smt2"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"; verikern query {self.name}: z3 answered {result}\n" + self.smtlib())
        if self.budget is not None and self.budget.captured is not None:
            self.budget.captured.append((self.name, self.topic, str(result), self.smtlib()))
        other = settings.cross_check
        if other and self.budget is not None and result in (z3.sat, z3.unsat) and not assumptions:
            record = crosscheck.recheck(other, self.name, self.smtlib(), str(result))
            LOG.debug("%s: %s answered %s", self.name, other, record.other_answer)
            self.budget.cross_checks.append(record)
        return result


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


__all__ = ["LoggedSolver", "NO_SETTINGS", "SolverSession", "SolverSettings", "current_settings",
           "solver_settings"]
