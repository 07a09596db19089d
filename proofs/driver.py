"""`verikern prove` without the command line: compile files, prove kernels,
replay counterexamples, and return one `KernelReport` per kernel.

Invariants:
- user files are only ever read by `verikern.frontend.compile_file` (and
  read as bytes for the report's sha256 and contract text); nothing here
  imports or executes them;
- a kernel's status is the worst of its obligations (failed > unknown >
  proved) after replay; a kernel that does not compile, or whose proof
  crashes, is ERROR with the reason -- never PROVED;
- a failed obligation always carries `confirmed` (True/False); one whose
  model came from an abstraction and that replay does not confirm is
  downgraded to UNKNOWN ("possible violation, not confirmed by replay: ...");
- before that, and for UNKNOWN obligations, an exact counterexample from
  peeled loop iterations (proofs.peeling) takes the obligation's place, with
  the same kind and location, when replay confirms it, or when replay stops
  at a different runtime error first (then it stays unconfirmed, saying why).
"""
from __future__ import annotations

import dataclasses
import logging
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable, Iterable, Sequence

from verikern.encoders.smt.launch import launch_option_error
from verikern.errors import VerikernError
from verikern.proofs.budget import MEGA, SolverBudget, fresh_context, rlimit_count
from verikern.proofs.obligations import KernelReport, KernelStatus, Obligation, Status

LOG = logging.getLogger("verikern.proofs.driver")
MODULE_KERNEL = "<module>"   # the kernel name of a report about a whole file


class ProveInputError(VerikernError):
    """Bad input to the driver (a missing path, no kernels, a bad option)."""


Progress = Callable[[int, int, str], None]   # (files done, files total, file just done)


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


def _kernel_names(kernel) -> frozenset[str] | None:
    if kernel is None:
        return None
    if isinstance(kernel, str):
        return frozenset(k.strip() for k in kernel.split(",") if k.strip())
    return frozenset(kernel)


# ------------------------------------------------------------------ one kernel
def _is_abstracted(ob: Obligation) -> bool:
    return ob.counterexample is not None and ob.counterexample.abstracted


#: z3 resource units `settle` may spend on one kernel searching peeled loop
#: iterations for exact counterexamples (proofs.peeling), all obligations
#: together (checked before each search and query: deterministic).
EXACT_SEARCH_BUDGET = 10 * MEGA


def settle(kernel_mir, obligations: Sequence[Obligation], replayer=None, *, dims=None,
           block_dim=None, exact_search=None,
           search_budget: int = EXACT_SEARCH_BUDGET) -> tuple[Obligation, ...]:
    """Replay every failed obligation and record the outcome: `confirmed`
    set, the replay's explanation in `reason` (and the counterexample the
    replay confirmed, when it had to pick array contents), and
    abstraction-born unconfirmed failures downgraded to UNKNOWN.
    `replayer(kernel, ob)` returns a `ReplayOutcome` (or, for simple
    replayers, (ok, why) or (ok, why, witness)). Decisions read only the
    outcome's verdict and the counterexample's typed fields.
    A failure replay does not confirm, and an UNKNOWN obligation, is first
    searched for an exact counterexample in peeled loop iterations
    (`exact_search(kernel, ob, dims=, block_dim=, budget=)`, default
    proofs.peeling.exact_counterexample, within `search_budget` z3 units); one that
    replay confirms replaces it (same kind and location)."""
    if replayer is None:
        from verikern.proofs.replay import replay_outcome as replayer
    search = _ExactSearch(kernel_mir, replayer, dims, block_dim, exact_search, search_budget)
    settled = []
    for ob in obligations:
        if ob.status is Status.UNKNOWN:
            settled.append(search.confirmed(ob) or ob)
            continue
        if ob.status is not Status.FAILED:
            settled.append(ob)
            continue
        out = _replay(replayer, kernel_mir, ob)
        if out.confirmed:
            settled.append(dataclasses.replace(ob, confirmed=True,
                                               counterexample=out.witness or ob.counterexample,
                                               reason=_join(ob.reason,
                                                            f"confirmed by replay: {out.why}")))
            continue
        exact = search.confirmed(ob)
        if exact is not None:
            settled.append(exact)
        elif _is_abstracted(ob):
            settled.append(dataclasses.replace(
                ob, status=Status.UNKNOWN, confirmed=False,
                reason=f"possible violation, not confirmed by replay: {out.why}"
                + (f" (prover: {ob.reason})" if ob.reason else "")))
        else:
            settled.append(dataclasses.replace(ob, confirmed=False,
                                               reason=_join(ob.reason, f"not confirmed by replay: {out.why}")))
    return tuple(settled)


def _replay(replayer, kernel_mir, ob: Obligation):
    """The replayer's ReplayOutcome; a replay crash is an unconfirmed one."""
    from verikern.proofs.replay import ReplayOutcome, ReplayVerdict

    if ob.counterexample is None:
        return ReplayOutcome(ReplayVerdict.NO_COUNTEREXAMPLE, "the prover gave no counterexample")
    try:
        answer = replayer(kernel_mir, ob)
    except Exception as err:  # a replay crash must not hide the failure
        return ReplayOutcome(ReplayVerdict.NO_VIOLATION,
                             f"replay crashed: {type(err).__name__}: {err}")
    if isinstance(answer, ReplayOutcome):
        return answer
    return ReplayOutcome(ReplayVerdict.CONFIRMED if answer[0] else ReplayVerdict.NO_VIOLATION,
                         answer[1], answer[2] if len(answer) > 2 else None)


class _ExactSearch:
    """Exact counterexamples from peeled loop iterations for one kernel,
    within one shared work budget for the searches (z3 resource units;
    replays are bounded by the replayer). Only ever yields failures that replay
    confirmed on the kernel itself, or whose replay stopped at another runtime
    error first (then `confirmed=False`, the reason says so; the model is exact)."""

    def __init__(self, kernel_mir, replayer, dims, block_dim, exact_search, budget: int):
        self.kernel = kernel_mir
        self.replayer = replayer
        self.dims, self.block_dim = dims, block_dim
        self.search = exact_search
        self.spent = 0
        self.budget = budget

    def confirmed(self, ob: Obligation) -> Obligation | None:
        """A confirmed FAILED obligation for `ob`'s site found in a peeled
        iteration, or None (no kernel, no budget left, nothing found or not
        confirmed)."""
        from verikern.proofs.replay import ReplayVerdict

        left = self.budget - self.spent
        if self.kernel is None or left <= MEGA // 2 or not getattr(self.kernel, "loops", ()):
            return None
        if self.search is None:
            from verikern.proofs.peeling import exact_counterexample as search
            self.search = search
        start = rlimit_count()
        try:
            found = self.search(self.kernel, ob, dims=self.dims, block_dim=self.block_dim,
                                budget=left)
        except Exception:  # the search is an extra: it must never cost a verdict
            return None
        finally:
            self.spent += rlimit_count() - start
        if found is None or found.status is not Status.FAILED:
            return None
        out = _replay(self.replayer, self.kernel, found)
        if not out.confirmed:
            if out.verdict is not ReplayVerdict.OTHER_ERROR_FIRST:
                return None
            # exact, but the launch ends at another (reported) error before
            # this violation happens: a failure that says why it is unconfirmed
            return dataclasses.replace(found, confirmed=False, seconds=ob.seconds,
                                       reason=_join(found.reason, f"not confirmed by replay: {out.why}"))
        return dataclasses.replace(found, confirmed=True, seconds=ob.seconds,
                                   counterexample=out.witness or found.counterexample,
                                   reason=_join(found.reason, f"confirmed by replay: {out.why}"))


def _join(first: str | None, second: str) -> str:
    return f"{first}; {second}" if first else second


def prove_mir(kernel_mir, *, file: str, dims=None, block_dim=None, budget: float | None = None,
              prover=None, replayer=None, replay: bool = True) -> KernelReport:
    """Prove one compiled kernel and replay its failures (`replay=False`
    skips replay: failures keep `confirmed=None` and are never downgraded).
    `budget`: million z3 resource units per check (None: the default of
    proofs.budget); the proof runs in a z3 context of its own, so its
    answer does not depend on what was proved before in this process."""
    if prover is None:
        from verikern.proofs.prover import prove_kernel as prover
    start = time.perf_counter()
    line = kernel_mir.loc.line
    bad_launch = launch_option_error(kernel_mir, dims, block_dim)
    if bad_launch is not None:          # one input error, not one warning per obligation
        return KernelReport(file, kernel_mir.name, KernelStatus.ERROR, time.perf_counter() - start,
                            error=f"{file}:{line}: error: {bad_launch}", line=line)
    try:
        fresh_context()
        solver_budget = SolverBudget.from_megaunits(
            budget, label=f"{Path(file).stem}.{kernel_mir.name}.")
        obligations = prover(kernel_mir, dims=dims, block_dim=block_dim, budget=solver_budget)
        if replay:
            obligations = settle(kernel_mir, obligations, replayer, dims=dims,
                                 block_dim=block_dim,
                                 search_budget=min(EXACT_SEARCH_BUDGET, solver_budget.per_check))
    except VerikernError as err:
        return KernelReport(file, kernel_mir.name, KernelStatus.ERROR, time.perf_counter() - start,
                            error=str(err), line=line)
    except Exception as err:  # an internal prover bug is reported, never a verdict
        return KernelReport(file, kernel_mir.name, KernelStatus.ERROR, time.perf_counter() - start,
                            error=f"{file}:{line}: error: internal error while proving "
                                  f"{kernel_mir.name}: {type(err).__name__}: {err}", line=line)
    status = KernelReport.summarize(obligations)
    LOG.info("%s::%s: %s (%d obligations, %d solver queries, %.2f million z3 units)",
             file, kernel_mir.name, status.value, len(obligations), solver_budget.queries,
             rlimit_count() / MEGA)
    return KernelReport(file, kernel_mir.name, status, time.perf_counter() - start,
                        obligations=tuple(obligations), line=line)


# ------------------------------------------------------------------ one file
def _error_report(file: str, kernel: str, message: str, line: int = 0, seconds: float = 0.0) -> KernelReport:
    return KernelReport(file, kernel, KernelStatus.ERROR, seconds, error=message, line=line)


def prove_file(path, *, kernel=None, dims=None, block_dim=None, budget: float | None = None,
               replay: bool = True, cache=None) -> list[KernelReport]:
    """Compile `path` with the frontend (never executing it) and prove every
    kernel in it (or those named by `kernel`), in source order. `cache`: a
    proofs.cache.ProofCache consulted per kernel (None: no cache)."""
    from verikern.frontend import compile_file

    try:
        data = Path(path).read_bytes()      # hashed and quoted in the report's scope only
    except OSError:
        data = None
    return _compile_and_prove(lambda: compile_file(path), str(path), kernel, dims, block_dim, budget,
                              replay, data, cache)


def prove_source(source: str, filename: str, *, kernel=None, dims=None, block_dim=None,
                 budget: float | None = None, replay: bool = True) -> list[KernelReport]:
    """Like `prove_file`, for source text (e.g. a generated mutant) that
    reports as `filename`."""
    from verikern.frontend import compile_source

    return _compile_and_prove(lambda: compile_source(source, filename), filename, kernel, dims,
                              block_dim, budget, replay, source.encode())


def _compile_and_prove(compile_module, file: str, kernel, dims, block_dim, budget,
                       replay: bool, data: bytes | None = None, cache=None) -> list[KernelReport]:
    dims = normalize_dims(dims)
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
    for err in getattr(module, "errors", ()) or ():
        reports.append(_error_report(file, MODULE_KERNEL, _render(err), getattr(getattr(err, "loc", None), "line", 0),
                                     time.perf_counter() - start))
    for kr in module.kernels:
        if wanted is not None and kr.name not in wanted:
            continue
        line = kr.loc.line if getattr(kr, "loc", None) is not None else 0
        if kr.error is not None or kr.mir is None:
            message = _render(kr.error) if kr.error is not None else f"{file}:{line}: error: kernel {kr.name} did not compile"
            reports.append(_error_report(file, kr.name, message, line))
            continue
        reports.append(_prove_scoped(kr.mir, file, dims, block_dim, budget, replay, data, cache))
    return reports


def _prove_scoped(kernel_mir, file: str, dims, block_dim, budget, replay: bool, data: bytes | None,
                  cache) -> KernelReport:
    """prove_mir with the report's scope (proofs.scope) attached, through `cache` when given."""
    from verikern.proofs.scope import scope_of, sha256_bytes

    start = time.perf_counter()
    source = data.decode("utf-8", "replace") if data is not None else None
    scope = scope_of(kernel_mir, source=source, source_sha256=sha256_bytes(data) if data is not None else None,
                     dims=dims, block_dim=block_dim, budget=budget)
    key = None
    if cache is not None:
        from verikern.proofs.cache import with_cached

        key = cache.key(file=file, kernel=kernel_mir.name, mir_sha256=scope.mir_sha256, dims=dims,
                        block_dim=block_dim, budget=budget, replay=replay)
        hit = cache.get(key)
        if hit is not None and hit.file == file and hit.kernel == kernel_mir.name:
            return dataclasses.replace(with_cached(hit, time.perf_counter() - start), scope=scope)
    report = dataclasses.replace(prove_mir(kernel_mir, file=file, dims=dims, block_dim=block_dim,
                                           budget=budget, replay=replay), scope=scope)
    if key is not None:
        cache.put(key, report)
    return report


def _render(err) -> str:
    render = getattr(err, "render", None)
    return render() if callable(render) else str(err)


def _prove_file_task(args) -> list[KernelReport]:
    path, kernel, dims, block_dim, budget, cache = args
    return prove_file(path, kernel=kernel, dims=dims, block_dim=block_dim, budget=budget, cache=cache)


# ------------------------------------------------------------------ many files
def prove_paths(paths, *, kernel=None, dims=None, block_dim=None, budget: float | None = None, jobs=1,
                progress: Progress | None = None, cache=None, executor: str = "local",
                scheduler: str | None = None) -> list[KernelReport]:
    """Prove every kernel in `paths` (files, or folders searched recursively);
    reports in file order, then source order. `jobs > 1` proves files in a
    process pool; `executor="dask"` sends them to the dask.distributed
    scheduler at `scheduler` instead (proofs.distributed), with the same
    reports. `cache` (a proofs.cache.ProofCache) is consulted per kernel
    wherever the proof runs. Raises ProveInputError for a missing path, a bad option or
    when no file holds a kernel (or none named `kernel`)."""
    files = collect_files(paths)
    dims = normalize_dims(dims)
    if block_dim is not None and not 1 <= int(block_dim) <= 1024:
        raise ProveInputError(f"bad block dim {block_dim}: it must be between 1 and 1024")
    if budget is not None and not budget > 0:
        raise ProveInputError(f"bad solver budget {budget}: it must be a positive number "
                              "(million z3 resource units per check)")
    if int(jobs) < 1:
        raise ProveInputError(f"bad job count {jobs}: it must be at least 1")
    if not files:
        raise ProveInputError("no .py files found in " + ", ".join(str(p) for p in paths))
    tasks = [(str(f), kernel, dims, block_dim, budget, cache) for f in files]
    results: dict[int, list[KernelReport]] = {}
    if executor == "dask":
        from verikern.proofs.distributed import prove_tasks_on_dask

        try:
            results = prove_tasks_on_dask(_prove_file_task, tasks, scheduler, progress)
        except (ImportError, OSError, ValueError) as err:
            raise ProveInputError(f"dask executor: {err}") from err
    elif executor != "local":
        raise ProveInputError(f"unknown executor {executor!r}: choose local or dask")
    elif jobs == 1 or len(tasks) == 1:
        for i, task in enumerate(tasks):
            results[i] = _prove_file_task(task)
            if progress is not None:
                progress(i + 1, len(tasks), task[0])
    else:
        with ProcessPoolExecutor(max_workers=min(int(jobs), len(tasks))) as pool:
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
                    progress(done, len(tasks), tasks[i][0])
    reports = [r for i in range(len(tasks)) for r in results[i]]
    if not any(r.kernel != MODULE_KERNEL for r in reports) and not any(r.status is KernelStatus.ERROR for r in reports):
        what = f"no kernel named {kernel}" if kernel else "no kernels"
        raise ProveInputError(f"{what} found in " + ", ".join(str(p) for p in paths))
    return reports
