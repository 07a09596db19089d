"""Deterministic solver work: z3 resource limits instead of seconds.

Invariant: every solver a proof uses comes from `SolverBudget.solver`, so it
carries a z3 resource limit (`rlimit`, counted in z3's own work units) and
fixed random seeds, and runs in a z3 context that `fresh_context` made for
this kernel's proof alone. The same kernel and options therefore make the
same queries with the same limits, and get the same answers and the same
models, on any machine at any load. A wall-clock limit remains only as an
outer safety net (`SAFETY_NET_S` per check, far above what the budget
needs); a check it stops is UNKNOWN with a reason that says the verdict then
depends on the machine (`is_safety_net`).

Units: `--budget N` is N million z3 resource units per check. On a typical
2-core machine z3 spends roughly a million units per second on this
project's bit-vector queries, so the default of 10 allows about ten seconds.
"""
from __future__ import annotations

import contextlib
import gc
import logging
import os
import re
import time
from pathlib import Path

import z3

LOG = logging.getLogger("verikern.proofs.solver")
#: Environment variable naming a folder: every query is written there as
#: SMT-LIB 2 (`verikern prove --dump-smt DIR` sets it).
DUMP_ENV = "VERIKERN_DUMP_SMT"
#: Environment variable naming a second solver that re-decides every query
#: (proofs.deciding.crosscheck; `verikern prove --cross-check NAME` sets it).
CROSS_ENV = "VERIKERN_CROSS_CHECK"

#: One million z3 resource units (the unit of `--budget`).
MEGA = 1_000_000
#: Default work for one full check (the per-obligation budget), in z3 units.
DEFAULT_CHECK_RLIMIT = 10 * MEGA
#: A kernel's whole proof may spend this many full checks' worth of work;
#: past that, each check still gets `MIN_CHECK_RLIMIT` (then ends UNKNOWN
#: early) so that one kernel cannot stall a run.
KERNEL_CHECKS = 4
#: The kernel's total is at least this much, whatever the per-check budget.
MIN_KERNEL_RLIMIT = 20 * MEGA
#: The least work any check gets, however much the kernel has spent.
MIN_CHECK_RLIMIT = MEGA // 2
#: Fixed random seeds of every solver.
SEED = 0
#: Wall-clock safety net of one check (seconds): far beyond what any budget
#: above needs on a working machine; reaching it makes the check UNKNOWN.
SAFETY_NET_S = 300.0


#: `clear` functions of the module caches that hold z3 terms of a context
#: (fresh_context empties them: see there).
CONTEXT_CACHES: list = []


def fresh_context() -> None:
    """Give the rest of this kernel's proof a z3 context of its own.

    z3's answers (and its resource counts) depend on every term created in
    the context before, so a proof that shared the process-wide context with
    earlier kernels (another file in the same worker process, another test)
    could pick another model. Terms made before stay valid in their old
    context; they must not be mixed with new ones (nothing in the prover
    keeps z3 terms across kernels)."""
    z3.z3._main_ctx = None
    for clear in CONTEXT_CACHES:      # their terms belong to an earlier context:
        clear()                       # freed now, not in the middle of this proof


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


class SolverBudget:
    """The solver work one kernel's proof may spend (see module docstring).

    `per_check` bounds one check, `total` the whole kernel (the count is z3's
    own, read from the context, so it covers every check made through this
    budget and anything else z3 did meanwhile)."""

    def __init__(self, per_check: int = DEFAULT_CHECK_RLIMIT, total: int | None = None,
                 label: str = ""):
        """`label` prefixes the names of this budget's queries (logs, dumps)."""
        if per_check <= 0:
            raise ValueError(f"bad solver budget {per_check}: it must be positive")
        self.per_check = int(per_check)
        self.total = int(total) if total is not None else \
            max(KERNEL_CHECKS * self.per_check, MIN_KERNEL_RLIMIT)
        self._start = rlimit_count()
        self.label = label
        self.topic = ""          # what the queries are about now (an obligation)
        self.queries = 0
        self.cross_checks: list = []   # proofs.deciding.crosscheck.CrossCheck, in query order
        #: when a list: every decided query as (name, topic, answer, SMT-LIB text)
        self.captured: list | None = None

    @classmethod
    def from_megaunits(cls, budget: float | None, label: str = "") -> "SolverBudget":
        """The budget of `--budget N` (N million units per check; None: default)."""
        if budget is None:
            return cls(label=label)
        if budget <= 0:
            raise ValueError(f"bad solver budget {budget}: it must be positive")
        return cls(max(1, int(budget * MEGA)), label=label)

    @property
    def spent(self) -> int:
        return rlimit_count() - self._start

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
        and what the kernel has left, at least MIN_CHECK_RLIMIT (or `cap`
        when that is smaller)."""
        left = self.total - self.spent
        limit = min(self.per_check, max(left, MIN_CHECK_RLIMIT))
        return max(1, min(limit, cap) if cap is not None else limit)

    def solver(self, cap: int | None = None, purpose: str = "check",
               logic: str = "QF_BV") -> z3.Solver:
        """A fresh solver for `logic` limited to `limit(cap)` units (z3's
        bit-blasting preprocessing is only used by non-incremental solvers,
        so every check gets its own). Its checks are logged under
        `verikern.proofs.solver` and, when `VERIKERN_DUMP_SMT` names a
        folder, written there as SMT-LIB (`purpose` names the query)."""
        self.queries += 1
        s = LoggedSolver(f"{self.label}{self.queries:05d}.{self.topic}{purpose}", self, logic)
        s.topic = self.topic
        s.set("rlimit", self.limit(cap))
        s.set("random_seed", SEED)
        s.set("timeout", int(SAFETY_NET_S * 1000))
        return s


class LoggedSolver(z3.Solver):
    """A solver for one logic (QF_BV, or QF_LIA for the integer relaxation)
    whose every check is logged (DEBUG: the query's name, answer and the z3
    units it spent) and, with VERIKERN_DUMP_SMT set, written as an SMT-LIB 2
    file named after the query."""

    def __init__(self, name: str, budget: "SolverBudget | None" = None, logic: str = "QF_BV"):
        ctx = z3.main_ctx()
        super().__init__(solver=z3.Z3_mk_solver_for_logic(ctx.ref(), z3.to_symbol(logic, ctx)),
                         ctx=ctx)
        self.name = name
        self.budget = budget
        self.logic = logic

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
        folder = os.environ.get(DUMP_ENV)
        if folder:
            path = Path(folder) / f"{_safe(self.name)}.smt2"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"; verikern query {self.name}: z3 answered {result}\n" + self.smtlib())
        if self.budget is not None and self.budget.captured is not None:
            self.budget.captured.append((self.name, self.topic, str(result), self.smtlib()))
        other = os.environ.get(CROSS_ENV)
        if other and self.budget is not None and result in (z3.sat, z3.unsat) and not assumptions:
            from verikern.proofs.deciding.crosscheck import recheck  # lazy: import cycle with deciding.crosscheck

            record = recheck(other, self.name, self.smtlib(), str(result))
            LOG.debug("%s: %s answered %s", self.name, other, record.other_answer)
            self.budget.cross_checks.append(record)
        return result


#: z3's internal spellings of standard operators (SMT-LIB 2.6 semantics,
#: division by zero included).
_Z3_INTERNAL = {"bvudiv_i": "bvudiv", "bvsdiv_i": "bvsdiv", "bvurem_i": "bvurem",
                "bvsrem_i": "bvsrem", "bvsmod_i": "bvsmod"}


def standard_smtlib(text: str) -> str:
    """z3's SMT-LIB output in standard SMT-LIB: internal operator names
    renamed; z3's multiplication overflow predicates in standard terms --
    `(bvumul_noovfl a b)` as `(not (bvumulo a b))`, `(bvsmul_noovfl a b)`
    (no signed overflow upwards) as "not (bvsmulo a b) with a and b of one
    sign", `(bvsmul_noudfl a b)` (no signed underflow) the same with signs
    that differ (a product of operands of one sign is never negative, of
    differing signs never positive); and z3's one-argument `(or x)` /
    `(and x)` as `x`. Anything else is left as it is (a solver that cannot
    read it answers unknown, never agreement)."""
    text = re.sub(r"\b(" + "|".join(_Z3_INTERNAL) + r")\b", lambda m: _Z3_INTERNAL[m.group(1)], text)
    if not any(w in text for w in ("(or ", "(and ", "mul_noovfl ", "mul_noudfl ")):
        return text
    stack: list[list] = [[]]
    for tok in _TOKEN.findall(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            node = stack.pop()
            stack[-1].append(_standard_node(node))
        else:
            stack[-1].append(tok)
    return "\n".join(_show(n) for n in stack[0]) + "\n"


_TOKEN = re.compile(r'\|[^|]*\||"(?:[^"]|"")*"|;[^\n]*|\(|\)|[^\s()|";]+')


def _negative(x) -> list:
    return ["bvslt", x, ["bvsub", x, x]]          # x < 0 at x's own width


def _standard_node(node: list):
    if len(node) == 2 and node[0] in ("or", "and"):
        return node[1]
    if len(node) == 3 and node[0] == "bvumul_noovfl":
        return ["not", ["bvumulo", node[1], node[2]]]
    if len(node) == 3 and node[0] in ("bvsmul_noovfl", "bvsmul_noudfl"):
        same = "=" if node[0] == "bvsmul_noovfl" else "distinct"
        return ["not", ["and", ["bvsmulo", node[1], node[2]],
                        [same, _negative(node[1]), _negative(node[2])]]]
    return node


def _show(node) -> str:
    """`node` as SMT-LIB text, iteratively (queries nest deeply)."""
    out: list[str] = []
    work: list = [node]
    while work:
        item = work.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        out.append("(")
        work.append(")")
        for k, child in enumerate(reversed(item)):
            work.append(child)
            if k < len(item) - 1:
                work.append(" ")
    return "".join(out)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def unknown_reason(solver: z3.Solver) -> str:
    """Why `solver` answered unknown, in the words reports use."""
    why = solver.reason_unknown()
    # z3 says "canceled" both when its resource limit stops a tactic and when
    # the timeout does: only a check that really ran the safety net's length
    # was stopped by it
    if is_safety_net(why) and getattr(solver, "hit_safety_net", True):
        return (f"the wall-clock safety net of {SAFETY_NET_S:g} s per check was reached "
                "(this verdict depends on the machine's speed; raise --budget or simplify "
                "the kernel)")
    if "resource" in why or is_safety_net(why):
        return "the solver budget was exhausted (raise --budget to give each check more work)"
    return f"the solver answered unknown ({why})"


def is_safety_net(reason: str) -> bool:
    return reason in ("timeout", "canceled")


__all__ = ["SolverBudget", "LoggedSolver", "DUMP_ENV", "fresh_context", "rlimit_count", "unknown_reason", "MEGA",
           "DEFAULT_CHECK_RLIMIT", "SAFETY_NET_S", "z3_memory_order"]
