"""The command line as a whole: `--help` names every choice and everything a
command checks or prints, and the exit codes are the same in every command
and match the one table in README.md ("Exit status")."""
from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from shared_helpers import ROOT
from verikern.cli import COMMANDS, main
from verikern.proofs.obligations import ObligationKind

#: How `prove`'s help names each obligation kind (a new kind fails here until
#: the help names it too).
KIND_WORDS = {"bounds": "bounds", "race": "race", "divergence": "barrier", "assert": "assert",
              "invariant": "invariant", "div-zero": "division", "uninit": "uninitialised",
              "unassigned": "unassigned"}
#: How `emit`'s help names each --ir choice.
IR_WORDS = {"hir": "HIR", "mir": "MIR", "llvm": "LLVM", "ptx": "PTX", "smt2": "smt2", "c": "C encoding"}


def help_of(*args) -> str:
    result = CliRunner().invoke(main, [*args, "--help"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.split())          # line breaks of the terminal width removed


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_choice_of_every_option_is_in_the_commands_help(name):
    text = help_of(name)
    command = main.get_command(click.Context(main), name)
    for param in command.params:
        if isinstance(param.type, click.Choice):
            missing = [c for c in param.type.choices if c not in text]
            assert not missing, f"verikern {name} --help does not name {missing} of {param.opts}"


def test_the_overview_names_every_obligation_kind_and_every_ir():
    overview = help_of()
    prove_line = overview.split(" prove ", 1)[1].split(" replay ", 1)[0]
    emit_line = overview.split(" emit ", 1)[1].split(" fuzz ", 1)[0]
    assert [k.value for k in ObligationKind] == list(KIND_WORDS)
    assert [k for k, word in KIND_WORDS.items() if word not in prove_line] == []
    ir = next(p for p in main.get_command(click.Context(main), "emit").params if p.name == "ir")
    assert list(ir.type.choices) == list(IR_WORDS)
    assert [k for k, word in IR_WORDS.items() if word not in emit_line] == []
    assert [k for k, word in IR_WORDS.items() if word not in help_of("emit")] == []


def _table() -> dict[str, dict[int, str]]:
    """{command: {code: meaning}} from README.md's exit status table."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Exit status", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `verikern")]
    header = next(line for line in section.splitlines() if line.startswith("| command"))
    codes = [int(c) for c in re.findall(r"\| (\d+) ", header + " ")]
    out = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        names = re.findall(r"`verikern ([a-z-]+)`", cells[0])
        for name in names:
            out[name] = {code: cell for code, cell in zip(codes, cells[1:]) if cell not in ("", "-")}
    return out


def test_the_readme_has_one_exit_status_table_covering_every_command():
    table = _table()
    assert sorted(table) == sorted(COMMANDS)
    for name, codes in table.items():
        assert {0, 3, 130} <= set(codes), name               # success, input error, Ctrl-C everywhere
    assert set(table["prove"]) == {0, 1, 2, 3, 130}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_bad_option_is_an_input_error_in_every_command(name):
    result = CliRunner().invoke(main, [name, "--no-such-option"])
    assert result.exit_code == 3, (name, result.output)


def test_an_unknown_command_and_a_selftest_filter_matching_nothing_are_input_errors():
    assert CliRunner().invoke(main, ["no-such-command"]).exit_code == 3
    result = CliRunner().invoke(main, ["selftest", "--only", "no-case-has-this-name"])
    assert result.exit_code == 3 and "no corpus case matches" in result.stderr


def test_ctrl_c_in_any_command_exits_130(monkeypatch):
    import verikern.selftest

    def interrupted(**_):
        raise KeyboardInterrupt

    monkeypatch.setattr(verikern.selftest, "cases", interrupted)
    result = CliRunner().invoke(main, ["selftest"])
    assert result.exit_code == 130 and "interrupted" in result.stderr
