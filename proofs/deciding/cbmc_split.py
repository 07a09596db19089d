"""CBMC's properties decided in groups when one call over all of them runs
out of its solver's units.

CBMC puts every property of the harness into one formula and asks its
solver (z3 under `rlimit`, proofs.deciding.cbmc.solver_wrapper) about their
disjunction, so one hard obligation leaves every easy one undecided. When
that call runs out of units, the obligations it left undecided are asked
again in groups (`cbmc --property NAME ...`: only the properties carrying
the group's obligation ids), each call under the same count of z3 units
per solver call as the first; at most MAX_SPLIT_CALLS groups (obligations
beyond that share groups, in the kernel's order), so a kernel's work stays
bounded by counted units, never by seconds.

Invariants (soundness first):
- a group call decides its obligations exactly as a whole call does
  (cbmc_answer.decide: SUCCESS or UNREACHABLE for every property of the
  obligation, no error, an overall status, every unwinding assertion
  holding -- CBMC checks the unwinding assertions in every call, whatever
  `--property` selects);
- CBMC's own checks of the harness (pointer, overflow, allocation) carry no
  obligation id, so no group selects them: a proof from a group call stands
  only when one more call over exactly those checks (`harness_call`) shows
  every one of them holding with the unwinding assertions (or, when that
  call runs out of units, calls over groups of them do: `harness_holds`);
  otherwise it is UNKNOWN and says why;
- a FAILURE in a group call is a real trace of the same harness, so it is a
  failure like one from the whole call (replay still settles it).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from verikern.mir.nodes import Kernel
from verikern.proofs.deciding.cbmc_answer import HOLDS, OUT_OF_UNITS, CbmcResult, decide
from verikern.proofs.deciding.cbmc_unwind import UnwindPlan
from verikern.proofs.obligations import Obligation, ObligationSpec, Status, obligation_id

#: At most this many group calls after a whole call ran out of units (plus one
#: call over the harness's own checks when a group proved something, and, when
#: that call runs out too, as many groups of those checks and as many calls
#: again over halves of groups that ran out: `harness_holds`); each has the
#: whole call's units per solver call, so the split costs at most
#: 3 * MAX_SPLIT_CALLS + 1 times the work of the call it replaces.
MAX_SPLIT_CALLS = 12

#: One CBMC call restricted to some properties (`--property NAME` each):
#: CBMC's answer, or why there is none (the safety net, no JSON).
Ask = Callable[[Sequence[str]], "CbmcResult | str"]


@dataclass(frozen=True)
class PropertyGroup:
    """The obligations one group call decides and the CBMC properties that
    carry their ids (every property of each obligation: a proof needs all)."""

    obligations: tuple[str, ...]
    properties: tuple[str, ...]


def ran_out_of_units(result: CbmcResult) -> bool:
    """CBMC stopped because its solver answered `unknown` (out of z3 units)."""
    return any(OUT_OF_UNITS in e for e in result.errors)


def property_groups(result: CbmcResult, undecided: Sequence[str],
                    max_calls: int | None = None) -> tuple[PropertyGroup, ...]:
    """The groups of a split: one per obligation id of `undecided` that has
    properties in `result` (in that order), merged into `max_calls`
    (MAX_SPLIT_CALLS when None; 0: no split) contiguous groups of
    near-equal size when there are more."""
    max_calls = MAX_SPLIT_CALLS if max_calls is None else max_calls
    names: dict[str, list[str]] = {oid: [] for oid in undecided}
    for p in result.properties:
        oid = p.obligation
        if oid in names and not p.is_unwinding:
            names[oid].append(p.name)
    single = [(oid, tuple(ps)) for oid, ps in names.items() if ps]
    if not single or max_calls <= 0:
        return ()
    count = min(len(single), max_calls)
    out = []
    for g in range(count):
        part = single[g * len(single) // count:(g + 1) * len(single) // count]
        out.append(PropertyGroup(tuple(oid for oid, _ in part),
                                 tuple(name for _, ps in part for name in ps)))
    return tuple(out)


def harness_properties(result: CbmcResult) -> tuple[str, ...]:
    """CBMC's own checks of the harness: properties with no obligation id
    that are not unwinding assertions."""
    return tuple(p.name for p in result.properties
                 if p.obligation is None and not p.is_unwinding)


def harness_call(result: CbmcResult | str, checks: Sequence[str]) -> str | None:
    """None when a call over the harness's checks shows every one of them,
    and every unwinding assertion, holding; else why not."""
    if isinstance(result, str):
        return result
    if result.errors or result.overall not in ("success", "failure"):
        return ("CBMC did not finish normally (" + (result.overall or "no overall status")
                + (f": {result.errors[0]}" if result.errors else "") + ")")
    wanted = set(checks)
    seen = {p.name for p in result.properties}
    if missing := sorted(wanted - seen):
        return f"CBMC reported no result for its check {missing[0]}"
    for p in result.properties:
        if (p.name in wanted or p.is_unwinding) and p.status not in HOLDS:
            return f"{p.name}: {p.description}: {p.status}"
    return None


def harness_holds(ask: Ask, checks: Sequence[str]) -> str | None:
    """None when every one of CBMC's own checks of the harness (`checks`)
    holds, with the unwinding assertions: shown by one call over all of
    them, or, when that call runs out of units, by calls over groups of
    them, every one of which must show its checks holding (a property's
    verdict does not depend on which others a call selects, as for the
    obligations' groups); else why not. The groups: MAX_SPLIT_CALLS
    contiguous ones, and a group that runs out is asked again as two
    halves, at most MAX_SPLIT_CALLS more calls in all (a check that runs
    out alone, or the calls spent, ends it)."""
    answer = ask(checks)
    why = harness_call(answer, checks)
    if why is None or isinstance(answer, str) or not ran_out_of_units(answer) or len(checks) < 2:
        return why
    count = min(len(checks), MAX_SPLIT_CALLS)
    todo = [tuple(checks[g * len(checks) // count:(g + 1) * len(checks) // count])
            for g in range(count)]
    halvings = MAX_SPLIT_CALLS
    while todo:
        part = todo.pop(0)
        answer = ask(part)
        why = harness_call(answer, part)
        if why is None:
            continue
        if isinstance(answer, str) or not ran_out_of_units(answer) or len(part) < 2 or halvings < 2:
            return f"{why}; asked in groups after the call over all {len(checks)} ran out"
        halvings -= 2
        todo[:0] = [part[:len(part) // 2], part[len(part) // 2:]]
    return None


def decide_split(kernel: Kernel, specs: Sequence[ObligationSpec], first: Sequence[Obligation],
                 result: CbmcResult, ask: Ask, plan: UnwindPlan,
                 rlimit: int | None = None,
                 abstraction: str | None = None) -> tuple[Obligation, ...]:
    """`first` (the whole call's verdicts, out of units) with its undecided
    obligations asked again in groups (module docstring); `abstraction`: as
    cbmc_answer.decide's (the C checks some loops through invariants)."""
    by_id = {obligation_id(s): s for s in specs}
    undecided = [obligation_id(o.spec) for o in first
                 if o.status is Status.UNKNOWN and o.spec is not None]
    decided: dict[str, Obligation] = {}
    for group in property_groups(result, undecided):
        answer = ask(group.properties)
        group_specs = [by_id[oid] for oid in group.obligations]
        if isinstance(answer, str):
            continue                       # the whole call's reason stands
        alone = "alone" if len(group.obligations) == 1 else f"in a group of {len(group.obligations)}"
        for ob in decide(kernel, group_specs, answer, plan, rlimit, abstraction):
            if ob.status is Status.UNKNOWN:
                ob = _with_reason(ob, f"{ob.reason} (also when asked {alone}: "
                                      f"CBMC's call over all properties ran out first)")
            decided[obligation_id(ob.spec)] = ob   # type: ignore[arg-type]
    if any(o.status is Status.PROVED for o in decided.values()):
        checks = harness_properties(result)
        why = harness_holds(ask, checks) if checks else None
        if why is not None:
            for oid, ob in list(decided.items()):
                if ob.status is Status.PROVED:
                    decided[oid] = _with_reason(
                        ob, f"CBMC proved {oid} when asked alone, but its own checks of the "
                            f"harness were not shown to hold ({why})", Status.UNKNOWN)
    return tuple(decided.get(obligation_id(o.spec), o) if o.spec is not None else o
                 for o in first)


def _with_reason(ob: Obligation, reason: str, status: Status | None = None) -> Obligation:
    """`ob` with another reason (and, given a status, UNKNOWN: CBMC's
    "undecided" message and no counterexample)."""
    if status is None:
        return replace(ob, reason=reason)
    oid = obligation_id(ob.spec) if ob.spec is not None else ob.kind.value
    return replace(ob, status=status, reason=reason, message=f"CBMC: {oid} undecided",
                   counterexample=None)
