"""Which atomic calls the CBMC harness gives the ticket facts
(encoders.c.tickets.ticket_sites): an atomic_add of a positive constant
outside loops on a global integer array nothing else writes, whose old value
the kernel reads. A loop around the call, another write of the array, a
non-constant increment or an unused old value gives none; the real CBMC's
answers are in tests/proofs/test_cbmc_tickets.py."""
from __future__ import annotations

import pytest

from verikern.encoders.c import emit_c
from verikern.encoders.c.tickets import ticket_sites

from shared_helpers import mir_of

HEAD = '''
import verikern as vk


@vk.kernel
def k(count: vk.array(dtype=vk.int32), out: vk.array(dtype=vk.int32), n: vk.int32):
    vk.requires(vk.all_in_range(count, 0, 1))
    i = vk.tid()
'''


def _sites(body: str) -> list:
    return list(ticket_sites(mir_of(HEAD + body)).values())


def test_a_single_site_counter_is_a_ticket_with_its_contract():
    (site,) = _sites("    out[i] = vk.atomic_add(count, 0, 3)\n")
    assert (site.array, site.increment, site.single, site.total) == ("count", 3, True, 3)
    assert len(site.ranges) == 1


def test_two_sites_share_their_total():
    sites = _sites("    a = vk.atomic_add(count, 0, 1)\n    b = vk.atomic_add(count, 0, 2)\n"
                   "    out[i] = a + b\n")
    assert [(s.number, s.increment, s.single, s.total) for s in sites] == [(0, 1, False, 3),
                                                                            (1, 2, False, 3)]


@pytest.mark.parametrize("body", [
    "    for r in range(2):\n        out[i] = vk.atomic_add(count, 0, 1)\n",     # in a loop
    "    out[i] = vk.atomic_add(count, 0, 1)\n    if i == 0:\n        count[0] = 0\n",  # a store
    "    out[i] = vk.atomic_add(count, 0, 1)\n    vk.atomic_exch(count, 0, 0)\n",   # another op
    "    out[i] = vk.atomic_add(count, 0, n)\n",                                      # not constant
    "    out[i] = vk.atomic_add(count, 0, 0)\n",                                      # not positive
    "    vk.atomic_add(count, 0, 1)\n    out[i] = 1\n",                               # old unused
])
def test_no_ticket_facts_where_they_do_not_hold(body):
    assert _sites(body) == []


def test_the_replay_build_has_no_ticket_facts():
    text = emit_c(mir_of(HEAD + "    out[i] = vk.atomic_add(count, 0, 1)\n"))
    facts = text[text.index("L->tk0_on[r] = 1") - 900:text.index("L->tk0_on[r] = 1")]
    assert "#ifndef VERIKERN_REPLAY" in facts and "d == k * 1u" in facts
    # the facts' block is CBMC's only: the replay compiles the real atomic
    after = text[text.index("L->tk0_on[r] = 1"):]
    assert after.split("\n", 1)[1].lstrip().startswith("#endif")
