"""Memory-access traces in the JSON format of docs/INTERFACES.md.

Invariant: one event per (thread, executed access instruction), in execution
order, with the block's barrier interval at the moment of the access; `index`
has one entry per dimension of the array (logical, then vector/matrix inner
dimensions), `flat` is the row-major element number within the array (for
shared arrays: within the block's copy).  Recording is vectorised: each access
step appends arrays; dicts are built only when the trace is read.
"""
from __future__ import annotations

import json

import numpy as np

_OP_NAMES = ("read", "write", "atomic")


class TraceRecorder:
    def __init__(self):
        self._batches: list = []

    def record(self, st, idx, mem, ixs, addr, op_kind: str, loc, site: int) -> None:
        lin = st.lin if idx is None else st.lin[idx]
        n = lin.shape[0]
        b = st.launch.block_dim
        block_local = st.block_local_lanes(idx)
        interval = st.intervals[block_local]
        index = [np.broadcast_to(np.asarray(ix).astype(np.int64), (n,)) for ix in ixs]
        flat = np.broadcast_to(np.array(addr, dtype=np.int64), (n,))   # a copy
        if mem.block_elems:
            flat = flat - block_local * mem.block_elems
        self._batches.append((lin % b, lin // b, interval, mem.ref.space, mem.ref.name,
                              index, flat, op_kind, loc.line, loc.col, site))

    def events(self) -> list[dict]:
        out: list[dict] = []
        for thread, block, interval, space, name, index, flat, op, line, col, site in self._batches:
            idx_lists = list(zip(*(ix.tolist() for ix in index))) if index else None
            n = thread.shape[0]
            for j, (t, bk, iv, f) in enumerate(zip(thread.tolist(), block.tolist(),
                                                  interval.tolist(), flat.tolist())):
                out.append({"thread": t, "block": bk, "interval": iv, "space": space,
                            "array": name,
                            "index": list(idx_lists[j]) if idx_lists is not None else [],
                            "flat": f, "op": op, "line": line, "col": col, "site": site})
            del n
        return out


    def columns(self) -> dict:
        """The recorded events as numpy columns, in recording order (the
        same events as `events()`, without a dict per event): "thread",
        "block", "interval", "flat", "line", "col", "site" (int64), "array"
        (names, an object array), "op" (names, an object array), "index"
        ((n, widest rank) int64, padded with 0) and "rank" (int16)."""
        width = max((len(b[5]) for b in self._batches), default=0)
        parts: dict[str, list] = {k: [] for k in ("thread", "block", "interval", "flat", "line",
                                                  "col", "site", "array", "op", "index", "rank")}
        for thread, block, interval, _space, name, index, flat, op, line, col, site in \
                self._batches:
            n = thread.shape[0]
            parts["thread"].append(np.asarray(thread, np.int64))
            parts["block"].append(np.asarray(block, np.int64))
            parts["interval"].append(np.asarray(interval, np.int64))
            parts["flat"].append(np.asarray(flat, np.int64))
            for key, value in (("line", line), ("col", col), ("site", site)):
                parts[key].append(np.full(n, value, np.int64))
            parts["array"].append(np.full(n, name, object))
            parts["op"].append(np.full(n, op, object))
            cols = np.zeros((n, max(width, 1)), np.int64)
            for k, ix in enumerate(index):
                cols[:, k] = ix
            parts["index"].append(cols)
            parts["rank"].append(np.full(n, len(index), np.int16))
        empty = {"array": np.zeros(0, object), "op": np.zeros(0, object),
                 "index": np.zeros((0, max(width, 1)), np.int64), "rank": np.zeros(0, np.int16)}
        return {k: np.concatenate(v) if v else empty.get(k, np.zeros(0, np.int64))
                for k, v in parts.items()}


def trace_document(kernel, launch, arrays: dict, events: list[dict]) -> dict:
    """The whole trace object (header + events) for `kernel` run on `launch`."""
    info = {}
    for ref in kernel.arrays:
        if ref.space == "shared":
            shape = list(ref.shape or ()) + list(ref.inner)
        else:
            shape = list(arrays[ref.name].shape)
        dtype = ref.dtype.np_dtype
        info[ref.name] = {"space": ref.space, "shape": shape, "dtype": ref.dtype.name,
                          "layout": ref.layout, "itemsize": int(dtype.itemsize)}
        if ref.inner:
            info[ref.name]["inner"] = list(ref.inner)
    return {"verikern_trace": 1, "kernel": kernel.name, "file": kernel.loc.file,
            "dims": list(launch.dims),
            "block_dim": launch.block_dim, "grid_dim": launch.grid_dim,
            "arrays": info, "events": events}


def write_trace(path, document: dict) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(document, fh)
