"""Reports have one finding per source access and property (a vec3 access
is one finding, not three), merged so that a merged obligation is proved
only when every component is; and messages explain counterexamples: index
wrap-around with its intermediate values, vector elements as `pos[62].y`."""
from __future__ import annotations

import dataclasses

from verikern.frontend import compile_source
from verikern.mir.nodes import SourceLoc
from verikern.proofs.obligations import Obligation, ObligationKind, Status
from verikern.proofs.pipeline import one_per_access, prove_mir

VEC = """import verikern as vk


@vk.kernel
def vec_copy(pos: vk.array(dtype=vk.vec3), out: vk.array(dtype=vk.vec3)):
    i = vk.tid()
    if i < pos.shape[0]:
        out[0] = pos[i + 1]
"""


def _prove(src: str, name: str = "k.py", **kw):
    (kr,) = compile_source(src, name).kernels
    return prove_mir(kr.mir, file=name, **kw)


def test_a_vec3_access_is_one_finding_per_property():
    report = _prove(VEC, replay=False)
    keys = [(o.kind.value, o.loc.line, o.loc.col) for o in report.obligations]
    assert len(keys) == len(set(keys)), keys
    failed = sorted(k for k, o in zip(keys, report.obligations) if o.status is Status.FAILED)
    assert failed == [("bounds", 8, 9), ("bounds", 8, 18), ("race", 8, 9)]


def _ob(status, line=3, col=5, kind=ObligationKind.BOUNDS, other=None, confirmed=None):
    return Obligation(kind, SourceLoc("k.py", line, col), status, f"{status.value}",
                      other_loc=other, confirmed=confirmed, seconds=1.0)


def test_merging_keeps_the_worst_component():
    P, F, U = Status.PROVED, Status.FAILED, Status.UNKNOWN
    assert [o.status for o in one_per_access([_ob(P), _ob(F), _ob(P)])] == [F]
    assert [o.status for o in one_per_access([_ob(P), _ob(U), _ob(P)])] == [U]
    assert [o.status for o in one_per_access([_ob(U), _ob(F)])] == [F]
    (merged,) = one_per_access([_ob(P), _ob(P), _ob(P)])
    assert merged.status is P and merged.seconds == 3.0
    # a confirmed failure is the one kept
    (kept,) = one_per_access([_ob(F), _ob(F, confirmed=True)])
    assert kept.confirmed is True
    # other positions and kinds stay separate
    assert len(one_per_access([_ob(F), _ob(F, col=9), _ob(F, kind=ObligationKind.DIV_ZERO)])) == 3


def test_a_race_pair_is_one_finding_in_either_order():
    a, b = SourceLoc("k.py", 3, 5), SourceLoc("k.py", 4, 9)
    one = dataclasses.replace(_ob(Status.PROVED, kind=ObligationKind.RACE), loc=a, other_loc=b)
    two = dataclasses.replace(_ob(Status.FAILED, kind=ObligationKind.RACE), loc=b, other_loc=a)
    (merged,) = one_per_access([one, two])
    assert merged.status is Status.FAILED


def test_a_wrapped_index_is_explained_with_its_intermediate_values():
    import re
    from pathlib import Path

    from verikern.frontend import compile_file

    path = Path(__file__).resolve().parents[1] / "corpus" / "bounds_index_overflow_2i.py"
    (kr,) = compile_file(path).kernels
    report = prove_mir(kr.mir, file=str(path), replay=False)
    (ob,) = [o for o in report.obligations if o.status is Status.FAILED]
    cex = ob.counterexample
    (block, thread), = cex.threads
    i = block * cex.block_dim + thread
    found = re.search(r"2 \* i = (-?\d+) wraps to (-?\d+) in int32", ob.message)
    assert found, ob.message
    exact, wrapped = int(found.group(1)), int(found.group(2))
    assert exact == 2 * i and exact >= 2 ** 31                     # the real product
    assert wrapped == exact - 2 ** 32 == cex.facts["index"]        # what int32 keeps
    assert cex.facts["wraps"] and "wraps to" in cex.facts["wraps"][0]


def test_no_wrap_note_when_nothing_wrapped():
    report = _prove(VEC, replay=False)
    assert not any("wraps" in o.message for o in report.obligations)


def test_elements_are_named_as_the_source_names_them():
    from verikern.mir.nodes import ArrayRef
    from verikern.mir.types import F32
    from verikern.proofs.deciding.explain import element_text

    assert element_text(ArrayRef("pos", F32, 1, (3,)), [62, 1]) == "pos[62].y"
    assert element_text(ArrayRef("q", F32, 1, (4,)), [0, 3]) == "q[0].w"
    assert element_text(ArrayRef("m", F32, 1, (3, 3)), [3, 1, 2]) == "m[3][1][2]"
    assert element_text(ArrayRef("a", F32, 2), [4, 5]) == "a[4, 5]"
