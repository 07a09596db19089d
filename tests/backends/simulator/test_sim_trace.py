"""cpu:trace output: exact events of a tiny kernel, and the JSON file."""
import json

import numpy as np

from simkit import KB, launch_config
from verikern.backends.simulator import simulate
from verikern.runtime import launch


def _tiny():
    kb = KB("tiny", uses_block_features=True)
    x, out = kb.arr("x", "float32"), kb.arr("out", "float32")
    s = kb.shared("s", "float32", (4,))
    t = kb.special("thread_idx")
    i = kb.tid()
    v = kb.load(x, i)
    l_load_x = kb.line
    kb.store(s, t, v)
    l_store_s = kb.line
    kb.barrier()
    w = kb.load(s, kb.op("sub", kb.c(1), t))
    l_load_s = kb.line
    kb.atomic("add", out, kb.c(0), w)
    l_atomic = kb.line
    kb.ret()
    return kb.finish(), (l_load_x, l_store_s, l_load_s, l_atomic)


def _expected(lines):
    events = []

    def ev(lane, interval, space, array, index, flat, op, site):
        events.append({"thread": lane % 2, "block": lane // 2, "interval": interval,
                       "space": space, "array": array, "index": index, "flat": flat,
                       "op": op, "line": lines[site], "col": 5, "site": site})
    for lane in range(4):
        ev(lane, 0, "global", "x", [lane], lane, "read", 0)
    for lane in range(4):
        ev(lane, 0, "shared", "s", [lane % 2], lane % 2, "write", 1)
    for lane in range(4):
        ev(lane, 1, "shared", "s", [1 - lane % 2], 1 - lane % 2, "read", 2)
    for lane in range(4):
        ev(lane, 1, "global", "out", [0], 0, "atomic", 3)
    return events


def test_trace_events_are_exact():
    k, lines = _tiny()
    x = np.arange(4, dtype=np.float32)
    out = np.zeros(1, np.float32)
    res = simulate(k, launch_config(4, 2), {"x": x, "out": out}, {}, trace=True)
    assert res.trace == _expected(lines)
    # s is per block: block 0 holds x[0..1] in s[0..1], block 1 x[2..3]; each
    # thread reads its neighbour's element, so every x is added once
    assert out[0] == 6.0


def test_untraced_run_has_no_trace():
    k, _ = _tiny()
    res = simulate(k, launch_config(4, 2), {"x": np.zeros(4, np.float32),
                                            "out": np.zeros(1, np.float32)}, {})
    assert res.trace is None


def test_cpu_trace_device_writes_the_json_file(tmp_path):
    k, lines = _tiny()
    path = tmp_path / "t.json"
    launch(k, 4, [np.arange(4, dtype=np.float32), np.zeros(1, np.float32)], block_dim=2,
           device="cpu:trace", trace_path=str(path))
    doc = json.loads(path.read_text())
    assert doc["verikern_trace"] == 1 and doc["kernel"] == "tiny"
    assert doc["dims"] == [4] and doc["block_dim"] == 2 and doc["grid_dim"] == 2
    assert doc["arrays"] == {
        "x": {"space": "global", "shape": [4], "dtype": "float32", "layout": "row_major", "itemsize": 4},
        "out": {"space": "global", "shape": [1], "dtype": "float32", "layout": "row_major", "itemsize": 4},
        "s": {"space": "shared", "shape": [4], "dtype": "float32", "layout": "row_major", "itemsize": 4},
    }
    assert doc["events"] == _expected(lines)


def test_trace_of_two_d_and_vec_arrays_has_every_index():
    kb = KB("vec2d", launch_ndim=1)
    v = kb.arr("v", "float32", ndim=2, inner=(3,))
    i = kb.tid()
    kb.store(v, (kb.c(1), i, kb.c(2)), kb.c(1.0, "float32"))
    kb.ret()
    k = kb.finish()
    arr = np.zeros((2, 3, 3), np.float32)
    res = simulate(k, launch_config(3, 4), {"v": arr}, {}, trace=True)
    assert [e["index"] for e in res.trace] == [[1, 0, 2], [1, 1, 2], [1, 2, 2]]
    assert [e["flat"] for e in res.trace] == [9 + 2, 9 + 5, 9 + 8]
    assert arr[1, :, 2].tolist() == [1.0, 1.0, 1.0]


def test_threads_leaving_a_loop_wait_at_its_exit():
    from simkit import compile_kernel
    k = compile_kernel('''
import verikern as vk

@vk.kernel
def tail(n: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    acc = 0
    for j in range(n[i]):
        acc += n[j]
    out[i] = acc
''')
    n = np.array([0, 3, 1, 2], np.int32)
    out = np.zeros(4, np.int32)
    res = simulate(k, launch_config(4, 4), {"n": n, "out": out}, {}, trace=True)
    assert out.tolist() == [0, 4, 0, 3]
    ops = [(e["array"], e["op"], e["line"]) for e in res.trace]
    loop_reads = [p for p, e in enumerate(ops) if e == ("n", "read", 9)]
    writes = [p for p, e in enumerate(ops) if e[0] == "out"]
    assert len(loop_reads) == 3 + 1 + 2 and len(writes) == 4
    assert max(loop_reads) < min(writes)      # reconverged after the loop
