"""The proofs a build rests on, and the index checks they let it remove.

Invariant (`removable_checks`): an index check (block label, instruction
index, dimension) is removed only when (a) the kernel's proof is about this
exact MIR (the report's MIR sha256 equals the built kernel's), (b) that
dimension's bounds obligation is PROVED, with no second engine disagreeing,
(c) the obligation's site is a memory access of the built kernel at the
obligation's source location with that dimension, (d) the proof assumed
every launch (no --dim/--block-dim beyond the kernel's own block_dim) and
the default array bound, both of which the entry point enforces, (e)
under fast_math no float value feeds the index (the proof's float semantics
is IEEE; fast-math code may compute otherwise), and (f) when a race or
uninitialised-read obligation of the kernel is not proved, no value read
from memory feeds the index (what such a read returns is then outside what
the proof may have assumed about it). Anything else keeps its check.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from verikern.app.prove import ProofOptions, prove_file
from verikern.mir import facts
from verikern.mir.cfg import immediate_postdominator, postdominators
from verikern.mir.nodes import ArrayRef, Branch, Kernel, Value, result_of
from verikern.proofs.obligations import KernelReport, ObligationKind, Status, obligation_id
from verikern.proofs.reporting.scope import mir_text, sha256_bytes


@dataclass(frozen=True)
class ProvedKernel:
    """A kernel to build with its proof: the checks it may drop and what
    the manifest says about it."""

    kernel: Kernel
    status: str
    budget: float
    mir_sha256: str
    max_array_bytes: int
    unchecked: frozenset[tuple[str, int, int]]
    removed: tuple[dict, ...]
    kept: int
    verdicts: tuple[dict, ...]
    contract: tuple[dict, ...]
    contract_texts: dict[tuple[int, int], str] = field(default_factory=dict)
    signature: tuple[dict, ...] = ()
    header_comment: tuple[str, ...] = ()
    report_json: dict = field(default_factory=dict)


def _fed_by(kernel: Kernel, source) -> tuple[set[int], set[str]]:
    """(ids of values, labels of blocks) that depend on a value whose
    defining instruction satisfies `source(ins)`: through operands, and
    through control -- a block between a branch on such a value and the
    branch's immediate postdominator is tainted, and so is every phi there
    or at that join."""
    defs: dict[int, tuple] = {}
    fed: set[int] = set()
    for b in kernel.blocks:
        for ins in tuple(b.phis) + tuple(b.instrs):
            r = result_of(ins)
            if r is not None:
                ops = tuple(op for _, op in ins.incoming) if hasattr(ins, "incoming") \
                    else tuple(ins.operands())
                defs[r.id] = (r, ops, b.label, hasattr(ins, "incoming"))
                if source(ins):
                    fed.add(r.id)
    pdom = postdominators(kernel)
    tainted: set[str] = set()
    joins: set[str] = set()
    changed = True
    while changed:
        changed = False
        for vid, (_, ops, label, is_phi) in defs.items():
            if vid not in fed and (any(isinstance(o, Value) and o.id in fed for o in ops)
                                   or (is_phi and (label in tainted or label in joins))):
                fed.add(vid)
                changed = True
        for b in kernel.blocks:
            term = b.terminator
            if not isinstance(term, Branch) or not isinstance(term.cond, Value) \
                    or term.cond.id not in fed:
                continue
            join = immediate_postdominator(kernel, b.label, pdom)
            todo = [t for t in term.successors() if t != join]
            while todo:
                label = todo.pop()
                if label in tainted:
                    continue
                tainted.add(label)
                changed = True
                todo += [t for t in kernel.block(label).terminator.successors() if t != join]
            if join is not None and join not in joins:
                joins.add(join)         # its phis merge the tainted paths' values
                changed = True
    return fed, tainted


def _defines_float(ins) -> bool:
    r = result_of(ins)
    return r is not None and r.type.is_float


def removable_checks(kernel: Kernel, report: KernelReport, mir_sha256: str,
                     default_bytes: int) -> tuple[frozenset, tuple[dict, ...]]:
    """(unchecked set, manifest entries) per the module invariant."""
    scope = report.scope
    if scope is None or scope.mir_sha256 != mir_sha256 or scope.dims is not None \
            or scope.max_array_bytes != default_bytes \
            or scope.block_dim not in (None, kernel.block_dim):
        return frozenset(), ()
    fed: set[int] = set()
    tainted: set[str] = set()
    sources = []
    if kernel.fast_math:
        sources.append(_defines_float)
    memory_kinds = (ObligationKind.RACE, ObligationKind.UNINIT)
    if any(o.kind in memory_kinds and o.status is not Status.PROVED for o in report.obligations):
        sources.append(facts.accesses_memory)
    for source in sources:
        values, blocks = _fed_by(kernel, source)
        fed |= values
        tainted |= blocks
    unchecked: set[tuple[str, int, int]] = set()
    removed: list[dict] = []
    for o in report.obligations:
        spec = o.spec
        if o.kind is not ObligationKind.BOUNDS or o.status is not Status.PROVED or spec is None \
                or o.disagreements:
            continue
        label, index = spec.site
        try:
            ins = kernel.block(label).instrs[index]
        except (KeyError, IndexError, ValueError):
            continue
        if not facts.accesses_memory(ins) or ins.loc != spec.loc or spec.dim >= ins.array.ndim:
            continue
        op = ins.indices[spec.dim]
        if label in tainted or (isinstance(op, Value) and op.id in fed):
            continue
        unchecked.add((label, index, spec.dim))
        removed.append({"obligation": obligation_id(spec), "line": spec.loc.line,
                        "col": spec.loc.col, "array": ins.array.name, "dim": spec.dim})
    return frozenset(unchecked), tuple(removed)


def _bounds_sites(kernel: Kernel) -> int:
    return sum(ins.array.ndim for _, ins in kernel.instructions() if facts.accesses_memory(ins))


def _signature(kernel: Kernel) -> tuple[dict, ...]:
    out = []
    written = {ins.array.name for _, ins in kernel.instructions() if facts.writes_memory(ins)}
    for p in kernel.params:
        if isinstance(p, ArrayRef):
            out.append({"name": p.name, "kind": "array", "dtype": p.dtype.name, "ndim": p.ndim,
                        "inner": list(p.inner), "written": p.name in written})
        else:
            out.append({"name": p.name, "kind": "scalar", "dtype": p.value.type.name})
    return tuple(out)


def prove_for_build(src: Path, kernels: list[Kernel], budget: float | None,
                    remove: bool) -> list[ProvedKernel]:
    """Prove `kernels` of `src` (every launch) and, when `remove`, pick the
    checks their proofs remove."""
    from verikern.encoders.smt.launch import DEFAULT_MAX_ARRAY_BYTES  # lazy: z3, only to prove

    options = ProofOptions.of(budget=budget, suggest=False)
    reports = {r.kernel: r for r in prove_file(src, kernel=[k.name for k in kernels],
                                               options=options)}
    out = []
    for k in kernels:
        report = reports[k.name]
        sha = sha256_bytes(mir_text(k).encode())
        unchecked, removed = (removable_checks(k, report, sha, DEFAULT_MAX_ARRAY_BYTES)
                              if remove else (frozenset(), ()))
        scope = report.scope
        contract = tuple(c.to_json() for c in scope.contracts) if scope is not None else ()
        texts = {(c.line, c.col): c.text for c in scope.contracts} if scope is not None else {}
        verdicts = tuple({"id": obligation_id(o.spec) if o.spec is not None else o.kind.value,
                          "kind": o.kind.value, "status": o.status.value, "line": o.loc.line,
                          "col": o.loc.col, **({"reason": o.reason} if o.reason else {})}
                         for o in report.obligations)
        body = dataclasses.replace(report, seconds=0.0).to_json()
        body["obligations"] = [{**d, "id": v["id"]} for d, v in zip(body["obligations"], verdicts)]
        if scope is not None:
            body["scope"] = scope.to_json()
        comment = [f"kernel {k.name} ({src}:{k.loc.line}): proof {report.status.value}, "
                   f"mir sha256 {sha[:16]}"]
        comment += [f"{c['kind']}: {c['text']}" for c in contract]
        out.append(ProvedKernel(
            k, report.status.value, scope.budget if scope is not None else 0.0, sha,
            DEFAULT_MAX_ARRAY_BYTES, unchecked, removed, _bounds_sites(k) - len(unchecked),
            verdicts, contract, texts, _signature(k), tuple(comment), body))
    return out
