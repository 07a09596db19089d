"""A project's files are read once per process while unchanged
(verikern/frontend/scan/source_reads.py): a kept read is never stale, a file
changed since is read again, and a file changed just before its read is not
kept (it could change again within the same tick of the file clock)."""
from __future__ import annotations

import builtins
import hashlib
import os
import time

import pytest

from verikern.frontend import compile_file
from verikern.frontend.scan import source_reads

MARGIN_NS = 50_000_000      # 50 ms: the tests wait past it instead of the real 2 s


@pytest.fixture
def opens(monkeypatch):
    """The paths source_reads opens, in order (its cache starts empty)."""
    monkeypatch.setattr(source_reads, "_cache", {})
    monkeypatch.setattr(source_reads, "RACY_MARGIN_NS", MARGIN_NS)
    seen: list[str] = []

    def counting_open(path, *args, **kwargs):
        seen.append(str(path))
        return builtins.open(path, *args, **kwargs)

    monkeypatch.setattr(source_reads, "open", counting_open, raising=False)
    return seen


def _aged(path):
    """Wait until the last change of `path` is older than the margin."""
    time.sleep(2 * MARGIN_NS / 1e9)
    return str(path)


def test_an_unchanged_aged_file_is_read_once_with_its_digest(tmp_path, opens):
    f = tmp_path / "a.py"
    f.write_bytes(b"N = 4\n")
    path = _aged(f)
    first, second = source_reads.read_source(path), source_reads.read_source(path)
    assert first.data == second.data == b"N = 4\n"
    assert first.digest == hashlib.sha256(b"N = 4\n").digest()
    assert opens == [path]


def test_a_file_rewritten_with_the_same_size_and_mtime_is_read_again(tmp_path, opens):
    f = tmp_path / "a.py"
    f.write_bytes(b"N = 4\n")
    path = _aged(f)
    mtime = os.stat(path).st_mtime_ns
    assert source_reads.read_source(path).data == b"N = 4\n"
    f.write_bytes(b"N = 7\n")
    os.utime(path, ns=(mtime, mtime))          # size and mtime as before: only ctime tells
    assert source_reads.read_source(path).data == b"N = 7\n"
    assert opens == [path, path]


def test_a_file_replaced_by_another_is_read_again(tmp_path, opens):
    f, g = tmp_path / "a.py", tmp_path / "b.py"
    f.write_bytes(b"N = 4\n")
    g.write_bytes(b"N = 9\n")
    path = _aged(f)
    _aged(g)
    assert source_reads.read_source(path).data == b"N = 4\n"
    mtime = os.stat(path).st_mtime_ns
    os.utime(g, ns=(mtime, mtime))
    os.replace(g, f)                           # same size, same times: another inode
    assert source_reads.read_source(path).data == b"N = 9\n"


def test_a_file_changed_just_before_its_read_is_not_kept(tmp_path, opens):
    f = tmp_path / "a.py"
    f.write_bytes(b"N = 4\n")
    path = str(f)
    source_reads.read_source(path)
    source_reads.read_source(path)
    assert opens == [path, path]               # young: read each time
    assert path not in source_reads._cache


def test_a_removed_file_raises_as_open_does(tmp_path, opens):
    f = tmp_path / "a.py"
    f.write_bytes(b"N = 4\n")
    path = _aged(f)
    source_reads.read_source(path)
    f.unlink()
    with pytest.raises(FileNotFoundError):
        source_reads.read_source(path)


KERNEL = """\
import verikern as vk

M = 4


@vk.kernel
def k(out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i < out.shape[0]:
        out[i] = M
"""


def test_a_sibling_that_starts_rebinding_an_aged_kernel_files_constant_is_seen(tmp_path, opens):
    """The project scan through the kept reads: a sibling script read (and kept)
    while harmless, then rewritten to rebind the constant, makes it a closure."""
    (tmp_path / "kf.py").write_text(KERNEL)
    run = tmp_path / "run.py"
    run.write_text("import kf\nprint(kf.M)   # reads it only\n")
    _aged(run)
    (k,) = compile_file(tmp_path / "kf.py").kernels
    assert k.error is None
    assert str(run) in source_reads._cache       # kept: aged and unchanged during the read
    run.write_text("import kf\nsetattr(kf, 'M', 100)\n")
    (k,) = compile_file(tmp_path / "kf.py").kernels
    assert k.error is not None and "run.py:2:1" in k.error.message, k.error
