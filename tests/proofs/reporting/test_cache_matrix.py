"""The proof cache's matrix: what must miss an entry written by another run
and what may hit it (verikern/app/cache.py's key).

Each MUST_MISS case changes one thing that can change a report (an option,
an engine, a deciding tool or its version, the kernel, verikern's or z3's
version); it must not be answered by the entry a plain run wrote, and a run
of the case must not write under the plain run's key either (the plain run
afterwards still hits its own entry, which holds no second opinion). Each
MAY_HIT case changes only how results are shown or run; it reads the plain
entry. An SMT dump is never answered from the cache at all.
"""
from __future__ import annotations

import functools
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import z3

from helpers_report import SAXPY, UNGUARDED
from verikern.app import cache as cache_module
from verikern.app.cache import ProofCache
from verikern.app.prove import prove_file
from verikern.proofs.deciding import crosscheck
from verikern.proofs.obligations import KernelStatus

FAKE_CBMC = '''#!{python}
"""A stand-in for cbmc {version}: SUCCESS for every verikern assert in the C file."""
import json, re, sys
if sys.argv[1:] == ["--version"]:
    print("{version}")
    sys.exit(0)
text = open(sys.argv[1]).read()
ids = sorted(set(re.findall(r'"([a-z-]+@[0-9]+:[0-9]+(?:#[0-9]+)?(?:[+][0-9]+:[0-9]+)? [^"]*)"', text)))
props = [dict(property="vk_step.assertion.%d" % i, description=d, status="SUCCESS")
         for i, d in enumerate(ids)]
print(json.dumps([{{"program": "CBMC {version}"}}, {{"result": props}}, {{"cProverStatus": "success"}}]))
'''


def _fake_cbmc(folder: Path, version: str) -> Path:
    exe = folder / "cbmc"
    folder.mkdir(parents=True, exist_ok=True)
    exe.write_text(FAKE_CBMC.format(python=sys.executable, version=version))
    exe.chmod(0o755)
    return exe


def _prove(path, cache, **options):
    (report,) = prove_file(str(path), cache=cache, **options)
    assert report.status is not KernelStatus.ERROR, report.error
    return report


def _verdicts(report):
    return [(ob.kind, ob.loc, ob.status, ob.message, ob.counterexample) for ob in report.obligations]


def _plain(kernel):
    return SAXPY if kernel == "saxpy" else UNGUARDED


# name, kernel, the run's options, what else it changes (monkeypatch, tmp_path)
MUST_MISS = [
    ("budget", "saxpy", {"budget": 9.0}, None),
    ("dims", "saxpy", {"dims": 64}, None),
    ("block_dim", "saxpy", {"block_dim": 32}, None),
    ("max_array_bytes", "saxpy", {"max_array_bytes": 1 << 30}, None),
    ("no_replay", "unguarded", {"replay": False}, None),
    ("suggest", "unguarded", {"suggest": True}, None),
    ("engine_cbmc", "saxpy", {"engine": "cbmc"}, "cbmc 6.4.1"),
    ("engines_z3_cbmc", "saxpy", {"engine": "z3,cbmc"}, "cbmc 6.4.1"),
    ("cbmc_unwind", "saxpy", {"engine": "cbmc", "unwind": 3}, "cbmc 6.4.1"),
    ("cross_check_cvc5", "saxpy", {"cross_check": "cvc5"}, None),
    ("cross_check_bitwuzla", "saxpy", {"cross_check": "bitwuzla"}, None),
    ("cvc5_version", "saxpy", {"cross_check": "cvc5"}, "cvc5 version"),
    ("verikern_version", "saxpy", {}, "verikern version"),
    ("z3_version", "saxpy", {}, "z3 version"),
    ("verikern_code", "saxpy", {}, "code hash"),
]


def _change(what, monkeypatch, tmp_path):
    """Apply a MUST_MISS case's change of the world (None: only the options)."""
    if what is None:
        return
    if what.startswith("cbmc "):
        exe = _fake_cbmc(tmp_path / "bin", what.split()[1])
        monkeypatch.setenv("VERIKERN_CBMC", str(exe))
    elif what == "cvc5 version":
        real = crosscheck.version
        monkeypatch.setattr(crosscheck, "version", lambda name: f"{real(name)}-patched")
    elif what == "verikern version":
        monkeypatch.setattr(cache_module, "__version__", "99.0.0")
    elif what == "z3 version":
        monkeypatch.setattr(z3, "get_version_string", lambda: "99.0.0")
    elif what == "code hash":
        monkeypatch.setattr(cache_module, "code_hash", lambda: "0" * 64)


def _solver_available(options: dict) -> None:
    name = options.get("cross_check")
    if name and crosscheck.unavailable(name) is not None:
        pytest.skip(crosscheck.unavailable(name))


@functools.cache
def _plain_run(kernel) -> tuple:
    """A plain run of `kernel` into an empty cache: its report (not from the cache) and the
    entries it wrote (path in the cache folder -> bytes), run once for every MUST_MISS case of
    the kernel, each of which starts from a copy of those entries."""
    with tempfile.TemporaryDirectory() as folder:
        plain = _prove(_plain(kernel), ProofCache(folder))
        assert not plain.cached
        entries = {p.relative_to(folder): p.read_bytes() for p in Path(folder).rglob("*") if p.is_file()}
    assert entries, "the plain run wrote no entry"
    return plain, entries


@pytest.mark.parametrize("name, kernel, options, what", MUST_MISS, ids=[c[0] for c in MUST_MISS])
def test_a_change_that_can_change_the_report_misses_the_plain_entry(
        name, kernel, options, what, tmp_path, monkeypatch):
    _solver_available(options)
    plain, entries = _plain_run(kernel)
    for rel, data in entries.items():           # the plain run's entries, as it left them
        (tmp_path / "cache" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "cache" / rel).write_bytes(data)
    cache = ProofCache(str(tmp_path / "cache"))
    with monkeypatch.context() as patched:
        _change(what, patched, tmp_path)
        changed = _prove(_plain(kernel), cache, **options)
        assert not changed.cached, f"{name}: answered from the plain run's entry"
        again = _prove(_plain(kernel), cache, **options)
        assert again.cached, f"{name}: its own entry is not read back"
        if "cross_check" in options:         # the second opinion comes back with the entry
            assert all(options["cross_check"] in ob.cross_checked for ob in again.obligations), name
    after = _prove(_plain(kernel), cache)    # the changed run wrote under its own key only
    assert after.cached and _verdicts(after) == _verdicts(plain)
    assert all(not ob.cross_checked and not ob.engines for ob in after.obligations)


@pytest.mark.parametrize("first", [{"cross_check": "cvc5"}, {}])
def test_a_cross_check_is_never_answered_by_a_plain_entry_either_way(first, tmp_path):
    """`--cross-check cvc5 --cache-dir DIR` after a plain run runs cvc5; a
    plain run after a cross-checked one reads no second opinion it did not ask for."""
    _solver_available({"cross_check": "cvc5"})
    cache = ProofCache(str(tmp_path / "cache"))
    _prove(UNGUARDED, cache, **first)
    then = {} if first else {"cross_check": "cvc5"}
    second = _prove(UNGUARDED, cache, **then)
    assert not second.cached
    asked = bool(then)
    assert any(ob.cross_checked for ob in second.obligations) is asked


def test_an_smt_dump_is_never_answered_from_the_cache(tmp_path):
    cache = ProofCache(str(tmp_path / "cache"))
    _prove(SAXPY, cache)
    dump = tmp_path / "dump"
    dump.mkdir()
    for _ in range(2):                      # the plain entry, then the dump run's own write
        shutil.rmtree(dump)
        dump.mkdir()
        report = _prove(SAXPY, cache, dump_smt=str(dump))
        assert not report.cached
        assert sorted(dump.glob("*.smt2")), "no query was dumped"


def test_a_replaced_cbmc_binary_misses(tmp_path, monkeypatch):
    """Same path, other bytes (an upgrade in place): another entry."""
    cache = ProofCache(str(tmp_path / "cache"))
    exe = _fake_cbmc(tmp_path / "bin", "6.4.1")
    monkeypatch.setenv("VERIKERN_CBMC", str(exe))
    assert not _prove(SAXPY, cache, engine="cbmc").cached
    assert _prove(SAXPY, cache, engine="cbmc").cached
    _fake_cbmc(tmp_path / "bin", "6.5.0")
    assert not _prove(SAXPY, cache, engine="cbmc").cached


# options that only change how a result is shown or run: the plain entry answers
MAY_HIT = [
    ("text", ()),
    ("short", ("--format", "short")),
    ("json", ("--format", "json")),
    ("sarif", ("--format", "sarif")),
    ("fail_on", ("--fail-on", "failed")),
    ("verbose", ("-v",)),
    ("jobs", ("--jobs", "2")),
]


@pytest.mark.parametrize("name, args", MAY_HIT, ids=[c[0] for c in MAY_HIT])
def test_a_change_of_presentation_may_hit(name, args, tmp_path):
    from helpers_report import cli, copy

    cache = tmp_path / "cache"
    saxpy, bug = copy(SAXPY, tmp_path), copy(UNGUARDED, tmp_path)
    cli("prove", saxpy, bug, "--cache-dir", cache)
    entries = sorted(cache.rglob("*.json"))
    code, out, err = cli("prove", saxpy, bug, "--cache-dir", cache, *args)
    assert code == 1, err
    assert sorted(cache.rglob("*.json")) == entries           # nothing new was proved
    if name in ("text", "fail_on", "verbose", "jobs"):
        assert out.count(", from the cache") == 2
    if name == "json":
        assert '"cached": true' in out and '"cached": false' not in out


def test_the_key_names_the_deciding_tools(monkeypatch, tmp_path):
    """tool_fields: nothing for a plain z3 run; the second solver with its
    version; CBMC's path, sha256 and version when it is an engine."""
    assert cache_module.tool_fields("z3") == {}
    assert cache_module.tool_fields("z3", "cvc5")["cross_check"][0] == "cvc5"
    exe = _fake_cbmc(tmp_path / "bin", "6.4.1")
    monkeypatch.setenv("VERIKERN_CBMC", str(exe))
    fields = cache_module.tool_fields("z3,cbmc")["cbmc"]
    assert fields["path"] == str(exe.resolve()) and fields["version"] == "6.4.1"
    assert len(fields["sha256"]) == 64
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    monkeypatch.setenv("VERIKERN_CBMC", str(tmp_path / "nowhere" / "cbmc"))
    assert "missing" in cache_module.tool_fields("cbmc")["cbmc"]


def test_the_command_line_cross_check_and_dump_with_a_cache_dir(tmp_path, monkeypatch):
    """The issue's cases as typed: `--cross-check cvc5 --cache-dir DIR` after a
    plain run asks cvc5 (every verdict cross-checked, nothing from the cache);
    `--dump-smt D --cache-dir DIR` dumps the queries."""
    import json

    from helpers_report import cli, copy

    _solver_available({"cross_check": "cvc5"})
    cache = tmp_path / "cache"
    saxpy = copy(SAXPY, tmp_path)
    code, out, _ = cli("prove", saxpy, "--cache-dir", cache, "--format", "json")
    assert code == 0
    code, out, _ = cli("prove", saxpy, "--cache-dir", cache, "--format", "json", "--cross-check", "cvc5")
    assert code == 0
    (kernel,) = json.loads(out)["kernels"]
    assert "cvc5" in json.loads(out)["versions"]       # the report names the second solver
    assert kernel["cached"] is False
    assert all(o.get("cross_checked_by") == ["cvc5"] for o in kernel["obligations"]), kernel
    dump = tmp_path / "dump"
    code, out, _ = cli("prove", saxpy, "--cache-dir", cache, "--format", "json", "--dump-smt", dump)
    assert code == 0 and json.loads(out)["kernels"][0]["cached"] is False
    assert sorted(dump.glob("*.smt2"))
