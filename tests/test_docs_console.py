"""Docs that cannot lie: every ```console block of README.md and docs/*.md
runs, and what it shows is what the commands print (tests/docs_console.py
says how blocks run and what is normalised).

Regenerate every block after a change of messages (review the diff):

    python -m pytest -n 0 tests/test_docs_console.py --update-goldens
"""
from __future__ import annotations

from pathlib import Path

import pytest

import docs_console as dc
from goldens import OPTION

FILES = [p for p in dc.DOCS if dc.blocks(p)]


def test_every_skipped_block_says_why_and_every_file_named_exists():
    assert FILES, "no console block found"
    for path in FILES:
        for block in dc.blocks(path):
            assert block.commands(), f"{block.name}: a console block without a `$ ` command"
            if block.skip_reason is not None:
                assert len(block.skip_reason) > 8, f"{block.name}: say why the block cannot run here"
            for name, source in block.files().items():
                assert (dc.ROOT / source).is_file(), f"{block.name}: file {name} = {source}: no such file"
            for d in block.directives:
                assert d.startswith(("skip", "file ")), f"{block.name}: unknown directive {d!r}"
    outside = [where for path in dc.DOCS for where in dc.commands_outside_console(path)]
    assert outside == [], "shell commands outside ```console blocks (the docs test would not run them)"


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(dc.ROOT).as_posix() for p in FILES])
def test_console_blocks_show_what_the_commands_print(path, tmp_path_factory, update_goldens):
    cache = tmp_path_factory.getbasetemp() / "docs-proof-cache"      # shared by the blocks of a session
    stale, updates = [], {}
    for block in dc.blocks(path):
        if block.skip_reason is not None:
            continue
        workdir = tmp_path_factory.mktemp("docs-block")
        outputs = dc.run(block, workdir, cache)
        new_lines = []
        for (command, shown), actual in zip(block.commands(), outputs):
            new_lines.append(f"$ {command}")
            new_lines += dc.merged(shown, actual, str(workdir))
            if not dc.matches(shown, actual, str(workdir)):
                stale.append((block, command, shown, actual, str(workdir)))
        if list(block.lines) != new_lines:
            updates[block.first] = new_lines
    if update_goldens:
        if updates:
            dc.rewrite(path, updates)
        return
    if stale:
        report = []
        for block, command, shown, actual, work in stale:
            report.append(f"{block.name}: $ {command}\n" + "\n".join(dc.explain(shown, actual, work)))
        pytest.fail(f"{len(stale)} stale console example(s); regenerate with `python -m pytest -n 0 "
                    f"tests/test_docs_console.py {OPTION}` and review the diff:\n\n" + "\n\n".join(report),
                    pytrace=False)


# ------------------------------------------------------------------ the matcher itself
def test_volatile_fields_are_normalised_and_words_are_not():
    shown = ["PROVED  saxpy (5 obligations, 0.09 s) examples/saxpy.py:13",
             "  assumes: no requires; every launch, every block_dim; budget 10M units/check; mir sha256 "
             "5310e64f1cab529b"]
    printed = ["PROVED  saxpy (5 obligations, 12.50 s) examples/saxpy.py:13",
               "  assumes: no requires; every launch, every block_dim; budget 10M units/check; mir sha256 "
               "0123456789abcdef, from the cache"]
    assert dc.matches(shown, printed)
    assert not dc.matches(shown, [printed[0].replace("PROVED", "FAILED"), printed[1]])
    assert not dc.matches(shown, [printed[0].replace("(5 obl", "(6 obl"), printed[1]])
    assert not dc.matches(shown, printed[:1])                  # a missing line
    assert not dc.matches(shown, printed + ["one more"])       # an extra line
    assert dc.matches(["Warp 1.19.0 initialized:"], ["Warp 1.20.1 initialized:"])
    # progress lines (stderr without a terminal; a bar that vanishes in the docs' terminal)
    # are dropped from what a command printed before comparing
    for progress in ("[1/2 files] PROVED  saxpy (examples/saxpy.py:13, 0.05 s)",
                     "[3/11] spin: fuzzing 3 launch(es) on cpu, cpu:native"):
        assert any(p.search(progress) for p in dc.IGNORED)
    assert not any(p.search(printed[0]) for p in dc.IGNORED)
    work = str(Path("block-folder").resolve())
    assert dc.matches(["wrote r.html"], [f"wrote {work}/r.html"], work)


def test_an_ellipsis_stands_for_any_number_of_lines_and_survives_regeneration():
    shown = ["FAILED  k", "  ...", "1 kernel: 0 proved"]
    assert dc.matches(shown, ["FAILED  k", "1 kernel: 0 proved"])
    assert dc.matches(shown, ["FAILED  k", "a", "b", "c", "1 kernel: 0 proved"])
    assert not dc.matches(shown, ["FAILED  k", "a"])
    assert dc.matches(["verikern 0.1.0; every proof assumes ..."], ["verikern 0.2.0; every proof assumes a, b"])
    assert not dc.matches(["verikern 0.1.0; every proof assumes ..."], ["verikern 0.1.0; no proof assumes a"])
    assert dc.matches(["┃ k ┃ 12.6 s ┃", "└──────┴────────┘"], ["┃ k ┃ 7.2 s  ┃", "└──────┴───────┘"])
    assert not dc.matches(["      ^"], ["    ^"])                 # a caret's column is not padding
    # a changed line is replaced, the ellipsis and the matching lines are kept as written
    printed = ["FAILED  k", "a", "b", "1 kernel: 1 proved"]
    assert dc.merged(shown, printed) == ["FAILED  k", "  ...", "1 kernel: 1 proved"]
    assert dc.merged(["x (0.09 s)"], ["x (7.00 s)"]) == ["x (0.09 s)"]          # timings kept as shown
    assert dc.merged(["old"], ["new", "lines"]) == ["new", "lines"]
    assert dc.merged(["a", "gone", "b"], ["a", "b"]) == ["a", "b"]
    # a failure shows what changed, not the timings
    assert dc.explain(["x (0.09 s)", "i = 66", "..."], ["x (7.00 s)", "i = 63", "more"]) == \
        ["  x (0.09 s)", "- i = 66", "+ i = 63", "  ..."]


def test_rewrite_replaces_only_the_blocks_given(tmp_path):
    doc = tmp_path / "doc.markdown"
    doc.write_text("# t\n\n<!-- docs-test: skip (needs a GPU here) -->\n```console\n$ a\nold\n```\n\n"
                   "```console\n$ b\nkeep\n```\n")
    [first, second] = dc.blocks(doc)
    assert first.skip_reason == "needs a GPU here" and second.skip_reason is None
    assert first.commands() == [("a", ["old"])] and second.commands() == [("b", ["keep"])]
    dc.rewrite(doc, {first.first: ["$ a", "new", "more"]})
    assert doc.read_text() == ("# t\n\n<!-- docs-test: skip (needs a GPU here) -->\n```console\n$ a\nnew\nmore\n"
                               "```\n\n```console\n$ b\nkeep\n```\n")


def test_a_command_in_another_kind_of_block_is_found(tmp_path):
    doc = tmp_path / "doc.markdown"
    doc.write_text("```bash\n$ verikern prove x.py\n```\n\n```console\n$ ok\n```\n\n```\n$ also\n```\n")
    assert dc.commands_outside_console(doc) == ["doc.markdown:2", "doc.markdown:10"]
