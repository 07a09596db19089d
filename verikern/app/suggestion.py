"""A suggested contract is a claim, and is proved as one: the contract is
pasted into the kernel's source exactly as users are told to paste it
(proofs.reporting.paste), the file is compiled again and the kernel proved
again, whole -- every obligation, every inlined copy of a func.

Invariants:
- `proved_under_suggestion` is True only when that re-proof of the pasted
  source ends PROVED (z3 `unsat` for every obligation, as any proof);
  anything else -- the pasted file does not compile, the kernel is not
  found, an obligation fails or stays unknown, the proof errs -- is False;
  the re-proof runs only for a search that claims the contract proves the
  kernel (a search that does not is False already: nothing to check);
- a suggestion is kept only with an example launch solved on the pasted
  kernel (proofs.deciding.example_launch): a contract that admits no launch
  (or none z3 finds within its work) is never suggested;
- the kernel's own verdict and obligations are never changed here, and the
  user's file is only ever read (the pasted text is compiled from memory);
- the example launch and the re-proof spend work of their own, as much as the
  kernel's proof may (proofs.deciding.budget.separate_work): the re-proof
  is a proof of the same kernel, which a search that spent the kernel's
  work must not starve.
"""
from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path

from verikern.app.kernel_names import definition_names
from verikern.frontend import compile_source
from verikern.app.compile_budget import compile_budget
from verikern.proofs.deciding.budget import (
    charge_compile, per_check_units, separate_work, total_exhausted, total_exhausted_text,
)
from verikern.proofs.deciding.example_launch import example_launch
from verikern.proofs.obligations import KernelReport, KernelStatus
from verikern.proofs.pipeline import prove_mir
from verikern.proofs.reporting.paste import pasted, suggestion_inserts
from verikern.proofs.reporting.scope import mir_text, sha256_bytes

LOG = logging.getLogger("verikern.app.suggestion")
#: A name in source text (a superset of the `def` names a compile selects by).
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _without_suggestion(report: KernelReport) -> KernelReport:
    return dataclasses.replace(report, suggested_requires=(), suggested_decorators=(),
                               proved_under_suggestion=None, suggested_example=None)


def pasted_kernel(report: KernelReport, source: str, shared: dict | None = None, budget: float | None = None):
    """The MIR of `report`'s kernel compiled from `source` with the suggested
    decorators pasted above its `def`; None (with the reason logged) when it
    does not compile. `shared`: compiled pasted files kept for the kernel's other
    instances (the same decorators above the same `def` are the same text:
    app.sibling_contracts), by the text and the definitions compiled (those of
    `definition_names` the text names: the compile selects definitions by their
    `def` names, so the same ones give the same module); only a file without
    configuration choices is kept (one configuration is compiled per instance).
    Its compile has the kernel's compile budget for --budget `budget` (app/compile_budget.py).
    The compile is charged to the kernel's total every time, kept or not: the
    units spent do not depend on what was kept."""
    text = pasted(source, suggestion_inserts(source, report.line, report.suggested_decorators))
    wanted = definition_names((report.kernel,))
    key = (text, frozenset(wanted or ()) & frozenset(_IDENTIFIER.findall(text)))
    module = shared.get(key) if shared is not None else None
    if module is None:
        try:
            # names imported from the kernel's project are read as when it was proved
            # only this kernel's definition is checked again (a project file can hold 100s)
            # and a configuration's instance (`k{scalar_t=float16}`) under its configuration alone
            module = compile_source(text, report.file, project_file=report.file
                                    if Path(report.file).is_file() else None,
                                    kernels=wanted, configuration=report.kernel, **compile_budget(budget))
        except Exception as err:  # the pasted file must compile; if not, nothing is claimed
            LOG.info("%s: the pasted contract does not compile: %s", report.kernel, err)
            return None
        if shared is not None and not any("{" in k.name for k in module.kernels):
            shared[key] = module
    charge_pasted_compile(text, module)      # on the kernel's total, as its queries are
    # by name, or by MIR name: a generic kernel's instance `sort[int8]` is proved as `sort__int8`
    found = [k for k in module.kernels if report.kernel in (k.name, getattr(k.mir, "name", None))]
    if not found:
        return None
    result = found[0]
    if result.error is not None or result.mir is None:
        LOG.info("%s: the pasted contract does not compile: %s", report.kernel, result.error)
        return None
    return result.mir


def charge_pasted_compile(text: str, module) -> None:
    """Charge the kernel's total for compiling `text` to `module` (budget.charge_compile:
    by its characters and the MIR instructions of every kernel compiled, an instance's
    and a type-oblivious opaque kernel's alike): counts, the same on every machine."""
    instructions = 0
    for kernel in module.kernels:
        for mir in (kernel.mir, getattr(kernel, "opaque", None)):
            if mir is not None:
                instructions += sum(1 for _ in mir.instructions())
    charge_compile(len(text), instructions)


def prove_suggestion(report: KernelReport, source: str | None, *, dims=None, block_dim=None,
                     budget: float | None = None, max_array_bytes: int | None = None,
                     engine: str = "z3", unwind: int | None = None, shared: dict | None = None) -> KernelReport:
    """`report` with its suggestion proved on the pasted source (see the
    module docstring): `proved_under_suggestion` and `suggested_example`
    set, or the suggestion dropped when the contract admits no launch.
    A report without a suggestion is returned as it is. `shared`: the pasted
    files compiled for the kernel's other instances (`pasted_kernel`)."""
    if not report.suggested_decorators:
        return report
    # the example launch and the re-proof: work of their own, as much as the kernel's
    with separate_work(per_check_units(budget)):
        return _prove_pasted(report, source, dims, block_dim, budget, max_array_bytes, engine, unwind, shared)


def _prove_pasted(report: KernelReport, source: str | None, dims, block_dim, budget, max_array_bytes,
                  engine: str, unwind: int | None, shared: dict | None = None) -> KernelReport:
    if total_exhausted():    # no work left to find a launch it admits: not suggested, and why
        return dataclasses.replace(_without_suggestion(report), suggestion_unknown=total_exhausted_text())
    mir = pasted_kernel(report, source, shared, budget) if source is not None else None
    if mir is None:
        return dataclasses.replace(report, proved_under_suggestion=False)
    example = example_launch(mir, dims=dims, block_dim=block_dim, max_array_bytes=max_array_bytes,
                             label=f"{Path(report.file).stem}.{mir.name}.")
    if example is None:
        LOG.info("%s: the suggested contract admits no launch z3 finds; not suggested", report.kernel)
        return dataclasses.replace(_without_suggestion(report), suggestion_unknown=(
            total_exhausted_text() if total_exhausted() else report.suggestion_unknown))
    proved = False
    if report.proved_under_suggestion:   # the search's claim, now checked (a False needs no proof)
        again = prove_mir(mir, file=report.file, dims=dims, block_dim=block_dim, budget=budget,
                          replay=False, max_array_bytes=max_array_bytes, suggest=False,
                          engine=engine, unwind=unwind)
        LOG.info("%s: under the pasted contract: %s", report.kernel, again.status.value)
        proved = again.status is KernelStatus.PROVED
        if not proved and total_exhausted():      # undecided, not disproved: say which budget
            return dataclasses.replace(report, proved_under_suggestion=False, suggested_example=example,
                                       suggestion_unknown=total_exhausted_text())
    return dataclasses.replace(report, proved_under_suggestion=proved, suggested_example=example,
                               pasted_mir_sha=sha_without_positions(mir) if proved else None)


#: A MIR line's source position (`  ; 12:5`, `  ; t.py:7:1` on the header): pasting a
#: decorator and an import moves every line of the kernel, and nothing else.
_POSITION = re.compile(r"  ; (?:[^\n;]*:)?\d+:\d+$", re.MULTILINE)


def sha_without_positions(kernel_mir) -> str:
    """The sha256 of the kernel's MIR text less its source positions: the same for the
    kernel as proved and as pasted below more decorators, whose lines moved."""
    return sha256_bytes(_POSITION.sub("", mir_text(kernel_mir)).encode())
