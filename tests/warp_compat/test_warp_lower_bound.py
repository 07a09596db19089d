"""`wp.lower_bound(arr, value)` and `wp.lower_bound(arr, arr_begin, arr_end,
value)` (tests/warp_compat/kernels_lower_bound.py): verikern lowers them as
the loop Warp 1.19 runs (`warp/native/array.h`: `upper = arr_end - 1`, so the
result is never `arr_end`, unlike C++'s std::lower_bound). Real Warp on its
CPU device and verikern's simulator and `cpu:native` give the same results on
sorted arrays with repeats, values below, between and above every key, and
empty and one-element ranges; a Python transcription of Warp's loop is the
independent reference. The prover proves the reads in bounds where the range
is, and never where it is not (there the simulator shows the read)."""
from __future__ import annotations

import numpy as np
import pytest

import verikern as vk
from verikern.app.prove import prove_file, prove_source
from verikern.errors import OutOfBoundsError
from verikern.frontend import compile_source
from verikern.proofs.obligations import ObligationKind, Status
from warp_compat.compat_util import HERE, load_kernels

wp = pytest.importorskip("warp")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return load_kernels(wp, tmp_path_factory, "kernels_lower_bound")


def warp_loop(keys, begin, end, value) -> int:
    """Warp's lower_bound, transcribed (native/array.h)."""
    lower, upper = begin, end - 1
    while lower < upper:
        mid = lower + (upper - lower) // 2
        if keys[mid] < value:
            lower = mid + 1
        else:
            upper = mid
    return lower


@pytest.mark.parametrize("n, begin, end", [(9, 0, 9), (9, 2, 7), (9, 4, 4), (9, 5, 6), (1, 0, 1),
                                           (0, 0, 0), (9, 3, 10)])
def test_lower_bound_finds_what_warp_finds(kernels, n, begin, end):
    rng = np.random.default_rng(n + 10 * begin + end)
    keys = np.sort(rng.integers(0, 6, n)).astype(np.float32)
    queries = np.array([-1.0, 0.0, 2.0, 2.5, 5.0, 7.0, 3.0, 1.0], np.float32)
    m = len(queries)
    w_out, w_range = wp.zeros(m, dtype=wp.int32, device="cpu"), wp.zeros(m, dtype=wp.int32, device="cpu")
    wp.launch(kernels.search, dim=m, device="cpu", inputs=[
        wp.array(keys, device="cpu"), wp.array(queries, device="cpu"), begin, end, w_out, w_range])
    assert w_out.numpy().tolist() == [warp_loop(keys, 0, n, q) for q in queries]
    assert w_range.numpy().tolist() == [warp_loop(keys, begin, end, q) for q in queries]
    for dev in ("cpu", "cpu:native"):
        out, out_range = np.zeros(m, np.int32), np.zeros(m, np.int32)
        vk.launch(kernels.search, m, [keys, queries, begin, end, out, out_range], device=dev)
        np.testing.assert_array_equal(out, w_out.numpy(), err_msg=dev)
        np.testing.assert_array_equal(out_range, w_range.numpy(), err_msg=dev)


def test_the_segment_of_each_id_in_int64_offsets(kernels):
    offsets = np.array([0, 3, 3, 7, 12], np.int64)
    ids = np.arange(-1, 14, dtype=np.int64)
    w_seg = wp.zeros(len(ids), dtype=wp.int32, device="cpu")
    wp.launch(kernels.segment_of, dim=len(ids), device="cpu",
              inputs=[wp.array(offsets, device="cpu"), wp.array(ids, device="cpu"), w_seg])
    seg = np.zeros(len(ids), np.int32)
    vk.launch(kernels.segment_of, len(ids), [offsets, ids, seg])
    np.testing.assert_array_equal(seg, w_seg.numpy())


def test_lower_bound_kernels_are_proved():
    reports = prove_file(HERE / "kernels_lower_bound.py")
    assert {r.kernel: r.status.value for r in reports} == {"search": "proved", "segment_of": "proved"}


NEAR_MISS = (HERE / "kernels_lower_bound.py").read_text()


@pytest.mark.parametrize("old, new, kernel, launch", [
    # a range two past the keys: with every key below the value, the last read is keys[keys.shape[0]]
    ("end <= keys.shape[0] + 1", "end <= keys.shape[0] + 2", "search",
     lambda: [np.zeros(3, np.float32), np.ones(1, np.float32), 0, 5, np.zeros(1, np.int32),
              np.zeros(1, np.int32)]),
    # a range that may start below 0: keys[-1] is read
    ("0 <= begin and ", "-1 <= begin and ", "search",
     lambda: [np.zeros(1, np.float32), np.ones(1, np.float32), -1, 1, np.zeros(1, np.int32),
              np.zeros(1, np.int32)]),
    # no offset at all: the result 0 indexes offsets out of bounds
    (" and offsets.shape[0] > 0)", ")", "segment_of",
     lambda: [np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int32)]),
])
def test_a_range_past_the_array_is_not_proved_and_the_simulator_shows_the_read(old, new, kernel, launch):
    src = NEAR_MISS.replace(old, new)
    assert src != NEAR_MISS
    # the near miss's kernel alone: the other kernel of the file is test_lower_bound_kernels_are_proved's;
    # no replay: it only settles a failure's confirmation (FAILED or UNKNOWN, never PROVED), and the
    # read is shown on the simulator below
    (report,) = prove_source(src, "kernels_lower_bound.py", kernel=kernel, suggest=False, replay=False)
    assert report.kernel == kernel
    assert report.status is not Status.PROVED
    bad = [o for o in report.obligations if o.status is not Status.PROVED]
    assert bad and all(o.kind is ObligationKind.BOUNDS for o in bad), [o.message for o in bad]
    k = compile_source(src, "kernels_lower_bound.py").kernel(kernel).mir
    with pytest.raises(OutOfBoundsError):
        vk.launch(k, 1, launch())
