"""One kernel's proof: decide every obligation (proofs.deciding), then
settle every failure by replay (proofs.confirming) -- the prover's entry
point below the application (verikern.app compiles files and runs pools).

Invariants:
- a kernel's status is the worst of its obligations (failed > unknown >
  proved) after replay; a proof that crashes is ERROR with the reason --
  never PROVED;
- a failed obligation always carries `confirmed` (True/False); one whose
  model came from an abstraction and that replay does not confirm is
  downgraded to UNKNOWN ("possible violation, not confirmed by replay: ...");
- the report has one obligation per source access (or pair), property and
  index dimension: the components of one vector/matrix access (one MIR
  instruction each) are decided one by one and merged (`one_per_access`),
  PROVED only when every component is, else the worst status, with the
  counterexample of that component;
- before that, and for UNKNOWN obligations, an exact counterexample from
  peeled loop iterations (proofs.deciding.peeling) takes the obligation's place, with
  the same kind and location, when replay confirms it, or when replay stops
  at a different runtime error first (then it stays unconfirmed, saying why).
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import time
from pathlib import Path
from typing import Callable, Sequence

from verikern.encoders.smt.launch import launch_option_error
from verikern.errors import VerikernError
from verikern.proofs.deciding.cbmc import prove_kernel_cbmc
from verikern.proofs.deciding.engines import combine, parse_engines
from verikern.proofs.deciding.budget import (
    MEGA, fresh_context, kernel_work, kernel_work_limit, own_context, per_check_units, rlimit_count,
    separate_work, total_exhausted, total_exhausted_text, work_left,
)
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.obligations import KernelReport, KernelStatus, Obligation, ObligationKind, Status
from verikern.proofs.confirming.replay import ReplayOutcome, ReplayVerdict, replay_outcome
from verikern.proofs.deciding import prover as z3_prover
from verikern.proofs.deciding.suggest import suggest_contract
from verikern.proofs.deciding.peeling import exact_counterexample

LOG = logging.getLogger("verikern.proofs.pipeline")


def _is_abstracted(ob: Obligation) -> bool:
    return ob.counterexample is not None and ob.counterexample.abstracted


#: z3 resource units `settle` may spend on one kernel searching peeled loop
#: iterations for exact counterexamples (proofs.deciding.peeling), all obligations
#: together (checked before each search and query), at most twice a check's
#: budget: headroom, should z3's count for the same search ever vary with the
#: process's history (never observed: docs/PROVER.md, Determinism).
EXACT_SEARCH_BUDGET = 20 * MEGA


def settle(kernel_mir, obligations: Sequence[Obligation], replayer=None, *, dims=None,
           block_dim=None, exact_search=None,
           search_budget: int = EXACT_SEARCH_BUDGET,
           max_array_bytes: int | None = None) -> tuple[Obligation, ...]:
    """Replay every failed obligation and record the outcome: `confirmed`
    set, the replay's explanation in `reason` (and the counterexample the
    replay confirmed, when it had to pick array contents), and
    abstraction-born unconfirmed failures downgraded to UNKNOWN.
    `replayer(kernel, ob)` returns a `ReplayOutcome` (or, for simple
    replayers, (ok, why) or (ok, why, witness)). Decisions read only the
    outcome's verdict and the counterexample's typed fields.
    A failure replay does not confirm, and an UNKNOWN obligation, is first
    searched for an exact counterexample in peeled loop iterations
    (`exact_search(kernel, ob, dims=, block_dim=, budget=)`, plus
    `max_array_bytes=` when it is not None; default
    proofs.deciding.peeling.exact_counterexample, within `search_budget` z3 units); one that
    replay confirms replaces it (same kind and location)."""
    if replayer is None:
        replayer = replay_outcome
    search = _ExactSearch(kernel_mir, replayer, dims, block_dim, exact_search, search_budget,
                          max_array_bytes)
    settled = []
    for ob in obligations:
        if ob.status is Status.UNKNOWN:
            settled.append(search.confirmed(ob) or ob)
            continue
        if ob.status is not Status.FAILED:
            settled.append(ob)
            continue
        out = _replay(replayer, kernel_mir, ob)
        if out.confirmed:
            settled.append(dataclasses.replace(ob, confirmed=True,
                                               counterexample=out.witness or ob.counterexample,
                                               message=_observed_message(ob, out),
                                               reason=_join(ob.reason,
                                                            f"confirmed by replay: {out.why}")))
            continue
        exact = search.confirmed(ob)
        if exact is not None:
            settled.append(exact)
        elif _is_abstracted(ob):
            settled.append(dataclasses.replace(
                ob, status=Status.UNKNOWN, confirmed=False,
                reason=f"possible violation, not confirmed by replay: {out.why}"
                + (f" (prover: {ob.reason})" if ob.reason else "")))
        else:
            settled.append(dataclasses.replace(ob, confirmed=False,
                                               reason=_join(ob.reason, f"not confirmed by replay: {out.why}")))
    return tuple(settled)


def _observed_message(ob: Obligation, out) -> str:
    """The message of a failure replay confirmed: the prover's own, unless its
    counterexample is abstraction-born (loop, float or memory values the
    prover's text states need not be the run's, on its own launch or on a
    variant of it); then what the obligation is about, and what the
    simulator observed."""
    observed = getattr(out, "observed", None)
    if not observed or not _is_abstracted(ob) or ob.kind is not ObligationKind.BOUNDS \
            or ": " not in ob.message:        # only a bounds message states the model's values
        return ob.message
    what = ob.message.split(": ", 1)[0]
    return f"{what}: on the simulator, {observed} (the prover's values came from an abstraction)"


def _replay(replayer, kernel_mir, ob: Obligation):
    """The replayer's ReplayOutcome; a replay crash is an unconfirmed one."""

    if ob.counterexample is None:
        return ReplayOutcome(ReplayVerdict.NO_COUNTEREXAMPLE, "the prover gave no counterexample")
    try:
        answer = replayer(kernel_mir, ob)
    except Exception as err:  # a replay crash must not hide the failure
        return ReplayOutcome(ReplayVerdict.NO_VIOLATION,
                             f"replay crashed: {type(err).__name__}: {err}")
    if isinstance(answer, ReplayOutcome):
        return answer
    return ReplayOutcome(ReplayVerdict.CONFIRMED if answer[0] else ReplayVerdict.NO_VIOLATION,
                         answer[1], answer[2] if len(answer) > 2 else None)


class _ExactSearch:
    """Exact counterexamples from peeled loop iterations for one kernel,
    within one shared work budget for the searches (z3 resource units;
    replays are bounded by the replayer). Only ever yields failures that replay
    confirmed on the kernel itself, or whose replay stopped at another runtime
    error first (then `confirmed=False`, the reason says so; the model is exact)."""

    def __init__(self, kernel_mir, replayer, dims, block_dim, exact_search, budget: int,
                 max_array_bytes: int | None = None):
        self.kernel = kernel_mir
        self.launch_options = {} if max_array_bytes is None else \
            {"max_array_bytes": max_array_bytes}
        self.replayer = replayer
        self.dims, self.block_dim = dims, block_dim
        self.search = exact_search
        self.spent = 0
        self.budget = budget

    def confirmed(self, ob: Obligation) -> Obligation | None:
        """A confirmed FAILED obligation for `ob`'s site found in a peeled
        iteration, or None (no kernel, no budget left, nothing found or not
        confirmed)."""

        left = self.budget - self.spent
        if self.kernel is None or left <= MEGA // 2 or not getattr(self.kernel, "loops", ()):
            return None
        if self.search is None:
            self.search = exact_counterexample
        start = rlimit_count()
        try:
            found = self.search(self.kernel, ob, dims=self.dims, block_dim=self.block_dim,
                                budget=left, **self.launch_options)
        except Exception:  # the search is an extra: it must never cost a verdict
            return None
        finally:
            self.spent += rlimit_count() - start
        if found is None or found.status is not Status.FAILED:
            return None
        out = _replay(self.replayer, self.kernel, found)
        if not out.confirmed:
            if out.verdict is not ReplayVerdict.OTHER_ERROR_FIRST:
                return None
            # exact, but the launch ends at another (reported) error before
            # this violation happens: a failure that says why it is unconfirmed
            return dataclasses.replace(found, confirmed=False, seconds=ob.seconds,
                                       reason=_join(found.reason, f"not confirmed by replay: {out.why}"))
        return dataclasses.replace(found, confirmed=True, seconds=ob.seconds,
                                   counterexample=out.witness or found.counterexample,
                                   reason=_join(found.reason, f"confirmed by replay: {out.why}"))


def _access_key(ob: Obligation) -> tuple:
    """What makes a finding: kind, source position(s) (a race's pair in
    either order) and, for bounds, the logical index dimension."""
    here = (ob.loc.file, ob.loc.line, ob.loc.col)
    other = (ob.other_loc.file, ob.other_loc.line, ob.other_loc.col) \
        if ob.other_loc is not None else None
    if ob.kind.value == "race" and other is not None:
        here, other = sorted([here, other])
    dim = ob.spec.dim if ob.spec is not None and ob.kind.value == "bounds" else None
    return (ob.kind.value, here, other, dim)


_RANK = {Status.FAILED: 0, Status.UNKNOWN: 1, Status.PROVED: 2}


def one_per_access(obligations: Sequence[Obligation]) -> tuple[Obligation, ...]:
    """One obligation per `_access_key`, in first-seen order: the components
    of a vec3 load are one access. The kept one is the worst (FAILED, then
    UNKNOWN, then PROVED; among failures a confirmed one first, then the
    first), so the merged obligation is PROVED only when every component
    was; its `seconds` is the sum of the group's."""
    groups: dict[tuple, list[Obligation]] = {}
    for ob in obligations:
        groups.setdefault(_access_key(ob), []).append(ob)
    out = []
    for group in groups.values():
        if len(group) == 1:
            out.append(group[0])
            continue
        best = min(range(len(group)), key=lambda n: (_RANK[group[n].status],
                                                     group[n].confirmed is not True, n))
        out.append(dataclasses.replace(group[best],
                                       seconds=sum(o.seconds or 0.0 for o in group)))
    return tuple(out)


def _decider(engine: str, unwind: int | None):
    """The prove_kernel-shaped function of one engine."""
    if engine == "cbmc":
        return functools.partial(prove_kernel_cbmc, unwind=unwind)
    return z3_prover.prove_kernel     # read at call time: a caller may replace it


def _join(first: str | None, second: str) -> str:
    return f"{first}; {second}" if first else second


@own_context()
def prove_mir(kernel_mir, *, file: str, dims=None, block_dim=None, budget: float | None = None,
              prover=None, replayer=None, replay: bool = True,
              max_array_bytes: int | None = None, suggest: bool = False,
              engine: str = "z3", unwind: int | None = None,
              before_search: Callable[[KernelReport], KernelReport | None] | None = None) -> KernelReport:
    """Prove one compiled kernel and replay its failures (`replay=False`
    skips replay: failures keep `confirmed=None` and are never downgraded).
    `max_array_bytes`: the bound on every array's size in bytes the proof
    assumes (None: encoders.smt.launch.DEFAULT_MAX_ARRAY_BYTES, 2**40); it is
    passed on to `prover` (and the exact search) only when given.
    `budget`: million z3 resource units per check (None: the default of
    proofs.deciding.budget); the proof runs in a z3 context of its own, with
    the cyclic garbage collector paused (budget.own_context), so its
    verdicts, models and z3 unit counts do not depend on what was proved
    before in this process (docs/PROVER.md, Determinism).
    `suggest`: for a FAILED kernel, also search a suggested contract
    (proofs.deciding.suggest) within work of its own, as much as the
    kernel's (budget.separate_work); the report carries it, and its status
    stays FAILED. `before_search`: for such a kernel, called first with its
    report (no suggestion yet); a report it returns is the result and no search
    runs (the application tries a contract a sibling instance was proved under,
    whose re-proof on this instance it checks itself), None goes on to the search.
    `engine`: "z3", "cbmc" or "z3,cbmc" (proofs.deciding.engines; both:
    each engine's verdicts settled by replay, then combined, disagreements
    flagged); `unwind`: CBMC's unwinding depth (None: read off the kernel).
    An explicit `prover` replaces the engines."""
    engines = ("custom",) if prover is not None else parse_engines(engine)
    deciders = [prover] if prover is not None else [_decider(e, unwind) for e in engines]
    start = time.perf_counter()
    line = kernel_mir.loc.line
    bad_launch = launch_option_error(kernel_mir, dims, block_dim)
    if bad_launch is not None:          # one input error, not one warning per obligation
        return KernelReport(file, kernel_mir.name, KernelStatus.ERROR, time.perf_counter() - start,
                            error=f"{file}:{line}: error: {bad_launch}", line=line)
    # the kernel's whole work (an outer block -- the application's, for every
    # instance and the suggestion's re-proof -- may own it already)
    with kernel_work(kernel_work_limit(per_check_units(budget))):
        return _prove_metered(kernel_mir, file, dims, block_dim, budget, deciders, engines,
                              replayer, replay, max_array_bytes, suggest, start, before_search)


def _prove_metered(kernel_mir, file, dims, block_dim, budget, deciders, engines, replayer,
                   replay, max_array_bytes, suggest, start, before_search=None) -> KernelReport:
    line = kernel_mir.loc.line
    try:
        fresh_context()
        solver_budget = SolverSession.from_megaunits(
            budget, label=f"{Path(file).stem}.{kernel_mir.name}.")
        launch_options = {} if max_array_bytes is None else {"max_array_bytes": max_array_bytes}
        verdicts: list[Sequence[Obligation]] = []
        decided: Sequence[Obligation] = ()
        for decide in deciders:
            obligations = decide(kernel_mir, dims=dims, block_dim=block_dim, budget=solver_budget,
                                 **launch_options)
            if not verdicts:
                decided = obligations
            if replay:
                obligations = settle(kernel_mir, obligations, replayer, dims=dims,
                                     block_dim=block_dim,
                                     search_budget=_capped(min(EXACT_SEARCH_BUDGET,
                                                               2 * solver_budget.per_check)),
                                     max_array_bytes=max_array_bytes)
            verdicts.append(obligations)
        if len(verdicts) == 1:
            obligations = verdicts[0]
        else:                           # parse_engines: at most two engines, z3 and cbmc
            first, second = verdicts
            obligations = combine(first, second, names=(engines[0], engines[1]))
    except VerikernError as err:
        return KernelReport(file, kernel_mir.name, KernelStatus.ERROR, time.perf_counter() - start,
                            error=str(err), line=line)
    except Exception as err:  # an internal prover bug is reported, never a verdict
        return KernelReport(file, kernel_mir.name, KernelStatus.ERROR, time.perf_counter() - start,
                            error=f"{file}:{line}: error: internal error while proving "
                                  f"{kernel_mir.name}: {type(err).__name__}: {err}", line=line)
    # every MIR site stays for the suggestion: a func inlined twice has two
    # sites at one source position, and its contract must prove both
    sites = obligations
    obligations = one_per_access(obligations)
    status = KernelReport.summarize(obligations)
    spent = solver_budget.spent
    LOG.info("%s::%s: %s (%d obligations, %d solver queries, %.2f million z3 units)",
             file, kernel_mir.name, status.value, len(obligations), solver_budget.queries,
             spent / MEGA)
    suggestion = None
    extra: dict = {}
    if suggest and status is KernelStatus.FAILED and before_search is not None:
        given = before_search(KernelReport(file, kernel_mir.name, status, time.perf_counter() - start,
                                           obligations=tuple(obligations), line=line))
        if given is not None:
            return given
    if suggest and status is KernelStatus.FAILED:
        suggestion = _suggest(kernel_mir, decided, sites, dims, block_dim, solver_budget,
                              launch_options)
        # the kernel's total ran out before the search decided (budget.kernel_total)
        unknown = suggestion.unknown if suggestion is not None else \
            (total_exhausted_text() if total_exhausted() else None)
        if unknown is not None:
            extra["suggestion_unknown"] = unknown
    if suggestion is not None:
        extra.update({"suggested_requires": suggestion.requires,
                      "suggested_decorators": suggestion.decorators,
                      "proved_under_suggestion": suggestion.proved})
    return KernelReport(file, kernel_mir.name, status, time.perf_counter() - start,
                        obligations=tuple(obligations), line=line, **extra)


#: A suggested contract's search spends at most the kernel's work under a meter
#: of its own (budget.separate_work): what the proof spent does not count, and
#: the search does not count against the proof.


def _capped(units: int) -> int:
    """`units`, at most what the kernel's work meter has left (at least 0)."""
    left = work_left()
    return units if left is None else max(0, min(units, left))


def _suggest(kernel_mir, decided, settled, dims, block_dim, solver_budget, options: dict):
    """The suggestion for a failed kernel (proofs.deciding.suggest), or None;
    `decided` are the prover's obligations (with their specs), `settled`
    the same after replay (one for one, in order, one per MIR site: before
    `one_per_access` merges the sites of one source position), whose
    statuses count.
    A crash of the search only loses the suggestion."""

    if len(decided) == len(settled):
        settled = [dataclasses.replace(s, spec=d.spec) for d, s in zip(decided, settled)]
    try:
        # work of its own: what the proof spent cannot starve it
        with separate_work(solver_budget.per_check) as own:
            return suggest_contract(kernel_mir, settled, dims=dims, block_dim=block_dim,
                                    per_check=solver_budget.per_check, label=solver_budget.label,
                                    budget_units=own.limit, **options)
    except Exception as err:  # the suggestion is an extra: it must never cost a verdict
        LOG.info("%s: no suggestion (%s: %s)", kernel_mir.name, type(err).__name__, err)
        return None
