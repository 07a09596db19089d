"""Everyday use of `verikern prove`: progress without a terminal, Ctrl-C,
files without kernels (pre-commit), baseline-accepted findings in
`--format short`, and the summary line of a file that does not compile."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from shared_helpers import CORPUS, EXAMPLES_DIR
from verikern.cli import main

BUGGY = CORPUS / "bounds_unguarded_write.py"      # failed bounds at 11:5
SAXPY = EXAMPLES_DIR / "saxpy.py"                 # proved
HELPER = "import os\n\n\ndef cwd():\n    return os.getcwd()\n"


def run(*args):
    """(exit code, stdout, stderr) of `verikern ARGS` (stderr is no terminal here)."""
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_without_a_terminal_each_kernel_is_one_stderr_line_and_stdout_is_only_the_report(tmp_path):
    a, b = shutil.copy(SAXPY, tmp_path / "a.py"), shutil.copy(BUGGY, tmp_path / "b.py")
    code, out, err = run("prove", a, b, "--no-cache", "--no-suggest", "--format", "json")
    assert code == 1
    assert [k["kernel"] for k in json.loads(out)["kernels"]] == ["saxpy", "fill_unguarded"]
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"[1/2 files] PROVED  saxpy ({a}:13, ") and lines[0].endswith(" s)")
    assert lines[1].startswith(f"[2/2 files] FAILED  fill_unguarded ({b}:")
    assert run("prove", a, "--no-cache", "--quiet")[2] == ""


def test_the_counter_counts_files_and_says_so(tmp_path):
    # c_host/kernels.py holds three kernels: they share the file's number, and the
    # total is the 2 files, not the 4 kernels the summary counts
    a = shutil.copy(EXAMPLES_DIR / "c_host" / "kernels.py", tmp_path / "a.py")
    b = shutil.copy(SAXPY, tmp_path / "b.py")
    code, out, err = run("prove", a, b, "--no-cache", "--no-suggest")
    assert code == 0 and out.splitlines()[-1].startswith("4 kernels: 4 proved")
    assert [line.split("]")[0] + "]" for line in err.splitlines()] == \
        ["[1/2 files]"] * 3 + ["[2/2 files]"]


def test_a_file_that_does_not_compile_is_not_counted_as_a_kernel(tmp_path):
    (tmp_path / "syn.py").write_text("def f(:\n")
    shutil.copy(SAXPY, tmp_path / "saxpy.py")
    code, out, err = run("prove", tmp_path, "--no-cache")
    assert code == 3
    assert out.splitlines()[-1] == "1 kernel: 1 proved, 0 failed, 0 unknown, 0 error; 1 file does not compile"
    assert f"[2/2 files] ERROR   {tmp_path / 'syn.py'} (the file does not compile)" in err.splitlines()


def test_skip_no_kernels_lets_a_hook_pass_when_no_staged_file_has_a_kernel(tmp_path):
    helper = tmp_path / "helper.py"
    helper.write_text(HELPER)
    code, out, err = run("prove", helper, "--format", "short", "--fail-on", "failed")
    assert code == 3 and "no kernels found" in err and "--skip-no-kernels" in err
    other = tmp_path / "other.py"
    other.write_text(HELPER)
    code, out, err = run("prove", helper, other, "--format", "short", "--fail-on", "failed", "--skip-no-kernels")
    assert (code, out) == (0, "") and "nothing to prove" in err
    # a file without kernels among others is skipped with or without the flag; the others count
    bug = shutil.copy(BUGGY, tmp_path / "bug.py")
    for flag in ((), ("--skip-no-kernels",)):      # (no suggestion search: not what is checked)
        code, out, _ = run("prove", helper, bug, "--format", "short", "--fail-on", "failed", "--no-cache",
                           "--no-suggest", *flag)
        assert code == 1 and out.count(": error: ") == 1
    hooks = (EXAMPLES_DIR.parent / ".pre-commit-hooks.yaml").read_text()
    assert hooks.count("--skip-no-kernels") == 2


def test_baseline_accepted_findings_are_notes_in_short_format(tmp_path):
    bug = shutil.copy(BUGGY, tmp_path / "bug.py")
    baseline = tmp_path / "baseline.json"
    assert run("prove", bug, "--no-cache", "--no-suggest", "--format", "json", "-o", baseline)[0] == 1
    code, out, _ = run("prove", bug, "--no-cache", "--no-suggest", "--format", "short")
    assert code == 1 and out.startswith(f"{bug}:11:5: error: bounds: ")
    code, out, err = run("prove", bug, "--no-cache", "--no-suggest", "--format", "short",
                         "--baseline", baseline)
    assert code == 0, err
    assert out.startswith(f"{bug}:11:5: note: accepted in the baseline: bounds: ") and ": error:" not in out
    bug2 = shutil.copy(BUGGY, tmp_path / "bug2.py")     # another file name: another fingerprint
    code, out, _ = run("prove", bug, bug2, "--no-cache", "--no-suggest", "--format", "short",
                       "--baseline", baseline)
    assert code == 1
    assert out.splitlines() == [out.splitlines()[0], out.splitlines()[1]]
    assert ": note: accepted in the baseline: " in out.splitlines()[0]
    assert out.splitlines()[1].startswith(f"{bug2}:11:5: error: bounds: ")


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def _signal_masks(pid: int) -> str:
    """The run's blocked, ignored and caught signal masks (what to read when it
    did not stop on Ctrl-C)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            return " ".join(line.strip() for line in fh if line.startswith(("SigBlk", "SigIgn", "SigCgt")))
    except OSError:
        return ""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the worker processes")
@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_stops_at_once_with_exit_130_and_a_partial_summary(tmp_path, jobs):
    # twelve corpus files, from the second in name order: the first (0.5 CPU s) would be
    # proved whole before the Ctrl-C, the next (0.07) is soon done, and the other eleven
    # (about 4 CPU s) are still to prove when the Ctrl-C comes
    for name in sorted(p.name for p in CORPUS.glob("*.py"))[1:13]:
        shutil.copy(CORPUS / name, tmp_path / name)
    # the run's own settings only: nothing another test's in-process CLI run set
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERIKERN_")}
    env["VERIKERN_NO_CACHE"] = "1"
    # Ctrl-C as a terminal delivers it: to a process that has not inherited an ignored
    # SIGINT (Python keeps an inherited SIG_IGN, and so would the run under test)
    proc = subprocess.Popen([sys.executable, "-m", "verikern.cli", "prove", str(tmp_path), "--jobs", str(jobs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        before = []                                 # lines before the first progress line (warnings)
        first = proc.stderr.readline()              # one file finished: the run is under way
        while first and not first.startswith("[") and len(before) < 20:
            before.append(first)
            first = proc.stderr.readline()
        assert first.startswith("[1/12 files] "), (before, first)
        workers = _children(proc.pid)
        seen = _signal_masks(proc.pid)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, (before, err, seen)
    assert took < 20, (took, err, seen)
    summary = err.splitlines()[-1]
    assert summary.startswith("interrupted: ") and "of 12 file(s) finished before Ctrl-C" in summary
    assert "(partial: the other files were not proved)" in summary
    done = int(summary.split()[1])
    assert 1 <= done < 12, err
    assert out.count("\nFAILED  ") + out.count("\nPROVED  ") + out.startswith(("FAILED", "PROVED")) >= 1
    assert (len(workers) == 2) == (jobs == 2), workers
    assert not [pid for pid in workers if os.path.exists(f"/proc/{pid}")
                and open(f"/proc/{pid}/stat").read().split()[2] != "Z"]


def test_report_and_check_report_show_the_same_progress_lines(tmp_path):
    a = shutil.copy(SAXPY, tmp_path / "a.py")
    code, _, err = run("report", a, "--no-cache", "-o", tmp_path / "r.html")
    assert code == 0 and err.splitlines()[0].startswith(f"[1/1 files] PROVED  saxpy ({a}:13, ")
    assert run("prove", a, "--no-cache", "--no-suggest", "--format", "json", "-o", tmp_path / "r.json")[0] == 0
    code, out, err = run("check-report", tmp_path / "r.json")
    assert code == 0, out
    assert err.splitlines()[0].startswith(f"[1/1 files] PROVED  saxpy ({a}:13, ")


def test_teardown_noise_after_ctrl_c_is_not_printed():
    """An object whose constructor Ctrl-C cut short (a z3 Context without its
    `owner`) fails in `__del__` at shutdown: after the interrupted summary the
    user sees no "Exception ignored" traceback, and the exit status stays 130."""
    code = ("import gc\nfrom verikern.cli.progress import exit_interrupted\n"
            "class Half:\n    def __del__(self):\n        raise AttributeError('no owner')\n"
            "keep = [Half()]\nexit_interrupted()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130 and "Exception ignored" not in proc.stderr and "no owner" not in proc.stderr, \
        proc.stderr
    plain = subprocess.run([sys.executable, "-c", code.replace("exit_interrupted()", "raise SystemExit(130)")],
                           capture_output=True, text=True, timeout=60)
    assert "no owner" in plain.stderr     # the noise the hook silences is real


def test_a_ctrl_c_a_finalizer_swallows_still_stops_the_run_after_the_file(monkeypatch):
    """Python raises Ctrl-C's KeyboardInterrupt at the next bytecode; when that is a
    finalizer's (a z3 Solver's `__del__`), the exception is only "ignored", and the run
    went on to exit 1 (seen once in CI). The handler remembers it, and the next file's
    progress raises it again, with that file's reports kept for the partial summary."""
    from verikern.cli import progress

    swallowed: list = []
    monkeypatch.setattr(sys, "unraisablehook", swallowed.append)
    previous = signal.getsignal(signal.SIGINT)
    try:
        # as a terminal's run has it (a run started in the background inherits SIG_IGN,
        # which allow_interrupts keeps)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        progress.allow_interrupts()
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler) and not progress.interrupt_pending()

        class Finalized:
            def __del__(self):
                handler(signal.SIGINT, None)     # the interrupt raised inside a finalizer

        Finalized()
        assert swallowed and swallowed[0].exc_type is KeyboardInterrupt   # Python ignored it
        run = progress.Progress(quiet=True)
        with pytest.raises(KeyboardInterrupt):
            run(1, 3, "a.py", ["a report"])
        assert run.reports == ["a report"] and run.files_done == 1
        progress.allow_interrupts()             # a new run starts with none pending
        progress.Progress(quiet=True)(1, 1, "b.py", [])
    finally:
        signal.signal(signal.SIGINT, previous)
