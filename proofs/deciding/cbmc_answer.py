"""CBMC's answer (`cbmc --json-ui`) read back onto the prover's obligations:
the properties it reports, the counterexample of a failed property's
trace, and the verdict of every obligation (`decide`).

Invariant: an obligation is PROVED only when CBMC reports SUCCESS (or
UNREACHABLE) for every property carrying its id and nothing blocks the run
(its solver out of units, an error, no overall status, a failed check of the
harness itself, a failed unwinding assertion); proofs.deciding.cbmc's module
docstring gives the whole contract.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from verikern.encoders.c.emitter import OVERFLOW_NOTE, Names, relevant_values
from verikern.mir.facts import definitions
from verikern.mir.nodes import ArrayRef, Atomic, Kernel, Load
from verikern.proofs.deciding import budget as budget_limits
from verikern.proofs.deciding.cbmc_unwind import UnwindPlan, blocks_before
from verikern.proofs.obligations import (
    Counterexample, Obligation, ObligationKind, ObligationSpec, Status, obligation_id,
)

#: Statuses of a CBMC property that establish it (UNREACHABLE: no execution reaches it).
HOLDS = frozenset({"SUCCESS", "UNREACHABLE"})
_ID = re.compile(r"^(?P<id>[a-z-]+@\d+:\d+(?:#\d+)?(?:\+\d+:\d+)?) ")
#: Obligations one thread breaks alone (cbmc_unwind.blocks_before).
ONE_THREAD = frozenset({ObligationKind.BOUNDS, ObligationKind.DIV_ZERO, ObligationKind.ASSERT,
                        ObligationKind.INVARIANT, ObligationKind.UNASSIGNED})
#: How the description of a loop abstraction's invariant check starts (encoders.c.loops).
INVARIANT_CHECK = "loop invariant of the loop at "
#: What CBMC reports when z3 answers `unknown` (here: out of resource units).
OUT_OF_UNITS = 'returned "unknown"'


# ------------------------------------------------------------------ CBMC's answer
@dataclass(frozen=True)
class PropertyResult:
    """One CBMC property: its name (`main.assertion.3`, `vk_step.unwind.0`),
    description (our assert message, or CBMC's), status and trace steps."""

    name: str
    description: str
    status: str
    trace: tuple[dict, ...] = ()

    @property
    def obligation(self) -> str | None:
        """The obligation id the assert message starts with, or None (a check of CBMC's own)."""
        m = _ID.match(self.description + " ")
        return m.group("id") if m else None

    @property
    def is_unwinding(self) -> bool:
        return ".unwind." in self.name or self.description.startswith("unwinding assertion")


@dataclass(frozen=True)
class CbmcResult:
    """What one `cbmc --json-ui` run said: every property, the overall
    cProverStatus (`success`/`failure`/`inconclusive`/`error`, None when the
    output had none) and CBMC's error messages."""

    properties: tuple[PropertyResult, ...]
    overall: str | None
    errors: tuple[str, ...] = ()


def parse_json_ui(text: str) -> CbmcResult:
    """Parse `cbmc --json-ui` output (a JSON array of message objects; one of
    them holds the `result` array, the last `cProverStatus`). Raises
    ValueError when the text is not such an array."""
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("cbmc --json-ui output is not a JSON array")
    props: list[PropertyResult] = []
    overall, errors = None, []
    for item in data:
        if not isinstance(item, dict):
            continue
        for r in item.get("result", ()) or ():
            props.append(PropertyResult(str(r.get("property", "")), str(r.get("description", "")),
                                        str(r.get("status", "")).upper(),
                                        tuple(s for s in r.get("trace", ()) or () if isinstance(s, dict))))
        if "cProverStatus" in item:
            overall = str(item["cProverStatus"]).lower()
        if str(item.get("messageType", "")).upper() == "ERROR":
            errors.append(str(item.get("messageText", "")))
    return CbmcResult(tuple(props), overall, tuple(errors))


# ------------------------------------------------------------------ traces -> counterexamples
_LHS = re.compile(r"^(?P<base>[A-Za-z_][\w.]*?)(?:\[(?P<idx>\d+)[a-zA-Z]*\])?$")


def _number(value: Any) -> int | float | bool | None:
    data = value.get("data") if isinstance(value, dict) else value
    if data is None:
        return None
    text = str(data).strip()
    if text.upper() in ("TRUE", "FALSE"):
        return text.upper() == "TRUE"
    text = re.sub(r"(?i)(u?ll|u?l|u|f)$", "", text)
    try:
        return int(text, 0)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


#: The harness's own variables (encoders/c/harness.py: the launch `L`, the two
#: threads and whether there is a second): assigned in `main` alone. A kernel
#: function's temporaries are named `t1`, `t2`, ... too, so only `main`'s
#: assignments of these names are the launch's.
_HARNESS_LOCALS = frozenset({"b1", "t1", "b2", "t2", "has2"})


def _harness_step(step: dict) -> bool:
    """Whether a trace step assigns in the harness's `main` (a step with no
    source location, as older CBMCs print some, is taken as the harness's)."""
    location = step.get("sourceLocation")
    function = location.get("function") if isinstance(location, dict) else None
    return function in (None, "main")


def exact_traces(kernel: Kernel) -> bool:
    """Whether a CBMC trace of `kernel` fixes everything its checks read: no
    value that flows into a branch, an index, an assert, a requires, a
    contract or a divisor (emitter.relevant_values) is read from memory (a
    load, or an atomic's old value: unknown values under CBMC, of which the
    trace keeps only the last read element) or is a float (whose value a
    trace prints rounded). Then the trace's launch (dims, block size,
    threads, scalars, shapes) alone makes the C harness, whose integer
    arithmetic is MIR's, fail the same check: its counterexample is exact,
    and a failure replay cannot confirm (the simulator stopped at another
    error first) stays failed, as an exact one of z3's does."""
    relevant = relevant_values(kernel)
    defs = definitions(kernel)
    if any(isinstance(defs.get(vid), (Load, Atomic)) for vid in relevant):
        return False
    values = [p.value for p in kernel.scalar_params]
    for b in kernel.blocks:
        values += [phi.result for phi in b.phis]
        values += [r for ins in b.instrs if (r := getattr(ins, "result", None)) is not None]
    return not any(v.id in relevant and v.type.is_float for v in values)


def counterexample_from_trace(kernel: Kernel, trace: Sequence[dict],
                              exact: bool = False) -> Counterexample:
    """The launch of a CBMC trace (the last value main assigned to each input
    before the failure): dims, block_dim, threads, scalars, shapes, and the
    elements of input arrays the two threads read (`vk_read_*` globals);
    other contents are left to replay (memory the kernel writes is read as
    unknown values). `exact` (exact_traces): not marked abstracted."""
    names = Names.of(kernel)
    scalar_of = {c: p.name for p in kernel.scalar_params for vid, c in names.scalars.items()
                 if vid == p.value.id}
    shape_of = {f"{names.arrays[('global', p.name)]}_shape": p.name
                for p in kernel.params if isinstance(p, ArrayRef)}
    read_of = {f"vk_read_{names.arrays[('global', p.name)]}": p.name
               for p in kernel.params if isinstance(p, ArrayRef)}
    last: dict[tuple[str, int | None], Any] = {}
    arrays: dict[str, dict[int, Any]] = {}
    pending: dict[str, int] = {}
    for step in trace:
        if step.get("stepType") == "failure":
            break
        if step.get("stepType") != "assignment":
            continue
        m = _LHS.match(str(step.get("lhs", "")).replace(" ", ""))
        value = _number(step.get("value"))
        if m and value is not None:
            base = m.group("base")
            if not _harness_step(step) and (base in _HARNESS_LOCALS or base.startswith("L.")):
                continue        # a kernel function's own local of that name (a phi's `t1`)
            last[(base, int(m.group("idx")) if m.group("idx") else None)] = value
            if base.endswith("_flat") and base[:-5] in read_of:
                pending[base[:-5]] = int(value)
            elif base.endswith("_val") and base[:-4] in pending:
                arrays.setdefault(read_of[base[:-4]], {})[pending.pop(base[:-4])] = value
    dims = tuple(int(last.get(("L.dim", d), 1)) for d in range(kernel.launch_ndim))
    block_dim = int(last.get(("L.block_dim", None), 1))
    threads = [(int(last.get(("b1", None), 0)), int(last.get(("t1", None), 0)))]
    if last.get(("has2", None)) and ("b2", None) in last:
        threads.append((int(last[("b2", None)]), int(last.get(("t2", None), 0))))
    scalars = {scalar_of[c[2:]]: v for (c, i), v in last.items()
               if i is None and c.startswith("L.") and c[2:] in scalar_of}
    shapes = {}
    for f, name in shape_of.items():
        ndim = next(p.ndim for p in kernel.params if isinstance(p, ArrayRef) and p.name == name)
        if any((f"L.{f}", d) in last for d in range(ndim)):
            shapes[name] = tuple(int(last.get((f"L.{f}", d), 0)) for d in range(ndim))
    for p in kernel.params:      # the globals' static initial values are no reads
        if isinstance(p, ArrayRef) and p.name in arrays:
            count = 1
            for n in (*shapes.get(p.name, (0,) * p.ndim), *p.inner):
                count *= n
            arrays[p.name] = {i: v for i, v in arrays[p.name].items() if 0 <= i < count}
    return Counterexample(dims, block_dim, tuple(threads), scalars=scalars, shapes=shapes,
                          arrays={k: v for k, v in arrays.items() if v}, facts={"engine": "cbmc"},
                          abstracted=not exact)


# ------------------------------------------------------------------ verdicts
def _verdict(spec: ObligationSpec, status: Status, message: str, reason: str,
             counterexample: Counterexample | None = None) -> Obligation:
    """CBMC's verdict on one obligation, tied to the spec it came from."""
    return Obligation(kind=spec.kind, loc=spec.loc, status=status, message=message,
                      counterexample=counterexample, reason=reason,
                      other_loc=spec.other_loc, spec=spec)


def decide(kernel: Kernel, specs: Sequence[ObligationSpec], result: CbmcResult,
           unwind: int | UnwindPlan, rlimit: int | None = None,
           abstraction: str | None = None) -> tuple[Obligation, ...]:
    """Every obligation of `specs` decided from one CBMC run (module
    docstring); `unwind`: the run's unwinding depth (one for every loop, or
    cbmc_unwind's plan per loop); `rlimit`: the z3 units each solver call
    had (for the reason of a run that ran out of them); `abstraction`: the
    run's C checked some loops through their invariants (encoders.c.loops;
    the text says which, for a proof's reason): its traces are the
    abstraction's, never exact, and a failed invariant check (a check of the
    harness itself) blocks every proof."""
    depth = unwind.describe() if isinstance(unwind, UnwindPlan) else f"--unwind {unwind}"
    bounded = (f"bounded to {unwind} iterations" if isinstance(unwind, int)
               else f"bounded to the unwinding depths {depth}")
    by_id: dict[str, list[PropertyResult]] = {}
    unwinding, harness = [], []
    for p in result.properties:
        if p.is_unwinding:
            unwinding.append(p)
        elif p.obligation is not None:
            by_id.setdefault(p.obligation, []).append(p)
        else:
            harness.append(p)
    blocker = None
    before: frozenset[str] = frozenset()      # blocks before every loop CBMC did not cover
    if any(OUT_OF_UNITS in e for e in result.errors):
        blocker = ("out of CBMC's work budget: its solver z3 answered unknown within "
                   + (f"{rlimit / budget_limits.MEGA:g} million resource units per call "
                      if rlimit else "its resource units ")
                   + "(raise --budget; the count of work, not time, decides this)")
    elif result.errors or result.overall not in ("success", "failure"):
        blocker = (f"CBMC did not finish normally ({result.overall or 'no overall status'}"
                   + (f": {result.errors[0]}" if result.errors else "") + ")")
    elif bad := [p for p in harness if p.status not in HOLDS]:
        refuted = [p for p in bad if p.description.startswith(INVARIANT_CHECK)]
        blocker = (f"CBMC did not show the {refuted[0].description[5:]} ({refuted[0].status}), "
                   f"so the loop's abstraction proves nothing" if refuted else
                   f"a check of the C harness itself did not hold under CBMC "
                   f"({bad[0].name}: {bad[0].description}: {bad[0].status})")
    elif failed_loops := [p.name.replace(".unwind.", ".") for p in unwinding
                          if p.status not in HOLDS]:
        blocker = (f"{bounded}: CBMC's unwinding assertions fail at {depth} (raise --unwind, "
                   f"or bound the loop with a vk.requires)")
        if isinstance(unwind, UnwindPlan):
            before = blocks_before(kernel, unwind, failed_loops)
    exact = functools.cache(lambda: abstraction is None and exact_traces(kernel))   # once
    out = []
    for spec in specs:
        oid = obligation_id(spec)
        props = by_id.get(oid, [])
        failed = next((p for p in props if p.status == "FAILURE"), None)
        if failed is not None:
            cex = counterexample_from_trace(kernel, failed.trace, exact())
            if failed.description.endswith(OVERFLOW_NOTE):   # the division's INT_MIN / -1 check
                cex = dataclasses.replace(cex, facts={**cex.facts, "fault": "overflow"})
                out.append(_verdict(spec, Status.FAILED, f"CBMC: {oid} fails: the division "
                                    f"overflows (INT_MIN / -1) ({failed.name})",
                                    f"CBMC found a trace dividing INT_MIN by -1 at {oid}", cex))
                continue
            out.append(_verdict(spec, Status.FAILED, f"CBMC: {oid} fails ({failed.name})",
                                f"CBMC found a trace violating {oid}", cex))
        elif not props:
            out.append(_verdict(spec, Status.UNKNOWN, f"CBMC: {oid} undecided",
                                f"CBMC reported no result for {oid}"))
        elif blocker is None and all(p.status in HOLDS for p in props):
            out.append(_verdict(spec, Status.PROVED, f"CBMC: {oid} holds",
                                f"proved by CBMC (unwinding assertions hold at {depth}"
                                + (f"; {abstraction})" if abstraction else ")")))
        elif (spec.site[0] in before and spec.kind in ONE_THREAD
              and all(p.status in HOLDS for p in props)):
            out.append(_verdict(spec, Status.PROVED, f"CBMC: {oid} holds",
                                f"proved by CBMC: no path to it passes a loop whose unwinding "
                                f"assertion fails at {depth} (cbmc_unwind.blocks_before)"))
        else:
            why = blocker or f"CBMC answered {', '.join(sorted({p.status for p in props}))}"
            out.append(_verdict(spec, Status.UNKNOWN, f"CBMC: {oid} undecided", why))
    return tuple(out)
