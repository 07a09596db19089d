"""The differential soundness check: no obligation the prover marks proved
is violated by a simulator run of an admitted launch.

For each launch the whole grid runs first. When it stops at a runtime error
(at a site that is not proved: otherwise that is a false proof), each unit
(a thread, in a kernel without barriers or shared memory, else a block)
runs alone, and then the units that completed alone run together (a unit
that still fails is dropped, up to MAX_FOCUS times): running some threads
(blocks) first is a legal schedule, so the errors and races of the units
that get past the earlier errors are real, and race proofs are checked on
them. A run that ends without error is a *completed* run.

What a completed run checks, per proved obligation (`Result.checked`):
bounds: the access executed (it is in the trace) and did not fault; race:
both sites executed and the trace shows no race between them; assert,
invariant, div-zero, divergence: the run completed (the simulator checks
each executed assert, invariant, divisor and barrier). A runtime error at a
proved site, or a traced race between the two sites of a proved race
obligation, is a false proof.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from verikern.backends.simulator import simulate
from verikern.errors import ContractError, KernelAssertionError, KernelRuntimeError, LaunchError
from verikern.frontend import compile_source
from verikern.mir.facts import is_barrier
from verikern.proofs.deciding.budget import kernel_work
from verikern.proofs.pipeline import prove_mir
from verikern.proofs.obligations import Status
from verikern.runtime import prepare_launch
from verikern.trace import find_races

#: Runs of one launch without the units that failed, at most.
MAX_FOCUS = 6
#: Units (threads or blocks) run alone after a launch fails, at most.
MAX_PROBE = 128
#: Scheduling steps per simulator chunk (the generated loops are short).
MAX_STEPS = 200_000
#: Solver budget per check (million z3 resource units).
BUDGET = 0.5
#: The whole kernel's work (z3 units): every obligation may spend its check's budget.
KERNEL_UNITS = 40 * 500_000


@dataclass
class Result:
    """verdict: "ok", "compile-error" or "FALSE PROOF ..."; checked: per
    obligation kind, (proved obligation, completed run) pairs that checked
    it; proved: proved obligations per kind; runs / focused: completed runs,
    and how many of them ran only the units past earlier errors."""

    verdict: str = "ok"
    checked: Counter = field(default_factory=Counter)
    proved: Counter = field(default_factory=Counter)
    runs: int = 0
    focused: int = 0
    launches: int = 0


def _error_kind(err: KernelRuntimeError) -> str:
    """The obligation kind a runtime error violates (a failed vk.invariant
    raises the assertion error, with its own message)."""
    if isinstance(err, KernelAssertionError) and str(err.message).startswith("loop invariant"):
        return "invariant"
    return err.kind


def _site(err: KernelRuntimeError):
    return (_error_kind(err), err.loc.line, err.loc.col) if err.loc is not None else None


def _key(o):
    other = (o.other_loc.line, o.other_loc.col) if o.other_loc is not None else None
    return (o.kind.value, o.loc.line, o.loc.col, other)


def _wholly_proved(obligations):
    """The proved obligations whose site has no other verdict: a site can
    carry several obligations of a kind (one per array dimension, one per
    inlined call), and a runtime error names only the site."""
    unproved = {_key(o) for o in obligations if o.status is not Status.PROVED}
    return [o for o in obligations if o.status is Status.PROVED and _key(o) not in unproved]


def _independent(kern) -> bool:
    return not (kern.uses_block_features or kern.shared or any(
        is_barrier(ins) for _, ins in kern.instructions()))


def check(src: str, r, tag: str, launches) -> Result:
    res = Result()
    mod = compile_source(src, f"fuzz_{tag}.py")
    if mod.errors or not mod.kernels or mod.kernels[0].mir is None:
        res.verdict = "compile-error"
        return res
    kern = mod.kernels[0].mir
    # a small check budget keeps the run short; the whole kernel's work (1.5 checks' worth by
    # default) would leave these many-obligation kernels nothing proved to compare with a run
    with kernel_work(KERNEL_UNITS):
        rep = prove_mir(kern, file=f"fuzz_{tag}.py", budget=BUDGET, replay=False)
    proved = _wholly_proved(rep.obligations)
    res.proved.update(o.kind.value for o in proved)
    sites = {(o.kind.value, o.loc.line, o.loc.col) for o in proved}
    for dims, bd, inputs in launches(r, kern):
        try:
            k2, cfg, arrays, scalars = prepare_launch(kern, dims, inputs, bd)
        except (ContractError, LaunchError):
            continue
        except KernelRuntimeError as e:     # a fault inside the requires
            if _site(e) in sites:
                res.verdict = f"FALSE PROOF (contract eval) {_site(e)} dims={dims} bd={bd}: {e.message}"
                return res
            continue
        res.launches += 1
        what = f"dims={dims} bd={bd} scalars={scalars} shapes={ {k: v.shape for k, v in arrays.items()} }"
        verdict = _run_focused(k2, cfg, arrays, scalars, proved, sites, res, what)
        if verdict:
            res.verdict = verdict
            return res
    return res


def _run_focused(kern, cfg, arrays, scalars, proved, sites, res: Result, what: str) -> str | None:
    """Run the launch; after a runtime error, run each unit alone (at most
    MAX_PROBE of them), then the units that completed alone together,
    dropping a unit that still fails, up to MAX_FOCUS times. Count what
    each completed run checks; return a false-proof verdict, or None."""
    independent = _independent(kern)

    def run(units):
        kw = {}
        if units is not None:
            kw = {"threads": sorted(units)} if independent else {"blocks": sorted(units)}
        return simulate(kern, cfg, {k: v.copy() for k, v in arrays.items()}, scalars,
                        trace=True, max_steps=MAX_STEPS, **kw)

    def unit_of(e):
        if e.kind in ("runtime", "step-limit") or e.block is None or e.thread is None:
            return None                # an endless loop or an unattributed error
        return e.block * cfg.block_dim + e.thread if independent else e.block

    try:
        return _count(run(None).document, proved, res, what, focused=False)
    except KernelRuntimeError as e:
        if _site(e) in sites:
            return f"FALSE PROOF {_site(e)} {what}: {e.message}"
        if unit_of(e) is None:
            return None
    everything = range(cfg.size) if independent else range(cfg.grid_dim)
    units = set()
    for u in list(everything)[:MAX_PROBE]:
        try:
            run({u})
            units.add(u)
        except KernelRuntimeError as e:
            if _site(e) in sites:
                return f"FALSE PROOF {_site(e)} {what} unit {u} alone: {e.message}"
    for _ in range(MAX_FOCUS):
        if not units:
            return None
        try:
            document = run(units).document
        except KernelRuntimeError as e:
            if _site(e) in sites:
                return f"FALSE PROOF {_site(e)} {what} units {sorted(units)}: {e.message}"
            if unit_of(e) not in units:
                return None
            units.discard(unit_of(e))
            continue
        return _count(document, proved, res, what, focused=True)
    return None


def _count(document, proved, res: Result, what: str, focused: bool) -> str | None:
    executed = {(ev["line"], ev["col"]) for ev in document["events"]}
    races = {tuple(sorted([(x.line, x.col), (x.other_line, x.other_col)])) for x in find_races(document)}
    res.runs += 1
    res.focused += focused
    for o in proved:
        kind, here = o.kind.value, (o.loc.line, o.loc.col)
        if kind == "race":
            pair = tuple(sorted([here, (o.other_loc.line, o.other_loc.col)]))
            if pair in races:
                return f"FALSE PROOF race {pair} {what}"
            if here in executed and pair[1] in executed and pair[0] in executed:
                res.checked[kind] += 1
        elif kind == "bounds":
            res.checked[kind] += here in executed
        else:
            res.checked[kind] += 1
    return None
