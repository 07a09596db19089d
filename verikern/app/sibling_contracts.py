"""A contract one instance of a generic kernel was proved under, tried on its
sibling instances before a search of their own (`verikern prove --suggest`).

The instances of a generic kernel share one definition, so a contract pasted
above its `def` is a contract of every instance; the search of a failed
instance (proofs.deciding.suggest) often finds the one its sibling's search
found (FIRE's uphill check: 11 instances, 11 identical searches, each costing
more than the re-proof that would check the first one's contract).

Invariants:
- a contract is noted only from a report `proved_under_suggestion` by its own
  search and the pasted source's re-proof (app.suggestion), never from one
  given by a type-oblivious proof or a typing premise;
- on a sibling it is a claim like any search's: the pasted source is compiled
  again and this instance proved whole under it (app.suggestion.prove_suggestion);
  only when that re-proof ends PROVED is it this instance's suggestion, proved
  under it. Otherwise (a typing that reaches a bug the contract does not rule
  out, the total spent) nothing of the trial is reported and the instance's own
  search runs as before;
- what the trial spends counts on the instance's share like a search would, so
  the verdicts stay deterministic (the same instances in the same order try the
  same contracts), and the contract tried is part of the proof-cache key; the
  pasted file is compiled once for all of them (`pasted`) and charged to each as
  a compile, so the units do not depend on what was compiled before.
"""
from __future__ import annotations

import dataclasses
import logging

from verikern.app.suggestion import prove_suggestion
from verikern.proofs.obligations import KernelReport

LOG = logging.getLogger("verikern.app.sibling_contracts")

#: (requires, decorators) of a suggested contract, as a KernelReport carries them.
Contract = tuple[tuple[str, ...], tuple[str, ...]]


class SiblingContracts:
    """The first contract each kernel (by its definition's name) had an instance
    proved under by that instance's own search. Mutable on purpose: it follows
    one file's instances in source order."""

    def __init__(self) -> None:
        self._found: dict[str, Contract] = {}
        #: the pasted files compiled (app.suggestion.pasted_kernel's `shared`): a contract's
        #: pasted file is compiled once for every instance that re-proves it
        self.pasted: dict = {}

    def of(self, kernel: str) -> Contract | None:
        """The contract to try first on an instance of `kernel`, or None."""
        return self._found.get(kernel)

    def note(self, kernel: str, report: KernelReport) -> None:
        """Keep `report`'s contract for `kernel`'s later instances when the report is
        proved under it (the first such report of the kernel)."""
        if report.proved_under_suggestion and report.suggested_decorators and kernel not in self._found:
            self._found[kernel] = (tuple(report.suggested_requires), tuple(report.suggested_decorators))

    @staticmethod
    def trial(contract: Contract, source: str, checks: dict) -> "SiblingTrial":
        """The `before_search` of proofs.pipeline.prove_mir that tries `contract` (the
        pasted re-proof takes `checks`: dims, block_dim, budget, max_array_bytes, engine,
        unwind, as app.suggestion.prove_suggestion)."""
        return SiblingTrial(contract, source, checks)


class SiblingTrial:
    """One instance's trial of a sibling's contract (module docstring); `proved`
    says, after the call, whether its re-proof proved the instance under it.
    Mutable on purpose: the proof calls it once, and the caller reads `proved`."""

    def __init__(self, contract: Contract, source: str, checks: dict) -> None:
        self.contract, self.source, self.checks = contract, source, checks
        self.proved = False

    def __call__(self, failed: KernelReport) -> KernelReport | None:
        requires, decorators = self.contract
        claim = dataclasses.replace(failed, suggested_requires=requires, suggested_decorators=decorators,
                                    proved_under_suggestion=True)
        checked = prove_suggestion(claim, self.source, **self.checks)
        if checked.proved_under_suggestion is True:
            LOG.info("%s: proved under the contract of a sibling instance", failed.kernel)
            self.proved = True
            return checked
        LOG.info("%s: the contract of a sibling instance does not prove it; searching its own",
                 failed.kernel)
        return None
