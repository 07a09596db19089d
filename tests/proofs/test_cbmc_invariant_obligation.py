"""The real CBMC decides the `invariant` obligation kind (a `vk.invariant`
hint, checked where the loop's body starts), agreeing with z3:

- a hint true on every entry to the body (the value read back from shared
  memory masked into 0..3, `j <= 3`) is proved by CBMC;
- its twin, whose hint `j <= 4` is false on entry (8 is read back), fails
  under CBMC at the hint's line, and the counterexample replays on the
  simulator (the entry value comes from memory, so only replay makes the
  trace a failure);
- a hint too strong for the last step of a halving barrier loop (`s >= 2`
  where s reaches 1) fails at its line, confirmed by replay, while every
  other obligation of that kernel is proved by both engines.
"""
from __future__ import annotations

import shutil

import pytest

from verikern.frontend import compile_source
from verikern.proofs.deciding.engines import obligation_key
from verikern.proofs.obligations import ObligationKind, Status
from verikern.proofs.pipeline import prove_mir

from shared_helpers import CORPUS

pytestmark = pytest.mark.skipif(
    shutil.which("cbmc") is None,
    reason="cbmc is not installed (.ci/get-cbmc fetches Debian's; `apt-get install cbmc`)")


def _both(name: str, dims: tuple[int, ...], block_dim: int,
          unwind: int | None = None) -> tuple[dict, dict]:
    """(CBMC's, z3's) obligations of the case's one kernel on a fixed launch,
    by obligation key, both settled by replay; CBMC unwinds at `unwind`
    (None: the depths read off the kernel)."""
    path = CORPUS / name
    k = compile_source(path.read_text(), path.name).kernels[0].mir
    z3 = prove_mir(k, file=path.name, dims=dims, block_dim=block_dim)
    cb = prove_mir(k, file=path.name, dims=dims, block_dim=block_dim, engine="cbmc",
                   unwind=unwind)
    assert cb.error is None, cb.error
    return ({obligation_key(o): o for o in cb.obligations},
            {obligation_key(o): o for o in z3.obligations})


def _invariants(obligations: dict) -> list:
    return [o for o in obligations.values() if o.kind is ObligationKind.INVARIANT]


# the clamped kernel's loop runs at most 3 times (j <= 3): unwound to depth 4, which
# covers it (its unwinding assertions hold), instead of the default 8 (twice CBMC's work
# for the same verdicts); its twin's loop runs 8 times from the 8 read back
@pytest.mark.parametrize("name, dims, block_dim, bad_line, unwind", [
    ("ok_invariant_entry_from_shared_clamped.py", (64,), 64, None, 4),
    ("invariant_fails_entry_from_shared.py", (64,), 64, 18, None),
    ("invariant_fails_halving_too_strong.py", (128,), 128, 20, None),
])
def test_cbmc_decides_the_invariant_obligation(name, dims, block_dim, bad_line, unwind):
    cb, z3 = _both(name, dims, block_dim, unwind)
    hints = _invariants(cb)
    assert len(hints) == 1, hints
    hint = hints[0]
    if bad_line is None:
        assert hint.status is Status.PROVED, hint
    else:
        assert hint.status is Status.FAILED, hint
        assert hint.loc.line == bad_line
        assert hint.confirmed and hint.counterexample is not None, hint
        assert hint.counterexample.facts.get("engine") == "cbmc"
    assert z3[obligation_key(hint)].status is hint.status
    # the rest of each kernel is correct: decided, and proved by both engines
    for key, o in cb.items():
        if o is hint or o.kind is ObligationKind.UNINIT:
            continue
        assert o.status is Status.PROVED, o
        assert z3[key].status is Status.PROVED, z3[key]
