"""The evaluator of declared overloads (verikern/frontend/scan/overload_decls.py)
spends its step budget per top-level statement: a long module (nvalchemi's
pme_multipole_kernels.py, 9449 lines, whose `register_overloads` calls after
line 5184 went unread once the module's total passed 20000 steps) has every
declaration read, and a statement over its own budget declares nothing and
only makes the names it binds unknown."""
from __future__ import annotations

from verikern.frontend import compile_file
from verikern.frontend.scan.overload_decls import MAX_STEPS
from shared_helpers import write_package

KERNEL = '''
from typing import Any

import warp as wp


@wp.kernel
def copy(src: wp.array(dtype=Any), dst: wp.array(dtype=Any)):
    i = wp.tid()
    if i < src.shape[0] and i < dst.shape[0]:
        dst[i] = src[i]


_BIG = [wp.float32] * 64
'''

#: a statement of about 4200 steps: six of them spend more than the 20000 one statement may
GRID = "_G{n} = [[t for t in _BIG] for u in _BIG]\n"
#: a statement of about 270000 steps, over its own budget
HUGE = "_HUGE = [[[t for t in _BIG] for u in _BIG] for w in _BIG]\n"
DECLARE = "for t in [wp.int16]:\n    wp.overload(copy, [wp.array(dtype=t), wp.array(dtype=t)])\n"


def _names(tmp_path, name: str, source: str) -> list[str]:
    pkg = write_package(tmp_path, name, {"k": source})
    return compile_file(pkg / "k.py").kernel_names


def test_a_declaration_after_many_statements_is_read(tmp_path):
    assert MAX_STEPS == 20000     # six grids are more than one budget together
    source = KERNEL + "".join(GRID.format(n=n) for n in range(6)) + DECLARE
    names = _names(tmp_path, "vkobud_a", source)
    assert names[0] == "copy[int16, int16]", names[:3]     # declared, so first
    assert names[1] == "copy[bool, bool]"                  # then the enumerated typings


def test_a_statement_over_its_budget_declares_nothing_and_later_ones_are_read(tmp_path):
    # the huge statement's name is unknown afterwards: a loop over it declares nothing
    over = "for row in _HUGE:\n    wp.overload(copy, [wp.array(dtype=wp.int8), wp.array(dtype=wp.int8)])\n"
    names = _names(tmp_path, "vkobud_b", KERNEL + HUGE + over + DECLARE)
    assert names[0] == "copy[int16, int16]", names[:3]
    assert names[1] == "copy[bool, bool]"      # no int8 declared through the unread _HUGE
    assert names.index("copy[int8, int8]") > 1      # int8 is only enumerated, in its place


def test_the_same_declaration_after_one_grid_is_read(tmp_path):
    # the control: one grid before it (within any budget); read with or without the
    # per-statement budget, so the first test differs only in the steps before it
    source = KERNEL + GRID.format(n=0) + DECLARE
    assert _names(tmp_path, "vkobud_c", source)[0] == "copy[int16, int16]"
