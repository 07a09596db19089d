"""`verikern prove --confirm-with c`: every failed obligation's counterexample
is run through the kernel's C encoding (encoders/c, compiled with the system
C compiler and the replay header), a confirmation independent of the
simulator.

Invariants: this only ever adds to a verdict's evidence -- `confirmed_by`
lists "simulator" when the simulator replay confirmed it and "c" when the C
program failed the same obligation (same `obligation_id`); a status, a
counterexample or a proof is never changed.  When the C program cannot be
built or run, the reason is appended to the obligation's `reason` and "c" is
not listed.
"""
from __future__ import annotations

from typing import Callable

from dataclasses import replace

from verikern.proofs.obligations import (
    KernelReport, Obligation, ObligationKind, ObligationSpec, Status, obligation_id,
)
from verikern.encoders.c import CEncodeError
from verikern.proofs.confirming.c_replay import CCompilerMissing, CReplay

ENGINES = ("c",)


def id_of(ob: Obligation) -> str:
    """The obligation's id, from its spec or (cached verdicts) its fields."""
    if ob.spec is not None:
        return obligation_id(ob.spec)
    dim = 0
    if ob.kind is ObligationKind.BOUNDS and ob.counterexample is not None:
        dim = int(ob.counterexample.facts.get("dim", 0) or 0)
    return obligation_id(ObligationSpec(ob.kind, ob.loc, ("", 0), dim=dim,
                                        other_loc=ob.other_loc))


def confirm_reports(reports: list[KernelReport],
                    compile_kernels: Callable[[str], dict]) -> list[KernelReport]:
    """The reports with `confirmed_by` set on every failed obligation that
    has a counterexample (see the module docstring). `compile_kernels(file)`
    gives the file's compiled MIR kernels by name (the application compiles:
    verikern.app.prove.compiled_kernels)."""

    out = []
    kernels_of: dict[str, dict] = {}
    for rep in reports:
        failed = [i for i, ob in enumerate(rep.obligations)
                  if ob.status is Status.FAILED and ob.counterexample is not None]
        if not failed:
            out.append(rep)
            continue
        if rep.file not in kernels_of:
            try:
                kernels_of[rep.file] = compile_kernels(rep.file)
            except Exception as e:    # the report still stands; say why C did not run
                kernels_of[rep.file] = {"": f"{type(e).__name__}: {e}"}
        mir = kernels_of[rep.file].get(rep.kernel)
        obligations = list(rep.obligations)
        replay, why = None, None
        if mir is None or isinstance(mir, str):
            why = f"the kernel could not be compiled again ({mir or 'not found'})"
        else:
            try:
                replay = CReplay(mir)
            except (CEncodeError, CCompilerMissing, RuntimeError) as e:
                why = str(e).splitlines()[0]
        try:
            for i in failed:
                ob = obligations[i]
                by: tuple[str, ...] = ("simulator",) if ob.confirmed else ()
                if replay is None:
                    note = f"C encoding not run: {why}"
                else:
                    assert ob.counterexample is not None   # every failed obligation carries one
                    run = replay.run(ob.counterexample.to_json())
                    oid = id_of(ob)
                    if run.confirms(oid):
                        by += ("c",)
                    note = f"C encoding: {run.describe(oid)}"
                reason = f"{ob.reason}; {note}" if ob.reason else note
                obligations[i] = replace(ob, confirmed_by=by, reason=reason)
        finally:
            if replay is not None:
                replay.close()
        out.append(replace(rep, obligations=tuple(obligations)))
    return out
