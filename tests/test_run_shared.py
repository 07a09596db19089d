"""tests/run_shared.py: results computed once per run and shared by its
processes, through a folder of atomically written, lock-guarded entries."""
from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import run_shared


@pytest.fixture
def shared_folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setattr(run_shared, "_FOLDER", [tmp_path])
    return tmp_path


def _logged_square(log: str, n: int) -> int:
    """n * n, appending `n` to the file `log` (which process computed what)."""
    with open(log, "a") as fh:
        fh.write(f"{os.getpid()} {n}\n")
    time.sleep(0.05)
    return n * n


def _worker(folder: str, log: str, out: str) -> None:
    run_shared._FOLDER[:] = [Path(folder)]
    values = run_shared.shared_each(
        "squares", [((n,), lambda n=n: _logged_square(log, n)) for n in range(8)])
    Path(out).write_text(" ".join(map(str, values)))


def test_two_processes_compute_each_key_once_and_both_read_every_value(tmp_path):
    folder, log = tmp_path / "shared", tmp_path / "log"
    folder.mkdir()
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_worker, args=(str(folder), str(log), str(tmp_path / f"out{i}")))
             for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    computed = [int(line.split()[1]) for line in log.read_text().splitlines()]
    assert sorted(computed) == list(range(8))          # each key once, by either process
    for i in range(2):
        assert (tmp_path / f"out{i}").read_text() == " ".join(str(n * n) for n in range(8))


def test_a_result_is_computed_once_and_then_read(shared_folder):
    calls = []
    compute = lambda: calls.append(1) or ("value", 42)       # noqa: E731
    assert run_shared.shared("k", ("a", b"bytes"), compute) == ("value", 42)
    assert run_shared.shared("k", ("a", b"bytes"), compute) == ("value", 42)
    assert len(calls) == 1
    # another kind, another part: another key
    run_shared.shared("k2", ("a", b"bytes"), compute)
    run_shared.shared("k", ("a", b"other"), compute)
    assert len(calls) == 3


def test_a_truncated_or_foreign_entry_is_recomputed_never_trusted(shared_folder):
    key = run_shared.key_of("k", (1,))
    entry = shared_folder / f"{key}.pickle"
    for junk in (b"", b"\x80\x05\x95garbage", b"not a pickle at all"):
        entry.write_bytes(junk)
        assert run_shared.shared("k", (1,), lambda: "fresh") == "fresh"
        assert run_shared.shared("k", (1,), lambda: "never called") == "fresh"


def test_outside_a_configured_run_every_call_computes(monkeypatch):
    monkeypatch.setattr(run_shared, "_FOLDER", [])
    calls = []
    for _ in range(2):
        run_shared.shared("k", (1,), lambda: calls.append(1))
    assert run_shared.shared_each("k", [((1,), lambda: 5)]) == [5]
    assert len(calls) == 2


def test_a_worker_takes_the_folder_the_controller_hands_it(tmp_path, monkeypatch):
    monkeypatch.setattr(run_shared, "_FOLDER", [])
    given = tmp_path / "from-controller"
    run_shared.configure(SimpleNamespace(workerinput={run_shared.WORKER_KEY: str(given)}))
    assert run_shared.folder() == given and given.is_dir()
    factory = SimpleNamespace(getbasetemp=lambda: tmp_path / "base")
    run_shared.configure(SimpleNamespace(_tmp_path_factory=factory))
    assert run_shared.folder() == tmp_path / "base" / "run-shared"


def test_this_run_has_a_shared_folder():
    """tests/conftest.py configured this process (a worker gets the controller's)."""
    assert run_shared.folder() is not None and run_shared.folder().is_dir()
