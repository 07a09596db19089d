"""The proof cache: hits give the same report, marked cached; corrupt,
foreign and tampered entries are ignored; writes are atomic; options and
versions are part of the key."""
from __future__ import annotations

import json
import sys
import threading

from helpers_report import ROOT, SAXPY, UNGUARDED, cli, copy

sys.path.insert(0, str(ROOT / "benchmarks"))
from determinism import differences, strip_timing  # noqa: E402


def _json(*args):
    code, out, err = cli("prove", *args, "--format", "json")
    assert code in (0, 1), err
    return json.loads(out)


def _without_cached(data):
    return strip_timing({**data, "kernels": [{k: v for k, v in kern.items() if k != "cached"}
                                             for kern in data["kernels"]]})


def _entries(cache):
    return sorted(p for p in cache.rglob("*.json"))


def test_a_second_run_reads_every_verdict_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    first = _json(saxpy, bug, "--cache-dir", cache)
    assert [k["cached"] for k in first["kernels"]] == [False, False]
    assert len(_entries(cache)) == 2
    second = _json(saxpy, bug, "--cache-dir", cache)
    assert [k["cached"] for k in second["kernels"]] == [True, True]
    assert differences(_without_cached(first), _without_cached(second)) == []
    # counterexamples survive the round trip exactly (the failed one is confirmed)
    assert second["kernels"][1]["obligations"][0]["counterexample"] == \
        first["kernels"][1]["obligations"][0]["counterexample"]
    code, text, _ = cli("prove", saxpy, bug, "--cache-dir", cache)
    assert text.count(", from the cache") == 2 and ":11:5: error: bounds:" in text


def test_options_and_the_kernel_are_part_of_the_key(tmp_path):
    cache = tmp_path / "cache"
    saxpy = copy(SAXPY, tmp_path)
    _json(saxpy, "--cache-dir", cache)
    assert _json(saxpy, "--cache-dir", cache, "--budget", "9")["kernels"][0]["cached"] is False
    assert _json(saxpy, "--cache-dir", cache, "--dim", "64")["kernels"][0]["cached"] is False
    assert _json(saxpy, "--cache-dir", cache, "--block-dim", "32")["kernels"][0]["cached"] is False
    saxpy.write_text(saxpy.read_text().replace("a * x[i] + y[i]", "a * x[i] - y[i]"))
    assert _json(saxpy, "--cache-dir", cache)["kernels"][0]["cached"] is False
    assert len(_entries(cache)) == 5


def test_a_corrupt_entry_is_ignored_and_replaced(tmp_path):
    cache = tmp_path / "cache"
    bug = copy(UNGUARDED, tmp_path)
    fresh = _json(bug, "--cache-dir", cache)
    (entry,) = _entries(cache)
    for garbage in (b"", b"{\"format\": 1, \"key\"", b"\x00\xff" * 40, b"[]", b"null"):
        entry.write_bytes(garbage)
        again = _json(bug, "--cache-dir", cache)
        assert again["kernels"][0]["cached"] is False
        assert differences(_without_cached(fresh), _without_cached(again)) == []
        assert json.loads(entry.read_text())["key"] == entry.stem      # rewritten, valid again


def test_a_tampered_verdict_is_never_trusted(tmp_path):
    cache = tmp_path / "cache"
    bug = copy(UNGUARDED, tmp_path)
    _json(bug, "--cache-dir", cache)
    (entry,) = _entries(cache)
    data = json.loads(entry.read_text())
    data["report"]["status"] = "proved"                  # a false PROVED, checksum not updated
    for ob in data["report"]["obligations"]:
        ob["status"] = "proved"
    entry.write_text(json.dumps(data))
    again = _json(bug, "--cache-dir", cache)
    assert again["kernels"][0]["status"] == "failed" and again["kernels"][0]["cached"] is False


def test_a_foreign_entry_is_ignored(tmp_path):
    cache = tmp_path / "cache"
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    _json(saxpy, "--cache-dir", cache)
    (saxpy_entry,) = _entries(cache)
    _json(bug, "--cache-dir", cache)
    (bug_entry,) = [p for p in _entries(cache) if p != saxpy_entry]
    bug_entry.write_bytes(saxpy_entry.read_bytes())      # another kernel's valid entry at this key
    again = _json(bug, "--cache-dir", cache)
    assert again["kernels"][0]["status"] == "failed" and again["kernels"][0]["cached"] is False


def test_no_cache_and_the_environment_switch_write_nothing(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    saxpy = copy(SAXPY, tmp_path)
    _json(saxpy, "--cache-dir", cache, "--no-cache")
    assert not cache.exists()
    monkeypatch.setenv("VERIKERN_CACHE_DIR", str(cache))
    monkeypatch.setenv("VERIKERN_NO_CACHE", "1")
    _json(saxpy)
    assert not cache.exists()
    monkeypatch.setenv("VERIKERN_NO_CACHE", "0")
    _json(saxpy)
    assert len(_entries(cache)) == 1


def test_errors_and_safety_net_verdicts_are_not_cached():
    from helpers_prove import error_report, obligation, report
    from verikern.proofs.deciding.budget import SAFETY_NET_S
    from verikern.app.cache import cacheable
    from verikern.proofs.obligations import Status

    assert not cacheable(error_report())
    net = obligation(status=Status.UNKNOWN,
                     reason=f"the wall-clock safety net of {SAFETY_NET_S:g} s per check was reached")
    assert not cacheable(report([net]))
    assert cacheable(report([obligation(status=Status.UNKNOWN, reason="the solver budget was exhausted")]))


def test_concurrent_writers_leave_one_valid_entry_and_no_temporary_files(tmp_path):
    from helpers_prove import cex, obligation, report
    from verikern.app.cache import ProofCache
    from verikern.proofs.obligations import Status

    cache = ProofCache(str(tmp_path / "shared"))
    key = "ab" + "0" * 62
    reports = [report([obligation(status=Status.FAILED, counterexample=cex(scalars={"n": n}), confirmed=True,
                                  message=f"m{n}")]) for n in range(8)]
    seen = []

    def work(r):
        for _ in range(25):
            cache.put(key, r)
            got = cache.get(key)
            seen.append(got is not None and got.obligations[0].message.startswith("m"))

    threads = [threading.Thread(target=work, args=(r,)) for r in reports]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(seen)                                     # never a partial entry
    assert [p.name for p in (tmp_path / "shared").rglob("*") if p.is_file()] == [f"{key}.json"]


def test_second_opinions_disagreements_and_engines_survive_the_cache():
    """A disagreement read back from the cache must still fail the run."""
    from helpers_prove import obligation, report
    from verikern.app.cache import report_from_data, report_to_data
    from verikern.proofs.obligations import Status

    ob = obligation(status=Status.FAILED)
    import dataclasses
    ob = dataclasses.replace(ob, cross_checked=("cvc5",), confirmed_by=("simulator", "c"),
                             disagreements=("engines disagree on bounds@3:4#0",),
                             engines=(("z3", "failed"), ("cbmc", "proved")))
    back = report_from_data(json.loads(json.dumps(report_to_data(report([ob])))))
    (got,) = back.obligations
    assert (got.cross_checked, got.confirmed_by, got.disagreements, got.engines) == \
        (ob.cross_checked, ob.confirmed_by, ob.disagreements, ob.engines)


def test_an_entry_keeps_when_and_by_which_versions_its_verdict_was_computed(tmp_path):
    from verikern.app.cache import ProofCache
    from verikern.app.prove import prove_file
    from verikern.proofs.reporting.scope import versions

    cache = ProofCache(str(tmp_path / "cache"))
    saxpy = copy(SAXPY, tmp_path)
    [fresh] = prove_file(str(saxpy), cache=cache)
    assert not fresh.cached and fresh.computed_at is not None and fresh.computed_at.endswith(" UTC")
    v = versions()
    assert dict(fresh.computed_by) == {"verikern": v["verikern"], "z3": v["z3"], "python": v["python"]}
    [entry] = _entries(tmp_path / "cache")
    data = json.loads(entry.read_text())
    assert data["computed"] == {"at": fresh.computed_at, "by": [list(p) for p in fresh.computed_by]}
    # a hit carries the original run's time, not the time it was read
    data["computed"]["at"] = "2001-02-03 04:05:06 UTC"
    entry.write_text(json.dumps(data))
    [hit] = prove_file(str(saxpy), cache=cache)
    assert hit.cached and hit.computed_at == "2001-02-03 04:05:06 UTC" and hit.obligations == fresh.obligations
    # provenance is not a verdict: a malformed one leaves the time unrecorded, the verdict is used
    data["computed"] = {"at": 5}
    entry.write_text(json.dumps(data))
    [hit] = prove_file(str(saxpy), cache=cache)
    assert hit.cached and hit.computed_at is None and hit.status is fresh.status
