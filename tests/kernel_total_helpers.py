"""What the kernel-total tests (tests/proofs/test_kernel_total_charges.py,
tests/proofs/test_kernel_total_term_charges.py) share: the kernels they charge, and the check
that a total cut short of a proof's charged work leaves it `unknown` naming the
total, the same on every run, and never `failed` by accident."""
from __future__ import annotations

import textwrap

from verikern.app.compile_budget import compile_budget
from verikern.app.prove import prove_file
from verikern.frontend import compile_file
from verikern.proofs.deciding.budget import COMPILE_UNIT_WEIGHT, MEGA
from verikern.proofs.obligations import KernelStatus, Status

from shared_helpers import CORPUS

MATMUL = str(CORPUS / "ok_matmul_tiled.py")


def compile_charge(path: str) -> int:
    """The units compiling `path`'s one kernel takes from its total before its parts (a
    report's `units` are its parts' alone): COMPILE_UNIT_WEIGHT per compile unit."""
    (compiled,) = compile_file(path, **compile_budget(None)).work.values()
    return COMPILE_UNIT_WEIGHT * compiled.spent

#: an unguarded shift: fails `src` in bounds, proved under the suggested length contract
UNGUARDED = textwrap.dedent('''\
    import warp as wp


    @wp.kernel
    def shift(src: wp.array(dtype=float), dst: wp.array(dtype=float)):
        i = wp.tid()
        dst[i] = src[i + 1]
    ''')


def assert_cut_short_is_unknown(path: str, total: float, *named: str):
    """`path`'s first kernel proved twice at a kernel total of `total` mega-units: `unknown`,
    no obligation failed, every undecided obligation's reason names the spent total (and each of
    `named`), the units spent at most the total (z3 stops a check a few units late), and both runs
    the same obligation by obligation."""
    runs = [prove_file(path, kernel_budget=total)[0] for _ in range(2)]
    rep = runs[0]
    assert rep.status is KernelStatus.UNKNOWN
    assert not any(o.status is Status.FAILED for o in rep.obligations)
    undecided = [o for o in rep.obligations if o.status is Status.UNKNOWN]
    assert undecided and all("the kernel's total work budget was spent" in (o.reason or "") and
                             all(text in (o.reason or "") for text in named)
                             for o in undecided)
    assert rep.units <= total * MEGA + MEGA // 10
    assert [(o.loc, o.status, o.reason) for o in rep.obligations] == \
        [(o.loc, o.status, o.reason) for o in runs[1].obligations]
    return rep
