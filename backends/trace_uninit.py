"""Reads of uninitialised shared memory in a simulator trace
(docs/LANGUAGE.md section 5, property 6).

Invariant: an `UninitRead` is reported for a shared-memory read or atomic
(which reads the old value) of element e by thread t of block b in barrier
interval k exactly when no write of e by a thread of block b happens before
it in the trace: none in an interval before k, and none by t itself earlier
in its own program order (earlier in the trace, same interval). A write by
another thread in the same interval is concurrent with the read, so in some
schedule the read comes first: that read is reported too (it is also a
race). Findings are grouped per (array, access site), each with one
concrete example and the number of element instances. Work is O(n log n) in
the number of events.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Union

import numpy as np

from verikern.backends.trace_analysis import READ, ATOMIC, Trace, load_trace
from verikern.errors import source_line_at
from verikern.mir.nodes import SourceLoc


@dataclass(frozen=True)
class UninitRead:
    """A shared read (`op` "read" or "atomic") of an element no thread of
    its block wrote before it (see the module docstring); `count` element
    instances were read so at this site."""

    file: str
    line: int
    col: int
    array: str
    index: tuple[int, ...]
    flat: int
    op: str
    thread: int
    block: int
    interval: int
    site: int
    count: int

    @property
    def loc(self) -> SourceLoc:
        return SourceLoc(self.file, self.line, self.col)

    def short(self) -> str:
        el = f"{self.array}[{', '.join(str(i) for i in self.index)}]"
        return (f"{self.file}:{self.line}:{self.col}: error: read of uninitialised shared memory "
                f"{el} by thread {self.thread} of block {self.block}: no thread of the block "
                f"wrote it before (before a barrier the reader passed, or earlier in the "
                f"reader's own code)")

    def long(self) -> str:
        lines = [self.short()]
        text = source_line_at(self.loc)
        if text is not None:
            lines += [f"    {text.rstrip()}", "    " + " " * max(self.col - 1, 0) + "^"]
        if self.count > 1:
            lines.append(f"  {self.count - 1} more uninitialised element instance"
                         f"{'s' if self.count > 2 else ''} read at this access")
        lines.append("  hint: write every element the block reads (halo and padding included) "
                     "before the barrier that precedes the read")
        return "\n".join(lines)

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d["index"] = list(self.index)
        return d


def find_uninit_reads(trace: Union[str, os.PathLike, dict, Trace], *,
                      file: str | None = None) -> list[UninitRead]:
    """Every shared read of the trace that no write happens before (module
    docstring), grouped per (array, site), in trace order of the examples."""
    tr = load_trace(trace, file=file)
    shared = np.array([info.space == "shared" for info in tr.arrays], dtype=bool)
    if tr.n_events == 0 or not shared.any():
        return []
    rows = np.flatnonzero(shared[tr.array])
    if rows.size == 0:
        return []
    op = tr.op[rows]
    is_write = op != READ                      # plain writes and atomics write
    is_read = (op == READ) | (op == ATOMIC)
    big = np.iinfo(np.int64).max
    # the earliest interval in which the block wrote each element
    elem = np.stack([tr.block[rows], tr.array[rows], tr.flat[rows]], axis=1).astype(np.int64)
    _, elem_id = np.unique(elem, axis=0, return_inverse=True)
    elem_id = elem_id.reshape(-1)
    first_interval = np.full(int(elem_id.max()) + 1, big, dtype=np.int64)
    np.minimum.at(first_interval, elem_id[is_write], tr.interval[rows][is_write].astype(np.int64))
    # the earliest trace position at which each thread wrote each element
    own = np.stack([elem_id, tr.thread[rows]], axis=1).astype(np.int64)
    _, own_id = np.unique(own, axis=0, return_inverse=True)
    own_id = own_id.reshape(-1)
    first_own = np.full(int(own_id.max()) + 1, big, dtype=np.int64)
    np.minimum.at(first_own, own_id[is_write], rows[is_write].astype(np.int64))
    interval = tr.interval[rows].astype(np.int64)
    before_barrier = first_interval[elem_id] < interval
    before_own = first_own[own_id] < rows
    bad = rows[is_read & ~before_barrier & ~before_own]
    if bad.size == 0:
        return []
    out: dict[tuple[int, int], list] = {}
    for k in bad.tolist():
        key = (int(tr.array[k]), int(tr.site[k]))
        if key in out:
            out[key][1] += 1
        else:
            out[key] = [k, 1]
    found = []
    for k, count in sorted(out.values()):
        ev = tr.event(k)
        found.append(UninitRead(
            file=tr.file, line=ev["line"], col=ev["col"], array=ev["array"],
            index=tuple(ev["index"]), flat=ev["flat"], op=ev["op"], thread=ev["thread"],
            block=ev["block"], interval=ev["interval"], site=ev["site"], count=count))
    return found


__all__ = ["UninitRead", "find_uninit_reads"]
