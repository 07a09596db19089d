"""The simulator's cpu:trace output fed to the analysis, on hand-built MIR
kernels (independent of the frontend)."""
from __future__ import annotations

import numpy as np
import pytest

from verikern.mir import F32, I32, ArrayRef, Return, SourceLoc
from verikern.mir.builder import MirBuilder
from verikern.mir.nodes import Atomic, Barrier, BinOp, Const, Load, Special, Store
from verikern.mir.verifier import verify
from verikern.trace import bank_conflicts, find_races, load_trace

import verikern.runtime as runtime  # noqa: E402


def loc(line, col=5):
    return SourceLoc("k.py", line, col)


class Body:
    def __init__(self, name):
        self.b = MirBuilder(name, loc(1))
        self.b.set_block(self.b.new_block("entry"))

    def val(self, ins_cls, t, *args, line=2):
        v = self.b.new_value(t)
        self.b.emit(ins_cls(v, *args, loc(line)))
        return v

    def special(self, kind):
        return self.val(Special, I32, kind)

    def binop(self, op, x, y):
        return self.val(lambda v, *a: BinOp(v, op, *a), I32, x, y)

    def gid(self):
        t, b, bd = self.special("thread_idx"), self.special("block_idx"), self.special("block_dim")
        return t, self.binop("add", self.binop("mul", b, bd), t)

    def finish(self, **kw):
        self.b.terminate(Return(loc(99)))
        k = self.b.finish(**kw)
        verify(k)
        return k


def neighbour_kernel(barrier: bool):
    """sh[t] = x[gid]; [sync]; out[gid] = sh[(t + 1) % block_dim]"""
    k = Body("neighbour")
    x = k.b.array_param(ArrayRef("x", F32, 1))
    out = k.b.array_param(ArrayRef("out", F32, 1))
    sh = k.b.shared_array(ArrayRef("sh", F32, 1, space="shared", shape=(64,)))
    t, gid = k.gid()
    v = k.b.new_value(F32)
    k.b.emit(Load(v, x, (gid,), loc(3)))
    k.b.emit(Store(sh, (t,), v, loc(4, 9)))
    if barrier:
        k.b.emit(Barrier(loc(5)))
    j = k.binop("mod", k.binop("add", t, Const(1, I32)), k.special("block_dim"))
    w = k.b.new_value(F32)
    k.b.emit(Load(w, sh, (j,), loc(6, 15)))
    k.b.emit(Store(out, (gid,), w, loc(6)))
    return k.finish(uses_block_features=True)


def run_traced(kernel, n, bd, tmp_path, inputs):
    path = tmp_path / "t.json"
    runtime.launch(kernel, n, inputs, block_dim=bd, device="cpu:trace", trace_path=str(path))
    return load_trace(path, file="k.py")


def test_neighbour_with_barrier_is_race_free_and_correct(tmp_path):
    x = np.arange(128, dtype=np.float32)
    out = np.zeros(128, np.float32)
    tr = run_traced(neighbour_kernel(True), 128, 64, tmp_path, [x, out])
    assert find_races(tr) == []
    assert np.array_equal(out, np.concatenate([np.roll(x[:64], -1), np.roll(x[64:], -1)]))
    assert tr.n_events == 4 * 128


def test_neighbour_without_barrier_races(tmp_path):
    x = np.arange(128, dtype=np.float32)
    tr = run_traced(neighbour_kernel(False), 128, 64, tmp_path, [x, np.zeros(128, np.float32)])
    (r,) = find_races(tr)
    assert (r.array, r.kind, r.op, r.other_op) == ("sh", "intra-block", "write", "read")
    assert (r.line, r.col, r.other_line, r.other_col) == (4, 9, 6, 15)
    # thread (t+1) % 64 writes sh[(t+1) % 64] while thread t reads it: 64 elements, 2 blocks
    assert r.count == 2 * 64
    assert r.other_thread == (r.thread - 1) % 64 and r.block == r.other_block


def test_every_thread_storing_one_element_races_across_blocks(tmp_path):
    k = Body("clobber")
    out = k.b.array_param(ArrayRef("out", F32, 1))
    acc = k.b.array_param(ArrayRef("acc", F32, 1))
    k.gid()
    k.b.emit(Store(out, (Const(0, I32),), Const(1.0, F32), loc(7)))
    old = k.b.new_value(F32)
    k.b.emit(Atomic(old, "add", acc, (Const(0, I32),), Const(1.0, F32), loc(8)))
    tr = run_traced(k.finish(), 64, 32, tmp_path, [np.zeros(1, np.float32), np.zeros(1, np.float32)])
    assert sorted((r.kind, r.array, r.line) for r in find_races(tr)) == [
        ("inter-block", "out", 7), ("intra-block", "out", 7)]


def tile_kernel(pad: int):
    """tile[c, r] = x[gid] with r = t // 32, c = t % 32 (a column write per warp),
    after a row-wise zeroing of the elements read back, so that no read is of
    uninitialised shared memory."""
    k = Body("tile")
    x = k.b.array_param(ArrayRef("x", F32, 1))
    tile = k.b.shared_array(ArrayRef("tile", F32, 2, space="shared", shape=(32, 32 + pad)))
    t, gid = k.gid()
    r = k.binop("floordiv", t, Const(32, I32))
    c = k.binop("mod", t, Const(32, I32))
    v = k.b.new_value(F32)
    k.b.emit(Load(v, x, (gid,), loc(3)))
    k.b.emit(Store(tile, (r, c), Const(0.0, F32), loc(9)))
    k.b.emit(Barrier(loc(10)))
    k.b.emit(Store(tile, (c, r), v, loc(11)))
    k.b.emit(Barrier(loc(12)))
    w = k.b.new_value(F32)
    k.b.emit(Load(w, tile, (r, c), loc(13)))
    k.b.emit(Store(x, (gid,), w, loc(14)))
    return k.finish(uses_block_features=True)


@pytest.mark.parametrize("pad, expected", [(0, [(11, 32, 8, 8)]), (1, [])])
def test_tile_column_writes_conflict_unless_padded(tmp_path, pad, expected):
    tr = run_traced(tile_kernel(pad), 256, 128, tmp_path, [np.ones(256, np.float32)])
    found = bank_conflicts(tr)
    assert [(c.line, c.degree, c.conflicted, c.accesses) for c in found] == expected
    assert find_races(tr) == []


VEC3_SRC = """import verikern as vk


@vk.kernel
def shift(p: vk.array(dtype=vk.vec3), q: vk.array(dtype=vk.float32, ndim=2)):
    i = vk.tid()
    if i + 1 < p.shape[0]:
        p[i] = p[i + 1] * 2.0
        q[i, 1] = p[i].y
"""


def _both_ways(kernel, n, bd, arrays):
    """(the trace read back from the trace document's event dicts, the one
    built from the recorder's columns) of one traced run."""
    from verikern.backends.launch import launch_config
    from verikern.backends.simulator import TraceRecorder, program_for, trace_document
    from verikern.backends.simulator.engine import run_launch
    from verikern.backends.trace_analysis import trace_of_columns

    cfg = launch_config(kernel, n, bd)
    rec = TraceRecorder()
    run_launch(program_for(kernel), cfg, arrays, {}, rec, False)
    by_events = load_trace(trace_document(kernel, cfg, arrays, rec.events()))
    return by_events, trace_of_columns(trace_document(kernel, cfg, arrays, []), rec.columns())


@pytest.mark.parametrize("case", ["neighbour", "tile", "vec3", "empty"])
def test_the_columnar_trace_is_the_trace_of_the_event_dicts(case):
    """Replay reads the recorder's columns (`trace_of_columns`), `verikern
    trace` the JSON events: the same trace, field by field -- mixed index
    ranks (a 1-D global and a 2-D shared array), vector elements (inner
    index dimensions) and no events at all."""
    from verikern.frontend import compile_source

    if case == "neighbour":
        a, b = _both_ways(neighbour_kernel(False), 128, 64,
                          {"x": np.arange(128, dtype=np.float32), "out": np.zeros(128, np.float32)})
    elif case == "tile":
        a, b = _both_ways(tile_kernel(0), 256, 128, {"x": np.ones(256, np.float32)})
    else:
        (kr,) = compile_source(VEC3_SRC, "v.py").kernels
        n = 0 if case == "empty" else 9
        a, b = _both_ways(kr.mir, max(n, 1), 1 if case == "empty" else 4,
                          {"p": np.ones((max(n, 1), 3), np.float32),
                           "q": np.zeros((max(n, 1), 2), np.float32)})
    assert a.n_events == b.n_events and (a.n_events == 0) == (case == "empty")
    for field in ("kernel", "file", "dims", "block_dim", "grid_dim", "arrays"):
        assert getattr(a, field) == getattr(b, field) or \
            [vars(x) for x in getattr(a, field)] == [vars(x) for x in getattr(b, field)], field
    for field in ("thread", "block", "interval", "array", "flat", "op", "line", "col", "site",
                  "index", "rank"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.shape == y.shape and np.array_equal(x, y), field
    assert [r.short() for r in find_races(a)] == [r.short() for r in find_races(b)]
