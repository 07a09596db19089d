"""`verikern prove -v` logs what the prover does and `--dump-smt DIR` writes
every solver query as SMT-LIB 2 that another solver run re-decides alike."""
from __future__ import annotations

import re

import z3
from click.testing import CliRunner

from verikern.cli import main

from shared_helpers import CORPUS


def test_dump_smt_writes_every_query_and_each_re_decides_alike(tmp_path, monkeypatch):
    from verikern.proofs.deciding.budget import DUMP_ENV

    # the option sets these for the process: restore them after the test
    monkeypatch.setenv(DUMP_ENV, "")
    monkeypatch.setenv("VERIKERN_NO_CACHE", "1")
    out = tmp_path / "smt"
    result = CliRunner().invoke(main, ["prove", str(CORPUS / "bounds_off_by_one_le.py"),
                                       "--dump-smt", str(out), "--no-cache", "--format", "short"])
    assert result.exit_code == 1, result.output
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
