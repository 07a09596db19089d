"""The type-oblivious proof of a generic kernel in `verikern prove`
(frontend/check/generic_opaque.py builds its opaque kernel).

Invariants:
- it only ever contributes `proved`: when every obligation of the opaque
  kernel is proved, `kernel[...]` is reported proved (with the opaque
  kernel's obligations and the instances it covers) and each instance that
  compiled is reported proved by it, without a proof of its own; otherwise
  nothing of the opaque proof is reported as a failure or a counterexample
  (it is no real instantiation): `kernel[...]` stays `unknown`, its reason
  saying why the opaque proof did not prove, and the instances are proved
  one by one as before;
- it runs on z3 alone, without replay or suggestion, whatever the options
  say (CBMC models float semantics that an integer instantiation does not
  have); the array-size bound is scaled by the opaque kernel's
  `array_bytes_factor` (each array of generic elements may hold as many
  elements as one of 1-byte elements);
- with `--suggest`, a contract suggested on the opaque kernel is checked as
  every suggestion is (app/suggestion.py): pasted into the source, the file
  compiled again, and the pasted file's opaque kernel proved whole. Only then
  does `kernel[...]` say it is proved for every instantiation under that
  contract (`proved_under_suggestion`); its status stays `unknown`, never
  `failed`. Each enumerated instance that this proof covers (the pasted
  file's `covers`) is then proved as written without a search of its own,
  and when it fails (or stays unknown) it carries that contract, proved
  under it: the opaque proof under the contract is a proof of every
  instantiation it covers under the same pasted decorators. Only the first
  `app.prove.MAX_COVERED_DECIDED` covered instances are proved as written;
  the others are reported `unknown` as written ("not decided as written"),
  proved under that contract -- never `failed` without a proof of their own;
- it reads no time: its verdict depends on the options' budget only.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pathlib import Path

from verikern.app.kernel_names import definition_names
from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES, MAX_ARRAY_BYTES_LIMIT
from verikern.frontend import compile_source
from verikern.app.compile_budget import compile_budget
from verikern.app.suggestion import charge_pasted_compile
from verikern.proofs.deciding.budget import per_check_units, separate_work, total_exhausted
from verikern.proofs.obligations import KernelReport, KernelStatus, Status
from verikern.proofs.pipeline import prove_mir
from verikern.proofs.reporting.paste import pasted, suggestion_inserts
from verikern.proofs.reporting.scope import scope_of, sha256_bytes


@dataclass(frozen=True)
class ObliviousOutcome:
    """The type-oblivious proof of one generic kernel: `report` when it proved
    every obligation (named `kernel[...]`), else `why` it did not."""

    report: KernelReport | None
    why: str
    covers: frozenset[str] = frozenset()
    # a contract under which the pasted opaque kernel is proved: (requires, decorators),
    # and the enumerated instances that proof covers (in the pasted file)
    suggested: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    suggested_covers: frozenset[str] = frozenset()


def _max_array_bytes(opts, factor: int) -> int | None:
    """The opaque kernel's array-size bound, or None when it exceeds what the
    encoder accepts: a smaller one would let each generic array hold fewer
    elements than an instantiation of 1-byte elements may, a proof for fewer
    arrays than claimed."""
    base = opts.max_array_bytes if opts.max_array_bytes is not None else DEFAULT_MAX_ARRAY_BYTES
    bound = base * max(1, factor)
    return bound if bound <= MAX_ARRAY_BYTES_LIMIT else None


def prove_oblivious(kr, file: str, opts, data: bytes | None) -> ObliviousOutcome:
    """The outcome for `kernel[...]`'s KernelResult `kr` (module docstring)."""
    if kr.opaque is None:
        return ObliviousOutcome(None, f"no type-oblivious proof: {kr.opaque_refusal or 'none was built'}")
    bound = _max_array_bytes(opts, kr.array_bytes_factor)
    if bound is None:
        return ObliviousOutcome(None, f"no type-oblivious proof: --max-array-bytes times the carrier's element "
                                      f"size ({kr.array_bytes_factor}) is over {MAX_ARRAY_BYTES_LIMIT}")
    report = prove_mir(kr.opaque, file=file, dims=opts.dims, block_dim=opts.block_dim, budget=opts.budget,
                       replay=False, max_array_bytes=bound, suggest=opts.suggest, engine="z3")
    if report.status is not KernelStatus.PROVED:
        bad = next((o for o in report.obligations if o.status is not Status.PROVED), None)
        what = (f"its {bad.kind.value} obligation at line {bad.loc.line} is not proved for an opaque value"
                if bad is not None else (report.error or report.status.value).splitlines()[0])
        proved = _proved_suggestion(kr, report, file, opts, data, bound)
        return ObliviousOutcome(None, f"the type-oblivious proof did not prove it: {what}",
                                suggested=proved[0] if proved is not None else None,
                                suggested_covers=proved[1] if proved is not None else frozenset())
    source = data.decode("utf-8", "replace") if data is not None else None
    scope = scope_of(kr.opaque, source=source, source_sha256=sha256_bytes(data) if data is not None else None,
                     dims=opts.dims, block_dim=opts.block_dim, budget=opts.budget, max_array_bytes=bound,
                     kernel_budget=opts.kernel_budget)
    return ObliviousOutcome(dataclasses.replace(report, kernel=kr.name, scope=scope, covers=kr.covers),
                            "", frozenset(kr.covers))


def covered_report(kr, file: str, outcome: ObliviousOutcome) -> KernelReport:
    """An instance proved by the type-oblivious proof `outcome`, not on its own."""
    assert outcome.report is not None
    line = kr.loc.line if getattr(kr, "loc", None) is not None else 0
    return KernelReport(file, kr.name, KernelStatus.PROVED, 0.0, line=line, scope=outcome.report.scope,
                        covered_by=outcome.report.kernel)


def under_oblivious_suggestion(report: KernelReport, outcome: ObliviousOutcome) -> KernelReport:
    """An instance's `report` (proved as written, without a suggestion search of its
    own) with the contract under which the type-oblivious proof `outcome` proved every
    instantiation it covers, this instance among them: failed or unknown as written,
    proved under that contract (module docstring). A proved report is returned as it is."""
    assert outcome.suggested is not None and report.kernel in outcome.suggested_covers
    if report.status not in (KernelStatus.FAILED, KernelStatus.UNKNOWN):
        return report
    requires, decorators = outcome.suggested
    return dataclasses.replace(report, suggested_requires=requires, suggested_decorators=decorators,
                               proved_under_suggestion=True)


def _proved_suggestion(kr, report: KernelReport, file: str, opts, data: bytes | None, bound: int):
    """((requires, decorators), the instances it covers) of the contract suggested on the
    opaque kernel when the pasted file's opaque kernel is proved under it, else None
    (module docstring)."""
    if not (report.suggested_decorators and report.proved_under_suggestion) or data is None:
        return None
    # the pasted copy's compile and re-proof: work of their own (app/suggestion.py), which may
    # draw on the kernel's suggestion reserve (budget.reserved_total) as a search's does
    with separate_work(per_check_units(opts.budget)):
        return _proved_pasted(kr, report, file, opts, data, bound)


def _proved_pasted(kr, report: KernelReport, file: str, opts, data: bytes, bound: int):
    if total_exhausted():     # the kernel's total is spent: the re-proof could not prove it
        return None
    source = data.decode("utf-8", "replace")
    text = pasted(source, suggestion_inserts(source, report.line, report.suggested_decorators))
    try:
        # only this kernel's definition (a project file can hold 100s of kernels)
        module = compile_source(text, file, project_file=file if Path(file).is_file() else None,
                                kernels=definition_names((kr.name,)), **compile_budget(opts.budget))
    except Exception:  # the pasted file must compile; if not, nothing is claimed
        return None
    charge_pasted_compile(text, module)      # on the kernel's total, as its queries are
    pasted_kr = next((k for k in module.kernels if k.name == kr.name and k.opaque is not None), None)
    if pasted_kr is None:
        return None
    proof = prove_mir(pasted_kr.opaque, file=file, dims=opts.dims, block_dim=opts.block_dim, budget=opts.budget,
                      replay=False, max_array_bytes=bound, suggest=False, engine="z3")
    if proof.status is not KernelStatus.PROVED:
        return None
    return (report.suggested_requires, report.suggested_decorators), frozenset(pasted_kr.covers)
