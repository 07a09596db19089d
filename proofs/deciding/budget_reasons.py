"""The reasons a spent budget gives (proofs.deciding.budget, which re-exports these
names): which budget ran out -- a kernel's meter, its total, a part's share of it or a
part's suggestion block --, what spent it and how to raise it.

Invariant: every figure in a reason is a count of the meters (z3 units and the
charges of `KernelTotal.ledger`), never seconds, so the same kernel gives the same
reason, word for word, on every machine."""
from __future__ import annotations

import z3

from verikern.proofs.deciding import budget

#: The kinds of work a total is charged for besides z3's own (`KernelTotal.ledger`),
#: in the words of the reason it gives when it is spent (`total_exhausted_text`).
CHARGE_KINDS = {
    "compiling": "compiling the kernel",
    "queries": "solver queries' Python work",
    "formulas": "formulas asserted past a query's first thousand",
    "evaluations": "formulas evaluated in models",
    "encoding": "thread copies encoded",
    "terms": "terms walked by the fact builders and the abstraction",
    "analysis": "the proof context's CFG analyses",
    "compiles": "recompiled pasted copies",
    "cached": "cached instances",
}


def total_exhausted_text() -> str:
    """Which budget ran out, what spent it and how to raise it (the kernel's total):
    the units of the total in progress (the whole kernel's, a part's share of it, or a
    part's suggestion block's) by kind -- z3's own solving, then each charge of its
    ledger (CHARGE_KINDS) -- all counts, the same on every machine."""
    total = budget.current_total()
    whole = total.whole if total is not None and total.whole is not None else total
    units = (f"{whole.limit / budget.MEGA:g} million z3 units" if whole is not None
             else "its z3 units")
    share = ""
    if total is not None and total.part is not None:        # a part's suggestion block
        part = total.part
        share = (f"; this part's share of it was {part.limit / budget.MEGA:.3g} million"
                 f"{spent_on(part)}; its suggestion work then had {total.limit / budget.MEGA:.3g} "
                 f"million (what the share had left and the kernel's reserve still held)")
    elif total is not None and whole is not None and total.limit < whole.limit:
        share = f"; this part's share of it was {total.limit / budget.MEGA:.3g} million"
    if whole is not None and whole is not total and whole.compiled:
        share += (f"; before its parts, {CHARGE_KINDS['compiling']} took {whole.compiled / budget.MEGA:.3g} "
                  f"million of it ({budget.COMPILE_UNIT_WEIGHT:g} z3 units a compile unit)")
    return (f"the kernel's total work budget was spent ({units} for the whole kernel: every "
            f"instance, its compile, proofs, searches and suggested contract, each solver query and "
            f"recompiled copy charged for its Python work too{share}{spent_on(total)}; raise "
            f"--kernel-budget, by default {budget.KERNEL_TOTAL_CHECKS:g} times --budget, to give it more)")


def spent_on(total: budget.KernelTotal | None) -> str:
    """"; spent on: z3's own solving N million, <charge> M million, ..." for `total`
    (its ledger's kinds in CHARGE_KINDS' order, those it was charged for; "" for none)."""
    if total is None:
        return ""
    charged = [(kind, total.ledger.get(kind, 0)) for kind in CHARGE_KINDS]
    solving = max(0, total.spent() - sum(units for _, units in charged))
    parts = [f"z3's own solving {solving / budget.MEGA:.3g} million"] + [
        f"{CHARGE_KINDS[kind]} {units / budget.MEGA:.3g} million" for kind, units in charged if units > 0]
    drawn = (" (past its share: what its suggestion blocks drew from the kernel's reserve)"
             if total.drew and total.spent() > total.limit else "")
    return "; spent on: " + ", ".join(parts) + drawn


def total_exhausted_reason(decided: int, total: int) -> str:
    """Why an obligation was not decided: the kernel's total ran out first."""
    return f"budget exhausted after {decided} of {total} obligations: {total_exhausted_text()}"


#: What every `exhausted_reason` says, and no other reason does: the kernel's own work
#: (its `KernelWork` meter, not its total) was spent before the obligation was decided.
METER_SPENT = "the kernel's solver budget was exhausted ("


def exhausted_reason(decided: int, total: int, floor_run: int | None = None) -> str:
    """Why an obligation was not decided: the kernel's work ran out first (and, with
    `floor_run`, it was not tried: that many before it ended undecided on their floor)."""
    meter = budget.current_meter()
    units = f"{meter.limit / budget.MEGA:g} million z3 units" if meter is not None else "its z3 units"
    floor = f"{meter.floor / budget.MEGA:g} million" if meter is not None else "a floor of"
    stop = ("" if floor_run is None else
            f" until {floor_run} in a row were undecided on it; this one was not tried")
    return (f"budget exhausted after {decided} of {total} obligations: {METER_SPENT}"
            f"{units} for its proof, "
            f"{budget.KERNEL_WORK_CHECKS:g} times --budget, then {floor} z3 units for each obligation "
            f"left{stop}; raise --budget to give it more)")


def unknown_reason(solver: "z3.Solver") -> str:
    """Why `solver` answered unknown, in the words reports use."""
    why = solver.reason_unknown()
    # z3 says "canceled" both when its resource limit stops a tactic and when
    # the timeout does: only a check that really ran the safety net's length
    # was stopped by it
    if is_safety_net(why) and getattr(solver, "hit_safety_net", True):
        return (f"the wall-clock safety net of {budget.SAFETY_NET_S:g} s per check was reached "
                "(this verdict depends on the machine's speed; raise --budget or simplify "
                "the kernel)")
    if "resource" in why or is_safety_net(why):
        return "the solver budget was exhausted (raise --budget to give each check more work)"
    return f"the solver answered unknown ({why})"


def meter_spent(reason: str | None) -> bool:
    """Whether `reason` is an `exhausted_reason`: undecided because the kernel's own
    work ran out (a proof of the same MIR under a meter of the same size, in a context
    of its own, asks the same queries with the same limits and runs out there again)."""
    return reason is not None and METER_SPENT in reason


def is_safety_net(reason: str) -> bool:
    return reason in ("timeout", "canceled")


__all__ = ["CHARGE_KINDS", "exhausted_reason", "is_safety_net", "meter_spent", "METER_SPENT", "spent_on",
           "total_exhausted_reason",
           "total_exhausted_text", "unknown_reason"]
