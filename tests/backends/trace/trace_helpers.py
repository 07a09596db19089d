"""Builders for hand-written traces in the docs/INTERFACES.md trace format."""
from __future__ import annotations


def array(space="shared", shape=(64,), dtype="float32", layout="row_major", itemsize=4):
    return {"space": space, "shape": list(shape), "dtype": dtype, "layout": layout,
            "itemsize": itemsize}


def flat_of(index, shape):
    f = 0
    for i, n in zip(index, shape):
        f = f * n + i
    return f


def event(arrays, name, index, op, thread, block=0, interval=0, line=10, col=5, site=0):
    index = list(index) if isinstance(index, (list, tuple)) else [index]
    return {"thread": thread, "block": block, "interval": interval,
            "space": arrays[name]["space"], "array": name, "index": index,
            "flat": flat_of(index, arrays[name]["shape"]), "op": op,
            "line": line, "col": col, "site": site}


def trace(arrays, events, block_dim=256, dims=(256,), grid_dim=1, file="k.py"):
    return {"verikern_trace": 1, "kernel": "k", "file": file, "dims": list(dims),
            "block_dim": block_dim, "grid_dim": grid_dim, "arrays": arrays,
            "events": events}
