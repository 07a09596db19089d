"""A contract one instance of a generic kernel was proved under is tried on its
sibling instances before a search of their own (verikern/app/sibling_contracts.py),
and it is "proved under" for a sibling only when the pasted source's re-proof of
that sibling proves it. The near miss: the int32 instance is proved under a launch
relation, the int8 instance wraps `k + k` under it too (a bug only that typing
reaches; the declared overload comes first), so it must not be reported proved under that contract; the int64
instance is, without a search of its own. The references are independent: the
pasted source proved again as written, instance by instance."""
from __future__ import annotations

import pytest

import verikern.app.prove as app_prove
import verikern.app.sibling_contracts as sibling_contracts
import verikern.app.suggestion as suggestion
import verikern.proofs.pipeline as pipeline
from verikern.app.prove import prove_source
from verikern.proofs.obligations import KernelStatus
from verikern.proofs.reporting.paste import pasted, suggestion_inserts

GATHER = '''\
from typing import Any

import warp as wp


@wp.kernel
def gather_doubled(keys: wp.array(dtype=Any), table: wp.array(dtype=float),
                   out: wp.array(dtype=float)):
    i = wp.tid()
    k = keys[i]
    if int(k) >= 0 and int(k) < table.shape[0] // 2:
        out[i] = table[int(k + k)]


wp.overload(gather_doubled, [wp.array(dtype=wp.int32), wp.array(dtype=float),
                             wp.array(dtype=float)])
'''
INSTANCES = ("gather_doubled[int32]", "gather_doubled[int8]", "gather_doubled[int64]")


def _counted(monkeypatch) -> tuple[list[str], list]:
    """Within `monkeypatch`: (the kernels (MIR names) a contract search ran for, in order;
    the configurations a suggestion's pasted file was compiled for). The typing premise
    (app.premise_suggestion, which would pin keys to int32 here) is left out, so that
    each instance's own suggestion is what is asserted."""
    ran: list[str] = []
    compiles: list = []
    search, compile_source = pipeline.suggest_contract, suggestion.compile_source

    def counted(kernel_mir, *args, **kwargs):
        ran.append(kernel_mir.name)
        return search(kernel_mir, *args, **kwargs)

    def compiled(text, *args, **kwargs):
        compiles.append(kwargs.get("configuration"))
        return compile_source(text, *args, **kwargs)

    monkeypatch.setattr(pipeline, "suggest_contract", counted)
    monkeypatch.setattr(app_prove, "suggest_premises", lambda module, reports, *a, **k: reports)
    monkeypatch.setattr(suggestion, "compile_source", compiled)
    return ran, compiles


@pytest.fixture(scope="module")
def first_run():
    """INSTANCES proved with suggestions, once for the module's two tests (both read this
    run; the second compares it with runs of its own, in the same process): (the reports,
    frozen; the searches and the pasted files' compiles it made, as `_counted` counts them)."""
    with pytest.MonkeyPatch.context() as mp:
        ran, compiles = _counted(mp)
        reports = tuple(prove_source(GATHER, "g.py", kernel=",".join(INSTANCES), suggest=True))
    return reports, tuple(ran), tuple(compiles)


def _as_written_under(decorators, instance: str) -> KernelStatus:
    """`instance` proved as written in GATHER with `decorators` pasted above its def."""
    text = pasted(GATHER, suggestion_inserts(GATHER, 6, list(decorators)))
    (report,) = prove_source(text, "g.py", kernel=instance, suggest=False)
    return report.status


def test_a_sibling_contract_is_proved_under_only_where_its_re_proof_proves(first_run):
    proved, searches, _ = first_run
    reports = {r.kernel: r for r in proved}
    assert list(reports) == list(INSTANCES)
    first, wraps, wide = (reports[name] for name in INSTANCES)
    assert all(r.status is KernelStatus.FAILED for r in (first, wraps, wide))   # as written: unguarded i
    contract = first.suggested_decorators
    assert contract and "vk.launch_dim() <= keys.shape[0]" in contract[0]
    assert first.proved_under_suggestion is True
    # int64 takes int32's contract without a search; int8's re-proof under it fails, so it
    # searches on its own, and nothing it reports is "proved under"
    assert wide.suggested_decorators == contract and wide.proved_under_suggestion is True
    assert searches == ("gather_doubled__int32", "gather_doubled__int8")
    assert wraps.proved_under_suggestion is not True
    # the independent reference: the pasted source, each instance proved again as written
    assert _as_written_under(contract, "gather_doubled[int64]") is KernelStatus.PROVED
    assert _as_written_under(contract, "gather_doubled[int8]") is KernelStatus.FAILED


class _Forgets(dict):
    """A memo of pasted files that keeps nothing: every pasted file compiled again."""

    def __setitem__(self, key, value) -> None:
        """Drop the entry: the next instance finds nothing and compiles again."""


def _summary(reports) -> list:
    return [(r.kernel, r.status, r.suggested_decorators, r.proved_under_suggestion, r.units) for r in reports]


def _run() -> list:
    return _summary(prove_source(GATHER, "g.py", kernel=",".join(INSTANCES), suggest=True))


def test_the_reused_contract_spends_the_same_units_on_every_run(first_run, monkeypatch):
    """The module's first run and a second one, in this process, and a third that
    forgets every pasted file it compiled."""
    reports, first_searches, first_compiles = first_run
    searches, compiles = _counted(monkeypatch)
    first, second = _summary(reports), _run()
    assert first == second
    for ran in (list(first_searches), searches):
        assert ran == ["gather_doubled__int32", "gather_doubled__int8"]
    # the contract's pasted file is compiled once a run for the four re-proofs under it
    assert list(first_compiles) == compiles == ["gather_doubled__int32"]
    # and charged as a compile each time: the units are those of compiling it every time
    monkeypatch.setattr(sibling_contracts.SiblingContracts, "__init__", _forgetful_init)
    compiles.clear()
    assert _run() == first and len(compiles) == 4     # int8: its trial and its own search


def _forgetful_init(self) -> None:
    self._found, self.pasted = {}, _Forgets()
