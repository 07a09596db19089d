"""CBMC's properties decided in groups after one call over all of them ran
out of units (proofs.deciding.cbmc_split).

The first tests feed prove_kernel_cbmc a stand-in for the cbmc process that
answers CBMC's `--json-ui` format according to which properties the command
line selects (`--property`), so each rule of the split is checked against a
hand-written answer; the last test runs the real CBMC on a kernel with one
hard obligation (Fermat's n = 3 over 10-bit numbers) and two easy ones.
"""
from __future__ import annotations

import json
import shutil

import pytest

from verikern.frontend import compile_source
from verikern.proofs.deciding import cbmc, cbmc_split
from verikern.proofs.deciding.cbmc_answer import parse_json_ui
from verikern.proofs.obligations import ObligationKind, Status, enumerate_obligations, obligation_id
from cbmc_helpers import cbmc_on_path  # noqa: F401 (a pytest fixture)

HARD_AND_EASY = '''
import verikern as vk

@vk.kernel
def hard_and_easy(x: vk.array(dtype=vk.int32), p: vk.int32, q: vk.int32, r: vk.int32):
    vk.requires(p > 0 and p < 1024 and q > 0 and q < 1024 and r > 0 and r < 1024)
    i = vk.tid()
    if i < x.shape[0]:
        x[i] = p
    assert p * p * p + q * q * q != r * r * r
'''

OUT = 'SMT2 solver returned "unknown"'
CHECK = "main.pointer_dereference.1"      # one of CBMC's own checks of the harness


def kernel():
    return compile_source(HARD_AND_EASY, "k.py").kernel("hard_and_easy").mir


def _answer(props, errors=()):
    failed = any(p["status"] == "FAILURE" for p in props)
    out = [{"program": "CBMC 6.6.0"}]
    out += [{"messageText": e, "messageType": "ERROR"} for e in errors]
    out += [{"result": props}, {"cProverStatus": "error" if errors else
                                "failure" if failed else "success"}]
    return json.dumps(out)


class _Cbmc:
    """A stand-in for cbmc: every obligation is a property `vk_step.assertion.N`;
    `hard` runs out of units in any call that selects it, `harness` is the
    status of CBMC's own check, `unwind` that of an unwinding assertion.
    `calls` records the properties each call selected (() = all)."""

    def __init__(self, k, hard, harness="SUCCESS", unwind="SUCCESS"):
        self.specs = enumerate_obligations(k)
        self.name = {obligation_id(s): f"vk_step.assertion.{i}" for i, s in enumerate(self.specs)}
        self.hard, self.harness, self.unwind = hard, harness, unwind
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv):
        chosen = tuple(argv[i + 1] for i, a in enumerate(argv) if a == "--property")
        self.calls.append(chosen)
        every = [(self.name[obligation_id(s)], f"{obligation_id(s)} {s.kind.value} k.py:1:1")
                 for s in self.specs] + [(CHECK, "dereference failure: pointer NULL")]
        picked = [(n, d) for n, d in every if not chosen or n in chosen]
        hard = any(n == self.name[self.hard] for n, _ in picked)
        props = [{"property": n, "description": d,
                  "status": "ERROR" if hard else self.harness if n == CHECK else "SUCCESS"}
                 for n, d in picked]
        props.append({"property": "vk_step.unwind.0", "description": "unwinding assertion loop 0",
                      "status": "ERROR" if hard else self.unwind})

        class Done:
            returncode, stderr = (6 if hard else 0), ""
            stdout = _answer(props, [OUT] if hard else ())
        return Done()


def _hard_id(k):
    return next(obligation_id(s) for s in enumerate_obligations(k) if s.kind is ObligationKind.ASSERT)


@pytest.mark.usefixtures("cbmc_on_path")
def test_a_split_decides_the_easy_obligations_a_hard_one_left_undecided():
    k = kernel()
    fake = _Cbmc(k, hard=_hard_id(k))
    obs = {obligation_id(o.spec): o for o in cbmc.prove_kernel_cbmc(k, dims=(64,), block_dim=32,
                                                                   runner=fake)}
    hard = obs.pop(_hard_id(k))
    assert hard.status is Status.UNKNOWN
    assert "out of CBMC's work budget" in hard.reason and "asked alone" in hard.reason
    assert obs and {o.status for o in obs.values()} == {Status.PROVED}
    # the whole call, one call per undecided obligation, then the harness's own checks
    assert fake.calls[0] == ()
    assert sorted(fake.calls[1:-1]) == sorted((fake.name[o],) for o in fake.name)
    assert fake.calls[-1] == (CHECK,)


@pytest.mark.usefixtures("cbmc_on_path")
def test_without_the_split_every_obligation_stays_unknown(monkeypatch):
    monkeypatch.setattr(cbmc_split, "MAX_SPLIT_CALLS", 0)
    k = kernel()
    fake = _Cbmc(k, hard=_hard_id(k))
    obs = cbmc.prove_kernel_cbmc(k, dims=(64,), block_dim=32, runner=fake)
    assert {o.status for o in obs} == {Status.UNKNOWN} and fake.calls == [()]


@pytest.mark.parametrize("harness, unwind, why", [
    ("FAILURE", "SUCCESS", "own checks of the harness were not shown to hold"),
    ("SUCCESS", "FAILURE", "unwinding assertion"),
])
@pytest.mark.usefixtures("cbmc_on_path")
def test_a_proof_asked_alone_needs_the_harness_checks_and_the_unwinding_assertions(
        harness, unwind, why):
    k = kernel()
    fake = _Cbmc(k, hard=_hard_id(k), harness=harness, unwind=unwind)
    obs = cbmc.prove_kernel_cbmc(k, dims=(64,), block_dim=32, runner=fake)
    assert {o.status for o in obs} == {Status.UNKNOWN}
    assert all(why in o.reason for o in obs if o.kind is not ObligationKind.ASSERT)


class _Checks:
    """A stand-in `ask` over CBMC's own checks of the harness: a call runs
    out of units when it selects one of `heavy` among more than `hard_above`
    checks; `status` gives each check's verdict (SUCCESS by default),
    `unwind` the unwinding assertion's. `calls` records what each call
    selected."""

    def __init__(self, hard_above, heavy, status=None, unwind="SUCCESS"):
        self.hard_above, self.heavy = hard_above, heavy
        self.status, self.unwind = status or {}, unwind
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, chosen):
        self.calls.append(tuple(chosen))
        hard = len(chosen) > self.hard_above and bool(self.heavy & set(chosen))
        props = [{"property": n, "description": "dereference failure: pointer outside object bounds",
                  "status": "ERROR" if hard else self.status.get(n, "SUCCESS")} for n in chosen]
        props.append({"property": "main.unwind.0", "description": "unwinding assertion loop 0",
                      "status": "ERROR" if hard else self.unwind})
        return parse_json_ui(_answer(props, [OUT] if hard else ()))


CHECKS = tuple(f"main.pointer_dereference.{i}" for i in range(10))
ALL = frozenset(CHECKS)


@pytest.mark.parametrize("hard_above, heavy, status, unwind, holds, calls", [
    (10, ALL, {}, "SUCCESS", True, 1),                         # one call over all: holds
    (1, {CHECKS[7]}, {}, "SUCCESS", True, 1 + 5 + 2),          # five groups, the hard one halved
    (1, ALL, {}, "SUCCESS", False, 1 + 3 + 3 + 1),             # halvings spent: not shown
    (0, {CHECKS[7]}, {}, "SUCCESS", False, 1 + 4 + 2),         # a check out of units alone
    (10, ALL, {CHECKS[3]: "FAILURE"}, "SUCCESS", False, 1),    # a check fails
    (1, ALL, {}, "FAILURE", False, 1 + 1 + 1),                 # an unwinding assertion fails
])
def test_the_harness_checks_hold_only_when_every_group_shows_them_holding(
        hard_above, heavy, status, unwind, holds, calls, monkeypatch):
    monkeypatch.setattr(cbmc_split, "MAX_SPLIT_CALLS", 5)
    ask = _Checks(hard_above, heavy, status, unwind)
    why = cbmc_split.harness_holds(ask, CHECKS)
    assert (why is None) is holds, why
    assert len(ask.calls) == calls and ask.calls[0] == CHECKS, ask.calls
    if holds:      # every check was in a call that showed it holding
        shown = {c for call in ask.calls if not (len(call) > hard_above and heavy & set(call))
                 for c in call}
        assert shown == ALL


def test_groups_follow_the_obligations_and_merge_beyond_the_cap():
    props = [{"property": f"p{i}", "description": f"bounds@{i}:1#0 bounds k.py:{i}:1",
              "status": "ERROR"} for i in range(1, 6)]
    props += [{"property": "p1b", "description": "bounds@1:1#0 bounds k.py:1:1", "status": "ERROR"},
              {"property": CHECK, "description": "dereference failure", "status": "ERROR"},
              {"property": "vk_step.unwind.0", "description": "unwinding assertion", "status": "ERROR"}]
    result = parse_json_ui(_answer(props, [OUT]))
    ids = [f"bounds@{i}:1#0" for i in range(1, 6)]
    groups = cbmc_split.property_groups(result, ids, max_calls=12)
    assert [g.obligations for g in groups] == [(i,) for i in ids]
    assert groups[0].properties == ("p1", "p1b")          # every property of the obligation
    merged = cbmc_split.property_groups(result, ids, max_calls=2)
    assert [g.obligations for g in merged] == [tuple(ids[:2]), tuple(ids[2:])]
    assert cbmc_split.property_groups(result, ids, max_calls=0) == ()
    assert cbmc_split.harness_properties(result) == (CHECK,)


@pytest.mark.skipif(shutil.which("cbmc") is None,
                    reason="cbmc is not installed (.ci/get-cbmc fetches Debian's; `apt-get install cbmc`)")
def test_real_cbmc_decides_the_easy_obligations_beside_a_hard_one():
    k = kernel()
    # 2 million z3 units a call: the hard obligation runs out of them in every call that
    # asks it, the easy ones fit (a larger budget only burns more units on the hard one)
    obs = {o.kind: o for o in cbmc.prove_kernel_cbmc(k, dims=(64,), block_dim=32, budget=0.2)}
    assert obs[ObligationKind.ASSERT].status is Status.UNKNOWN
    assert "asked alone" in obs[ObligationKind.ASSERT].reason
    assert obs[ObligationKind.BOUNDS].status is Status.PROVED
    assert obs[ObligationKind.RACE].status is Status.PROVED
