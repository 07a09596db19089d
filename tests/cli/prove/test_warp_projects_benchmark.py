"""benchmarks/warp_projects.py on a tiny fake wheel written here (never a
download): the wheel found in the cache by name and version, unpacked in
place, module-level kernels outside tests found, sharding by file, the CLI's
JSON records combined per kernel (generic instances, file-level errors),
causes grouped, and the report's counts and times."""
from __future__ import annotations

import json
import zipfile

import pytest

from shared_helpers import BENCHMARKS, import_file

KERNELS = '''import warp as wp


@wp.kernel
def fill(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = 1.0


@wp.kernel(enable_backward=False)
def inc(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def make():
    @wp.kernel
    def nested(a: wp.array(dtype=wp.float32)):
        a[0] = 0.0
    return nested
'''

# a project's own decorator around wp.kernel (warp-simdata's `@simdata.kernel`)
WRAPPED = ("import warp as wp\nimport fakepkg as project\n\n\n@project.kernel\n"
           "def wrapped(a: wp.array(dtype=float)):\n    a[0] = 0.0\n")

TEST_MODULE = "import warp as wp\n\n\n@wp.kernel\ndef in_a_test(a: wp.array(dtype=float)):\n    a[0] = 1.0\n"


@pytest.fixture(scope="module")
def bench():
    return import_file(BENCHMARKS / "warp_projects.py", "warp_projects", keep=False)


def _fake_wheel(folder):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "fake_kernels-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("fakepkg/__init__.py", "")
        zf.writestr("fakepkg/kern.py", KERNELS)
        zf.writestr("fakepkg/wrapped.py", WRAPPED)
        zf.writestr("fakepkg/tests/__init__.py", "")
        zf.writestr("fakepkg/tests/kernels.py", TEST_MODULE)
        zf.writestr("fakepkg/test_more.py", TEST_MODULE)
        zf.writestr("fake_kernels-1.0.dist-info/METADATA", "Name: fake-kernels\nVersion: 1.0\n")
    return path


def test_the_cached_wheel_is_unpacked_in_place_and_its_module_kernels_found(bench, tmp_path):
    wheel = _fake_wheel(tmp_path / "wheels")
    assert bench.cached_wheel("fake-kernels==1.0", tmp_path / "wheels") == wheel
    assert bench.cached_wheel("Fake.Kernels==1.0", tmp_path / "wheels") == wheel
    assert bench.cached_wheel("fake-kernels==2.0", tmp_path / "wheels") is None
    assert bench.download("fake-kernels==1.0", tmp_path / "wheels") == wheel   # no pip: cached
    root = bench.unpack(wheel, tmp_path / "src")
    assert root == tmp_path / "src" / "fake_kernels-1.0-py3-none-any"
    assert bench.unpack(wheel, tmp_path / "src") == root          # once
    sites = bench.find_kernels("fake-kernels==1.0", root)
    assert [(s.file, s.line, s.name) for s in sites] == [("fakepkg/kern.py", 5, "fill"),
                                                         ("fakepkg/kern.py", 12, "inc"),
                                                         ("fakepkg/wrapped.py", 6, "wrapped")]


def _site(bench, file, name, line=1):
    return bench.KernelSite("p==1", "/r", file, line, name)


def test_tasks_keep_one_file_and_at_most_chunk_kernels(bench):
    sites = [_site(bench, "a.py", "k1"), _site(bench, "a.py", "k2"), _site(bench, "a.py", "k3"),
             _site(bench, "b.py", "k4")]
    tasks = bench.shard(sites, 2)
    assert [[s.name for s in t.sites] for t in tasks] == [["k1", "k2"], ["k3"], ["k4"]]
    assert bench.sample(sites, None, 2) == [sites[0], sites[2]]
    other = [bench.KernelSite("q==2", "/r", "c.py", 1, f"q{n}") for n in range(3)]
    mixed = bench.interleave(bench.shard(sites + other, 2))
    assert [[s.name for s in t.sites] for t in mixed] == [["k1", "k2"], ["q0", "q1"], ["k3"], ["q2"], ["k4"]]
    assert bench.sample(sites, 3, None) == sites[:3]


def test_skip_sample_leaves_out_exactly_the_first_samples_kernels(bench):
    sites = [_site(bench, "a.py", f"k{n}", n) for n in range(10)]
    first = bench.sample(sites, None, 3)                  # k0, k3, k6
    second = bench.skip_sample(bench.sample(sites, None, 5), sites, 3)
    assert [s.name for s in first] == ["k0", "k3", "k6"]
    assert [s.name for s in second] == ["k2", "k4", "k8"]  # of k0, k2, k4, k6, k8
    assert not {s.name for s in first} & {s.name for s in second}
    assert bench.skip_sample(first, sites, None) == first


def test_compiled_in_keeps_the_kernels_a_compile_only_run_compiled(bench):
    sites = [_site(bench, "a.py", "k1", 3), _site(bench, "a.py", "k2", 9), _site(bench, "b.py", "k3")]
    rows = [{"project": "p==1", "file": "a.py", "line": 9, "kernel": "k2", "outcome": "compiled"},
            {"project": "p==1", "file": "a.py", "line": 3, "kernel": "k1", "outcome": "unknown"},
            {"project": "p==1", "file": "b.py", "line": 1, "kernel": "k3", "outcome": "compiled"},
            {"project": "p==1", "file": "b.py", "line": 7, "kernel": "k3", "outcome": "compiled"}]
    assert bench.compiled_sites(sites, rows) == [sites[1], sites[2]]


def test_with_mir_in_adds_generic_kernels_some_instance_of_which_compiled(bench):
    """--with-mir-in draws from the set the compile rate counts: `compiled` rows plus
    `unknown` rows with compiled_instances > 0; not an unknown row none of whose instances
    compiled, an error, or an unknown row of an older file (no compiled_instances)."""
    sites = [_site(bench, "a.py", f"k{n}", n) for n in range(6)]
    rows = [{"project": "p==1", "file": "a.py", "line": 0, "kernel": "k0", "outcome": "compiled",
             "compiled_instances": 1},
            {"project": "p==1", "file": "a.py", "line": 1, "kernel": "k1", "outcome": "unknown",
             "compiled_instances": 2},
            {"project": "p==1", "file": "a.py", "line": 2, "kernel": "k2", "outcome": "unknown",
             "compiled_instances": 0},
            {"project": "p==1", "file": "a.py", "line": 3, "kernel": "k3", "outcome": "unknown"},
            {"project": "p==1", "file": "a.py", "line": 4, "kernel": "k4", "outcome": "error",
             "compiled_instances": 1},
            {"project": "p==1", "file": "a.py", "line": 5, "kernel": "k5", "outcome": "compiled"}]
    assert [s.name for s in bench.with_mir_sites(sites, rows)] == ["k0", "k1", "k5"]
    assert [s.name for s in bench.compiled_sites(sites, rows)] == ["k0", "k5"]   # as before


def test_with_mir_in_is_an_option_of_the_harness(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--with-mir-in FILE" in text and "compiled_instances > 0" in text

def test_causes_group_messages_that_differ_in_names_numbers_and_places(bench):
    a = "pkg/a.py:12:5: error: the generic parameter 'positions' (Any) has no concrete type\n  more"
    b = "pkg/b.py:7:1: error: the generic parameter 'cell' (Any) has no concrete type"
    assert bench.cause_of(a) == bench.cause_of(b) == "the generic parameter '…' (Any) has no concrete type"
    assert bench.cause_of("x.py:3:1: error: 170859375 assignments, at most 256") == \
        "N assignments, at most N"
    assert bench.cause_of("a.py:1:1: error: type(v[0])() is not a builtin or a @vk.func") == \
        bench.cause_of("b.py:2:1: error: type(slot)() is not a builtin or a @vk.func") == \
        "type(…)() is not a builtin or a @vk.func"
    assert bench.cause_of("no kernel named _int64_reduce found (2 files)") == \
        "no kernel named _int64_reduce found (N files)"
    assert bench.cause_of("may also be instantiated as k[vec3, bool]: Warp") == \
        "may also be instantiated as …[…]: Warp"


def test_instances_combine_to_the_worst_and_a_file_error_is_every_kernels(bench):
    task = bench.Task((_site(bench, "a.py", "g"), _site(bench, "a.py", "h"), _site(bench, "a.py", "s")))
    failed = {"status": "failed", "seconds": 1.0, "proved_under_suggestion": True,
              "suggested_requires": ["vk.launch_dim() <= a.shape[0]"],
              "obligations": [{"kind": "bounds", "status": "failed", "message": "index a[i]"}]}
    report = {"kernels": [
        {"kernel": "g[int32]", "status": "proved", "seconds": 0.5, "obligations": []},
        {"kernel": "g[float32]", "status": "failed", "seconds": 1.5, "suggested_requires": [],
         "obligations": [{"kind": "race", "status": "failed", "message": "x"}]},
        {"kernel": "h", **{k: v for k, v in failed.items() if k != "kernel"}},
        {"kernel": "s", "status": "unknown", "seconds": 2.0, "obligations": [
            {"kind": "bounds", "status": "proved"},
            {"kind": "race", "status": "unknown", "reason": "the solver ran out of budget (10 M units)"}]},
    ]}
    g, h, s = bench.outcomes_from_report(task, report)
    assert (g.outcome, g.seconds, g.instances, g.cause) == ("failed", 2.0, 2, "race (no suggestion)")
    assert (h.outcome, h.cause) == ("suggested", "")
    assert (s.outcome, s.cause) == ("unknown", "the solver ran out of budget (N M units)")
    broken = {"kernels": [{"kernel": "<module>", "status": "error", "seconds": 0.0,
                           "error": "a.py:3:1: error: syntax error: invalid syntax"}]}
    assert [o.outcome for o in bench.outcomes_from_report(task, broken)] == ["error"] * 3
    (missing,) = bench.outcomes_from_report(bench.Task((_site(bench, "a.py", "zz"),)), {"kernels": []})
    assert missing.outcome == "error" and "no report" in missing.cause


def test_the_report_counts_rates_causes_and_times(bench):
    def o(name, outcome, seconds, cause="", project="p==1"):
        return bench.Outcome(bench.KernelSite(project, "/r", "a.py", 1, name), outcome, seconds, cause)

    outcomes = [o("a", "proved", 1.0), o("b", "suggested", 3.0), o("c", "failed", 2.0, "bounds (no suggestion)"),
                o("d", "error", 0.0, "generic"), o("e", "error", 0.0, "generic", "q==2"),
                o("f", "unknown", 9.0, "budget", "q==2")]
    s = bench.summarize(outcomes)
    assert (s.total, s.compiled, s.median_s) == (6, 4, 2.5)
    assert s.causes[0] == ("error", "generic", 2, "p==1:a.py:1 d")
    assert s.slowest[0] == (9.0, "q==2:a.py:1 f")
    text = bench.render_outcomes(outcomes)
    assert ("all projects: 6 kernels, compiled 4 (66.7%); proved 1, proved under the suggestion 1 "
            "(50.0% of compiled), failed 1, unknown 1, error 2") in text
    assert text.startswith("p==1: 4 kernels, compiled 3 (75.0%)")
    assert "median per kernel: 2.50 s" in text and "9.0 s q==2:a.py:1 f" in text
    rows = json.loads(json.dumps([bench._outcome_json(x) for x in outcomes]))
    assert bench.render_outcomes(bench.outcomes_from_json(rows)) == text
    # each kernel's process CPU seconds: the slowest by CPU, and how many pass the 60 s target
    timed = [bench.replace(x, cpu_s=c, process_s=3 * c) for x, c in zip(outcomes, (5.0, 70.0, 2.0, 0, 0, 9.0))]
    t = bench.summarize(timed)
    assert t.slowest_cpu[:2] == [(70.0, "p==1:a.py:1 b"), (9.0, "q==2:a.py:1 f")] and t.over_cpu == 1
    assert t.process == (21.0, 210.0, 7.0, 70.0)
    shown = bench.render_outcomes(timed)
    assert "slowest by CPU: 70.0 s p==1:a.py:1 b; 9.0 s q==2:a.py:1 f" in shown
    assert "kernels over 60 CPU s: 1" in shown
    # a compile-only run's timeout never reached MIR; a proving run's did
    stopped = [o("a", "compiled", 0.1), o("b", "timeout", 60.0), o("c", "error", 0.0, "dtype")]
    assert bench.summarize(stopped).compiled == 1
    assert "compiled 1 (33.3%" in bench.render_outcomes(stopped)
    assert bench.summarize([o("a", "proved", 1.0), o("b", "timeout", 60.0)]).compiled == 2


def test_a_fake_project_end_to_end_through_the_cli(bench, tmp_path, capsys):
    _fake_wheel(tmp_path / "cache" / "wheels")
    out = tmp_path / "out.json"
    code = bench.main(["--only-named", "fake-kernels==1.0", "--cache", str(tmp_path / "cache"),
                       "--only", "kern.py", "--jobs", "2", "--chunk", "1", "--json", str(out)])
    assert code == 0
    rows = {r["kernel"]: r for r in json.loads(out.read_text())}
    assert rows["fill"]["outcome"] == "proved"
    assert rows["inc"]["outcome"] == "suggested"          # proved under vk.launch_dim() <= a.shape[0]
    # each kernel's own `verikern prove` process: its wall and CPU seconds (a process starts in
    # more than 0.1 s of CPU and, proving one kernel, ends within the harness's wall time)
    assert all(0.1 < r["cpu_s"] and 0.1 < r["process_s"] < 600 for r in rows.values()), rows
    text = capsys.readouterr().out
    assert "fake-kernels==1.0: 2 kernels, compiled 2 (100.0%); proved 1, proved under the suggestion 1" in text
    assert "whole `verikern prove` process per kernel" in text
    # resumed: the kept outcomes are not proved again (a changed one stays as kept)
    rows = json.loads(out.read_text())
    rows[0]["outcome"] = "unknown"
    out.write_text(json.dumps(rows))
    assert bench.main(["--only-named", "fake-kernels==1.0", "--cache", str(tmp_path / "cache"),
                       "--only", "kern.py", "--json", str(out), "--resume"]) == 0
    assert "2 kept from" in capsys.readouterr().err
    assert [r["outcome"] for r in json.loads(out.read_text())] == ["unknown", "suggested"]


def test_compile_only_stops_after_mir_and_counts_the_compile_rate(bench, tmp_path, capsys):
    wheel = _fake_wheel(tmp_path / "cache" / "wheels")
    with zipfile.ZipFile(wheel, "a") as zf:     # one kernel verikern cannot compile
        zf.writestr("fakepkg/bad.py", "import warp as wp\n\n\n@wp.kernel\n"
                    "def bad(a: wp.array(dtype=float)):\n    a[0] = unknown_name\n")
        # a generic kernel of 4**16 typings (none enumerated) that no typing type-checks:
        # only its `hollow[...]` remainder, unknown, so it counts as compiled with no instance
        zf.writestr("fakepkg/hollow.py", "from typing import Any\n\nimport warp as wp\n\n\n"
                    "@wp.kernel\ndef hollow(a: Any, b: Any, c: Any, d: Any, out: wp.array(dtype=float)):\n"
                    "    out[0] = float(a.no_such_field) + float(b) + float(c) + float(d)\n")
    out = tmp_path / "out.json"
    code = bench.main(["--only-named", "fake-kernels==1.0", "--cache", str(tmp_path / "cache"),
                       "--compile-only", "--jobs", "1", "--json", str(out)])
    assert code == 0
    rows = {r["kernel"]: r for r in json.loads(out.read_text())}
    assert {k: r["outcome"] for k, r in rows.items()} == {
        "bad": "error", "fill": "compiled", "hollow": "unknown", "inc": "compiled", "wrapped": "error"}
    assert "unknown_name" in rows["bad"]["detail"]
    assert (rows["fill"]["compiled_instances"], rows["hollow"]["compiled_instances"]) == (1, 0)
    # fakepkg/__init__.py defines no `kernel`: the decorator is named, not skipped
    assert "is decorated with @project.kernel" in rows["wrapped"]["detail"]
    captured = capsys.readouterr()
    text = captured.out
    assert "fake-kernels==1.0: 5 kernels, compiled 3 (60.0%; 1 of them generic with instantiations " \
        "not enumerated and no type-oblivious proof, 1 of those with no instance compiled: 2 (40.0%) " \
        "with some MIR); error 2" in text
    # without --chunk, a compile-only run compiles each file once: one task per file
    assert "4 tasks, 1 jobs" in captured.err
    assert bench.render_outcomes(bench.outcomes_from_json(json.loads(out.read_text()))) in text


def test_a_generic_kernel_proved_for_every_instantiation_under_a_contract_counts_as_suggested(bench):
    """`k[...]` stays unknown (the opaque kernel is no real instantiation) but carries
    `proved_under_suggestion`: the type-oblivious proof under the pasted contract."""
    assert bench._record_outcome({"kernel": "k[...]", "status": "unknown", "obligations": [],
                                  "error": "w", "proved_under_suggestion": True}) == ("suggested", "", "")
    assert bench._record_outcome({"kernel": "k[...]", "status": "unknown", "obligations": [],
                                  "error": "why"})[0] == "unknown"


def test_a_kernel_proved_under_a_suggested_typing_premise_counts_as_suggested_by_it(bench):
    """Every report of a generic kernel that is not proved carries the premise
    (app/premise_suggestion.py), an error instance outside it too: the kernel is
    `suggested`, its cause the premise, and the report counts it apart."""
    premise = {"suggested_requires": ["p.dtype in (wp.vec3f, wp.vec3d)"], "proved_under_suggestion": True}
    records = [{"kernel": "k[vec3, float32]", "status": "proved", "obligations": []},
               {"kernel": "k[2 typings]", "status": "error", "error": "e", **premise},
               {"kernel": "k[...]", "status": "unknown", "obligations": [], "error": "w", **premise}]
    site = bench.KernelSite("p", "", "m.py", 3, "k")
    o = bench.combine(site, records)
    assert (o.outcome, o.cause) == ("suggested", bench.PREMISE)
    # an error instance without the premise stays an error
    assert bench.combine(site, records[:2] + [dict(records[2], suggested_requires=[])]).outcome == "suggested"
    assert bench.combine(site, [records[0], {"kernel": "k[2 typings]", "status": "error", "error": "e"}]
                         ).outcome == "error"
    text = bench.render_outcomes([o, bench.combine(bench.KernelSite("p", "", "m.py", 9, "j"), records[:1])])
    assert "proved 1, proved under the suggestion 1 (1 under a typing premise)" in text


def test_a_premise_admitting_fewer_precisions_than_compiled_is_counted_apart(bench):
    """A float32-only premise on a kernel whose float64 instance compiled too excludes launches
    the project makes: its cause says so, and the report gives the rate without it; a joint
    premise of both precisions (or one precision where only it compiled) is a plain premise."""
    def records(premise: str, kernels=("k[float32, vec3]", "k[float64, vec3d]")) -> list[dict]:
        carried = {"suggested_requires": [premise, "vk.launch_dim() <= a.shape[0]"],
                   "proved_under_suggestion": True}
        return [*({"kernel": k, "status": "failed", "obligations": [], **carried} for k in kernels),
                {"kernel": "k[...]", "status": "unknown", "obligations": [], "error": "w", **carried}]
    site = bench.KernelSite("p", "", "m.py", 3, "k")
    one = "a.dtype == wp.float32 and p.dtype == wp.vec3f"
    joint = "(a.dtype, p.dtype) in ((wp.float32, wp.vec3f), (wp.float64, wp.vec3d))"
    assert bench.combine(site, records(one)).cause == bench.PREMISE_NARROW
    assert bench.combine(site, records(joint)).cause == bench.PREMISE
    assert bench.combine(site, records(one, ("k[float32, vec3]",))).cause == bench.PREMISE
    assert bench.combine(site, records("a.dtype in (wp.float16, wp.float32)", ("k[float16]", "k[float32]",
                                                                              "k[int32]"))).cause == bench.PREMISE
    assert bench.precisions("(wp.vec3h, wp.mat33d, wp.quat, wp.int8, float)") == {16, 64, 32}
    outcomes = [bench.combine(site, records(one)), bench.combine(bench.KernelSite("p", "", "m.py", 9, "j"),
                                                                 records(joint)),
                bench.combine(bench.KernelSite("p", "", "m.py", 20, "q"),
                              [{"kernel": "q", "status": "proved", "obligations": []}])]
    text = bench.render_outcomes(outcomes)
    assert ("proved 1, proved under the suggestion 2 (2 under a typing premise, 1 of them admitting fewer "
            "precisions than compiled) (100.0% of compiled; 66.7% without the narrower premises)") in text


def test_a_summary_reads_the_same_from_the_json_whatever_the_times(bench):
    # times at a rounding edge (0.04999 s prints 0.0, its JSON value 0.05 prints 0.1; two
    # CPU times that tie once rounded): the printed summary and the one rendered from the
    # --json rows must be the same text (CI once failed on a run where they were not)
    site = bench.KernelSite
    outcomes = [bench.Outcome(site("p==1", "/r", "a.py", 1, "k1"), "compiled", 0.04999, cpu_s=0.26349),
                bench.Outcome(site("p==1", "/r", "a.py", 9, "k2"), "compiled", 0.05001, cpu_s=0.26351)]
    rows = json.loads(json.dumps([bench._outcome_json(o) for o in outcomes]))
    assert bench.render_outcomes(bench.outcomes_from_json(rows)) == bench.render_outcomes(outcomes)


def test_an_interpreter_without_verikern_stops_the_run_before_any_kernel(bench, tmp_path, monkeypatch, capsys):
    # the children run in each project's root, where a checkout that was never installed is
    # not importable: every kernel would end "exited 1 without a report"; the run stops first
    bare = tmp_path / "bare-python"
    bare.write_text(f"#!/bin/sh\nexec {bench.sys.executable} -S -I \"$@\"\n")
    bare.chmod(0o755)
    _fake_wheel(tmp_path / "cache" / "wheels")
    monkeypatch.setattr(bench.sys, "executable", str(bare))
    code = bench.main(["--only-named", "fake-kernels==1.0", "--cache", str(tmp_path / "cache"),
                       "--compile-only"])
    err = capsys.readouterr().err
    assert code == 3
    assert "cannot import verikern outside the repository" in err and "pip install -e ." in err
    assert not (tmp_path / "cache" / "src").exists()     # stopped before unpacking anything
    assert bench.verikern_importable_elsewhere() != ""
    monkeypatch.undo()
    assert bench.verikern_importable_elsewhere() == ""


def test_a_suggestion_cut_short_by_the_kernel_total_is_told_apart_from_none(bench):
    """A failed kernel with no contract because the kernel's total ran out first
    (`suggestion_unknown`) is no kernel no template fits: its cause says so; one
    with a contract whose re-proof the total cut short says so too."""
    bad = [{"kind": "bounds", "status": "failed", "message": "index a[i]"}]
    cut = "the kernel's total work budget was spent (100 million z3 units ...)"
    assert bench._record_outcome({"status": "failed", "obligations": bad})[1] == "bounds (no suggestion)"
    assert bench._record_outcome({"status": "failed", "obligations": bad, "suggestion_unknown": cut})[1] == \
        "bounds (no suggestion: the kernel total ran out first)"
    assert bench._record_outcome({"status": "failed", "obligations": bad, "suggestion_unknown": cut,
                                  "suggested_requires": ["a.shape[0] > 0"]})[1] == \
        "bounds (suggestion not proved: the kernel total ran out first)"
    assert bench._record_outcome({"status": "failed", "obligations": bad,
                                  "suggested_requires": ["a.shape[0] > 0"]})[1] == \
        "bounds (suggestion not proved)"
