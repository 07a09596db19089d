"""The real CBMC decides atomic-ticket kernels (encoders.c.tickets): the
harness gives an atomic_add on a ticket array the old values every launch
gives it, `init + d` with d a multiple of the increment below the calls
before it, the same `init` and different `d` for two calls on one element.

- a compaction through a ticket counter is proved by CBMC (bounds and the
  race of the slots), agreeing with z3; without the ticket facts CBMC
  proves neither (its old values are unknown);
- increments other than 1 and two sites in one thread: proved with room for
  them, and their near misses (room for one slot per thread) fail, confirmed
  by replay -- a rule that ignored the increment (d = k) or the second site
  (d < size) would prove those;
- a counter the kernel also writes otherwise (an atomic_exch resetting it)
  is no ticket array: the slots' race is not proved.
"""
from __future__ import annotations

import shutil

import pytest

from verikern.encoders.c import emitter
from verikern.proofs.deciding import cbmc
from verikern.proofs.deciding.engines import obligation_key
from verikern.proofs.obligations import ObligationKind, Status
from verikern.proofs.pipeline import prove_mir

from shared_helpers import mir_of

pytestmark = pytest.mark.skipif(
    shutil.which("cbmc") is None,
    reason="cbmc is not installed (.ci/get-cbmc fetches Debian's; `apt-get install cbmc`)")

#: every kernel's requires: one counter starting at 0, one x element per thread
HEAD = '''
import verikern as vk


@vk.kernel
def {name}(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int32),
           out: vk.array(dtype=vk.float32)):
    vk.requires(count.shape[0] == 1)
    vk.requires(x.shape[0] == vk.launch_dim())
    vk.requires(vk.all_in_range(count, 0, 1))
    vk.requires(out.shape[0] >= {room})
    i = vk.tid()
'''

BODIES = {
    "compact": '''
    slot = vk.atomic_add(count, 0, 1)
    out[slot] = x[i]
''',
    "by_two": '''
    slot = vk.atomic_add(count, 0, 2)
    out[slot] = x[i]
    out[slot + 1] = x[i]
''',
    "pairs": '''
    a = vk.atomic_add(count, 0, 1)
    b = vk.atomic_add(count, 0, 1)
    out[a] = x[i]
    out[b] = x[i]
''',
    "reset": '''
    slot = vk.atomic_add(count, 0, 1)
    out[slot] = x[i]
    if i == 0:
        vk.atomic_exch(count, 0, 0)
''',
}

LAUNCH = {"dims": (8,), "block_dim": 4}
#: CBMC's own verdicts (no replay) with every array at most SMALL_INPUT elements of
#: 4 bytes: a failure's trace is then small enough to replay as it is, so CBMC is not
#: run again on small launches for one (VK_SMALL; that run: test_cbmc_real.py's
#: race_all_threads_write_slot0)
SMALL_ARRAYS_LAUNCH = {**LAUNCH, "max_array_bytes": 4 * cbmc.SMALL_INPUT}


def _kernel(body: str, room: str):
    return mir_of(HEAD.format(name=body, room=room) + BODIES[body].lstrip("\n"), body)


def _by_kind_and_line(obligations) -> dict:
    return {(o.kind.value, o.loc.line, o.loc.col): o.status for o in obligations
            if o.kind is not ObligationKind.UNINIT}


def _agreeing(k) -> dict:
    """CBMC's settled verdicts by obligation key, after checking that z3
    never contradicts them."""
    cb = prove_mir(k, file="tickets.py", engine="cbmc", **LAUNCH)
    z3 = {obligation_key(o): o.status for o in prove_mir(k, file="tickets.py", **LAUNCH).obligations}
    out = {}
    for o in cb.obligations:
        assert {o.status, z3[obligation_key(o)]} != {Status.PROVED, Status.FAILED}, o
        if o.status is Status.FAILED:
            assert o.confirmed, o
        if o.kind is not ObligationKind.UNINIT:
            out[obligation_key(o)] = o.status
    return out


def test_a_compaction_through_a_ticket_counter_is_proved_and_needs_the_facts(monkeypatch):
    k = _kernel("compact", "x.shape[0]")
    assert set(_agreeing(k).values()) == {Status.PROVED}
    monkeypatch.setattr(emitter, "ticket_sites", lambda kernel: {})
    without = _by_kind_and_line(cbmc.prove_kernel_cbmc(k, **SMALL_ARRAYS_LAUNCH))
    slot_line = max(line for _, line, _ in without)
    assert without[("race", slot_line, 5)] is not Status.PROVED
    assert without[("bounds", slot_line, 5)] is not Status.PROVED


@pytest.mark.parametrize("body, room, failing", [
    ("by_two", "2 * x.shape[0]", 0),
    ("by_two", "x.shape[0] + 1", 1),      # slot = 2k reaches 2 * 7 = 14 > 8
    ("pairs", "2 * x.shape[0]", 0),
    ("pairs", "x.shape[0] + 1", 1),       # the second site's slot reaches 15
])
def test_increments_and_sites_are_counted(body, room, failing):
    got = _agreeing(_kernel(body, room))
    failed = [key for key, s in got.items() if s is Status.FAILED]
    assert len(failed) == failing, got
    if failing:
        assert failed[0].startswith("bounds"), failed
        # too little room is a bounds failure only: the tickets still give distinct slots
        races = [s for key, s in got.items() if key.startswith("race")]
        assert races and set(races) == {Status.PROVED}, got
    else:
        assert set(got.values()) == {Status.PROVED}, got


def test_a_counter_the_kernel_resets_is_no_ticket():
    k = _kernel("reset", "x.shape[0]")
    got = _by_kind_and_line(cbmc.prove_kernel_cbmc(k, **SMALL_ARRAYS_LAUNCH))
    races = [s for (kind, _, _), s in got.items() if kind == "race"]
    assert races and Status.PROVED not in races, got
