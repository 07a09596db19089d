"""A typing premise suggested for a generic kernel that is not proved
(frontend/scan/typing_premise.py): when its `kernel[...]` remainder is not
proved, or some instantiation fails or errs, the premise

    @vk.requires(lambda positions, masses: positions.dtype in (wp.vec3f, wp.vec3d)
                 and masses.dtype in (wp.float32, wp.float64))

built from (a) the typings its `wp.overload`s declare, else -- or when that
premise does not prove it -- (b) the typings of the instances that are
proved, else (c) each typing beyond the enumerated ones that `kernel[...]`
found to type-check (a vec3 for `p[0..2]` of an array of `Any`, a mat33) with
its float64 twin (vec3d), else that typing alone, else -- for a kernel with too many typings to
enumerate, whose per-parameter premise admits more typings than it was built from (mixed
precisions, or too many again) -- (d) one precision at a time: each compiled instance's typing
alone, all-float32 first, then all-float64. A premise built from several typings whose
per-parameter form admits other typings too (float32 charges with vec3d positions) is tried
as the joint premise admitting exactly those typings,

    @vk.requires(lambda positions, masses: (positions.dtype, masses.dtype) in
                 ((wp.vec3f, wp.float32), (wp.vec3d, wp.float64)))

(both precisions, never mixed, as projects register their overloads): every instance it
admits is one the per-parameter premise admits, so that one proves no more when it does not.
Each premise is pasted above the kernel exactly as users are told to paste it
(proofs.reporting.paste), the file compiled again and every instance the
pasted kernel has proved.

Invariants:
- a premise is suggested only when the pasted kernel compiles to instances
  alone (no `kernel[...]` remainder, no error instance: every generic
  parameter is pinned) and every one of them is PROVED: by the solver on the
  pasted source, or by this run's own proof of the same instance when its
  MIR is the same (same name, same MIR sha256 less source positions): as
  written, or pasted below its own suggested contract and proved by that
  suggestion's re-proof (KernelReport.pasted_mir_sha); never on a search's word;
- only generic array parameters are pinned (a typing of a bare `Any`
  parameter cannot be stated), and only types with a Warp name;
- when the premise alone does not prove it, the premise with the contracts
  the instances were proved under (their own suggestions) is tried the same
  way, and suggested together;
- the kernel's own verdicts are never changed: each report of the kernel
  that is not proved carries the premise as its suggestion, proved under it
  (`proved_under_suggestion`), and its text says so; a kernel that has a
  premise already gets none;
- each instance's re-proof spends work of its own, a kernel's, as every
  suggestion's re-proof does (proofs.deciding.budget.separate_work): the
  instances of the pasted kernel are kernels of their own.
"""
from __future__ import annotations

import ast
import dataclasses
import logging
from pathlib import Path

from verikern.app.kernel_names import definition_of, is_generic_instance
from verikern.app.suggestion import charge_pasted_compile, sha_without_positions
from verikern.frontend import compile_source
from verikern.app.compile_budget import compile_budget
from verikern.frontend.check.generic_opaque import float64_twin
from verikern.hir.types import MatrixType, ScalarType, VectorType
from verikern.proofs.deciding.budget import (
    kernel_total, per_check_units, separate_work, total_exhausted,
)
from verikern.proofs.deciding.budget_reasons import meter_spent
from verikern.proofs.obligations import KernelReport, KernelStatus, Status
from verikern.proofs.pipeline import prove_mir
from verikern.proofs.reporting.paste import pasted, suggestion_inserts
from verikern.frontend.scan.annotations import value_type
from verikern.frontend.scan.module import ModuleInfo, scan_module

LOG = logging.getLogger("verikern.app.premise_suggestion")
_WARP_NAMED = ("vec2", "vec3", "vec4", "mat22", "mat33", "mat44", "quat")


def _warp_alias(source: str) -> str:
    """The name the file imports Warp as (`wp`), else `vk` (whose DSL names are Warp's)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return "vk"
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "warp":
                    return a.asname or "warp"
    return "vk"


def file_type_names(source: str, file: str) -> dict:
    """Each vector or matrix type a module-level name of `source` stands for (`vec9f =
    wp.types.vector(length=9, dtype=wp.float32)`, `class vec1f(vector(1, float32)): pass`)
    -> that name (the first so bound, file order), for a type without a Warp name; a name the
    file binds again anywhere is left out. In Warp such a name is the very type object the
    module's arrays are made with, and a pasted premise's lambda sees it in its globals."""
    try:
        tree = ast.parse(source)
        info = ModuleInfo(file, source)
        scan_module(tree, info)
    except Exception as err:   # no names to spell with: premises with Warp names only
        LOG.info("%s: module-level type names not read: %s", file, err)
        return {}
    out: dict = {}
    for name in info.type_aliases:
        if info.rebinding(name) is not None:
            continue
        t = value_type(info, ast.Name(id=name, ctx=ast.Load()))
        if isinstance(t, (VectorType, MatrixType)):
            out.setdefault(t, name)
    return out


def _spelled(t, alias: str, named: dict | None = None) -> str | None:
    """`wp.vec3f` for a type with a Warp name, the file's own name of a type without one
    (`named`: file_type_names), else None."""
    if isinstance(t, ScalarType):
        return f"{alias}.{t.name}"
    if isinstance(t, (VectorType, MatrixType)) and any(t.name == n or (
            t.name.startswith(n) and t.name[len(n):] in ("d", "h")) for n in _WARP_NAMED):
        return f"{alias}.{t.name}f" if t.name in _WARP_NAMED else f"{alias}.{t.name}"
    if isinstance(t, (VectorType, MatrixType)) and named:
        return named.get(t)
    return None


def premise_decorator(typings: list[dict], alias: str, named: dict | None = None,
                      joint: bool = False) -> tuple[str, str] | None:
    """(the premise, its decorator line) admitting each parameter's types of `typings`
    (param -> HIR array type, in order), or None when one cannot be stated (`named`: the
    file's own names of types without a Warp name, file_type_names). `joint`: the premise
    admitting the typings themselves only, `(p.dtype, q.dtype) in ((T, U), ...)` over the
    parameters whose type varies; None when the per-parameter premise admits no other
    typing already (every combination of the parameters' types is one of `typings`)."""
    params: dict[str, list[str]] = {}
    rows: list[dict[str, str]] = []
    for typing in typings:
        row = {}
        for p, t in typing.items():
            dtype = getattr(t, "dtype", None)
            name = _spelled(dtype, alias, named) if dtype is not None else None
            if name is None:
                return None        # a bare `Any` (no array) or a type the file cannot name
            if name not in params.setdefault(p, []):
                params[p].append(name)
            row[p] = name
        rows.append(row)
    if not params:
        return None
    varying = [p for p, ts in params.items() if len(ts) > 1]
    if joint:
        combos = list(dict.fromkeys(tuple(r.get(p, "") for p in varying) for r in rows))
        product = 1
        for p in varying:
            product *= len(params[p])
        if len(varying) < 2 or any(set(r) != set(params) for r in rows) or len(combos) == product:
            return None
        atoms = [f"{p}.dtype == {ts[0]}" for p, ts in params.items() if len(ts) == 1] + [
            f"({', '.join(p + '.dtype' for p in varying)}) in ("
            + ", ".join(f"({', '.join(c)})" for c in combos) + ")"]
    else:
        atoms = [f"{p}.dtype == {ts[0]}" if len(ts) == 1 else f"{p}.dtype in ({', '.join(ts)})"
                 for p, ts in params.items()]
    text = " and ".join(atoms)
    return text, f"@vk.requires(lambda {', '.join(params)}: {text})"


def _proved_under(decorators: list[str], base: str, line: int, file: str, source: str, opts,
                  proved: dict[str, str], settled: dict[str, str] | None = None,
                  most: int | None = None, wide: list | None = None) -> bool:
    """Whether `base` pasted with `decorators` above its `def` (at `line`) compiles to
    instances only, every one PROVED (`proved`: this run's proved instances, name ->
    MIR sha256 less source positions (the paste moves the lines), taken as proved when
    the pasted instance's MIR is the same but for them; `settled`:
    those this run cannot prove again, the same way: a bug replay confirmed (a pasted instance
    with the same MIR has the same bug on the same launch) or an obligation left undecided when
    the instance's own work ran out (budget_reasons.meter_spent: the re-proof below has a meter
    of the same size and asks the same queries), so nothing is proved again;
    `most`: the most instances the pasted kernel may have to be proved here, else False with
    True appended to `wide`, before any proof: _premise_search puts it off)."""
    text = pasted(source, suggestion_inserts(source, line, decorators))
    try:
        module = compile_source(text, file, project_file=file if Path(file).is_file() else None,
                                kernels=[base], **compile_budget(opts.budget))
    except Exception as err:  # the pasted file must compile; if not, nothing is claimed
        LOG.info("%s: the pasted premise does not compile: %s", base, err)
        return False
    charge_pasted_compile(text, module)      # on the kernel's total, as its queries are
    mine = [k for k in module.kernels if definition_of(k.name) == base]
    if most is not None and len(mine) > most:
        LOG.info("%s: the premise admits %d instances, more than the %d typings it was built from: "
                 "put off", base, len(mine), most)
        (wide if wide is not None else []).append(True)
        return False
    if not mine or any(k.error is not None or k.mir is None or k.unknown for k in mine):
        return False
    shas = {k.name: sha_without_positions(k.mir) for k in mine}
    if any((settled or {}).get(k.name) == shas[k.name] for k in mine):
        LOG.info("%s: an instance under the premise is one with a confirmed bug or one whose "
                 "own work ran out", base)
        return False
    for k in mine:
        if proved.get(k.name) == shas[k.name]:
            continue
        with separate_work(per_check_units(opts.budget)):     # each instance: a kernel's work
            report = prove_mir(k.mir, file=file, dims=opts.dims, block_dim=opts.block_dim, budget=opts.budget,
                               replay=False, max_array_bytes=opts.max_array_bytes, suggest=False,
                               engine=opts.engine, unwind=opts.unwind)
        LOG.info("%s under the premise: %s", k.name, report.status.value)
        if report.status is not KernelStatus.PROVED:
            return False
    return True


def _precision_rank(typing: dict) -> int:
    """0 for a typing whose every type has float32 components, 1 for float64, 2 otherwise."""
    scalars = set()
    for t in typing.values():
        t = getattr(t, "dtype", t)                                  # an array's element type
        scalars.add(getattr(t, "dtype", t))                         # a vector's, a matrix's components
    names = {getattr(s, "name", None) for s in scalars}
    return 0 if names == {"float32"} else 1 if names == {"float64"} else 2


def _confirmed_bug(report: KernelReport) -> bool:
    """`report` is FAILED with a failure replay confirmed (a real launch that violates)."""
    return report.status is KernelStatus.FAILED and any(
        ob.status is Status.FAILED and ob.confirmed is True for ob in report.obligations)


def _out_of_work(report: KernelReport) -> bool:
    """`report` left an obligation undecided because its own work ran out (not its total)."""
    return any(ob.status is Status.UNKNOWN and meter_spent(ob.reason) for ob in report.obligations)


def _needs_one(reports: list[KernelReport]) -> bool:
    return any(r.status is not KernelStatus.PROVED and not r.proved_under_suggestion for r in reports)


def _with_premise(r: KernelReport, requires: tuple[str, ...], decorators: tuple[str, ...]) -> KernelReport:
    if r.status is KernelStatus.PROVED:
        return r
    note = ("\n  proved under the suggested typing premise (the kernel is then proved for the "
            "instantiations it admits only; vk.launch refuses the others):" + "".join(f"\n    {d}" for d in decorators))
    error = (r.error or "") + note if r.status is not KernelStatus.FAILED else r.error
    return dataclasses.replace(r, suggested_requires=requires, suggested_decorators=decorators,
                               proved_under_suggestion=True, error=error)


def suggest_premises(module, reports: list[KernelReport], file: str, opts,
                     data: bytes | None, totals=None) -> list[KernelReport]:
    """`reports` with a typing premise suggested for each generic kernel of `module`
    that needs one and is proved under it (module docstring); `totals(name)`: the
    total of kernel `name` its re-proofs count on (budget.kernel_total; None: none)."""
    if data is None:
        return reports
    source = data.decode("utf-8", "replace")
    alias = _warp_alias(source)
    named: dict | None = None      # the file's own type names, read once a search needs them
    by_base: dict[str, list] = {}
    for k in module.kernels:
        if is_generic_instance(k.name):
            by_base.setdefault(definition_of(k.name), []).append(k)
    out = list(reports)
    for base, results in by_base.items():
        mine = [i for i, r in enumerate(out) if definition_of(r.kernel) == base]
        if not _needs_one([out[i] for i in mine]) or any(
                k.mir is not None and k.mir.typing_premise is not None for k in results):
            continue
        status = {out[i].kernel: out[i] for i in mine}
        proved = {k.name: sha_without_positions(k.mir) for k in results
                  if k.mir is not None and k.name in status and status[k.name].status is KernelStatus.PROVED}
        settled = {k.name: sha_without_positions(k.mir) for k in results
                   if k.mir is not None and k.name in status
                   and (_confirmed_bug(status[k.name]) or _out_of_work(status[k.name]))}
        candidates = [[dict(k.typing) for k in results if k.declared and k.error is None and k.typing],
                      [dict(k.typing) for k in results if k.name in proved and k.typing]]
        # (b') the instances proved as written or under their own contract (a segment kernel's
        # float instances, whose integer twins really divide by zero): tried next, and only
        # with those contracts, before the probes and the typings that fail spend the total
        under = {k.name for k in results if k.name in status and k.name not in proved
                 and status[k.name].proved_under_suggestion is True}
        with_own = [dict(k.typing) for k in results if (k.name in proved or k.name in under) and k.typing]
        own_only = len(candidates) if under else None
        if under:
            candidates.append(with_own)
        for probe in (dict(p) for k in results if k.unknown for p in k.probes):   # `kernel[...]`'s vec3, mat33
            candidates += [[probe, {p: float64_twin(t) for p, t in probe.items()}], [probe]]
        # every instance that compiled (the typings check/generic_probed.py found among them), each
        # maybe proved only under its own contract, which `own` below adds beside the premise
        candidates.append([dict(k.typing) for k in results if k.error is None and not k.unknown and k.typing])
        # (d) a kernel with too many typings to enumerate (its `kernel[...]` has no probes): one
        # precision at a time, each compiled instance's typing alone, all-float32 first, then
        # all-float64 (how projects instantiate it), tried after the joint premises that admit
        # no more typings than they were built from (_premise_search)
        singles = [[t] for t in sorted((dict(k.typing) for k in results if k.error is None and not k.unknown
                                        and k.typing), key=_precision_rank)] \
            if any(k.unknown and not k.probes for k in results) else []
        # the contracts the instances were proved under (their own suggestions): with the premise
        own = {d: q for i in mine if out[i].proved_under_suggestion
               for q, d in zip(out[i].suggested_requires, out[i].suggested_decorators)}
        line = results[0].loc.line
        named = file_type_names(source, file) if named is None else named
        with kernel_total(totals(base) if totals is not None else None):
            # the proofs a pasted instance may reuse: those proved as written, and those proved
            # under their own suggestion, by its re-proof's MIR, which the premise pasted beside
            # the same contract gives again (a typing premise leaves no MIR)
            reusable = {**{k.name: status[k.name].pasted_mir_sha for k in results
                           if k.name in status and status[k.name].pasted_mir_sha}, **proved}
            end = _premise_search(candidates, (alias, named), own, base, line, file, source, opts, reusable,
                                  settled, own_only=own_only, singles=singles)
        if end is not None:
            for i in mine:
                out[i] = _with_premise(out[i], *end)
    return out


def _premise_search(candidates, spelling: tuple, own: dict, base: str, line: int, file: str, source: str, opts,
                    proved: dict, settled: dict, own_only: int | None = None,
                    singles: list | None = None) -> tuple | None:
    """(requires, decorators) of the first premise of `candidates` (alone, then with the
    instances' own contracts `own`; `spelling`: premise_decorator's alias and named)
    under which `base` is proved; None if none is.
    `own_only`: the index of a candidate tried with `own` only (it admits instances
    that fail as written: alone it cannot be proved). `singles`: one typing each (one
    precision at a time, for a kernel with too many typings): when there are some, a
    candidate whose pasted kernel has more instances than the typings it was built from
    (the mixed-precision typings its per-parameter premise also admits, or more than
    verikern enumerates) is put off until after them, so that it does not spend the
    kernel's total before the one-precision premises are tried."""
    alias, named = spelling
    tried: set[tuple[str, bool]] = set()     # (decorator, tried in full)
    # (candidate index, typings, the most instances proved, the joint form): typings whose
    # per-parameter premise admits other typings too are tried in the joint form, which admits
    # them alone (every instance of it is one of the per-parameter premise's, so that one
    # proves no more when the joint one is not proved, and the mixed typings' instances
    # would spend the kernel's total first)
    order: list[tuple[int | None, list, int | None, bool]] = []
    for i, c in enumerate(candidates):
        if c:
            joint = premise_decorator(c, alias, named, joint=True) is not None
            order.append((i, c, len(c) if singles and not joint else None, joint))
    order += [(None, c, None, False) for c in singles or ()]
    k = 0
    while k < len(order):
        index, typings, most, joint = order[k]
        k += 1
        if total_exhausted():     # the kernel's total is spent: no re-proof could prove it
            return None
        found = premise_decorator(typings, alias, named, joint=joint) if typings else None
        if found is None or (found[1], most is None) in tried:
            continue
        tried.add((found[1], most is None))
        ends = [((found[0],), (found[1],))] + ([((found[0], *own.values()), (found[1], *own))] if own else [])
        if index == own_only:
            ends = ends[1:]
        wide: list[bool] = []
        for end in ends:
            if _proved_under(list(end[1]), base, line, file, source, opts, proved, settled, most=most, wide=wide):
                return end
            if wide:
                break
        if wide:                  # tried again in full after the one-precision premises
            order.append((index, typings, None, False))
        else:
            tried.add((found[1], True))
    return None
