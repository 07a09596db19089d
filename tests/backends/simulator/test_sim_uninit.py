"""The simulator tracks, per block, which shared elements were written and
stops at a read (load or atomic) of one that no thread of the block wrote
before (UninitializedReadError, docs/LANGUAGE.md section 5 property 6) --
or, in the checked mode replay uses, records it and runs on."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

from verikern.backends.simulator import UninitializedReads, simulate
from verikern.errors import OutOfBoundsError, UninitializedReadError
from verikern.frontend import compile_source
from verikern.runtime import launch, prepare_launch


def kernel(src: str):
    res = compile_source("import verikern as vk\n\n" + textwrap.dedent(src), "k.py")
    assert not res.errors and res.kernels[0].mir is not None, res.all_errors
    return res.kernels[0].mir


ONLY_BLOCK_ZERO = kernel("""
@vk.kernel(block_dim=4)
def k(out: vk.array(dtype=vk.float32)):
    sh = vk.shared.array(shape=(4,), dtype=vk.float32)
    t = vk.thread_idx()
    if vk.block_idx() == 0:
        sh[t] = 1.0
    vk.sync_threads()
    out[vk.tid()] = sh[3 - t]
""")


def test_written_elements_are_per_block():
    """Block 0 wrote its copy; block 1's copy of the same elements was never
    written, so its first reading thread stops the launch."""
    out = np.zeros(8, np.float32)
    with pytest.raises(UninitializedReadError) as info:
        launch(ONLY_BLOCK_ZERO, 8, [out], block_dim=4)
    err = info.value
    assert (err.block, err.thread, err.detail["index"]) == (1, 0, (3,))
    assert (err.loc.line, err.loc.col) == (11, 21)
    assert "sh[3]" in err.message and "block 1" in err.message
    # one block: every read element was written
    out = np.zeros(4, np.float32)
    launch(ONLY_BLOCK_ZERO, 4, [out], block_dim=4)
    np.testing.assert_array_equal(out, np.ones(4, np.float32))


def test_atomic_reads_the_old_value_so_it_needs_a_write_first():
    src = """
    @vk.kernel(block_dim=8)
    def k(out: vk.array(dtype=vk.int32)):
        c = vk.shared.array(shape=(1,), dtype=vk.int32)
        t = vk.thread_idx()
        INIT
        vk.sync_threads()
        vk.atomic_add(c, 0, t)
        vk.sync_threads()
        if t == 0:
            out[vk.block_idx()] = c[0]
    """
    with pytest.raises(UninitializedReadError) as info:
        launch(kernel(src.replace("INIT", "t = t + 0")), 16, [np.zeros(2, np.int32)], block_dim=8)
    assert info.value.detail["array"] == "c" and info.value.loc.line == 10
    out = np.zeros(2, np.int32)
    launch(kernel(src.replace("INIT", "if t == 0:\n            c[0] = 100")), 16, [out], block_dim=8)
    np.testing.assert_array_equal(out, [100 + sum(range(8))] * 2)


def test_a_threads_own_earlier_write_counts_and_a_later_one_does_not():
    src = """
    @vk.kernel(block_dim=4)
    def k(out: vk.array(dtype=vk.float32)):
        sh = vk.shared.array(shape=(4,), dtype=vk.float32)
        t = vk.thread_idx()
        FIRST
        SECOND
    """
    store, load = "sh[t] = float(t)", "out[vk.tid()] = sh[t]"
    out = np.zeros(4, np.float32)
    launch(kernel(src.replace("FIRST", store).replace("SECOND", load)), 4, [out], block_dim=4)
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(UninitializedReadError):
        launch(kernel(src.replace("FIRST", load).replace("SECOND", store)), 4,
               [np.zeros(4, np.float32)], block_dim=4)


# ------------------------------------------------------------ checked mode
UNINIT_THEN_OOB = kernel("""
@vk.kernel(block_dim=4)
def k(idx: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.float32)):
    sh = vk.shared.array(shape=(5,), dtype=vk.float32)
    t = vk.thread_idx()
    sh[t] = float(t)
    vk.sync_threads()
    v = sh[t + 1]
    w = sh[(t + 2) % 5]
    out[idx[vk.tid()]] = v + w
""")


def _prepared(k, *inputs, dim=4):
    return prepare_launch(k, dim, list(inputs), 4)


def test_vk_launch_still_stops_at_the_first_uninitialised_read():
    with pytest.raises(UninitializedReadError) as info:
        launch(UNINIT_THEN_OOB, 4, [np.arange(4, dtype=np.int32), np.zeros(4, np.float32)],
               block_dim=4)
    assert (info.value.loc.line, info.value.thread) == (10, 3)


def test_checked_mode_records_each_site_once_and_runs_on_to_the_next_error():
    """Thread 3 reads sh[4] (line 10) and threads 2 and 3 read sh[4] again
    (line 11): one record per site, and the run goes on to the out-of-bounds
    store a real GPU would reach (idx holds 7 for thread 1)."""
    k, config, arrays, scalars = _prepared(UNINIT_THEN_OOB, np.array([0, 7, 2, 3], np.int32),
                                           np.zeros(4, np.float32))
    log = UninitializedReads()
    with pytest.raises(OutOfBoundsError) as info:
        simulate(k, config, arrays, scalars, uninit_reads=log)
    assert info.value.thread == 1 and info.value.loc.line == 12
    assert [(e.loc.line, e.thread, e.detail["index"]) for e in log.errors] == [(10, 3, (4,)), (11, 2, (4,))]


def test_checked_mode_leaves_the_poison_in_the_value_read():
    out = np.zeros(4, np.float32)
    k, config, arrays, scalars = _prepared(UNINIT_THEN_OOB, np.arange(4, dtype=np.int32), out)
    simulate(k, config, arrays, scalars, uninit_reads=UninitializedReads())
    got = arrays["out"]
    want = np.array([1 + 2, 2 + 3, 3 + np.nan, np.nan + 0], np.float32)
    np.testing.assert_array_equal(got, want)     # NaN where the poison was read
