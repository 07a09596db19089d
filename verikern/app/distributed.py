"""Proofs spread over an existing dask.distributed cluster.

`verikern prove --executor dask --scheduler ADDRESS` reads every file on the
client and sends one task per file, carrying the file's CONTENTS (never its
path alone: workers need not share the client's folders or working
directory), to the cluster, and puts the answers back in file order. A
worker compiles the text exactly as `compile_file` would have read it
(UTF-8, universal newlines) under the client's path, so messages, hashes and
cache keys name the client's files. A file the client cannot read or
decode is reported by the client itself, as a local run reports it.
Invariants: the reports are exactly those of a local run (every
proof runs in a fresh z3 context and counts solver work, not seconds:
proofs.deciding.budget; a worker runs one proof at a time, whatever its thread
count, because that context is process-wide), in the same order; a task that raises on a worker becomes an
ERROR report for its file, never a verdict; the client is closed afterwards,
and the cluster itself is left running (verikern never starts or stops it).
The cache folder, when given, must be one path that every worker sees (a
shared file system); workers that cannot write it simply prove again.
"""
from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Callable, Sequence

from verikern.app.prove import MODULE_KERNEL, _compile_and_prove, _error_report, prove_file
from verikern.frontend import compile_source
from verikern.app.compile_budget import compile_budget


#: How long to try reaching the scheduler.
CONNECT_TIMEOUT = "20s"

#: One proof at a time per worker process: z3's default context, which each
#: proof replaces (proofs.deciding.budget.fresh_context), is process-wide, so two
#: proofs in two threads of one worker would disturb each other.
_PROOF_LOCK = threading.Lock()


def _one_at_a_time(task: Callable, args: tuple):
    with _PROOF_LOCK:
        return task(args)


def read_for_workers(path: str) -> tuple[str, bytes] | None:
    """(text, bytes) of `path` as `compile_file` reads it (UTF-8, universal
    newlines: \\r\\n and \\r become \\n) and as the report hashes it (the raw
    bytes); None when the file cannot be read or decoded (the client then
    reports it as a local run does)."""
    try:
        data = Path(path).read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text.replace("\r\n", "\n").replace("\r", "\n"), data


def prove_contents_task(args) -> list:
    """A worker's proof of one file from its contents: (path, text, data,
    kernel, options, cache) -> [KernelReport, ...], the reports `prove_file`
    gives for `path` when it holds `data`. The file itself is never read on
    the worker; the project modules it imports from (frontend/scan/project.py) are,
    when the worker sees `path` (a shared folder), else those names are not
    constants there."""
    path, text, data, kernel, opts, cache = args
    project_file = path if Path(path).is_file() else None
    return _compile_and_prove(lambda: compile_source(text, path, project_file=project_file,
                                                     **compile_budget(opts.budget)),
                              path, kernel, opts, data, cache)


def prove_files_on_dask(tasks: Sequence[tuple], scheduler, progress=None) -> dict:
    """{task index: [KernelReport, ...]} for local-run tasks (path, kernel,
    options, cache): each file is read here and its contents proved on the
    cluster at `scheduler` (prove_tasks_on_dask); a file that cannot be read
    here is reported here, as `prove_file` reports it."""
    results: dict[int, list] = {}
    remote: list[tuple] = []
    where: list[int] = []
    for i, (path, kernel, opts, cache) in enumerate(tasks):
        contents = read_for_workers(path)
        if contents is None:
            results[i] = prove_file(path, kernel=kernel, options=opts, cache=cache)
            continue
        remote.append((path, *contents, kernel, opts, cache))
        where.append(i)
    done_here = len(results)

    def remote_progress(done: int, total: int, file: str, reports: list) -> None:
        if progress is not None:
            progress(done_here + done, len(tasks), file, reports)

    if remote:
        answers = prove_tasks_on_dask(prove_contents_task, remote, scheduler, remote_progress)
        results.update({where[j]: reports for j, reports in answers.items()})
    return results


def prove_tasks_on_dask(task: Callable, tasks: Sequence[tuple], scheduler, progress=None) -> dict:
    """{task index: [KernelReport, ...]} for every task, run on the cluster at
    `scheduler` (an address string, or a dask Cluster object in tests); the
    first item of every task is the file it reports on."""
    try:
        from distributed import Client, as_completed  # lazy: optional dependency
    except ImportError as err:
        raise ImportError("the dask executor needs dask.distributed: pip install 'verikern[dask]'") from err
    if not scheduler:
        raise ValueError("give the scheduler's address with --scheduler (e.g. tcp://10.0.0.5:8786)")

    results: dict[int, list] = {}
    futures: list = []
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as err:
        raise OSError(f"cannot reach the dask scheduler at {scheduler}: {err}") from err
    try:
        run = uuid.uuid4().hex      # keys unique to this run: never another run's results
        futures = [client.submit(_one_at_a_time, task, args, pure=False, key=f"verikern-prove-{run}-{i}")
                   for i, args in enumerate(tasks)]
        index = {fut.key: i for i, fut in enumerate(futures)}
        for done, fut in enumerate(as_completed(futures), 1):
            i = index[fut.key]
            try:
                results[i] = fut.result()
            except Exception as err:  # a worker failed: report it for the file, go on
                results[i] = [_error_report(tasks[i][0], MODULE_KERNEL,
                                            f"{tasks[i][0]}: error: internal error: the dask worker "
                                            f"failed: {type(err).__name__}: {err}")]
            if progress is not None:
                progress(done, len(tasks), tasks[i][0], results[i])
    except BaseException:       # an interrupt: the cluster drops this run's queued and running tasks
        client.cancel(futures)
        raise
    finally:
        client.close()
    return results
