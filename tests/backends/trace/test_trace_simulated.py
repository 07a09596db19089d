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
