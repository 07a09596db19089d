"""`verikern prove` without the command line: compile files (never
executing them), prove their kernels (verikern.proofs.pipeline), in one
process, a process pool or a dask cluster, through the proof cache; one
`KernelReport` per kernel.

Invariants:
- user files are only ever read by `verikern.frontend.compile_file` (and
  read as bytes for the report's sha256 and contract text); nothing here
  imports or executes them;
- a kernel that does not compile is ERROR with the reason -- never PROVED;
  one bad file never stops the others.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable, Iterable

from verikern.errors import VerikernError
from verikern.proofs.obligations import KernelReport, KernelStatus
from verikern.proofs.deciding.engines import parse_engines
from verikern.proofs.pipeline import prove_mir
from verikern.encoders.smt.launch import check_max_array_bytes
from verikern.frontend import compile_file
from verikern.frontend import compile_source
from verikern.proofs.reporting.scope import computed_stamp, scope_of, sha256_bytes
from verikern.app.suggestion import prove_suggestion
from verikern.app.compile_budget import compile_budget
from verikern.app.premise_suggestion import suggest_premises
from verikern.app.kernel_names import definition_names, definition_of
from verikern.app.type_oblivious import covered_report, prove_oblivious, under_oblivious_suggestion
from verikern.app.cache import answers_from_cache, tool_fields, with_cached
from verikern.proofs.deciding.session import SolverSettings, solver_settings
from verikern.proofs.deciding.budget import (
    current_total, kernel_part, kernel_total_units, kernel_work, kernel_work_limit, new_total,
    per_check_units, reserved_total, total_exhausted, total_exhausted_text,
)
from verikern.app.sibling_contracts import SiblingContracts

MODULE_KERNEL = "<module>"   # the kernel name of a report about a whole file


class ProveInputError(VerikernError):
    """Bad input to the driver (a missing path, no kernels, a bad option)."""


class NoKernelsFound(ProveInputError):
    """Every file was read and compiled, and none holds a kernel (or one
    with the requested name); nothing else went wrong."""


#: (files done, files total, file just done, that file's reports): called as
#: each file finishes, in the order files finish.
Progress = Callable[[int, int, str, list[KernelReport]], None]


# ------------------------------------------------------------------ inputs
def collect_files(paths: Iterable[str | os.PathLike]) -> list[Path]:
    """Every kernel file named by `paths`: files as given, folders as every
    .py file below them (recursively, sorted, hidden folders and
    __pycache__ skipped); duplicates removed, order kept."""
    out: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(
                f for f in p.rglob("*.py")
                if not any(part.startswith(".") or part == "__pycache__"
                           for part in f.relative_to(p).parts[:-1])
            )
        elif p.is_file():
            found = [p]
        else:
            raise ProveInputError(f"{raw}: no such file or folder")
        for f in found:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                out.append(f)
    return out


def normalize_dims(dims) -> tuple[int, ...] | None:
    """None, an int, or a sequence of 1..4 positive ints -> a tuple (or None)."""
    if dims is None:
        return None
    if isinstance(dims, int):
        dims = (dims,)
    dims = tuple(int(d) for d in dims)
    if not 1 <= len(dims) <= 4 or any(d < 1 for d in dims):
        raise ProveInputError(f"bad launch dims {dims}: give 1 to 4 positive integers")
    return dims


def normalize_max_array_bytes(value) -> int | None:
    """None (the default bound) or the bound as an int in 1..2**64; a bad
    value is a ProveInputError."""
    if value is None:
        return None

    try:
        return check_max_array_bytes(int(value) if not isinstance(value, bool) else value)
    except (TypeError, ValueError) as err:
        raise ProveInputError(str(err)) from None


def compiled_kernels(path: str) -> dict:
    """The MIR of every kernel of `path` that compiles, by name."""

    module = compile_file(path)
    return {name: module.kernel(name).mir for name in module.kernel_names
            if module.kernel(name).error is None}


def _kernel_names(kernel) -> frozenset[str] | None:
    if kernel is None:
        return None
    if isinstance(kernel, str):   # commas inside `k[int8, int8]` name one generic instance
        return frozenset(k.strip() for k in re.split(r",(?![^\[]*\])", kernel) if k.strip())
    return frozenset(kernel)


# ------------------------------------------------------------------ one file
def _error_report(file: str, kernel: str, message: str, line: int = 0, seconds: float = 0.0) -> KernelReport:
    return KernelReport(file, kernel, KernelStatus.ERROR, seconds, error=message, line=line)


#: Of the enumerated instances a type-oblivious proof covers under its suggested
#: contract, at most this many (the first, in the enumeration's order) are proved as
#: written, each with a kernel's work; the others are `unknown` as written and proved
#: under that contract (warp-nn's `_max_kernel` has 132 such instances: proving each
#: as written took 170 CPU s and told nothing the first ones do not).
MAX_COVERED_DECIDED = 16


def _unknown_report(file: str, kernel: str, message: str, line: int) -> KernelReport:
    """UNKNOWN with no obligations: `message` (a rendered KernelError) says what was
    not checked; shown as a warning (`error` carries the text of a verdict with no
    obligation to hold it)."""
    return KernelReport(file, kernel, KernelStatus.UNKNOWN, 0.0, error=message.replace(
        ": error: ", ": warning: unknown: ", 1), line=line)


@dataclass(frozen=True)
class ProofOptions:
    """Everything that decides a kernel's proof besides its source: the
    launch fixed by --dim/--block-dim, the z3 budget (million units per
    check), the kernel's total (`kernel_budget`, million units for the whole
    kernel: proofs.deciding.budget.kernel_total; None: its default; in the
    key as the `allowance`), replay, the array bound in bytes, suggested contracts, the
    engines (`z3`, `cbmc` or `z3,cbmc`) and CBMC's unwinding depth (None: read
    off the kernel). Every field so far is part of the proof-cache key.

    `dump_smt` (a folder every solver query is written to) and `cross_check`
    (a second solver that re-decides every answer) are the solver sessions'
    settings (`solver_settings`, proofs.deciding.session): they travel with
    the options to every worker. The cross-check solver enters the key (as a
    tool, `tool_fields`); a run with `dump_smt` never answers from the cache
    (`answers_from_cache`), so it is no key field."""

    dims: tuple[int, ...] | None = None
    block_dim: int | None = None
    budget: float | None = None
    replay: bool = True
    max_array_bytes: int | None = None
    suggest: bool = False
    engine: str = "z3"
    unwind: int | None = None
    dump_smt: str | None = None
    cross_check: str | None = None
    kernel_budget: float | None = None

    @classmethod
    def of(cls, **given) -> "ProofOptions":
        """Checked and normalised options (ProveInputError for a bad one)."""
        opts = cls(**{k: v for k, v in given.items() if v is not None or k in ("dims", "block_dim")})
        try:
            engine = ",".join(parse_engines(opts.engine))
        except ValueError as err:
            raise ProveInputError(str(err)) from err
        if opts.kernel_budget is not None and not opts.kernel_budget > 0:
            raise ProveInputError(f"bad kernel budget {opts.kernel_budget}: it must be a positive number "
                                  "(million z3 resource units for the whole kernel)")
        if opts.unwind is not None and int(opts.unwind) < 1:
            raise ProveInputError(f"bad unwinding depth {opts.unwind}: it must be at least 1")
        return dataclasses.replace(opts, dims=normalize_dims(opts.dims), engine=engine,
                                   max_array_bytes=normalize_max_array_bytes(opts.max_array_bytes))

    @property
    def solver_settings(self) -> SolverSettings:
        return SolverSettings(dump_smt=self.dump_smt, cross_check=self.cross_check)

    def prove_kwargs(self) -> dict:
        return {"dims": self.dims, "block_dim": self.block_dim, "budget": self.budget,
                "replay": self.replay, "max_array_bytes": self.max_array_bytes,
                "suggest": self.suggest, "engine": self.engine, "unwind": self.unwind}


def prove_file(path, *, kernel=None, cache=None, options: ProofOptions | None = None,
               **option_values) -> list[KernelReport]:
    """Compile `path` with the frontend (never executing it) and prove every
    kernel in it (or those named by `kernel`), in source order. `cache`: a
    verikern.app.cache.ProofCache consulted per kernel (None: no cache);
    `options` (or its fields as keywords: dims, block_dim, budget, replay,
    max_array_bytes -- the bound on every array's size in bytes, default
    2**40 --, suggest, engine, unwind): see ProofOptions."""

    opts = options or ProofOptions.of(**option_values)
    try:
        data = Path(path).read_bytes()      # hashed and quoted in the report's scope only
    except OSError:
        data = None
    defs = definition_names(_kernel_names(kernel))
    return _compile_and_prove(lambda: compile_file(path, kernels=defs, **compile_budget(opts.budget)), str(path),
                              kernel, opts, data, cache)


def prove_source(source: str, filename: str, *, kernel=None, options: ProofOptions | None = None,
                 **option_values) -> list[KernelReport]:
    """Like `prove_file`, for source text (e.g. a generated mutant) that
    reports as `filename`."""

    opts = options or ProofOptions.of(**option_values)
    defs = definition_names(_kernel_names(kernel))
    return _compile_and_prove(lambda: compile_source(source, filename, kernels=defs, **compile_budget(opts.budget)),
                              filename, kernel, opts, source.encode())


def _compile_and_prove(compile_module, file: str, kernel, opts: ProofOptions,
                       data: bytes | None = None, cache=None) -> list[KernelReport]:
    wanted = _kernel_names(kernel)
    start = time.perf_counter()
    try:
        module = compile_module()
    except OSError as err:
        return [_error_report(file, MODULE_KERNEL, f"{file}: error: cannot read the file: {err.strerror or err}")]
    except VerikernError as err:
        return [_error_report(file, MODULE_KERNEL, str(err), getattr(getattr(err, "loc", None), "line", 0))]
    except SyntaxError as err:
        return [_error_report(file, MODULE_KERNEL, f"{file}:{err.lineno or 0}:{err.offset or 0}: error: "
                                                   f"syntax error: {err.msg}", err.lineno or 0)]
    except Exception as err:  # a compiler bug must not stop the other files
        return [_error_report(file, MODULE_KERNEL, f"{file}: error: internal compiler error: "
                                                   f"{type(err).__name__}: {err}")]
    reports: list[KernelReport] = []
    for module_err in getattr(module, "errors", ()) or ():
        line = getattr(getattr(module_err, "loc", None), "line", 0)
        reports.append(_error_report(file, MODULE_KERNEL, _render(module_err), line,
                                     time.perf_counter() - start))

    def base(kr) -> str:
        """The kernel a report belongs to: `sort` for `sort[int8]` and `sort[...]`;
        a configuration's `sort{scalar_t=float64}` for its instances."""
        return kr.name.split("[")[0]

    def owner(kr) -> str:
        """The kernel definition whose one total `kr` spends: `sort` for every instance
        of every configuration of it (`sort{scalar_t=float64}[int8]`): a file's
        configurations are the same kernel, and a total per configuration let one
        kernel spend the total once per configuration (and its typing-premise search,
        which asks for the definition's total, none)."""
        return definition_of(base(kr))

    # `--kernel sort` selects every instance `sort[int8]`, ... of a generic kernel
    chosen = [kr for kr in module.kernels if wanted is None or kr.name in wanted or base(kr) in wanted
              or definition_of(kr.name) in wanted]      # `k` selects `k{scalar_t=float64}` too
    # every kernel -- each instance of a generic kernel a kernel of its own -- gets a whole
    # kernel's work: an instance's verdict does not depend on how many instances its kernel
    # has, nor on which of them came from the cache (a kernel's 11 scalar instances once
    # split one kernel's work, and the 64-bit ones ran out of it)
    whole = kernel_work_limit(per_check_units(opts.budget))
    # ... and above that, the kernel -- every instance, its type-oblivious proof, every
    # search and re-proof -- one hard total (budget.kernel_total), instances in source order
    total_units = kernel_total_units(opts.kernel_budget, per_check_units(opts.budget))
    totals: dict = {}
    # the parts each kernel's total is shared by (budget.kernel_part): its type-oblivious
    # proof takes a third (a half with one instance, all with none: it may cover them all),
    # then every instance proved on its own gets an equal share of what is left
    # (of every configuration of the kernel: they share its total)
    parts: dict[str, int] = {}
    for name, n in _parts(chosen, {}, base).items():
        parts[definition_of(name)] = parts.get(definition_of(name), 0) + min(n, 2) + 1
    # with --suggest, a kernel of more than one part (instances, its type-oblivious proof)
    # holds a part of its total back for its suggestions' searches and re-proofs
    # (budget.reserved_total): a failed instance's are not starved by the proofs before
    several = {name for name, n in _owned(_parts(chosen, {}, base)).items()
               if n + sum(owner(kr) == name and kr.unknown for kr in chosen) > 1}

    def part_of(kr):
        """The next part of `kr`'s kernel: a share of its total."""
        name = owner(kr)
        parts[name] = max(1, parts.get(name, 1))
        left, parts[name] = parts[name], parts[name] - 1
        if name not in totals:
            totals[name] = (reserved_total if opts.suggest and name in several else new_total)(total_units)
            meter = getattr(module, "work", {}).get(definition_of(name))
            if meter is not None:       # compiling it: charged to the total, the proof has the rest
                totals[name].charge_compiling(meter.spent)
        return kernel_part(totals[name], left)

    # a generic kernel's type-oblivious proof first, with a whole kernel's work of its
    # own: when it proves, it covers the instances, which then spend nothing
    oblivious = {}
    oblivious_cut: dict[str, str] = {}    # why a type-oblivious proof stopped short: its share was spent
    decided_as_written: dict[str, int] = {}
    for kr in chosen:
        if kr.unknown and kr.error is not None:
            with part_of(kr), kernel_work(whole):
                oblivious[base(kr)] = prove_oblivious(kr, file, opts, data)
                if total_exhausted():
                    oblivious_cut[base(kr)] = total_exhausted_text()
    parts = _owned(_parts(chosen, oblivious, base))
    siblings = SiblingContracts()      # a contract one instance was proved under, tried on the others
    for kr in chosen:
        line = kr.loc.line if getattr(kr, "loc", None) is not None else 0
        if getattr(kr, "budget_spent", False):    # its compile budget ran out: nothing proved about it
            reports.append(_unknown_report(file, kr.name, _render(kr.error), line))
            continue
        outcome = oblivious.get(base(kr))
        if kr.unknown and kr.error is not None:   # a generic kernel's instantiations not enumerated
            if outcome is not None and outcome.report is not None:
                reports.append(outcome.report)
            else:
                why = f"\n  {outcome.why}" if outcome is not None else ""
                report = _unknown_report(file, kr.name, _render(kr.error) + why, line)
                if outcome is not None and outcome.suggested is not None:   # every instantiation, under it
                    requires, decorators = outcome.suggested
                    report = dataclasses.replace(report, error=(report.error or "") + (
                        "\n  proved for every instantiation by a type-oblivious proof under the suggested "
                        "contract:\n" + "".join(f"    {d}\n" for d in decorators)).rstrip("\n"),
                        suggested_requires=requires, suggested_decorators=decorators,
                        proved_under_suggestion=True)
                elif base(kr) in oblivious_cut:   # stopped short, not disproved: say which budget
                    cut = oblivious_cut[base(kr)]
                    report = dataclasses.replace(report, error=(report.error or "") + (
                        f"\n  the type-oblivious proof and its suggestion search stopped short: {cut}"),
                        suggestion_unknown=cut if opts.suggest else None)
                reports.append(report)
            continue
        if outcome is not None and outcome.report is not None and kr.name in outcome.covers \
                and kr.error is None and kr.mir is not None:
            reports.append(covered_report(kr, file, outcome))
            continue
        if kr.error is not None or kr.mir is None:
            message = (_render(kr.error) if kr.error is not None
                       else f"{file}:{line}: error: kernel {kr.name} did not compile")
            reports.append(_error_report(file, kr.name, message, line))
            continue
        # an instance the type-oblivious proof proved under a suggested contract takes that
        # contract, and spends nothing on a search of its own
        given = outcome is not None and outcome.suggested is not None and kr.name in outcome.suggested_covers
        if given:
            assert outcome is not None
            decided_as_written[base(kr)] = decided_as_written.get(base(kr), 0) + 1
            if decided_as_written[base(kr)] > MAX_COVERED_DECIDED:
                reports.append(under_oblivious_suggestion(_unknown_report(file, kr.name, (
                    f"{file}:{line}: error: {kr.name} is not decided as written: the type-oblivious "
                    f"proof covers it under the suggested contract, and only the first "
                    f"{MAX_COVERED_DECIDED} instances it covers are proved one by one"), line), outcome))
                continue
        with part_of(kr), kernel_work(whole):
            report = _prove_scoped(kr.mir, file, dataclasses.replace(opts, suggest=False) if given else opts,
                                   data, cache, getattr(module, "imports", ()),
                                   reuse=None if given else siblings.of(base(kr)), shared=siblings.pasted)
        if not given:
            siblings.note(base(kr), report)
        if given:
            assert outcome is not None
            report = under_oblivious_suggestion(dataclasses.replace(report, kernel=kr.name), outcome)
        # a generic kernel's instance reports as `sort[int8]` (its MIR name is an identifier)
        reports.append(report if report.kernel == kr.name else dataclasses.replace(report, kernel=kr.name))
    if opts.suggest:    # a generic kernel proved only for some instantiations: a typing premise
        with solver_settings(opts.solver_settings):
            reports = suggest_premises(module, reports, file, opts, data,
                                       totals=lambda name: totals.get(name))
    return reports


def _parts(chosen, oblivious: dict, base) -> dict[str, int]:
    """How many instances of each kernel (`base(kr)`) are proved on their own: those that
    compiled, less those a type-oblivious proof of `oblivious` covers, and of those it
    covers under its suggested contract, the first MAX_COVERED_DECIDED only."""
    parts: dict[str, int] = {}
    given: dict[str, int] = {}
    for kr in chosen:
        if kr.unknown or kr.error is not None or kr.mir is None:
            continue
        outcome = oblivious.get(base(kr))
        if outcome is not None and outcome.report is not None and kr.name in outcome.covers:
            continue
        if outcome is not None and outcome.suggested is not None and kr.name in outcome.suggested_covers:
            given[base(kr)] = given.get(base(kr), 0) + 1
            if given[base(kr)] > MAX_COVERED_DECIDED:
                continue
        parts[base(kr)] = parts.get(base(kr), 0) + 1
    return parts


def _owned(parts: dict[str, int]) -> dict[str, int]:
    """`parts` (counts by kernel or configuration, `sort{scalar_t=float64}`) summed by
    the kernel definition (`sort`) whose total they share."""
    owned: dict[str, int] = {}
    for name, n in parts.items():
        owned[definition_of(name)] = owned.get(definition_of(name), 0) + n
    return owned


def _prove_scoped(kernel_mir, file: str, opts: ProofOptions, data: bytes | None,
                  cache, imports: tuple = (), reuse=None, shared: dict | None = None) -> KernelReport:
    """prove_mir with the report's scope (proofs.reporting.scope) attached, through `cache` when given
    (`imports`: (path, sha256) of the project modules the file imports from, part of the key);
    every solver session of the proof and of its suggestion takes `opts.solver_settings`.
    `reuse`: (requires, decorators) of a contract a sibling instance was proved under
    (app.sibling_contracts), tried first when the kernel fails: re-proved on this
    kernel's pasted source, and only when that proves is it this kernel's suggestion,
    without a search of its own. `shared`: the pasted files compiled for this kernel's
    instances (app.suggestion.pasted_kernel)."""

    with solver_settings(opts.solver_settings):
        return _prove_scoped_with_settings(kernel_mir, file, opts, data, cache, imports, reuse, shared)


def _prove_scoped_with_settings(kernel_mir, file: str, opts: ProofOptions, data: bytes | None,
                                cache, imports: tuple, reuse=None, shared: dict | None = None) -> KernelReport:
    start = time.perf_counter()
    source = data.decode("utf-8", "replace") if data is not None else None
    scope = scope_of(kernel_mir, source=source, source_sha256=sha256_bytes(data) if data is not None else None,
                     dims=opts.dims, block_dim=opts.block_dim, budget=opts.budget,
                     max_array_bytes=opts.max_array_bytes, kernel_budget=opts.kernel_budget)
    key = None
    total = current_total()           # the kernel's (budget.kernel_total), None when called alone
    before = total.spent() if total is not None else 0
    if cache is not None:
        key = cache.key(file=file, kernel=kernel_mir.name, mir_sha256=scope.mir_sha256, dims=opts.dims,
                        block_dim=opts.block_dim, budget=opts.budget, replay=opts.replay,
                        max_array_bytes=opts.max_array_bytes, suggest=opts.suggest,
                        engine=opts.engine, unwind=opts.unwind,
                        tools=tool_fields(opts.engine, opts.cross_check), imports=imports,
                        allowance=None if total is None else total.allowance(),
                        reuse=tuple(reuse[1]) if reuse is not None and opts.suggest else ())
        hit = cache.get(key) if answers_from_cache(opts.dump_smt) else None
        if hit is not None and hit.file == file and hit.kernel == kernel_mir.name:
            if total is not None:     # what it spent when proved: the later instances get the same
                total.charge(hit.units)
            return dataclasses.replace(with_cached(hit, time.perf_counter() - start), scope=scope)
    when, by = computed_stamp()
    checks: dict = {"dims": opts.dims, "block_dim": opts.block_dim, "budget": opts.budget,
                    "max_array_bytes": opts.max_array_bytes, "engine": opts.engine, "unwind": opts.unwind,
                    "shared": shared}
    first = None
    if reuse is not None and opts.suggest and source is not None:
        first = SiblingContracts.trial(reuse, source, checks)
    report = prove_mir(kernel_mir, file=file, **opts.prove_kwargs(), before_search=first)
    if first is None or not first.proved:      # a sibling's contract, when it proved, is checked already
        report = prove_suggestion(report, source, **checks)
    report = dataclasses.replace(report, scope=scope, computed_at=when, computed_by=by,
                                 units=total.spent() - before if total is not None else 0)
    if key is not None:
        cache.put(key, report)
    return report


def _render(err) -> str:
    render = getattr(err, "render", None)
    return render() if callable(render) else str(err)


def _prove_file_task(args) -> list[KernelReport]:
    path, kernel, opts, cache = args
    return prove_file(path, kernel=kernel, options=opts, cache=cache)


# ------------------------------------------------------------------ many files
def _prove_in_pool(tasks: list[tuple], jobs: int, progress: Progress | None) -> dict[int, list[KernelReport]]:
    """{task index: reports} from a pool of `jobs` processes. An interrupt
    (KeyboardInterrupt, or any other exception) cancels the queued files and
    ends the workers at once, without waiting for the proofs in flight, then
    propagates; the files finished before it were already passed to
    `progress`."""
    results: dict[int, list[KernelReport]] = {}
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(tasks)))
    try:
        futures = {pool.submit(_prove_file_task, task): i for i, task in enumerate(tasks)}
        for done, fut in enumerate(as_completed(futures), 1):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as err:  # a worker died (e.g. a solver crash): report, go on
                results[i] = [_error_report(tasks[i][0], MODULE_KERNEL,
                                            f"{tasks[i][0]}: error: internal error: the proof worker "
                                            f"failed: {type(err).__name__}: {err}")]
            if progress is not None:
                progress(done, len(tasks), tasks[i][0], results[i])
    except BaseException:
        processes = dict(getattr(pool, "_processes", None) or {})   # the pool keeps no public handle
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes.values():      # the proofs in flight: not waited for
            process.terminate()
        for process in processes.values():
            process.join(timeout=5)
        raise
    pool.shutdown(wait=True)
    return results


def prove_paths(paths, *, kernel=None, jobs=1, progress: Progress | None = None, cache=None,
                executor: str = "local", scheduler: str | None = None,
                options: ProofOptions | None = None, **option_values) -> list[KernelReport]:
    """Prove every kernel in `paths` (files, or folders searched recursively);
    reports in file order, then source order. `jobs > 1` proves files in a
    process pool; `executor="dask"` sends them to the dask.distributed
    scheduler at `scheduler` instead (verikern.app.distributed), with the same
    reports. `cache` (a verikern.app.cache.ProofCache) is consulted per kernel
    wherever the proof runs; `options` or its fields as keywords: see
    ProofOptions. Raises ProveInputError for a missing path, a bad option or
    when no file holds a kernel (or none named `kernel`)."""
    files = collect_files(paths)
    opts = options or ProofOptions.of(**option_values)
    if opts.block_dim is not None and not 1 <= int(opts.block_dim) <= 1024:
        raise ProveInputError(f"bad block dim {opts.block_dim}: it must be between 1 and 1024")
    if opts.budget is not None and not opts.budget > 0:
        raise ProveInputError(f"bad solver budget {opts.budget}: it must be a positive number "
                              "(million z3 resource units per check)")
    if int(jobs) < 1:
        raise ProveInputError(f"bad job count {jobs}: it must be at least 1")
    if not files:
        raise ProveInputError("no .py files found in " + ", ".join(str(p) for p in paths))
    tasks = [(str(f), kernel, opts, cache) for f in files]
    results: dict[int, list[KernelReport]] = {}
    if executor == "dask":
        from verikern.app.distributed import prove_files_on_dask  # lazy: import cycle with app.distributed

        try:
            results = prove_files_on_dask(tasks, scheduler, progress)
        except (ImportError, OSError, ValueError) as err:
            raise ProveInputError(f"dask executor: {err}") from err
    elif executor != "local":
        raise ProveInputError(f"unknown executor {executor!r}: choose local or dask")
    elif jobs == 1 or len(tasks) == 1:
        for i, task in enumerate(tasks):
            results[i] = _prove_file_task(task)
            if progress is not None:
                progress(i + 1, len(tasks), task[0], results[i])
    else:
        results = _prove_in_pool(tasks, int(jobs), progress)
    reports = [r for i in range(len(tasks)) for r in results[i]]
    if not any(r.kernel != MODULE_KERNEL for r in reports) and not any(r.status is KernelStatus.ERROR for r in reports):
        what = f"no kernel named {kernel}" if kernel else "no kernels"
        raise NoKernelsFound(f"{what} found in " + ", ".join(str(p) for p in paths))
    return reports
