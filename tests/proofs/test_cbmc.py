"""CBMC as an engine (proofs.deciding.cbmc, proofs.deciding.engines).

CBMC itself is not on the package registries verikern installs from: the
tests here feed the module CBMC's `--json-ui` format (the `result` array of
property objects with `property`/`description`/`status`/`trace`, trace steps
with `stepType`/`lhs`/`value.data`, the final `cProverStatus`) and check
every decision against hand-computed expectations; the tests at the end run
the real cbmc where it is installed and skip with the reason otherwise.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verikern.app.cache import cacheable
from verikern.frontend import compile_source
from verikern.encoders.c import encode_c
from verikern.proofs.deciding import cbmc, cbmc_answer, cbmc_unwind
from verikern.proofs.deciding.budget import DEFAULT_CHECK_RLIMIT
from verikern.proofs.deciding.session import SolverSession
from verikern.proofs.deciding.engines import combine, parse_engines
from verikern.proofs.obligations import (
    Counterexample, Obligation, ObligationKind, Status, enumerate_obligations, obligation_id,
)
from verikern.proofs.pipeline import prove_mir
from cbmc_helpers import cbmc_on_path  # noqa: F401 (a pytest fixture)

from shared_helpers import CORPUS

OFF_BY_ONE = (CORPUS / "bounds_off_by_one_le.py").read_text()

LOOPS = '''
import verikern as vk

@vk.kernel(block_dim=64)
def fixed_loops(x: vk.array(dtype=vk.float32), n: vk.int32):
    sh = vk.shared.array(shape=(64,), dtype=vk.float32)
    t = vk.thread_idx()
    for k in range(3):
        sh[t] = 0.0
        vk.sync_threads()
    for j in range(0, 10, 4):
        x[0] = 1.0

@vk.kernel
def param_loop(x: vk.array(dtype=vk.float32), n: vk.int32):
    for j in range(n):
        x[0] = 1.0
'''


def kernel(source: str, name: str):
    return compile_source(source, "k.py").kernel(name).mir


def answer(props, status="failure", errors=()):
    """CBMC --json-ui output (a JSON array of message objects)."""
    out = [{"program": "CBMC 6.4.1 (cbmc-6.4.1)"},
           {"messageText": "CBMC version 6.4.1 64-bit x86_64 linux", "messageType": "STATUS-MESSAGE"}]
    out += [{"messageText": e, "messageType": "ERROR"} for e in errors]
    out.append({"result": props})
    out.append({"cProverStatus": status})
    return json.dumps(out)


def prop(name, description, status, trace=None):
    p = {"property": name, "description": description, "status": status}
    if trace is not None:
        p["trace"] = trace
    return p


def assign(lhs, data):
    return {"stepType": "assignment", "lhs": lhs, "hidden": False, "internal": False, "thread": 0,
            "assignmentType": "variable", "mode": "C",
            "value": {"data": str(data), "name": "integer", "type": "int32_t", "width": 32}}


def message_of(spec):
    return f"{obligation_id(spec)} {spec.kind.value} k.py:{spec.loc.line}:{spec.loc.col}"


# ------------------------------------------------------------------ parsing
def test_parse_reads_properties_status_and_errors():
    text = answer([prop("main.assertion.1", "bounds@12:9#0 bounds k.py:12:9", "SUCCESS"),
                   prop("vk_step.unwind.0", "unwinding assertion loop 0", "FAILURE", [])],
                  errors=["conversion error"])
    r = cbmc.parse_json_ui(text)
    assert [(p.name, p.status, p.obligation, p.is_unwinding) for p in r.properties] == [
        ("main.assertion.1", "SUCCESS", "bounds@12:9#0", False),
        ("vk_step.unwind.0", "FAILURE", None, True)]
    assert r.overall == "failure" and r.errors == ("conversion error",)
    with pytest.raises(ValueError):
        cbmc.parse_json_ui('{"not": "a list"}')


def test_race_ids_are_read_with_their_second_access():
    p = cbmc.PropertyResult("x", "race@7:5+9:13 race k.py:7:5", "FAILURE")
    assert p.obligation == "race@7:5+9:13"


# ------------------------------------------------------------------ unwinding
def test_unwinding_depth_is_read_off_each_loop():
    # 3 iterations with a barrier each: 3 + 1 barrier intervals for main's loops, and
    # the loop itself twice per call of vk_step (it returns at the barrier);
    # range(0, 10, 4) runs 3 times (depth 4); range(n) gets the default
    k = kernel(LOOPS, "fixed_loops")
    plan = cbmc_unwind.unwind_plan(k, encode_c(k).loops)
    assert plan.argv() == ["--unwind", "8", "--unwindset",
                           "vk_step.0:2,vk_step.1:4,main.0:4,main.1:4,main.2:4"]
    assert plan.derived
    k = kernel(LOOPS, "param_loop")
    plan = cbmc_unwind.unwind_plan(k, encode_c(k).loops)
    assert ("vk_step.0", cbmc.DEFAULT_UNWIND, False) in plan.depths and not plan.derived


# ------------------------------------------------------------------ decisions
def _specs(k):
    return enumerate_obligations(k)


def test_success_with_unwinding_assertions_holding_is_proved():
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    specs = _specs(k)
    props = [prop(f"main.assertion.{i}", message_of(s), "SUCCESS") for i, s in enumerate(specs)]
    props.append(prop("vk_step.unwind.0", "unwinding assertion loop 0", "SUCCESS"))
    obs = cbmc.decide(k, specs, cbmc.parse_json_ui(answer(props, "success")), 4)
    assert [o.status for o in obs] == [Status.PROVED] * len(specs)
    assert "unwinding assertions hold at --unwind 4" in obs[0].reason


@pytest.mark.parametrize("spoiler, why", [
    (prop("vk_step.unwind.0", "unwinding assertion loop 0", "FAILURE"), "bounded to 4 iterations"),
    (prop("main.pointer_dereference.3", "dereference failure: pointer NULL", "FAILURE"),
     "a check of the C harness itself"),
    (prop("main.assertion.9", "bounds@1:1#0 bounds k.py:1:1", "SUCCESS"), None),
])
def test_success_does_not_stand_beside_a_failed_unwinding_or_harness_check(spoiler, why):
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    specs = _specs(k)
    props = [prop(f"main.assertion.{i}", message_of(s), "SUCCESS") for i, s in enumerate(specs)]
    obs = cbmc.decide(k, specs, cbmc.parse_json_ui(answer(props + [spoiler])), 4)
    if why is None:   # an unrelated passing property changes nothing
        assert all(o.status is Status.PROVED for o in obs)
    else:
        assert all(o.status is Status.UNKNOWN and why in o.reason for o in obs)


@pytest.mark.parametrize("status, overall, errors", [
    ("UNKNOWN", "inconclusive", ()), ("SUCCESS", "error", ("PARSING ERROR",)),
    ("SUCCESS", None, ()), ("NOT CHECKED", "success", ()), ("ERROR", "failure", ())])
def test_anything_but_a_clean_success_is_unknown(status, overall, errors):
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    specs = _specs(k)
    props = [prop(f"main.assertion.{i}", message_of(s), status) for i, s in enumerate(specs)]
    text = json.loads(answer(props, overall or "x", errors))
    if overall is None:
        text = text[:-1]
    obs = cbmc.decide(k, specs, cbmc.parse_json_ui(json.dumps(text)), 4)
    assert all(o.status is Status.UNKNOWN for o in obs)


def test_an_obligation_cbmc_did_not_report_is_unknown():
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    obs = cbmc.decide(k, _specs(k), cbmc.parse_json_ui(answer([], "success")), 4)
    assert all(o.status is Status.UNKNOWN and "no result" in o.reason for o in obs)


def _failing_trace(dim, block_dim, shape):
    return [assign("L.dim[0l]", dim), assign("L.block_dim", block_dim),
            assign("L.g0_x_shape[0]", shape), assign("b1", 0), assign("t1", 0),
            {"stepType": "assignment", "lhs": "has2", "value": {"data": "FALSE", "name": "boolean"}},
            {"stepType": "failure", "property": "vk_step.assertion.1", "reason": "bounds"},
            assign("L.dim[0]", 999)]          # after the failure: ignored


def test_a_failure_trace_becomes_an_abstracted_counterexample():
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    specs = _specs(k)
    cex = cbmc.counterexample_from_trace(k, _failing_trace(3, 2, 0))
    assert (cex.dims, cex.block_dim, cex.threads, cex.shapes) == ((3,), 2, ((0, 0),), {"x": (0,)})
    assert cex.abstracted and cex.facts["engine"] == "cbmc"
    assert specs[0].kind is ObligationKind.BOUNDS
    props = [prop("vk_step.assertion.1", message_of(specs[0]), "FAILURE", _failing_trace(3, 2, 0))]
    ob, race = cbmc.decide(k, specs, cbmc.parse_json_ui(answer(props)), 4)
    assert ob.status is Status.FAILED and ob.counterexample.shapes == {"x": (0,)}
    assert race.status is Status.UNKNOWN      # no answer for it


def test_the_elements_a_trace_read_become_the_counterexamples_array_contents():
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    trace = [assign("vk_read_g0_x_flat", 0), assign("vk_read_g0_x_val", 0),   # static init
             assign("L.dim[0]", 4), assign("L.block_dim", 4), assign("L.g0_x_shape[0]", 3),
             assign("vk_read_g0_x_flat", 2), assign("vk_read_g0_x_val", 7),
             assign("vk_read_g0_x_flat", 9), assign("vk_read_g0_x_val", 5),   # past the shape
             {"stepType": "failure", "property": "p", "reason": "r"},
             assign("vk_read_g0_x_flat", 1), assign("vk_read_g0_x_val", 8)]
    cex = cbmc.counterexample_from_trace(k, trace)
    assert cex.shapes == {"x": (3,)} and cex.arrays == {"x": {0: 0, 2: 7}}


def _fake_runner(k, status_of, trace=()):
    """A stand-in for the cbmc process: checks the command line, answers
    `status_of(spec)` for each obligation (with `trace` on failures)."""
    def run(argv):
        # no loop in the kernel: main's barrier-interval loops run once (depth 2)
        assert argv[2:] == ["--unwind", "8", "--unwindset", "main.0:2,main.1:2,main.2:2",
                            "--unwinding-assertions", "--cvc5", "--json-ui", "--trace"]
        assert "__CPROVER_assert" in Path(argv[1]).read_text()
        props = [prop(f"vk_step.assertion.{i}", message_of(s), status_of(s),
                      list(trace) if status_of(s) == "FAILURE" else None)
                 for i, s in enumerate(enumerate_obligations(k))]
        overall = "failure" if any(p["status"] == "FAILURE" for p in props) else "success"

        class Done:
            returncode, stdout, stderr = 10 if overall == "failure" else 0, answer(props, overall), ""
        return Done()
    return run


@pytest.mark.usefixtures("cbmc_on_path")
def test_a_cbmc_failure_is_confirmed_by_replay_through_the_pipeline():
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    bounds = lambda s: "FAILURE" if s.kind is ObligationKind.BOUNDS else "SUCCESS"  # noqa: E731
    run = _fake_runner(k, bounds, _failing_trace(1, 1, 0))
    rep = prove_mir(k, file="k.py", prover=lambda kk, **kw: cbmc.prove_kernel_cbmc(kk, runner=run, **kw))
    ob, race = rep.obligations
    assert ob.status is Status.FAILED and ob.confirmed is True
    assert race.status is Status.PROVED


GATHER = '''
import verikern as vk

@vk.kernel
def gather_off_by_one(idx: vk.array(dtype=vk.int32), x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < idx.shape[0]:
        j = idx[i]
        if j <= x.shape[0]:
            x[j] = 0.0
'''


@pytest.mark.usefixtures("cbmc_on_path")
def test_an_unconfirmed_cbmc_failure_is_unknown_never_failed():
    # x[j]'s index is a load: CBMC reads memory as unknown values, so the
    # kernel's traces are an abstraction's (exact_traces is per kernel)
    k = kernel(GATHER, "gather_off_by_one")
    assert not cbmc_answer.exact_traces(k)
    trace = [assign("L.dim[0]", 1), assign("L.block_dim", 1), assign("L.g0_idx_shape[0]", 0),
             assign("L.g1_x_shape[0]", 4), assign("b1", 0), assign("t1", 0),
             {"stepType": "failure", "property": "vk_step.assertion.1", "reason": "bounds"}]
    bounds = lambda s: "FAILURE" if s.kind is ObligationKind.BOUNDS else "SUCCESS"  # noqa: E731
    run = _fake_runner(k, bounds, trace)
    obs = prove_mir(k, file="k.py",
                    prover=lambda kk, **kw: cbmc.prove_kernel_cbmc(kk, runner=run, **kw)).obligations
    # idx[i] (guarded by i < idx.shape[0]) cannot fail: the trace's failure stays unknown
    ob = obs[0]
    assert ob.kind is ObligationKind.BOUNDS and ob.loc.line == 8
    assert ob.status is Status.UNKNOWN and ob.confirmed is False
    assert "not confirmed by replay" in ob.reason


@pytest.mark.usefixtures("cbmc_on_path")
def test_an_exact_cbmc_failure_replay_cannot_confirm_stays_failed():
    # zero_off_by_one's checks read no memory and no float: CBMC's trace fixes
    # them (launch, threads, shapes), as an exact z3 model does; a failure the
    # simulator cannot confirm stays failed, marked unconfirmed
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    assert cbmc_answer.exact_traces(k)
    bounds = lambda s: "FAILURE" if s.kind is ObligationKind.BOUNDS else "SUCCESS"  # noqa: E731
    run = _fake_runner(k, bounds, _failing_trace(1, 1, 4))
    ob = prove_mir(k, file="k.py",
                   prover=lambda kk, **kw: cbmc.prove_kernel_cbmc(kk, runner=run, **kw)).obligations[0]
    assert ob.status is Status.FAILED and ob.confirmed is False
    assert not ob.counterexample.abstracted and "not confirmed by replay" in ob.reason


@pytest.mark.parametrize("source, name, exact", [
    (OFF_BY_ONE, "zero_off_by_one", True),
    (GATHER, "gather_off_by_one", False),           # an index read from memory
    ('''
import verikern as vk

@vk.kernel
def ticket(x: vk.array(dtype=vk.float32), n: vk.array(dtype=vk.int32)):
    slot = vk.atomic_add(n, 0, 1)
    x[slot] = 1.0
''', "ticket", False),                            # an index from an atomic's old value
    ('''
import verikern as vk

@vk.kernel
def scaled(x: vk.array(dtype=vk.float32), s: vk.float32):
    i = vk.int32(vk.float32(vk.tid()) * s)
    x[i] = 1.0
''', "scaled", False),                            # an index computed in floats
])
def test_a_trace_is_exact_only_when_no_check_reads_memory_or_floats(source, name, exact):
    assert cbmc_answer.exact_traces(kernel(source, name)) is exact


def test_a_missing_cbmc_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("VERIKERN_CBMC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(cbmc.CbmcMissing, match="apt-get install cbmc"):
        cbmc.find_cbmc()


# ------------------------------------------------------------------ two engines
def _ob(status, confirmed=None):
    from verikern.mir.nodes import SourceLoc
    cex = Counterexample((1,), 1, ((0, 0),)) if status is Status.FAILED else None
    return Obligation(ObligationKind.BOUNDS, SourceLoc("k.py", 12, 9), status, "m", cex, confirmed)


@pytest.mark.parametrize("z3, other, verdict, flagged", [
    (Status.PROVED, Status.PROVED, Status.PROVED, False),
    (Status.PROVED, Status.UNKNOWN, Status.PROVED, False),
    (Status.UNKNOWN, Status.PROVED, Status.PROVED, False),
    (Status.FAILED, Status.UNKNOWN, Status.FAILED, False),
    (Status.PROVED, Status.FAILED, Status.UNKNOWN, True),     # unconfirmed failure vs proof
    (Status.FAILED, Status.PROVED, Status.UNKNOWN, True),
])
def test_combining_two_engines(z3, other, verdict, flagged):
    (ob,) = combine([_ob(z3)], [_ob(other)])
    assert ob.status is verdict
    assert bool(ob.disagreements) is flagged
    assert dict(ob.engines) == {"z3": z3.value, "cbmc": other.value}


def test_a_confirmed_failure_wins_a_disagreement_and_is_flagged():
    (ob,) = combine([_ob(Status.PROVED)], [_ob(Status.FAILED, confirmed=True)])
    assert ob.status is Status.FAILED and ob.confirmed
    assert "z3 proved it, cbmc found a confirmed counterexample" in ob.disagreements[0]
    assert ob.to_json()["engines"] == {"z3": "proved", "cbmc": "failed"}


def test_engine_names_are_checked():
    assert parse_engines("z3,cbmc") == ("z3", "cbmc") and parse_engines(None) == ("z3",)
    with pytest.raises(ValueError, match="choose z3, cbmc or z3,cbmc"):
        parse_engines("z3,boogie")


# (the real CBMC's agreement with z3 on corpus kernels: tests/proofs/test_cbmc_real.py)


# ------------------------------------------------------------------ the command line
FAKE_CBMC = '''#!{python}
"""A stand-in for cbmc: answers SUCCESS for every verikern assert in the C file."""
import json, re, sys
text = open(sys.argv[1]).read()
assert "--unwinding-assertions" in sys.argv and "--json-ui" in sys.argv
ids = sorted(set(re.findall(r'"([a-z-]+@[0-9]+:[0-9]+(?:#[0-9]+)?(?:[+][0-9]+:[0-9]+)? [^"]*)"', text)))
props = [dict(property="vk_step.assertion.%d" % i, description=d, status="SUCCESS")
         for i, d in enumerate(ids)]
props.append(dict(property="main.unwind.0", description="unwinding assertion loop 0", status="SUCCESS"))
print(json.dumps([{{"program": "CBMC 6.4.1"}}, {{"result": props}}, {{"cProverStatus": "success"}}]))
'''


@pytest.fixture
def fake_cbmc(tmp_path, monkeypatch):
    exe = tmp_path / "bin" / "cbmc"
    exe.parent.mkdir()
    exe.write_text(FAKE_CBMC.format(python=sys.executable))
    exe.chmod(0o755)
    monkeypatch.delenv("VERIKERN_CBMC", raising=False)
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VERIKERN_NO_CACHE", "1")
    return exe


def _prove(*args):
    from click.testing import CliRunner

    from verikern.cli import main
    return CliRunner().invoke(main, ["prove", *args, "--format", "json", "--no-suggest"])


def test_engine_cbmc_from_the_command_line(fake_cbmc):
    r = _prove(str(CORPUS / "ok_saxpy_guarded.py"), "--engine", "cbmc")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    obs = [o for k in data["kernels"] for o in k["obligations"]]
    assert obs and all(o["status"] == "proved" and "proved by CBMC" in o["reason"] for o in obs)


def test_both_engines_agreeing_are_recorded(fake_cbmc):
    r = _prove(str(CORPUS / "ok_saxpy_guarded.py"), "--engine", "z3,cbmc")
    assert r.exit_code == 0, r.output
    obs = [o for k in json.loads(r.stdout)["kernels"] for o in k["obligations"]]
    assert all(o["engines"] == {"z3": "proved", "cbmc": "proved"} for o in obs)


def test_an_engine_disagreement_fails_the_run(fake_cbmc):
    # the fake CBMC "proves" a real bug that z3 finds and replay confirms
    r = _prove(str(CORPUS / "bounds_off_by_one_le.py"), "--engine", "z3,cbmc")
    assert r.exit_code == 3, r.output
    assert "disagreement" in r.stderr
    (kernel,) = json.loads(r.stdout)["kernels"]
    bounds = next(o for o in kernel["obligations"] if o["kind"] == "bounds")
    assert bounds["status"] == "failed" and bounds["engines"] == {"z3": "failed", "cbmc": "proved"}
    assert "engines disagree" in bounds["disagreements"][0]


def test_a_missing_cbmc_is_an_input_error(monkeypatch, tmp_path):
    monkeypatch.delenv("VERIKERN_CBMC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    r = _prove(str(CORPUS / "ok_saxpy_guarded.py"), "--engine", "cbmc")
    assert r.exit_code == 3 and "apt-get install cbmc" in r.output


# ------------------------------------------------------------------ what makes CBMC fast
FLOATS = '''
import verikern as vk

@vk.kernel
def floats(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    i = vk.tid()
    if i < x.shape[0] and i < y.shape[0]:
        s = a * x[i]
        t = x[i] + 1.0
        if t > 2.0:
            y[i] = s
'''


def test_only_floats_that_reach_no_condition_are_havocked_and_tid_is_the_shared_id():
    from verikern.encoders.c import emit_c
    from verikern.encoders.c.emitter import relevant_values
    k = kernel(FLOATS, "floats")
    text = emit_c(k)
    floats = [i for _, i in k.instructions() if getattr(i, "result", None) is not None
              and i.result.type.is_float and i.OPCODE == "binop"]
    s, t = floats                      # a * x[i] only reaches memory; x[i] + 1.0 a branch
    assert s.result.id not in relevant_values(k) and t.result.id in relevant_values(k)
    assert f"T->v{s.result.id} = VK_HAVOC_FLOAT(nondet_float, " in text
    assert f"T->v{t.result.id} = ((float)(" in text
    assert text.count("= T->gid;") == 1 and "th1.gid = (int32_t)g1;" in text


# ------------------------------------------------------------------ work, not seconds
def test_each_cbmc_solver_call_gets_z3_resource_units_from_the_budget():
    assert cbmc.sat_rlimit(None) == cbmc.CALL_CHECKS * DEFAULT_CHECK_RLIMIT
    assert cbmc.sat_rlimit(2.0) == cbmc.CALL_CHECKS * 2_000_000
    assert cbmc.sat_rlimit(SolverSession(per_check=3_000_000)) == cbmc.CALL_CHECKS * 3_000_000


# a pigeonhole instance (6 pigeons, 5 holes): unsat, and z3 needs real work for it
PIGEONS = "\n".join(
    ["(set-logic QF_UF)"]
    + [f"(declare-const p{i}_{h} Bool)" for i in range(6) for h in range(5)]
    + [f"(assert (or {' '.join(f'p{i}_{h}' for h in range(5))}))" for i in range(6)]
    + [f"(assert (not (and p{i}_{h} p{j}_{h})))" for h in range(5) for i in range(6)
       for j in range(i + 1, 6)]
    + ["(check-sat)"])


def test_the_solver_wrapper_bounds_z3_by_units(tmp_path):
    problem = tmp_path / "p.smt2"
    problem.write_text(PIGEONS)
    answers = {}
    for units in (2_000, 50_000_000):
        folder = tmp_path / str(units)
        folder.mkdir()
        wrappers = cbmc.solver_wrapper(folder, cbmc.find_z3(), units)
        # what CBMC's --cvc5 / --cvc4 run from PATH (solver_env), with their arguments
        assert sorted(w.name for w in wrappers) == ["cvc4", "cvc5"]
        assert cbmc.solver_env(folder)["PATH"].split(os.pathsep)[0] == str(folder)
        done = subprocess.run(["cvc5", "--lang", "smtlib", str(problem)], capture_output=True,
                              text=True, env=cbmc.solver_env(folder), timeout=120, check=False)
        answers[units] = done.stdout.split()[0]
    assert answers == {2_000: "unknown", 50_000_000: "unsat"}


def test_a_cbmc_run_out_of_units_is_unknown_and_says_why():
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    specs = enumerate_obligations(k)
    props = [dict(property=f"vk_step.assertion.{i}", description=message_of(s), status="ERROR")
             for i, s in enumerate(specs)]
    text = json.dumps([{"program": "CBMC 6.6.0"},
                       {"messageText": 'SMT2 solver returned "unknown"', "messageType": "ERROR"},
                       {"result": props}, {"cProverStatus": "error"}])
    obs = cbmc.decide(k, specs, cbmc.parse_json_ui(text), 2, rlimit=100_000_000)
    assert {o.status for o in obs} == {Status.UNKNOWN}
    assert all("out of CBMC's work budget" in o.reason and "100 million resource units" in o.reason
               for o in obs)


@pytest.mark.usefixtures("cbmc_on_path")
def test_the_wall_clock_safety_net_is_unknown_and_never_cached():
    k = kernel(OFF_BY_ONE, "zero_off_by_one")

    def stalls(argv):
        raise subprocess.TimeoutExpired(argv, 300)
    rep = prove_mir(k, file="k.py", prover=lambda kk, **kw: cbmc.prove_kernel_cbmc(kk, runner=stalls, **kw))
    assert rep.obligations and {o.status for o in rep.obligations} == {Status.UNKNOWN}
    assert all("wall-clock safety net" in o.reason for o in rep.obligations)
    assert not cacheable(rep)


@pytest.mark.usefixtures("cbmc_on_path")
def test_a_launch_the_kernel_cannot_take_decides_nothing():
    # ok_reduce_tree has barriers: 129 threads in blocks of 128 is no launch; the
    # harness would assume it (an empty set of executions) and prove every check
    path = CORPUS / "ok_reduce_tree.py"
    k = compile_source(path.read_text(), path.name).kernels[0].mir

    def never(argv):
        raise AssertionError("cbmc must not run on a bad launch")
    obs = cbmc.prove_kernel_cbmc(k, dims=(129,), runner=never)
    assert obs and all(o.status is Status.UNKNOWN for o in obs)
    assert all("bad launch" in o.reason and "multiple of block_dim" in o.reason for o in obs)
    assert all(o.status is Status.UNKNOWN for o in cbmc.prove_kernel_cbmc(k, dims=(0,), runner=never))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_the_cpu_of_a_solver_the_safety_net_killed_is_counted(tmp_path, monkeypatch):
    """A stand-in cbmc whose "solver" child burns CPU past the safety net:
    the child is never waited for (its parent dies with it), so
    RUSAGE_CHILDREN misses its CPU; killed_cpu_seconds has it (the
    benchmark's CPU figure adds it)."""
    exe = tmp_path / "cbmc"
    exe.write_text(f"#!/bin/sh\n{sys.executable} -c 'while True: pass' &\nwait\n")
    exe.chmod(0o755)
    monkeypatch.setattr(cbmc.budget_limits, "SAFETY_NET_S", 1.5)
    before = cbmc.killed_cpu_seconds()
    with pytest.raises(subprocess.TimeoutExpired):
        cbmc._run([str(exe)])
    burnt = cbmc.killed_cpu_seconds() - before
    assert 0.2 < burnt <= 1.6, burnt       # at most its wall time, on a loaded machine less


def test_past_the_safety_net_cbmcs_solver_is_killed_too(tmp_path, monkeypatch):
    # a stand-in cbmc that starts a long "solver" child and waits for it
    marker = tmp_path / "solver.pid"
    exe = tmp_path / "cbmc"
    exe.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {marker}\nwait\n")
    exe.chmod(0o755)
    monkeypatch.setattr(cbmc.budget_limits, "SAFETY_NET_S", 1.0)
    with pytest.raises(subprocess.TimeoutExpired):
        cbmc._run([str(exe)])
    pid = int(marker.read_text())
    for _ in range(50):       # the kill is sent; the child may take a moment to go
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        raise AssertionError("the solver outlived the safety net")


def test_a_kernel_functions_own_t1_is_not_the_launchs_thread():
    """The C encoding names a kernel function's temporaries t1, t2, ... like the
    harness's thread variables: only `main`'s assignments say which thread
    failed. Before, a float temporary assigned after the harness's `t1` (NaN
    for an unassigned read) became the thread index (ValueError: NaN)."""
    def at(step, function):
        return {**step, "sourceLocation": {"file": "k.c", "function": function, "line": "1"}}
    k = kernel(OFF_BY_ONE, "zero_off_by_one")
    trace = [at(assign("L.dim[0l]", 3), "main"), at(assign("L.block_dim", 2), "main"),
             at(assign("b1", 1), "main"), at(assign("t1", 1), "main"),
             at(assign("t1", 5), "vk_step_0"),
             at({"stepType": "assignment", "lhs": "t1",
                 "value": {"data": "NaN", "name": "float"}}, "vk_step_0"),
             at(assign("L.block_dim", 7), "vk_run_thread"),
             {"stepType": "failure", "property": "vk_step.assertion.1", "reason": "bounds"}]
    cex = cbmc.counterexample_from_trace(k, trace)
    assert (cex.dims, cex.block_dim, cex.threads) == ((3,), 2, ((1, 1),))
