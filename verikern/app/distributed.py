"""Proofs spread over an existing dask.distributed cluster.

`verikern prove --executor dask --scheduler ADDRESS` sends one task per file
(the same `_prove_file_task` a local run calls, with the same arguments, the
proof cache included) to the cluster and puts the answers back in file
order. Invariants: the reports are exactly those of a local run (every
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
from typing import Callable, Sequence
from verikern.app.prove import MODULE_KERNEL, _error_report


#: How long to try reaching the scheduler.
CONNECT_TIMEOUT = "20s"

#: One proof at a time per worker process: z3's default context, which each
#: proof replaces (proofs.deciding.budget.fresh_context), is process-wide, so two
#: proofs in two threads of one worker would disturb each other.
_PROOF_LOCK = threading.Lock()


def _one_at_a_time(task: Callable, args: tuple):
    with _PROOF_LOCK:
        return task(args)


def prove_tasks_on_dask(task: Callable, tasks: Sequence[tuple], scheduler, progress=None) -> dict:
    """{task index: [KernelReport, ...]} for every task, run on the cluster at
    `scheduler` (an address string, or a dask Cluster object in tests)."""
    try:
        from distributed import Client, as_completed  # lazy: optional dependency
    except ImportError as err:
        raise ImportError("the dask executor needs dask.distributed: pip install 'verikern[dask]'") from err
    if not scheduler:
        raise ValueError("give the scheduler's address with --scheduler (e.g. tcp://10.0.0.5:8786)")

    results: dict[int, list] = {}
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
                progress(done, len(tasks), tasks[i][0])
    finally:
        client.close()
    return results
