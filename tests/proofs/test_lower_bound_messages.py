"""A failed bounds obligation around `wp.lower_bound` names the user's call and
arrays (`wp.lower_bound(offsets, ids[i])`, `offsets[mid] of the binary search of
...`), never the internal locals its loop is lowered with (`lower_bound.lower`,
frontend/lower/search_calls.py); the verdicts stay those of the search."""
from __future__ import annotations

from verikern.app.prove import prove_file

from shared_helpers import CORPUS

RANGED = '''import verikern as vk
import warp as wp


@vk.requires(lambda ids, count: ids.shape[0] == vk.launch_dim() and count.shape[0] == ids.shape[0])
@wp.kernel
def ranged(offsets: wp.array(dtype=wp.int32), ids: wp.array(dtype=wp.int32),
           count: wp.array(dtype=wp.int32), n: wp.int32):
    i = wp.tid()
    s = wp.lower_bound(offsets, 0, n, ids[i])
    count[i] = s
'''


def failed_messages(path) -> list[str]:
    (r,) = prove_file(path)
    return [o.message for o in r.obligations if o.status.value == "failed"]


def test_the_result_of_a_search_is_named_by_the_call():
    (msg,) = failed_messages(CORPUS / "bounds_warp_lower_bound_next_offset.py")
    assert msg.startswith("index offsets[(wp.lower_bound(offsets, ids[i]) + 1)] is out of bounds"), msg


def test_a_read_of_the_search_itself_names_the_call_and_its_array(tmp_path):
    (tmp_path / "ranged.py").write_text(RANGED)
    (msg,) = failed_messages(tmp_path / "ranged.py")
    assert msg.startswith("index offsets[mid] of the binary search of "
                          "wp.lower_bound(offsets, 0, n, ids[i]) is out of bounds"), msg
    assert "lower_bound." not in msg, msg
