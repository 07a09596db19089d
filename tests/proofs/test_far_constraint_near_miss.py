"""A near miss whose bug is visible only through a constraint far from the
access: the written array's length is stated by a `vk.requires` on another
array's shape. Whatever a query reuse, slicing or memo does to make the
prover's queries cheaper, the one store past the end must still fail and its
twin must still be proved (issue 29 item 7's soundness check for such work)."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from prover_helpers import prove_src, verdicts  # noqa: E402

PAIRED_ROWS = """
    @vk.kernel
    def k(src: vk.array(dtype=vk.float32), dst: vk.array(dtype=vk.float32)):
        vk.requires(dst.shape[0] == 2 * src.shape[0])
        i = vk.tid()
        if i < src.shape[0]:
            dst[2 * i] = src[i]
            dst[2 * i + 1] = src[i]
"""
#: dst one element short, stated only by the requires on another array's shape
PAIRED_ROWS_ONE_SHORT = PAIRED_ROWS.replace("== 2 * src.shape[0]", "== 2 * src.shape[0] - 1")


def test_the_paired_rows_are_proved():
    assert verdicts(prove_src(PAIRED_ROWS)) == {"bounds": {"proved"}, "race": {"proved"}}


def test_one_element_short_through_another_arrays_shape_fails_at_the_second_store():
    near = prove_src(PAIRED_ROWS_ONE_SHORT)
    failed = [o for o in near if o.status.value == "failed"]
    stores = sorted({o.loc.line for o in near if o.kind.value == "bounds"})
    # of dst[2 * i] and dst[2 * i + 1] (the last two accesses), only the second fails
    assert [(o.kind.value, o.loc.line) for o in failed] == [("bounds", stores[-1])], \
        [(o.kind.value, o.loc.line, o.status.value, o.message) for o in near]
    cex = failed[0].counterexample
    assert cex is not None
    assert cex.shapes["dst"][0] == 2 * cex.shapes["src"][0] - 1   # the requires holds in it
