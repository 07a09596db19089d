"""With `--suggest`, a kernel of several parts holds a quarter of its total back
for its suggestions' searches, example launches and re-proofs
(proofs.deciding.budget.reserved_total, SUGGESTION_RESERVE): a part's
suggestion blocks may spend its share and then the reserve still held, and
what a part drew is no longer held when it ends. Counts only: the same units
and verdicts on every run; and a contract cut short is never "proved under"."""
from __future__ import annotations

import z3

import verikern.app.prove as app_prove
from verikern.app.prove import prove_source
from verikern.proofs.deciding import budget as work
from verikern.proofs.deciding.budget import (
    MEGA, charge_query, current_total, kernel_part, kernel_total, new_total, reserved_total, separate_work,
)

COPY = '''\
from typing import Any

import warp as wp


@wp.kernel
def copy_keys(keys: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = keys[i]
'''
RESERVE = work.SUGGESTION_RESERVE
FOUR = ",".join(f"copy_keys[{t}, {t}]" for t in ("int8", "int16", "int32", "int64"))


def _spend(units: int) -> None:
    """`units` charged to the total in progress (as queries' Python work is), at most its rest."""
    for _ in range(units // work.QUERY_UNITS):
        charge_query()


def test_a_part_share_leaves_the_reserve_out_and_its_suggestion_blocks_draw_on_it():
    z3.main_ctx()
    whole = reserved_total(40 * MEGA)
    assert whole.held == 10 * MEGA                   # a quarter
    with kernel_part(whole, 2) as share:
        assert share.limit == 15 * MEGA              # (40 - 10) / 2
        _spend(15 * MEGA)
        assert share.left() == 0
        with separate_work():                        # a suggestion block: the reserve
            assert current_total().left() == 10 * MEGA
            _spend(4 * MEGA)
        with separate_work():                        # what the part drew is not drawn twice
            assert current_total().left() == 6 * MEGA
            with separate_work():                    # nested: the same block, not the reserve again
                assert current_total().left() == 6 * MEGA
    assert whole.held == 6 * MEGA and whole.left() == 21 * MEGA
    with kernel_part(whole, 1) as share:             # the next part: what is left less the reserve
        assert share.limit == 15 * MEGA
    # outside a suggestion block nothing draws on it, and a total without one holds nothing
    plain = new_total(40 * MEGA)
    with kernel_part(plain, 2) as share:
        assert share.limit == 20 * MEGA
        with separate_work():
            assert current_total().left() == 20 * MEGA
    with kernel_total(plain):
        with separate_work():
            assert current_total() is plain


def test_the_held_reserve_is_part_of_the_cache_key_allowance():
    z3.main_ctx()
    whole = reserved_total(40 * MEGA)
    with kernel_part(whole, 2) as share:
        assert share.allowance() == (40 * MEGA, 15 * MEGA, 15 * MEGA, 10 * MEGA)


def _four(monkeypatch, reserve: float, kernel_budget: float = 12) -> list:
    monkeypatch.setattr(app_prove, "suggest_premises", lambda module, reports, *a, **k: reports)
    monkeypatch.setattr(work, "SUGGESTION_RESERVE", reserve)
    return [(r.kernel, r.status, r.suggested_decorators, r.proved_under_suggestion, r.suggestion_unknown,
             r.units) for r in prove_source(COPY, "c.py", suggest=True, kernel=FOUR, kernel_budget=kernel_budget)]


def test_the_reserve_lets_a_starved_instance_re_prove_its_contract(monkeypatch):
    # 3.6 million units for 4 instances: a share of 0.9 million pays the first instance's
    # proof and search, not its pasted copy's compile and re-proof (1.02 million in all);
    # with the reserve (0.9 million) its share is 0.675 million and its suggestion blocks
    # draw the rest from the reserve, and its contract is proved under; the later
    # instances take it from their sibling (app.sibling_contracts) at 0.63 million each
    without = _four(monkeypatch, 0.0, 3.6)
    assert all(r[3] is not True and "total work budget was spent" in r[4] for r in without), without
    runs = [_four(monkeypatch, RESERVE, 3.6) for _ in range(2)]
    assert runs[0] == runs[1]                        # counts: the same on every run
    first, *rest = runs[0]
    assert first[3] is True and "vk.launch_dim() <= keys.shape[0]" in first[2][0]
    assert first[5] > 3.6 * MEGA * (1 - RESERVE) / 4     # past its share, from the reserve
    # what the others were proved under was re-proved whole: never with a budget cut short
    assert all(r[4] is None for r in runs[0] if r[3] is True), runs[0]
    assert sum(r[5] for r in runs[0]) < 3.6 * MEGA + MEGA // 10     # z3 may pass a limit by a little
