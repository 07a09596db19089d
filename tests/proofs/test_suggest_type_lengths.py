"""The suggested contract for a table indexed by a uint8 or uint16 value
(warp-simdata's `num_faces_table[wp.int32(cell_types[i])]`, a 256-entry table
the host fills): the length covers every value of the type, 2**bits (plus the
index's constant offset), and the search decides an obligation that waited for
its index's load once that load is proved (before, it stopped with the table's
read undecided and the suggestion 'not proved'). A contract one short still
fails."""
from __future__ import annotations

import pytest

from verikern.app.prove import prove_source
from verikern.proofs.obligations import Status

KERNEL = '''import warp as wp


class Kinds:
    POLY = 42


@wp.kernel
def count_faces(kinds: wp.array(dtype=wp.{dtype}), offsets: wp.array(dtype=wp.int32),
                table: wp.array(dtype=wp.int32), counts: wp.array(dtype=wp.int32)):
    {requires}i = wp.tid()
    kind = wp.int32(kinds[i])
    if kind == wp.static(int(Kinds.POLY)):
        counts[i] = offsets[i + 1] - offsets[i]
    else:
        counts[i] = table[kind{offset}]
'''


def source(dtype="uint8", offset="", requires=""):
    return KERNEL.format(dtype=dtype, offset=offset, requires=requires)


@pytest.mark.parametrize("dtype, offset, length", [("uint8", "", 256), ("uint8", " + 1", 257),
                                                   ("uint16", "", 65536)])
def test_the_table_covers_every_value_of_the_index_type(dtype, offset, length):
    report, = prove_source(source(dtype, offset), "table.py", suggest=True)
    assert report.status.value == "failed"
    assert f"{length} <= table.shape[0]" in report.suggested_requires, report.suggested_requires
    assert report.proved_under_suggestion is True, report.suggested_requires


def test_a_table_one_short_still_fails():
    short = "wp.requires(vk.launch_dim() <= kinds.shape[0] and vk.launch_dim() < offsets.shape[0] " \
            "and vk.launch_dim() <= counts.shape[0] and 256 <= table.shape[0])\n    "
    report, = prove_source("import verikern as vk\n" + source("uint8", " + 1", short), "table.py",
                           suggest=False)
    failed = [o for o in report.obligations if o.status is Status.FAILED]
    assert [(o.kind.value, o.loc.line) for o in failed] == [("bounds", 18)], \
        [(o.kind.value, o.loc.line, o.message) for o in failed]
    assert failed[0].confirmed, failed[0].message
