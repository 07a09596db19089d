"""Driver logic that does not need the compiler: settling failed
obligations after replay, file collection, option checks, exit codes."""
from __future__ import annotations

import pytest

from helpers_prove import cex, obligation, report
from verikern.cli.prove import exit_code
from verikern.app import prove as driver
from verikern.proofs import pipeline
from verikern.proofs.obligations import KernelReport, KernelStatus, Status


def _replayer(answer):
    calls = []

    def replay(kernel, ob):
        calls.append(ob)
        if isinstance(answer, Exception):
            raise answer
        return answer
    replay.calls = calls
    return replay


def test_confirmed_failure_stays_failed_and_says_how():
    ob = obligation(status=Status.FAILED, counterexample=cex())
    (out,) = pipeline.settle(None, [ob], _replayer((True, "OutOfBoundsError at line 5")))
    assert out.status is Status.FAILED and out.confirmed is True
    assert out.reason == "confirmed by replay: OutOfBoundsError at line 5"


def test_unconfirmed_concrete_failure_stays_failed_with_confirmed_false():
    ob = obligation(status=Status.FAILED, counterexample=cex())
    (out,) = pipeline.settle(None, [ob], _replayer((False, "depends on float values")))
    assert out.status is Status.FAILED and out.confirmed is False
    assert out.reason == "not confirmed by replay: depends on float values"


def test_unconfirmed_failure_from_an_abstraction_becomes_unknown():
    ob = obligation(status=Status.FAILED, counterexample=cex(abstracted=True))
    (out,) = pipeline.settle(None, [ob], _replayer((False, "no violation")))
    assert out.status is Status.UNKNOWN and out.confirmed is False
    assert out.reason.startswith("possible violation, not confirmed by replay: no violation")
    assert KernelReport.summarize([out]) is KernelStatus.UNKNOWN


def test_the_typed_mark_decides_not_the_words_of_a_reason():
    """A reason that talks about an abstraction does not make an exact model
    abstracted (decisions never read message text)."""
    ob = obligation(status=Status.FAILED, counterexample=cex(),
                    reason="loop abstracted by its invariant")
    (out,) = pipeline.settle(None, [ob], _replayer((False, "no violation")))
    assert out.status is Status.FAILED and out.confirmed is False


def test_confirmed_failure_from_an_abstraction_stays_failed():
    ob = obligation(status=Status.FAILED, counterexample=cex(abstracted=True))
    (out,) = pipeline.settle(None, [ob], _replayer((True, "seen")))
    assert out.status is Status.FAILED and out.confirmed is True


def test_replay_crash_does_not_hide_the_failure():
    ob = obligation(status=Status.FAILED, counterexample=cex())
    (out,) = pipeline.settle(None, [ob], _replayer(RuntimeError("boom")))
    assert out.status is Status.FAILED and out.confirmed is False
    assert "replay crashed: RuntimeError: boom" in out.reason


def test_only_failed_obligations_are_replayed():
    replay = _replayer((True, "x"))
    obs = [obligation(), obligation(status=Status.UNKNOWN, reason="timeout"),
           obligation(status=Status.FAILED, counterexample=cex())]
    out = pipeline.settle(None, obs, replay)
    assert len(replay.calls) == 1 and out[:2] == tuple(obs[:2])


def test_failure_without_counterexample_is_unconfirmed():
    ob = obligation(status=Status.FAILED)
    (out,) = pipeline.settle(None, [ob], _replayer((True, "never called")))
    assert out.confirmed is False and "no counterexample" in out.reason


def test_prove_mir_turns_a_prover_crash_into_an_error_report():
    from verikern.mir.builder import MirBuilder
    from verikern.mir.nodes import Return, SourceLoc
    loc = SourceLoc("k.py", 3, 1)
    b = MirBuilder("k", loc)
    b.set_block(b.new_block("entry"))
    b.terminate(Return(loc))
    k = b.finish()

    def crashing(kernel, **kw):
        raise ZeroDivisionError("oops")
    r = pipeline.prove_mir(k, file="k.py", prover=crashing)
    assert r.status is KernelStatus.ERROR and "internal error while proving k" in r.error
    ok = pipeline.prove_mir(k, file="k.py", prover=lambda kernel, **kw: (obligation(),))
    assert ok.status is KernelStatus.PROVED and ok.line == 3


def test_collect_files_recurses_sorts_and_skips_hidden(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "__pycache__").mkdir()
    for rel in ["z.py", "a.py", "b/c.py", ".hidden/h.py", "__pycache__/p.py", "notes.txt"]:
        (tmp_path / rel).write_text("")
    files = driver.collect_files([tmp_path, tmp_path / "a.py"])
    assert [f.relative_to(tmp_path).as_posix() for f in files] == ["a.py", "b/c.py", "z.py"]
    with pytest.raises(driver.ProveInputError, match="no such file or folder"):
        driver.collect_files([tmp_path / "missing.py"])


@pytest.mark.parametrize("dims,ok", [(5, (5,)), ((2, 3), (2, 3)), (None, None)])
def test_normalize_dims(dims, ok):
    assert driver.normalize_dims(dims) == ok


@pytest.mark.parametrize("dims", [(0,), (1, 2, 3, 4, 5), (-1,)])
def test_normalize_dims_rejects_bad_dims(dims):
    with pytest.raises(driver.ProveInputError):
        driver.normalize_dims(dims)


def test_prove_paths_rejects_bad_options_and_empty_folders(tmp_path):
    (tmp_path / "k.py").write_text("")
    with pytest.raises(driver.ProveInputError, match="block dim"):
        driver.prove_paths([tmp_path], block_dim=2048)
    with pytest.raises(driver.ProveInputError, match="job count"):
        driver.prove_paths([tmp_path], jobs=0)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(driver.ProveInputError, match="no .py files"):
        driver.prove_paths([empty])


def test_exit_codes_follow_the_worst_status():
    proved = report([obligation()])
    failed = report([obligation(status=Status.FAILED)])
    unknown = report([obligation(status=Status.UNKNOWN)])
    error = KernelReport("k.py", "bad", KernelStatus.ERROR, 0.0, error="x")
    assert exit_code([proved]) == 0
    assert exit_code([proved, unknown]) == 2
    assert exit_code([proved, error]) == 3
    assert exit_code([unknown, error]) == 3
    assert exit_code([failed, error, unknown]) == 1
