"""`verikern prove -v` logs what the prover does and `--dump-smt DIR` writes
every solver query as SMT-LIB 2 that another solver run re-decides alike."""
from __future__ import annotations

import os
import re

import z3
from click.testing import CliRunner

from verikern.app.prove import prove_paths
from verikern.cli import main
from verikern.proofs.deciding import crosscheck

from shared_helpers import CORPUS


def _verikern_environment() -> dict:
    return {k: v for k, v in os.environ.items() if k.startswith("VERIKERN_")}


def test_dump_smt_writes_every_query_and_each_re_decides_alike(tmp_path):
    out = tmp_path / "smt"
    before = _verikern_environment()
    result = CliRunner().invoke(main, ["prove", str(CORPUS / "bounds_off_by_one_le.py"),
                                       "--dump-smt", str(out), "--no-cache", "--format", "short"])
    assert result.exit_code == 1, result.output
    # the folder travels in ProofOptions: the process's environment is left alone
    assert _verikern_environment() == before
    files = sorted(out.glob("*.smt2"))
    names = [f.name for f in files]
    assert names and all(n.startswith("bounds_off_by_one_le.zero_off_by_one.") for n in names)
    assert any(".bounds_12_9_0." in n for n in names) and any(".race_12_9_12_9." in n for n in names)
    for f in files:
        text = f.read_text()
        answer = re.match(r"; verikern query \S+: z3 answered (\w+)", text).group(1)
        assert "(check-sat)" in text
        s = z3.Solver()
        s.add(z3.parse_smt2_string(text))
        if answer in ("sat", "unsat"):            # a fresh solver, no limits: the same answer
            assert str(s.check()) == answer, f.name


def test_verbose_logs_each_kernel_and_very_verbose_each_query(monkeypatch):
    import logging

    monkeypatch.setattr(logging.getLogger("verikern"), "handlers", [])
    path = str(CORPUS / "ok_saxpy_guarded.py")
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames \
        else CliRunner()
    one = runner.invoke(main, ["prove", path, "-v", "--no-cache"])
    assert one.exit_code == 0
    logging.getLogger("verikern").handlers.clear()
    two = runner.invoke(main, ["prove", path, "-vv", "--no-cache"])
    assert two.exit_code == 0
    logging.getLogger("verikern").handlers.clear()
    logging.getLogger("verikern").setLevel(logging.WARNING)
    err1 = one.stderr if hasattr(one, "stderr") else one.output
    err2 = two.stderr if hasattr(two, "stderr") else two.output
    assert re.search(r"ok_saxpy_guarded.py::saxpy: proved \(\d+ obligations, \d+ solver queries", err1)
    assert "solver: ok_saxpy_guarded.saxpy.00001.admissible-probe: sat" not in err1
    assert re.search(r"solver: ok_saxpy_guarded\.saxpy\.\d{5}\.bounds@\d+:\d+#\d\.abstract: unsat "
                     r"\(\d+ z3 units\)", err2)


def test_the_solver_settings_travel_to_worker_processes(tmp_path):
    """--jobs 2: each file is proved in a worker process, which gets the dump
    folder and the cross-check solver from ProofOptions (no environment)."""
    files = [str(CORPUS / "ok_saxpy_guarded.py"), str(CORPUS / "bounds_off_by_one_le.py")]
    dump = tmp_path / "dump"
    dump.mkdir()
    second = None if crosscheck.unavailable("cvc5") else "cvc5"
    before = _verikern_environment()
    reports = prove_paths(files, jobs=2, dump_smt=str(dump), cross_check=second)
    assert _verikern_environment() == before
    dumped = {f.name.split(".")[0] for f in dump.glob("*.smt2")}
    assert dumped == {"ok_saxpy_guarded", "bounds_off_by_one_le"}
    if second is not None:
        decided = [o for r in reports for o in r.obligations if o.status.value != "unknown"]
        assert decided and all(o.cross_checked == ("cvc5",) for o in decided)
    plain = prove_paths(files[:1], jobs=1)          # a later run in this process: neither
    assert not any(o.cross_checked for o in plain[0].obligations)
