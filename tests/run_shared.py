"""Work computed once per test run and shared by its processes (the
pytest-xdist workers): content-keyed results on disk in a folder every
process of the run sees.

tests/conftest.py calls `configure` in every process: the controller (or a
run without workers) makes `<basetemp>/run-shared` and hands its path to
each worker (`pytest_configure_node`); a module imported outside pytest has
no folder, and `shared` then computes every time.

`shared(kind, key_parts, compute)` returns compute()'s result for the key
sha256(kind, key_parts): the caller names in `key_parts` every input that
determines the result (file contents, `code_hash()` of the package,
options), so two calls with equal keys may share one result. `shared_each`
does the same for a list of keys, the processes splitting the work.

Invariants:
- a result is computed by one process at a time: the process holds an
  exclusive lock on its key (fcntl.flock on `<key>.lock`) while it checks for
  an entry, computes and writes it; another process wanting the key waits
  for the lock and then reads the entry (so each key is computed once per
  run, unless a process died before writing: the next one computes it);
- an entry is written to a temporary file in the same folder and renamed
  into place (os.replace), so a reader never sees a partial entry; an entry
  that does not load (truncated, foreign, from another pickle protocol) is
  recomputed and overwritten, never trusted;
- results are immutable values (frozen dataclasses, tuples, strings):
  sharing one between tests cannot leak a change from one test to another;
- the folder lives and dies with the run (pytest's basetemp, of which it
  keeps the last three): nothing is read from an earlier run.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

#: the workerinput key that carries the folder to pytest-xdist workers
WORKER_KEY = "verikern_run_shared"
_FOLDER: list[Path] = []      # this process's folder, once configured


def configure(config) -> None:
    """Set this process's folder: the controller's (from workerinput) in a
    worker, else a new `run-shared` folder in this run's basetemp."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get(WORKER_KEY):
        folder = Path(workerinput[WORKER_KEY])
    else:
        folder = Path(config._tmp_path_factory.getbasetemp()) / "run-shared"
    folder.mkdir(parents=True, exist_ok=True)
    _FOLDER[:] = [folder]


def folder() -> Path | None:
    """This run's shared folder (None outside a configured pytest run)."""
    return _FOLDER[0] if _FOLDER else None


def key_of(kind: str, key_parts: Sequence[Any]) -> str:
    """sha256 over the kind and the repr of each part (strings, bytes,
    numbers, tuples of them: reprs that name their content)."""
    digest = hashlib.sha256(kind.encode())
    for part in key_parts:
        digest.update(b"\0")
        digest.update(part if isinstance(part, bytes) else repr(part).encode())
    return digest.hexdigest()


def _load(path: Path):
    """(True, value) of the entry at `path`, or (False, None) when there is
    none or it does not load."""
    try:
        with path.open("rb") as fh:
            return True, pickle.load(fh)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError,
            TypeError, IndexError):
        return False, None


def _store(path: Path, value) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):     # the write failed anyway
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _locked(lock: Path, wait: bool):
    """Hold the exclusive lock `lock`; yields False (and holds nothing) when
    `wait` is False and another process holds it."""
    with lock.open("a") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _get(root: Path, key: str, compute: Callable[[], Any], wait: bool):
    """(True, value) for `key`, computing it under its lock if needed;
    (False, None) when `wait` is False and another process is computing it."""
    entry = root / f"{key}.pickle"
    found, value = _load(entry)
    if found:
        return True, value
    with _locked(root / f"{key}.lock", wait) as held:
        if not held:
            return False, None
        found, value = _load(entry)      # written while this process waited
        if not found:
            value = compute()
            _store(entry, value)
        return True, value


def shared(kind: str, key_parts: Sequence[Any], compute: Callable[[], Any]):
    """compute()'s result for (kind, key_parts), computed once per run."""
    root = folder()
    if root is None:
        return compute()
    return _get(root, key_of(kind, key_parts), compute, wait=True)[1]


def shared_each(kind: str, jobs: Iterable[tuple[Sequence[Any], Callable[[], Any]]]) -> list:
    """[compute() for (key_parts, compute) in jobs], each computed once per
    run: a key another process is computing is skipped and read at the end,
    so processes that reach the same list at once split it between them."""
    jobs = list(jobs)
    root = folder()
    if root is None:
        return [compute() for _, compute in jobs]
    keys = [key_of(kind, parts) for parts, _ in jobs]
    out: list = [None] * len(jobs)
    later = []
    for i, (key, (_, compute)) in enumerate(zip(keys, jobs)):
        done, value = _get(root, key, compute, wait=False)
        if done:
            out[i] = value
        else:
            later.append(i)
    for i in later:
        out[i] = _get(root, keys[i], jobs[i][1], wait=True)[1]
    return out
