"""Deterministic solver work: z3 resource limits instead of seconds.

Invariant: every solver a proof uses comes from a `SolverSession`
(proofs.deciding.session), so it carries a z3 resource limit (`rlimit`,
counted in z3's own work units) and fixed random seeds, and runs in a z3
context that `fresh_context` made for this kernel's proof alone (`own_context`
around every entry point of a proof or of a part of one). The same
kernel and options therefore make the same queries with the same limits, and
get the same answers and the same models, on any machine at any load. A
wall-clock limit remains only as an outer safety net (`SAFETY_NET_S` per
check, far above what the budget needs); a check it stops is UNKNOWN with a
reason that says the verdict then depends on the machine (`is_safety_net`).

Units: `--budget N` is N million z3 resource units per check. On a typical
2-core machine z3 spends roughly a million units per second on this
project's bit-vector queries, so the default of 10 allows about ten seconds
(a third of that on a loaded machine, or on the large queries of 4-d launches
with nested loops).

The whole kernel -- its proof, the exact search after it, its suggested
contract's search, example launch and re-proof -- shares one `KernelWork` of
KERNEL_WORK_CHECKS checks' worth (`kernel_work`); each instance of a generic
kernel is a kernel of its own with a meter of that size (its work does not
depend on how many instances the kernel has, nor on which came from the
cache). A meter counts z3 units across the z3 contexts the kernel's proof
goes through (`fresh_context` banks the old context's count), every check is
limited to what it has left, and once it is spent the obligations not decided
yet end UNKNOWN, saying how many were decided (`exhausted_reason`). Work,
never seconds: the same kernel gets the same verdicts on any machine.

Two refinements keep that one meter from starving a part of the work:
- every obligation gets a floor (`obligation_floor`): when the prover starts
  deciding one, the meter's limit is raised, if need be, to what it has spent
  plus OBLIGATION_FLOOR (at most the per-check budget), so that an expensive
  proof context or earlier obligations cannot leave the later ones nothing; a
  kernel of n obligations spends at most its limit plus n floors; once FLOOR_RUN
  obligations in a row end undecided on their floor, the rest are not tried
  (nothing they could decide would make that proof end proved);
- the suggested contract's search, and its example launch and re-proof on the
  pasted source, each run under a meter of their own (`separate_work`, of the
  kernel's limit: the re-proof is a proof of the same kernel), and the
  kernel's meter does not count what they spend; so a kernel spends at most
  three limits plus the floors of its proof and its re-proof.

Above all of these, the application (verikern.app.prove) counts a kernel's
total (`kernel_total`, `--kernel-budget`, default KERNEL_TOTAL_CHECKS
per-check budgets: 100 million units at `--budget 10`), one per kernel definition
(every configuration and instance of it): compiling the kernel, COMPILE_UNIT_WEIGHT
units a compile unit (`KernelTotal.charge_compiling`), and every z3 unit of every
instance of a generic kernel, of its type-oblivious proof, of every meter
above (floors included) and of the typing-premise search. It is a hard bound:
every check gets at most what the total has left (`work_left`), no floor
raises it, and once it is spent nothing more is decided -- the obligations
not decided yet end UNKNOWN (`total_exhausted_reason`), a search stops with
what it has proved, and a suggested contract that was not re-proved is not
`proved` (the report says why: `suggestion_unknown`). A cached instance is
charged the units its report recorded, and what the total had left when it
started is part of its cache key, so the verdicts do not depend on the cache.

With `--suggest`, a kernel of more than one part (instances, its type-oblivious
proof) holds SUGGESTION_RESERVE of its total back from the parts' shares
(`reserved_total`, `KernelTotal.held`): a suggested contract's search, its
example launch and its re-proof (the `separate_work` blocks inside a part) may
spend the part's share and then what is left of that reserve; what a part
drew from it (its units past its share) is no longer held when the part ends
(`kernel_part`). A failed instance's search and the pasted contract's re-proof
are so no longer starved by a proof that spent its whole share (session 20: 8
of 15 failures in the project samples). The reserve left after the last part
is the typing-premise search's, as the rest of the total is. Counts, never
seconds: what is held follows from the units spent, and it is part of the
cache key (`allowance`).

z3's count covers z3's own work only; the Python work around it -- encoding each
obligation, building each solver, compiling the pasted copies of the kernel's
file for a suggestion's or a typing premise's re-proof -- is charged to the
total too, a fixed number of units per solver query (`charge_query`) and, per
recompiled copy, units by its characters and MIR instructions (`charge_compile`),
so that the total bounds a kernel's time
and not only its solving (a generic kernel of 132 instances spent as much CPU
outside z3 as inside it); so is the Python work that grows with what a query
holds and how often a model is read: each formula a query asserts past the
first thousand (`charge_query`'s `formulas`), each formula evaluated in a model
(`charge_evaluations`) and each thread copy encoded, by its instructions
(`charge_encoding`). Counts, never seconds: the charges, like z3's units, are
the same on every machine. A charge never takes the total past its limit. Each
total keeps a ledger of its charges by kind (`KernelTotal.ledger`), and a spent one
says what spent it (budget_reasons.total_exhausted_text).

The figures (MEGA, DEFAULT_CHECK_RLIMIT, FLOOR_RUN, KERNEL_TOTAL_CHECKS, the charges' units,
...) are defined in budget_units, each with the measurement that chose it, and re-exported
here: read and set them as `budget.NAME` (the meters below read this module's names).
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from typing import Iterator

import z3

from verikern.encoders.smt.terms import take_walked
from verikern.proofs.deciding.z3_count import CONTEXT_CACHES, rlimit_count, z3_memory_order

# the figures (each with the measurement that chose it) live in budget_units
from verikern.proofs.deciding.budget_units import (  # noqa: F401 (re-exported)
    MEGA, DEFAULT_CHECK_RLIMIT, KERNEL_CHECKS, MIN_KERNEL_RLIMIT, MIN_CHECK_RLIMIT,
    KERNEL_WORK_CHECKS, OBLIGATION_FLOOR, FLOOR_RUN, KERNEL_TOTAL_CHECKS, COMPILE_UNIT_WEIGHT,
    QUERY_UNITS, COMPILE_UNITS, COMPILE_CHARACTER_UNITS, COMPILE_INSTRUCTION_UNITS,
    COMPILE_CHECKS, MIN_COMPILE_UNITS, INTERVAL_CHECKS, MIN_INTERVAL_STEPS, FORMULA_UNITS,
    QUERY_FORMULAS, EVALUATION_UNITS, INSTRUCTION_UNITS, ANALYSIS_STEP_UNITS, TERM_UNITS,
    SUGGESTION_RESERVE, SEED, SAFETY_NET_S,
)


@dataclass
class UnitCount:
    """z3's resource count since counting began, in the current context.
    Mutable on purpose: it follows the context. `ctx`, `start`: the context
    counted and its count when counting began; once the current context is
    another (fresh_context made it later), that one is counted from 0 (the
    units of the one left behind are no longer read: KernelWork banks them)."""

    ctx: object = None
    start: int = 0

    @classmethod
    def now(cls) -> "UnitCount":
        """A count starting at z3's count of the current context now."""
        return cls(z3.main_ctx(), rlimit_count())

    def units(self) -> int:
        ctx = z3.main_ctx()
        if ctx is not self.ctx:
            self.ctx, self.start = ctx, 0
        return rlimit_count() - self.start


@dataclass
class KernelWork:
    """The z3 units a whole kernel has spent, across the contexts its proof
    goes through, against its `limit`. Mutable on purpose: it is the one
    running count of a kernel's work (no other state). `banked`: the units of
    the contexts left behind; `_count`: the units of the context counted now
    (a context made after the meter starts at 0); `granted`: the units the
    obligations' floors added to `limit`."""

    limit: int
    banked: int = 0
    granted: int = 0
    _count: UnitCount = field(default_factory=UnitCount)
    _floor: int = 0

    def spent(self) -> int:
        return self.banked + self._count.units()

    def left(self) -> int:
        return self.limit + self.granted - self.spent()

    @property
    def floor(self) -> int:
        """The units each obligation gets at least (obligation_floor), once granted."""
        return self._floor

    def grant_floor(self, floor: int) -> None:
        """At least `floor` units left from now on (obligation_floor)."""
        self._floor = floor
        self.granted = max(self.granted, self.spent() + self._floor - self.limit)

    def bank(self) -> None:
        """Add the current context's units (called before it is replaced;
        one made since the last count is counted from 0)."""
        if z3.z3._main_ctx is not None:
            self.banked += self._count.units()
        self._count = UnitCount()


_METER: contextvars.ContextVar["KernelWork | None"] = contextvars.ContextVar("verikern_kernel_work",
                                                                            default=None)
#: The total of the kernel in progress (`kernel_total`): a KernelWork whose limit is never raised.
_TOTAL: contextvars.ContextVar["KernelTotal | None"] = contextvars.ContextVar("verikern_kernel_total",
                                                                            default=None)


def per_check_units(budget: float | None) -> int:
    """The z3 units of one check for `--budget N` (None: the default)."""
    if budget is None:
        return DEFAULT_CHECK_RLIMIT
    if budget <= 0:
        raise ValueError(f"bad solver budget {budget}: it must be positive")
    return max(1, int(budget * MEGA))


def kernel_work_limit(per_check: int) -> int:
    """The whole kernel's work for a per-check budget of `per_check` units."""
    return max(1, int(KERNEL_WORK_CHECKS * per_check))


def compile_units(budget: float | None) -> int:
    """A kernel's compile budget (verikern.mir.work units) for `--budget N` (None: the default):
    COMPILE_CHECKS per-check budgets, at least MIN_COMPILE_UNITS."""
    return max(MIN_COMPILE_UNITS, int(COMPILE_CHECKS * per_check_units(budget)))


def interval_steps(per_check: int) -> int:
    """The count of the barrier-interval map's walk for a per-check budget of `per_check`
    z3 units: INTERVAL_CHECKS per unit, at least MIN_INTERVAL_STEPS."""
    return max(MIN_INTERVAL_STEPS, int(INTERVAL_CHECKS * per_check))


def kernel_total_units(kernel_budget: float | None, per_check: int) -> int:
    """The z3 units of a kernel's total for `--kernel-budget N` (N million units;
    None: KERNEL_TOTAL_CHECKS times the per-check budget `per_check`)."""
    if kernel_budget is None:
        return max(1, KERNEL_TOTAL_CHECKS * per_check)
    if kernel_budget <= 0:
        raise ValueError(f"bad kernel budget {kernel_budget}: it must be positive")
    return max(1, int(kernel_budget * MEGA))


class KernelTotal(KernelWork):
    """A kernel's total (`kernel_total`): a KernelWork that counts only while
    a block runs under it (between blocks it holds what they spent) and whose
    limit no floor raises. Mutable on purpose, as KernelWork."""

    counting: bool = False
    #: The kernel's whole total when this is one part's share of it (`kernel_part`).
    whole: "KernelTotal | None" = None
    #: Of a whole total: the units held back from the parts' shares for the suggestion
    #: blocks (`reserved_total`; 0: none); lowered by what each part drew from it.
    held: int = 0
    #: What the charges of `charge` came to, by kind (`CHARGE_KINDS`), charged on this total
    #: and on the blocks' totals inside it (`kernel_total` adds theirs when they end): the
    #: rest of `spent()` is z3's own solving. Set per total (`new_total`).
    ledger: dict
    #: A suggestion block's total that may spend the reserve (`_drawing_reserve`).
    draws_reserve: bool = False
    #: Of a suggestion block's total (`draws_reserve`): the part's share it draws past.
    part: "KernelTotal | None" = None
    #: Of a part's share: a suggestion block of it could draw on the kernel's reserve.
    drew: bool = False
    #: Of a whole total: the units compiling the kernel was charged (`charge_compiling`),
    #: in its ledger and within its limit.
    compiled: int = 0

    def allowance(self) -> tuple[int, ...]:
        """What bounds the work from now on (a proof-cache key field): the whole
        total's limit, this share's, what it has left and the whole total's reserve
        still held (`held`)."""
        whole = self.whole if self.whole is not None else self
        return (whole.limit, self.limit, self.left(), whole.held)

    def spent(self) -> int:
        return self.banked + (self._count.units() if self.counting else 0)

    def grant_floor(self, floor: int) -> None:
        raise TypeError("a kernel's total is a hard bound: no floor raises it")

    def bank(self) -> None:
        if self.counting:
            super().bank()

    def charge_compiling(self, units: int) -> None:
        """Compiling the kernel took `units` compile units (verikern.mir.work; bounded by its
        own compile budget): charged COMPILE_UNIT_WEIGHT z3 units each, at most what the
        total has left, in the ledger as "compiling"; the proof has the rest. The reserve
        held for the suggestions (`held`) is then SUGGESTION_RESERVE of what is left."""
        taken = min(max(0, int(units)) * COMPILE_UNIT_WEIGHT, max(0, self.left()))
        self.compiled += taken
        self.charge(taken, "compiling")
        if self.held:
            self.held = int(max(0, self.left()) * SUGGESTION_RESERVE)

    def charge(self, units: int, kind: str = "cached") -> None:
        """Count `units` spent elsewhere (a cached instance's recorded work, the
        Python work of a query: `charge_query`), in the ledger under `kind`."""
        units = max(0, int(units))
        self.banked += units
        self.ledger[kind] = self.ledger.get(kind, 0) + units


def new_total(units: int) -> KernelTotal:
    """A kernel's total of `units` z3 units, not counting yet (`kernel_total` counts)."""
    total = KernelTotal(max(0, units))
    total.ledger = {}
    return total


def reserved_total(units: int) -> KernelTotal:
    """A kernel's total of `units` z3 units that holds SUGGESTION_RESERVE of them back
    from its parts' shares for the suggestion blocks (module docstring)."""
    total = new_total(units)
    total.held = int(total.limit * SUGGESTION_RESERVE)
    return total


@contextlib.contextmanager
def kernel_part(total: KernelTotal, parts: int) -> Iterator[KernelTotal]:
    """Run the block -- the first of `parts` parts of a kernel still to come (an
    instance of a generic kernel, its type-oblivious proof) -- on `total`,
    limited to an equal share of what `total` has left, so that an early part
    cannot leave the later ones nothing (what a part does not spend is left to
    the later ones). Deterministic: the shares follow from the units spent.
    The share is taken from what `total` has left less its reserve still held
    (`KernelTotal.held`); the suggestion blocks of the part may draw on that
    reserve (`separate_work`), and what they drew -- the part's units past its
    share -- is no longer held once the part ends."""
    with kernel_total(total):
        share = new_total(max(0, total.left() - total.held) // max(1, parts))
        share.whole = total
        try:
            with kernel_total(share):
                yield share
        finally:
            total.held -= min(total.held, max(0, share.spent() - share.limit))


@contextlib.contextmanager
def kernel_total(total: KernelTotal | None) -> Iterator[KernelTotal | None]:
    """Run the block (a part of one kernel's work: an instance, its
    type-oblivious proof, its typing-premise search) counting every z3 unit
    it spends on `total` too, and limiting every check to what `total` has
    left (`work_left`); the same total may be entered again later (its count
    resumes). None: no total. Inside another kernel's total, the outer one is
    charged what the block spent when it ends."""
    outer = _TOTAL.get()
    if total is None or outer is total:
        yield total
        return
    if outer is None:
        discard_pending()             # noted before this kernel: not its work
    before, charged = total.spent(), dict(total.ledger)
    if outer is not None:
        outer.bank()
        outer.counting = False
    total._count, total.counting = UnitCount.now(), True
    token = _TOTAL.set(total)
    try:
        yield total
    finally:
        _TOTAL.reset(token)
        total.bank()
        total.counting = False
        if outer is not None:       # what the block spent is the outer kernel's too
            outer.banked += total.spent() - before
            for kind, units in total.ledger.items():
                outer.ledger[kind] = outer.ledger.get(kind, 0) + units - charged.get(kind, 0)
            outer._count, outer.counting = UnitCount.now(), True


def charge_query(formulas: int = 0) -> None:
    """A solver query of `formulas` formulas is made: the total of the kernel in
    progress (when there is one) is charged QUERY_UNITS plus FORMULA_UNITS for each
    formula past the first QUERY_FORMULAS, for the Python work around it, so that the
    total bounds the kernel's time and not only its solving. A count of queries and
    formulas, never seconds: the same kernel is charged the same on any machine."""
    _charge_at_most_left((QUERY_UNITS, "queries"),
                         (FORMULA_UNITS * max(0, int(formulas) - QUERY_FORMULAS), "formulas"))


def charge_evaluations(formulas: int) -> None:
    """`formulas` formulas were evaluated in a model: EVALUATION_UNITS each on the
    total in progress (a count, never seconds)."""
    if formulas > 0:
        _charge_at_most_left((EVALUATION_UNITS * int(formulas), "evaluations"))


def charge_encoding(instructions: int) -> None:
    """A thread copy of a kernel of `instructions` instructions was encoded: the
    total in progress is charged INSTRUCTION_UNITS for each (a count, never seconds)."""
    if instructions > 0:
        _charge_at_most_left((INSTRUCTION_UNITS * int(instructions), "encoding"))


#: Analysis steps noted (`note_analysis`) and not yet charged; one cell, mutated in place.
_ANALYSIS_STEPS = [0]


def note_analysis(steps: int) -> None:
    """A proof-context analysis counted `steps` steps (ANALYSIS_STEP_UNITS each): charged
    to the total in progress at its next charge (a query, an encoding), so that noting
    reads no z3 count (that would allocate z3 objects: see `_charge_at_most_left`)."""
    if steps > 0:
        _ANALYSIS_STEPS[0] += int(steps)


def _pending() -> tuple[tuple[int, str], ...]:
    """The work noted since the last charge -- analysis steps, terms walked -- as charges
    (the counts restart at 0)."""
    steps, _ANALYSIS_STEPS[0] = _ANALYSIS_STEPS[0], 0
    return ((ANALYSIS_STEP_UNITS * steps, "analysis"), (TERM_UNITS * take_walked(), "terms"))


def discard_pending() -> None:
    """Forget the work noted outside any kernel's total (a kernel's total starts)."""
    _pending()


def _charge_at_most_left(*charges: tuple[int, str]) -> None:
    """Charge the total in progress each (units, kind) of `charges` (kind: one of
    budget_reasons.CHARGE_KINDS), after the work noted since the last charge
    (`_pending`), in all at most what it has left (it is spent then:
    the checks after get nothing, and its count stays within its limit). What it has
    left is read once per call, whatever the units (reading z3's count allocates z3
    objects, and the order z3 frees them in steers its search: z3_count.z3_memory_order)."""
    total = _TOTAL.get()
    pending = _pending()
    if total is not None:
        left = max(0, total.left())
        for units, kind in tuple(c for c in pending if c[0] > 0) + charges:
            taken = min(max(0, int(units)), left)
            total.charge(taken, kind)
            left -= taken


def charge_compile(characters: int, instructions: int) -> None:
    """A pasted copy of the kernel's file was compiled: a text of `characters`
    characters, to kernels of `instructions` MIR instructions in all; the total of the
    kernel in progress (when there is one) is charged COMPILE_UNITS, plus
    COMPILE_CHARACTER_UNITS per character and COMPILE_INSTRUCTION_UNITS per
    instruction (counts, never seconds)."""
    _charge_at_most_left((COMPILE_UNITS + COMPILE_CHARACTER_UNITS * max(0, int(characters))
                          + COMPILE_INSTRUCTION_UNITS * max(0, int(instructions)), "compiles"))


def current_total() -> KernelTotal | None:
    """The total of the kernel in progress (None: none)."""
    return _TOTAL.get()


def total_left() -> int | None:
    """The units the kernel's total has left (None: no total)."""
    total = _TOTAL.get()
    return None if total is None else total.left()


def total_exhausted() -> bool:
    """The kernel's total is spent: nothing more is decided."""
    left = total_left()
    return left is not None and left <= 0


def _counting(limit: int) -> KernelWork:
    """A meter of `limit` units counting from z3's count now."""
    return KernelWork(max(1, limit), _count=UnitCount.now())


@contextlib.contextmanager
def kernel_work(limit: int) -> Iterator[KernelWork]:
    """Run the block (a whole kernel's proof -- one instance of a generic
    kernel --, the suggestion and its re-proof) under one meter of `limit` z3
    units; inside a block that already has one, that meter goes on
    counting (the outer block owns the kernel)."""
    outer = _METER.get()
    if outer is not None:
        yield outer
        return
    meter = _counting(limit)
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)


@contextlib.contextmanager
def separate_work(per_check: int = DEFAULT_CHECK_RLIMIT) -> Iterator[KernelWork]:
    """Run the block (a part of a kernel's work with a budget of its own: the
    suggestion's search, its re-proof) under a new meter of the kernel's own
    limit (outside any kernel's meter: `kernel_work_limit(per_check)`);
    the kernel's meter, when there is one, does not count what the block
    spends (it reads the same before and after it). Blocks inside it that ask
    for `kernel_work` count on its meter."""
    outer = _METER.get()
    frozen = outer.spent() if outer is not None else 0
    limit = outer.limit if outer is not None else kernel_work_limit(per_check)
    with _drawing_reserve():
        meter = _counting(limit)
        token = _METER.set(meter)
        try:
            yield meter
        finally:
            _METER.reset(token)
            if outer is not None:      # what the block spent is its own: the kernel's count resumes
                outer.banked, outer._count = frozen, UnitCount.now()


@contextlib.contextmanager
def _drawing_reserve() -> Iterator[None]:
    """Run the block (a suggestion block: `separate_work`) on what the part in progress
    has left of its share plus its kernel's reserve still held (module docstring), when
    it is a part of a total that holds one; otherwise on the total as it is. What the
    block spends counts on the part's share (past its limit, if need be): `kernel_part`
    then lowers the reserve held by the part's units past its share."""
    share = _TOTAL.get()
    whole = share.whole if share is not None else None
    if share is None or whole is None or whole.held <= 0 or share.draws_reserve:
        yield
        return
    drawn = max(0, share.spent() - share.limit)      # by this part's earlier suggestion blocks
    block = new_total(max(0, share.left()) + max(0, whole.held - drawn))
    block.whole, block.draws_reserve, block.part = whole, True, share
    share.drew = True
    with kernel_total(block):
        yield


def obligation_floor(per_check: int) -> None:
    """An obligation starts: the kernel in progress has at least
    min(per_check, OBLIGATION_FLOOR) units left for it; nothing without a meter."""
    meter = _METER.get()
    if meter is not None:
        meter.grant_floor(min(per_check, OBLIGATION_FLOOR))


def current_meter() -> "KernelWork | None":
    return _METER.get()


def work_left() -> int | None:
    """The units the kernel in progress has left: its meter's, at most its
    total's (None: no meter and no total, no limit)."""
    meter = _METER.get()
    left = None if meter is None else meter.left()
    total = total_left()
    if total is not None:
        left = total if left is None else min(left, total)
    return left


def fresh_context() -> None:
    """Give the rest of this kernel's proof a z3 context of its own.

    z3's answers (and its resource counts) depend on every term created in
    the context before, so a proof that shared the process-wide context with
    earlier kernels (another file in the same worker process, another test)
    could pick another model. Terms made before stay valid in their old
    context; they must not be mixed with new ones (nothing in the prover
    keeps z3 terms across kernels). The kernel's meter banks the old
    context's units first."""
    for counting in (_METER.get(), _TOTAL.get()):
        if counting is not None:
            counting.bank()
    z3.z3._main_ctx = None
    for clear in CONTEXT_CACHES:      # their terms belong to an earlier context:
        clear()                       # freed now, not in the middle of this proof


_IN_PROOF: contextvars.ContextVar[bool] = contextvars.ContextVar("verikern_in_proof", default=False)


@contextlib.contextmanager
def own_context() -> Iterator[None]:
    """Run the block -- a kernel's proof (pipeline.prove_mir), or a part of
    one called on its own (prover.prove_kernel, the exact search, the
    suggestion's search, an example launch, the SMT-LIB export) -- in a z3
    context that no earlier work of the process touched, with the cyclic
    collector paused (z3_memory_order).

    Invariant: the outermost such block starts with `fresh_context`, so its
    queries, answers and unit counts are those of the same block in a fresh
    process: earlier work in the process-wide context (another kernel's
    proof, a test's own terms) would change the terms' ids and the fresh
    variables' names (encoders.smt.encoder numbers them per context), and
    with them z3's search. A block inside another one goes on in that
    block's context (it is a part of the proof in progress, which made its
    own; the parts that need another context call `fresh_context`)."""
    if _IN_PROOF.get():
        yield
        return
    token = _IN_PROOF.set(True)
    try:
        with z3_memory_order():
            fresh_context()
            yield
    finally:
        _IN_PROOF.reset(token)


__all__ = ["fresh_context", "rlimit_count", "unknown_reason", "MEGA", "DEFAULT_CHECK_RLIMIT",
           "SAFETY_NET_S", "z3_memory_order", "KernelWork", "kernel_work", "kernel_work_limit",
           "current_meter", "per_check_units", "work_left", "exhausted_reason", "KERNEL_WORK_CHECKS",
           "separate_work", "obligation_floor", "OBLIGATION_FLOOR", "FLOOR_RUN", "own_context", "UnitCount",
           "kernel_total", "kernel_total_units", "new_total", "total_left", "total_exhausted",
           "total_exhausted_reason", "total_exhausted_text", "KERNEL_TOTAL_CHECKS", "KernelTotal",
           "current_total", "kernel_part", "charge_query", "QUERY_UNITS", "reserved_total",
           "SUGGESTION_RESERVE", "COMPILE_UNIT_WEIGHT",
           "charge_compile", "compile_units", "interval_steps", "INTERVAL_CHECKS",
           "MIN_INTERVAL_STEPS", "COMPILE_CHECKS", "MIN_COMPILE_UNITS", "COMPILE_UNITS",
           "COMPILE_CHARACTER_UNITS",
           "COMPILE_INSTRUCTION_UNITS",
           "note_analysis", "discard_pending", "ANALYSIS_STEP_UNITS", "TERM_UNITS",
           "CHARGE_KINDS", "spent_on", "is_safety_net", "rlimit_count", "z3_memory_order", "CONTEXT_CACHES"]


# the reasons a spent budget gives read the meters above (import cycle: at the end)
from verikern.proofs.deciding.budget_reasons import (  # noqa: E402
    CHARGE_KINDS, exhausted_reason, is_safety_net, spent_on, total_exhausted_reason,
    total_exhausted_text, unknown_reason,
)
