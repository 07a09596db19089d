"""Reads of uninitialised shared memory in a trace (backends/trace_uninit.py)
and in `verikern trace`: a shared read with no write of the element by the
block before it -- in an earlier barrier interval, or by the reader itself
earlier in its program order. A write by another thread in the same
interval is concurrent, so it does not count."""
from __future__ import annotations

import json

from click.testing import CliRunner

from trace_helpers import array, event, trace
from verikern.cli.trace import command
from verikern.trace import find_uninit_reads


def test_hand_built_trace_gives_exactly_the_unordered_reads():
    arrays = {"sh": array(shape=(8,)), "g": array(space="global", shape=(8,))}
    ev = [
        event(arrays, "sh", 0, "write", thread=0, interval=0, line=3, site=0),
        event(arrays, "sh", 0, "read", thread=0, interval=0, line=4, site=1),      # own write: ok
        event(arrays, "sh", 0, "read", thread=1, interval=0, line=4, site=1),      # concurrent: bad
        event(arrays, "sh", 0, "read", thread=1, interval=1, line=6, site=2),      # after barrier: ok
        event(arrays, "sh", 5, "atomic", thread=2, interval=1, line=7, site=3),    # never written: bad
        event(arrays, "sh", 5, "read", thread=3, interval=2, line=8, site=4),      # the atomic wrote it
        event(arrays, "sh", 0, "read", thread=0, block=1, interval=1, line=6, site=2),  # other block
        event(arrays, "g", 1, "read", thread=0, interval=0, line=9, site=5),       # global: never
        event(arrays, "sh", 6, "read", thread=4, interval=0, line=4, site=1),      # before its write
        event(arrays, "sh", 6, "write", thread=4, interval=0, line=5, site=6),
    ]
    found = find_uninit_reads(trace(arrays, ev))
    got = [(u.line, u.array, u.index, u.thread, u.block, u.op, u.count) for u in found]
    # grouped per (array, site), in trace order of each group's first event
    assert got == [(4, "sh", (0,), 1, 0, "read", 2), (7, "sh", (5,), 2, 0, "atomic", 1),
                   (6, "sh", (0,), 0, 1, "read", 1)]
    assert found[0].short().startswith("k.py:4:5: error: read of uninitialised shared memory sh[0]")


HISTOGRAM = """\
import verikern as vk


@vk.kernel(block_dim=32)
def hist(bins: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(bins, 0, 4))
    local = vk.shared.array(shape=(4,), dtype=vk.int32)
    t = vk.thread_idx()
    if t < 4:
        local[t] = 0
    BARRIER
    vk.atomic_add(local, bins[vk.tid()], 1)
    vk.sync_threads()
    if t < 4:
        vk.atomic_add(out, t, local[t])
"""


def _run(tmp_path, text):
    f = tmp_path / "hist.py"
    f.write_text(text)
    result = CliRunner().invoke(command, [str(f), "--dim", "64", "--size", "out=4",
                                          "--format", "json"], catch_exceptions=False)
    return result.exit_code, json.loads(result.output)


def test_cli_reports_a_read_concurrent_with_the_only_write(tmp_path):
    code, doc = _run(tmp_path, HISTOGRAM.replace("BARRIER", "t = t + 0"))
    assert code == 1
    sites = {(u["line"], u["col"]) for u in doc["uninit_reads"]}
    assert (12, 5) in sites, doc["uninit_reads"]
    code, doc = _run(tmp_path, HISTOGRAM.replace("BARRIER", "vk.sync_threads()"))
    assert code == 0 and doc["uninit_reads"] == [] and doc["status"] == "ok", doc
