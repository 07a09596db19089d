"""A fixed launch that cannot apply to a kernel (--block-dim against the
kernel's own, --dim with the wrong number of dims) is one input error for
that kernel (exit 3), not an `unknown` for every obligation."""
from __future__ import annotations


from click.testing import CliRunner

from verikern.cli import main

from shared_helpers import CORPUS
FIXED = CORPUS / "bounds_transpose_tiled_no_edge_guard.py"     # @vk.kernel(block_dim=256), 2-D


def _prove(*args):
    result = CliRunner().invoke(main, ["prove", str(FIXED), "--no-cache", "--format", "short", *args])
    return result.exit_code, result.stdout.strip().splitlines()


def test_block_dim_against_the_kernels_own_is_one_input_error():
    code, lines = _prove("--block-dim", "64")
    assert code == 3
    assert len(lines) == 1
    assert lines[0].startswith(f"{FIXED}:9: error: kernel transpose_tiled_unguarded_store fixes "
                               "block_dim=256")
    assert "drop --block-dim or give 256" in lines[0]


def test_dims_of_the_wrong_rank_are_one_input_error():
    code, lines = _prove("--dim", "64")
    assert code == 3 and len(lines) == 1
    assert "has 2 launch dimension(s) but --dim gives 1" in lines[0]


def test_the_kernels_own_block_dim_is_accepted():
    code, _ = _prove("--block-dim", "256")
    assert code == 1             # the kernel's real bug, found as usual
