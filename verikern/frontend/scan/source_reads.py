"""Source files read once per process while they stay unchanged.

A compile reads every source file of its project (rebindings from outside,
scan/project.py `_project_data`): compiling each file of a folder of N files
(`verikern prove DIR`, `selftest`) read the folder N times, N*N file reads
(the 244-file corpus: 60,000 reads, a third of its compile time).
`read_source(path)` gives the file's bytes and their sha256 digest, and
reads a file again only when its stat signature has changed.

Invariant (a cached answer is the file's current content): an entry is
kept only when the file's signature (device, inode, size, mtime, ctime) was
the same before and after the read, and its last change (mtime and ctime) is
at least RACY_MARGIN_NS older than the read -- git's rule for "racily clean"
entries. Any later write to the file sets its ctime to the time of that
write, later than the signature's, and a replaced file has another inode:
either changes the signature, and the file is read again. A file changed
less than the margin before it was read is read every time until it ages.
"""
from __future__ import annotations

import hashlib
import os
import threading
import time
from dataclasses import dataclass

#: how much older than the read a file's last change must be for the read to be kept
#: (covers the coarse clock file times are taken from and a small clock skew)
RACY_MARGIN_NS = 2_000_000_000
#: at most this many files are kept (the earliest read are dropped first)
MAX_ENTRIES = 20_000


@dataclass(frozen=True)
class SourceRead:
    """The bytes of one file and their sha256 digest."""
    data: bytes
    digest: bytes


_Signature = tuple[int, int, int, int, int]
_cache: dict[str, tuple[_Signature, SourceRead]] = {}
_lock = threading.Lock()


def _signature(st: os.stat_result) -> _Signature:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_source(path: str) -> SourceRead:
    """The current bytes of the file `path` (OSError as open() raises it)."""
    with _lock:
        hit = _cache.get(path)
    if hit is not None:
        try:
            if _signature(os.stat(path)) == hit[0]:
                return hit[1]
        except OSError:
            pass                      # gone since: read it below, raising as open() does
    with open(path, "rb") as f:
        before = _signature(os.fstat(f.fileno()))
        data = f.read()
        after = _signature(os.fstat(f.fileno()))
    read = SourceRead(data, hashlib.sha256(data).digest())
    aged = time.time_ns() - max(after[3], after[4]) >= RACY_MARGIN_NS
    with _lock:
        if before == after and aged:
            _cache.pop(path, None)    # re-inserted last: the dict's order is the read order
            _cache[path] = (after, read)
            while len(_cache) > MAX_ENTRIES:
                del _cache[next(iter(_cache))]
        else:
            _cache.pop(path, None)
    return read
