"""Which engines decide a kernel (`verikern prove --engine z3|cbmc|z3,cbmc`),
and how two engines' settled verdicts combine into one.

Invariants of `combine` (per obligation, matched by obligation id):
- both engines agree: that verdict, with both recorded in `engines`;
- one proved, the other unknown: proved (a proof does not need the other
  engine's agreement; `engines` shows which engine gave it);
- one failed, the other unknown: failed;
- one proved, the other failed: a disagreement, always flagged (recorded in
  `disagreements`, which makes `verikern prove` exit 3). A failure that
  replay confirmed wins (the proof was wrong: the run is a real bug);
  otherwise the verdict is UNKNOWN, never PROVED.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

from verikern.proofs.obligations import Obligation, ObligationSpec, Status, obligation_id

ENGINES = ("z3", "cbmc")


def parse_engines(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """'z3', 'cbmc', 'z3,cbmc' (or a sequence) -> engine names in that order;
    raises ValueError naming the valid ones."""
    if text is None:
        return ("z3",)
    items = [t.strip() for t in (text.split(",") if isinstance(text, str) else text) if t.strip()]
    bad = [t for t in items if t not in ENGINES]
    if not items or bad:
        raise ValueError(f"unknown engine {', '.join(bad) or repr(text)}: choose z3, cbmc or z3,cbmc")
    return tuple(dict.fromkeys(items))


def obligation_key(ob: Obligation) -> str:
    """The id an obligation is matched by across engines (obligations.obligation_id)."""
    if ob.spec is not None:
        return obligation_id(ob.spec)
    return obligation_id(ObligationSpec(ob.kind, ob.loc, ("", 0), other_loc=ob.other_loc))


def combine(first: Sequence[Obligation], second: Sequence[Obligation],
            names: tuple[str, str] = ("z3", "cbmc")) -> tuple[Obligation, ...]:
    """One list of obligations from two engines' settled verdicts (module
    docstring). Obligations only one engine has are kept as they are."""
    others = {obligation_key(ob): ob for ob in second}
    out = []
    for a in first:
        b = others.pop(obligation_key(a), None)
        if b is None:
            out.append(a)
            continue
        verdicts = ((names[0], a.status.value), (names[1], b.status.value))
        out.append(_merge(a, b, names, verdicts))
    out.extend(others.values())
    return tuple(out)


def _merge(a: Obligation, b: Obligation, names: tuple[str, str],
           verdicts: tuple[tuple[str, str], ...]) -> Obligation:
    st = {a.status, b.status}
    if len(st) == 1 or Status.UNKNOWN in st:
        keep = a if a.status is not Status.UNKNOWN or b.status is Status.UNKNOWN else b
        return dataclasses.replace(keep, engines=verdicts)
    failed, proved = (a, b) if a.status is Status.FAILED else (b, a)
    who_failed, who_proved = (names[0], names[1]) if failed is a else (names[1], names[0])
    flag = (f"engines disagree on {obligation_key(a)}: {who_proved} proved it, {who_failed} found a "
            f"{'confirmed ' if failed.confirmed else ''}counterexample")
    if failed.confirmed:
        return dataclasses.replace(failed, engines=verdicts, disagreements=failed.disagreements + (flag,),
                                   reason=f"{failed.reason}; {flag}" if failed.reason else flag)
    return dataclasses.replace(proved, status=Status.UNKNOWN, engines=verdicts,
                               disagreements=proved.disagreements + (flag,),
                               reason=f"{flag}; replay did not confirm the counterexample, so "
                                      "neither verdict stands")
