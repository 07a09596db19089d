"""Analysis of simulator memory traces: data races and shared-memory bank conflicts.

Input is the JSON trace of device "cpu:trace" (docs/INTERFACES.md, "Trace
format"), as a dict, a path, or an already loaded `Trace`.

Invariants:
- A `Race` is reported only for two events of the trace that really conflict:
  distinct threads, same array element (for shared arrays: same block), at least
  one plain write or an atomic against a plain access, never two atomics, and
  either the same block and the same barrier interval, or (global arrays only)
  different blocks. Findings are grouped per (kind, array, pair of sites); each
  carries one concrete example and how many element instances raced.
- A `BankConflict` is reported per shared-memory access site whose worst warp
  access touches more than one distinct 4-byte word in one of the 32 banks.
- Work is O(n log n) in the number of events (numpy sorts and segment
  reductions); nothing is quadratic in the trace length.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass
from typing import Any, Union

import numpy as np

from verikern.errors import VerikernError, source_line_at
from verikern.mir.nodes import SourceLoc

NUM_BANKS = 32
WARP_SIZE = 32
BANK_WIDTH_BYTES = 4

READ, WRITE, ATOMIC = 0, 1, 2
OP_CODES = {"read": READ, "write": WRITE, "atomic": ATOMIC}
OP_NAMES = {v: k for k, v in OP_CODES.items()}
SPACES = ("global", "shared")


class TraceFormatError(VerikernError):
    """A trace does not follow the trace format of docs/INTERFACES.md."""


# ------------------------------------------------------------------- loading
@dataclass(frozen=True, eq=False)
class ArrayInfo:
    """One array of a trace header: `shape` as the trace gives it (logical
    dimensions, then vector/matrix inner ones); `inner` counts the trailing
    inner dimensions when the header says so (optional key "inner": [3]),
    which matters only for column-major bank mapping."""

    name: str
    space: str
    shape: tuple[int, ...]
    dtype: str
    layout: str
    itemsize: int
    inner: int = 0


@dataclass(frozen=True, eq=False)
class Trace:
    """A trace in columnar form: event k is column[k] of every numpy column.

    `array` holds indices into `arrays`; `op` holds READ/WRITE/ATOMIC;
    `index` is (n_events, max_rank) padded with 0, `rank` the true length of
    each event's index; `order` is each event's position in the original trace.
    """

    kernel: str
    file: str
    dims: tuple[int, ...]
    block_dim: int
    grid_dim: int
    arrays: tuple[ArrayInfo, ...]
    thread: np.ndarray
    block: np.ndarray
    interval: np.ndarray
    array: np.ndarray
    flat: np.ndarray
    op: np.ndarray
    line: np.ndarray
    col: np.ndarray
    site: np.ndarray
    index: np.ndarray
    rank: np.ndarray

    @property
    def n_events(self) -> int:
        return int(self.thread.size)

    def event(self, k: int) -> dict:
        """Event k in the trace-format dict form."""
        r = int(self.rank[k])
        info = self.arrays[int(self.array[k])]
        return {
            "thread": int(self.thread[k]), "block": int(self.block[k]),
            "interval": int(self.interval[k]), "space": info.space,
            "array": info.name, "index": [int(x) for x in self.index[k, :r]],
            "flat": int(self.flat[k]), "op": OP_NAMES[int(self.op[k])],
            "line": int(self.line[k]), "col": int(self.col[k]), "site": int(self.site[k]),
        }


_EVENT_KEYS = ("thread", "block", "interval", "array", "index", "flat", "op",
               "line", "col", "site")


def load_trace(source: Union[str, os.PathLike, dict, Trace], *, file: str | None = None) -> Trace:
    """Read a trace (path, dict or `Trace`) into columnar form.

    `file` names the kernel file for findings; default: the trace's optional
    top-level "file" entry, else "<kernel NAME>".
    """
    if isinstance(source, Trace):
        return source if file is None else dataclasses.replace(source, file=file)
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, encoding="utf-8") as fh:
                data = json.load(fh)
        except OSError as exc:
            raise TraceFormatError(f"cannot read trace {source}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise TraceFormatError(f"{source}: not a JSON trace ({exc})") from None
    elif isinstance(source, dict):
        data = source
    else:
        raise TraceFormatError(f"expected a trace path or dict, got {type(source).__name__}")
    return _columns(data, file)


def trace_of_columns(header: dict, columns: dict, *, file: str | None = None) -> Trace:
    """A `Trace` from a trace header (a trace document without its events:
    docs/INTERFACES.md) and columns as `TraceRecorder.columns` gives them --
    the trace `load_trace` reads from the whole document, without a dict
    per event."""
    name, block_dim, dims, infos = _header(header)
    array_ids = {a.name: i for i, a in enumerate(infos)}
    try:
        array_col = np.fromiter((array_ids[a] for a in columns["array"]), np.int32,
                                len(columns["array"]))
    except KeyError as exc:
        raise TraceFormatError(f"trace event names array {exc} missing from the header") from None
    op_col = np.fromiter((OP_CODES[o] for o in columns["op"]), np.int8, len(columns["op"]))
    return Trace(
        kernel=name, file=file or str(header.get("file") or f"<kernel {name}>"),
        dims=dims, block_dim=block_dim, grid_dim=int(header.get("grid_dim", 0)),
        arrays=tuple(infos), thread=columns["thread"], block=columns["block"],
        interval=columns["interval"], array=array_col, flat=columns["flat"], op=op_col,
        line=columns["line"], col=columns["col"], site=columns["site"],
        index=columns["index"], rank=columns["rank"],
    )


def _header(data: dict) -> tuple[str, int, tuple[int, ...], list[ArrayInfo]]:
    """The kernel name, block_dim, dims and arrays of a trace header."""
    if data.get("verikern_trace") != 1:
        raise TraceFormatError("not a verikern trace: missing \"verikern_trace\": 1")
    try:
        arrays_json = data["arrays"]
        block_dim = int(data["block_dim"])
        dims = tuple(int(d) for d in data["dims"])
    except (KeyError, TypeError, ValueError) as exc:
        raise TraceFormatError(f"trace header is incomplete or malformed: {exc!r}") from None
    infos: list[ArrayInfo] = []
    for name, a in arrays_json.items():
        try:
            infos.append(ArrayInfo(name, a["space"], tuple(int(s) for s in a["shape"]),
                                   str(a["dtype"]), a.get("layout", "row_major"),
                                   int(a["itemsize"]), len(a.get("inner", ()))))
        except (KeyError, TypeError, ValueError) as exc:
            raise TraceFormatError(f"trace array {name!r} is malformed: {exc!r}") from None
        if infos[-1].space not in SPACES:
            raise TraceFormatError(f"trace array {name!r} has unknown space {a['space']!r}")
        if infos[-1].layout not in ("row_major", "column_major"):
            raise TraceFormatError(f"trace array {name!r} has unknown layout {infos[-1].layout!r}")
    return str(data.get("kernel", "?")), block_dim, dims, infos


def _columns(data: dict, file: str | None) -> Trace:
    kernel, block_dim, dims, infos = _header(data)
    try:
        events = data["events"]
    except (KeyError, TypeError) as exc:
        raise TraceFormatError(f"trace header is incomplete or malformed: {exc!r}") from None
    array_ids = {a.name: i for i, a in enumerate(infos)}
    n = len(events)
    try:
        cols = {k: [e[k] for e in events] for k in _EVENT_KEYS}
    except (KeyError, TypeError) as exc:
        raise TraceFormatError(f"trace event without field {exc}") from None
    try:
        array_col = np.fromiter((array_ids[a] for a in cols["array"]), np.int32, n)
    except KeyError as exc:
        raise TraceFormatError(f"trace event names array {exc} missing from the header") from None
    try:
        op_col = np.fromiter((OP_CODES[o] for o in cols["op"]), np.int8, n)
    except KeyError as exc:
        raise TraceFormatError(f"trace event has unknown op {exc}") from None
    rank = np.fromiter((len(i) for i in cols["index"]), np.int16, n)
    width = int(rank.max()) if n else 0
    index = np.zeros((n, max(width, 1)), np.int64)
    for r in np.unique(rank):
        rows = np.flatnonzero(rank == r)
        if r:
            index[rows, :r] = np.array([cols["index"][k] for k in rows], np.int64).reshape(-1, r)
    return Trace(
        kernel=kernel, file=file or str(data.get("file") or f"<kernel {kernel}>"),
        dims=dims, block_dim=block_dim,
        grid_dim=int(data.get("grid_dim", 0)), arrays=tuple(infos),
        thread=np.asarray(cols["thread"], np.int64), block=np.asarray(cols["block"], np.int64),
        interval=np.asarray(cols["interval"], np.int64), array=array_col,
        flat=np.asarray(cols["flat"], np.int64), op=op_col,
        line=np.asarray(cols["line"], np.int64), col=np.asarray(cols["col"], np.int64),
        site=np.asarray(cols["site"], np.int64), index=index, rank=rank,
    )


# --------------------------------------------------------------------- races
def _interval_text(k: int) -> str:
    return "before the first barrier" if k == 0 else f"between barriers {k} and {k + 1}"


def _index_text(array: str, index: tuple[int, ...]) -> str:
    return f"{array}[{', '.join(str(i) for i in index)}]"


@dataclass(frozen=True)
class Race:
    """Two conflicting accesses to one array element by distinct threads.

    kind: "intra-block" (same block, same barrier interval) or "inter-block"
    (different blocks, global arrays). (line, col, op, thread, block, interval)
    describe the first access of the example, the `other_*` fields the second;
    `site`/`other_site` are the access instructions. `count` is how many
    (element[, block, interval]) instances raced between these two sites.
    """

    file: str
    line: int
    col: int
    other_line: int
    other_col: int
    kind: str
    array: str
    space: str
    index: tuple[int, ...]
    flat: int
    op: str
    other_op: str
    thread: int
    other_thread: int
    block: int
    other_block: int
    interval: int
    other_interval: int
    site: int
    other_site: int
    count: int

    @property
    def loc(self) -> SourceLoc:
        return SourceLoc(self.file, self.line, self.col)

    @property
    def other_loc(self) -> SourceLoc:
        return SourceLoc(self.file, self.other_line, self.other_col)

    def short(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}: error: race on {_index_text(self.array, self.index)}: "
        if self.kind == "intra-block":
            return (where + f"thread {self.thread} ({self.op}) and thread {self.other_thread} "
                    f"({self.other_op}) of block {self.block} {_interval_text(self.interval)}")
        return (where + f"thread {self.thread} of block {self.block} ({self.op}) and thread "
                f"{self.other_thread} of block {self.other_block} ({self.other_op}); "
                "threads of different blocks are never ordered")

    def long(self) -> str:
        lines = [self.short()]
        for label, line, col, op in (("first", self.line, self.col, self.op),
                                     ("second", self.other_line, self.other_col, self.other_op)):
            text = source_line_at(SourceLoc(self.file, line, col))
            lines.append(f"  {label} access ({op}) at {self.file}:{line}:{col}")
            if text is not None:
                lines.append(f"    {text.rstrip()}")
                lines.append("    " + " " * max(col - 1, 0) + "^")
        more = self.count - 1
        if more > 0:
            lines.append(f"  {more} more racing element instance{'s' if more > 1 else ''} "
                         "between these two accesses")
        hint = ("add vk.sync_threads() between the two accesses, make them atomic, or give "
                "each thread its own element" if self.kind == "intra-block" else
                "blocks cannot synchronise: make the accesses atomic or partition the "
                "elements between blocks")
        lines.append(f"  hint: {hint}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d["index"] = list(self.index)
        return d


def _segment_starts(sorted_cols: list[np.ndarray]) -> np.ndarray:
    """Boolean mask: True where any of the (sorted) columns changes value."""
    n = sorted_cols[0].size
    new = np.zeros(n, bool)
    if n:
        new[0] = True
    for c in sorted_cols:
        new[1:] |= c[1:] != c[:-1]
    return new


def _pairs_within_groups(group_of_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All row pairs (i <= j) that share a group; rows are sorted by group."""
    starts = np.flatnonzero(_segment_starts([group_of_row]))
    sizes = np.diff(np.append(starts, group_of_row.size))
    out_i, out_j = [], []
    for m in np.unique(sizes):
        ti, tj = np.triu_indices(int(m))
        s = starts[sizes == m][:, None]
        out_i.append((s + ti[None, :]).ravel())
        out_j.append((s + tj[None, :]).ravel())
    if not out_i:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(out_i), np.concatenate(out_j)


def _racing_event_pairs(tr: Trace, events: np.ndarray, group_cols: list[np.ndarray],
                        actor: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Example event pairs (e1, e2) and group ids of every racing (group, site, site).

    Events in one group touch the same element where ordering is missing; two
    events race when their actors (threads, or blocks) differ and their ops
    conflict. Each (group, site) is summarised by its events of least and
    greatest actor, which suffices to find a distinct-actor pair if one exists.
    """
    empty = np.zeros(0, np.int64)
    if events.size == 0:
        return empty, empty, empty
    keys = [actor[events], tr.site[events]] + [c[events] for c in reversed(group_cols)]
    ev = events[np.lexsort(keys)]
    gnew = _segment_starts([c[ev] for c in group_cols])
    gstart = np.flatnonzero(gnew)
    a, op = actor[ev], tr.op[ev]
    gmin, gmax = np.minimum.reduceat(a, gstart), np.maximum.reduceat(a, gstart)
    has_w = np.logical_or.reduceat(op == WRITE, gstart)
    has_a = np.logical_or.reduceat(op == ATOMIC, gstart)
    has_r = np.logical_or.reduceat(op == READ, gstart)
    candidate = (gmin != gmax) & (has_w | (has_a & has_r))
    if not candidate.any():
        return empty, empty, empty
    snew = gnew | _segment_starts([tr.site[ev]])
    rstart = np.flatnonzero(snew)
    rend = np.append(rstart[1:], ev.size) - 1
    rgroup = np.cumsum(gnew)[rstart] - 1
    keep = candidate[rgroup]
    rgroup, first, last = rgroup[keep], ev[rstart[keep]], ev[rend[keep]]
    i, j = _pairs_within_groups(rgroup)
    op_i, op_j = tr.op[first[i]], tr.op[first[j]]
    ops_conflict = ~((op_i == READ) & (op_j == READ)) & ~((op_i == ATOMIC) & (op_j == ATOMIC))
    lo_i, hi_i = actor[first[i]], actor[last[i]]
    lo_j, hi_j = actor[first[j]], actor[last[j]]
    same = i == j
    distinct = np.where(same, lo_i != hi_i, ~((lo_i == hi_i) & (lo_j == hi_j) & (lo_i == lo_j)))
    hit = ops_conflict & distinct
    i, j, same = i[hit], j[hit], same[hit]
    lo_i, lo_j, hi_j = lo_i[hit], lo_j[hit], hi_j[hit]
    e1 = np.where(same | (lo_i != lo_j) | (hi_j != lo_i), first[i], last[i])
    e2 = np.where(same, last[i],
                  np.where(lo_i != lo_j, first[j], np.where(hi_j != lo_i, last[j], first[j])))
    return e1, e2, rgroup[i]


_OP_PRIORITY = {WRITE: 0, ATOMIC: 1, READ: 2}


def _make_race(tr: Trace, kind: str, e1: int, e2: int, count: int) -> Race:
    # Show the writing access first; ties keep the lower site first.
    k1 = (_OP_PRIORITY[int(tr.op[e1])], int(tr.site[e1]), int(tr.thread[e1]))
    k2 = (_OP_PRIORITY[int(tr.op[e2])], int(tr.site[e2]), int(tr.thread[e2]))
    if k2 < k1:
        e1, e2 = e2, e1
    info = tr.arrays[int(tr.array[e1])]
    return Race(
        file=tr.file, line=int(tr.line[e1]), col=int(tr.col[e1]),
        other_line=int(tr.line[e2]), other_col=int(tr.col[e2]), kind=kind,
        array=info.name, space=info.space,
        index=tuple(int(x) for x in tr.index[e1, :int(tr.rank[e1])]), flat=int(tr.flat[e1]),
        op=OP_NAMES[int(tr.op[e1])], other_op=OP_NAMES[int(tr.op[e2])],
        thread=int(tr.thread[e1]), other_thread=int(tr.thread[e2]),
        block=int(tr.block[e1]), other_block=int(tr.block[e2]),
        interval=int(tr.interval[e1]), other_interval=int(tr.interval[e2]),
        site=int(tr.site[e1]), other_site=int(tr.site[e2]), count=count,
    )


def _summarise(tr: Trace, kind: str, e1: np.ndarray, e2: np.ndarray) -> list[Race]:
    """One Race per (array, unordered site pair), with the first example and a count."""
    if e1.size == 0:
        return []
    s1, s2 = tr.site[e1], tr.site[e2]
    key = np.stack([tr.array[e1].astype(np.int64), np.minimum(s1, s2), np.maximum(s1, s2)], 1)
    _, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    return [_make_race(tr, kind, int(e1[f]), int(e2[f]), int(c)) for f, c in zip(first, counts)]


def find_races(trace: Union[str, os.PathLike, dict, Trace], *, file: str | None = None) -> list[Race]:
    """Every racing pair of access sites in the trace, sorted by location."""
    tr = load_trace(trace, file=file)
    everything = np.arange(tr.n_events)
    e1, e2, _ = _racing_event_pairs(tr, everything, [tr.array, tr.flat, tr.block, tr.interval],
                                    tr.thread)
    races = _summarise(tr, "intra-block", e1, e2)
    global_ids = [k for k, a in enumerate(tr.arrays) if a.space == "global"]
    global_events = np.flatnonzero(np.isin(tr.array, global_ids))
    e1, e2, _ = _racing_event_pairs(tr, global_events, [tr.array, tr.flat], tr.block)
    races += _summarise(tr, "inter-block", e1, e2)
    races.sort(key=lambda r: (r.line, r.col, r.other_line, r.other_col, r.array, r.kind))
    return races


# ------------------------------------------------------------ bank conflicts
@dataclass(frozen=True)
class BankConflict:
    """Shared-memory bank conflicts of one access site.

    degree: the worst number of distinct 4-byte words one warp access touched
    in a single bank (>= 2); conflicted: warp accesses with degree >= 2;
    accesses: all warp accesses of the site. The example is one worst warp
    access: its block, warp, barrier interval, the bank, the distinct word
    addresses it hit there, and the threads that touched them.
    """

    file: str
    line: int
    col: int
    array: str
    op: str
    site: int
    degree: int
    conflicted: int
    accesses: int
    block: int
    warp: int
    interval: int
    bank: int
    words: tuple[int, ...]
    threads: tuple[int, ...]

    @property
    def loc(self) -> SourceLoc:
        return SourceLoc(self.file, self.line, self.col)

    def short(self) -> str:
        return (f"{self.file}:{self.line}:{self.col}: warning: {self.degree}-way bank conflict "
                f"on shared array {self.array} ({self.op}): {self.conflicted} of "
                f"{self.accesses} warp accesses conflict")

    def long(self) -> str:
        lines = [self.short()]
        text = source_line_at(self.loc)
        if text is not None:
            lines += [f"    {text.rstrip()}", "    " + " " * max(self.col - 1, 0) + "^"]
        threads = ", ".join(str(t) for t in self.threads[:8])
        if len(self.threads) > 8:
            threads += ", ..."
        words = ", ".join(str(w) for w in self.words[:8]) + (", ..." if len(self.words) > 8 else "")
        lines.append(f"  e.g. warp {self.warp} of block {self.block} "
                     f"({_interval_text(self.interval)}): threads {threads} hit bank "
                     f"{self.bank} at {len(self.words)} distinct words ({words})")
        lines.append("  hint: pad the array's last dimension (e.g. 32 -> 33) or change the "
                     "access pattern so a warp touches 32 distinct banks")
        return "\n".join(lines)

    def to_json(self) -> dict:
        d = dict(self.__dict__)
        d["words"], d["threads"] = list(self.words), list(self.threads)
        return d


def _word_addresses(tr: Trace, events: np.ndarray) -> np.ndarray:
    """4-byte word offset of each event's element inside its (shared) array."""
    words = np.zeros(events.size, np.int64)
    arr = tr.array[events]
    for aid in np.unique(arr):
        info = tr.arrays[int(aid)]
        rows = np.flatnonzero(arr == aid)
        ev = events[rows]
        if info.layout == "column_major":
            offset = _column_major_offset(tr, ev, info)
        else:
            offset = tr.flat[ev]
        words[rows] = offset * info.itemsize // BANK_WIDTH_BYTES
    return words


def _column_major_offset(tr: Trace, ev: np.ndarray, info: ArrayInfo) -> np.ndarray:
    nd = len(info.shape)
    ranks = np.unique(tr.rank[ev])
    if ranks.size != 1 or int(ranks[0]) != nd:
        raise TraceFormatError(
            f"column-major shared array {info.name} has shape {list(info.shape)} but its "
            f"events carry {sorted(int(r) for r in ranks)} indices; expected {nd}")
    logical = nd - info.inner
    offset = np.zeros(ev.size, np.int64)
    stride = 1
    for k in range(logical):            # logical dims: first index varies fastest
        offset += tr.index[ev, k] * stride
        stride *= info.shape[k]
    inner = np.zeros(ev.size, np.int64)
    for k in range(logical, nd):        # each element's inner scalars stay contiguous
        inner = inner * info.shape[k] + tr.index[ev, k]
    return offset * math.prod(info.shape[logical:]) + inner


def _dynamic_occurrence(tr: Trace, events: np.ndarray) -> np.ndarray:
    """For each event, how many earlier events the same thread had at the same site
    in the same barrier interval (the k-th execution of a site by a warp is one
    warp access; threads of a warp are assumed to run in lockstep)."""
    order = events[np.lexsort((events, tr.site[events], tr.interval[events],
                               tr.thread[events], tr.block[events]))]
    new = _segment_starts([tr.block[order], tr.thread[order], tr.interval[order],
                           tr.site[order]])
    pos = np.arange(order.size)
    start = np.maximum.accumulate(np.where(new, pos, 0))
    occ = np.empty(tr.n_events, np.int64)
    occ[order] = pos - start
    return occ[events]


def bank_conflicts(trace: Union[str, os.PathLike, dict, Trace], *,
                   file: str | None = None) -> list[BankConflict]:
    """Shared-memory access sites whose warp accesses hit some bank at >= 2 words."""
    tr = load_trace(trace, file=file)
    shared_ids = [k for k, a in enumerate(tr.arrays) if a.space == "shared"]
    events = np.flatnonzero(np.isin(tr.array, shared_ids))
    if events.size == 0:
        return []
    occ = _dynamic_occurrence(tr, events)
    warp = tr.thread[events] // WARP_SIZE
    word = _word_addresses(tr, events)
    site, block, interval = tr.site[events], tr.block[events], tr.interval[events]
    order = np.lexsort((word, occ, interval, warp, block, site))
    site, block, warp, interval, occ, word = (
        c[order] for c in (site, block, warp, interval, occ, word))
    ev = events[order]
    gnew = _segment_starts([site, block, warp, interval, occ])
    gid = np.cumsum(gnew) - 1
    n_groups = int(gid[-1]) + 1
    # distinct (group, word), then distinct words per (group, bank)
    wnew = gnew | _segment_starts([word])
    ugid, uword = gid[wnew], word[wnew]
    bank = uword % NUM_BANKS
    border = np.lexsort((bank, ugid))
    bnew = _segment_starts([ugid[border], bank[border]])
    bstart = np.flatnonzero(bnew)
    per_bank = np.diff(np.append(bstart, border.size))
    degree = np.zeros(n_groups, np.int64)
    np.maximum.at(degree, ugid[border][bstart], per_bank)
    gstart = np.flatnonzero(gnew)
    gsite = site[gstart]
    findings = []
    for s in np.unique(gsite):
        groups = np.flatnonzero(gsite == s)
        worst = int(degree[groups].max())
        if worst < 2:
            continue
        g = int(groups[np.argmax(degree[groups])])
        members = np.flatnonzero(gid == g)
        member_words = np.unique(word[members])
        banks, hits = np.unique(member_words % NUM_BANKS, return_counts=True)
        b = int(banks[np.argmax(hits)])
        in_bank = members[word[members] % NUM_BANKS == b]
        e0 = int(ev[members[0]])
        findings.append(BankConflict(
            file=tr.file, line=int(tr.line[e0]), col=int(tr.col[e0]),
            array=tr.arrays[int(tr.array[e0])].name, op=OP_NAMES[int(tr.op[e0])],
            site=int(s), degree=worst, conflicted=int((degree[groups] >= 2).sum()),
            accesses=int(groups.size), block=int(block[members[0]]),
            warp=int(warp[members[0]]), interval=int(tr.interval[e0]), bank=b,
            words=tuple(int(w) for w in np.unique(word[in_bank])),
            threads=tuple(sorted({int(t) for t in tr.thread[ev[in_bank]]})),
        ))
    findings.sort(key=lambda f: (f.line, f.col, f.site))
    return findings


def summary_json(races: list[Race], conflicts: list[BankConflict]) -> dict[str, Any]:
    """The stable JSON form of an analysis (used by `verikern trace --format json`)."""
    return {"races": [r.to_json() for r in races],
            "bank_conflicts": [c.to_json() for c in conflicts]}
