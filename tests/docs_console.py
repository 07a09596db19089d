"""Docs that cannot lie: every ```console block of README.md and docs/*.md is
run, and its shown output compared with what the commands print.

A console block is a series of `$ COMMAND` lines, each followed by the
output it shows. The block's commands run in one bash process, in a fresh
temporary folder holding copies of `examples/` and `docs/examples/` (so the
documented relative paths work), with `verikern` and `python` first on
PATH as the running interpreter (`python -m verikern.cli`), stdout and stderr merged
as a terminal shows them.

Markdown comments right above a block's fence steer it:
- `<!-- docs-test: skip (REASON) -->`: the block is not run (a GPU, a cluster,
  a tool not installed here); the reason is required;
- `<!-- docs-test: file NAME = PATH -->`: the repository file PATH is copied
  to NAME in the block's folder first (the kernels the prose shows).

Comparison: line by line after `normalise` (durations, versions, hashes,
the temporary folder, the cache marker, table rule widths and padding inside
a line are volatile); a shown line that is just `...` stands for any number
of lines, and a shown line ending in `...` for any line it begins; lines of
known environment noise (IGNORED) are dropped from the output first.

Regeneration (`rewrite`): the block's shown output is replaced by an
alignment of the old text with the new output: lines that still match are
kept as written (their shown timings too), `...` lines are kept where they
still stand for something, changed and new lines are the new output.

Invariants: a block is never rewritten unless its output differs; a skipped
block is never run; the comparison of a block that matches is exact after
normalisation, so any changed word fails it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
#: Folders copied into every block's working folder.
COPIED = ("examples", "docs/examples")
DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->$")
MARK = "@@docs-test-command@@"
BLOCK_TIMEOUT_S = 600

#: Output lines that depend on the machine or on stderr not being a terminal (the docs
#: show a terminal session), not on what verikern establishes: dropped before comparing.
IGNORED = (
    re.compile(r"^Warp CUDA warning: "),         # Warp on a machine without a GPU
    re.compile(r"^\[\d+/\d+( files)?\] "),        # progress lines: on a terminal, a bar that vanishes
)

_VOLATILE = (
    (re.compile(r"\b\d+\.\d+\s?(s|ms|seconds)\b"), "<time>"),                          # durations
    (re.compile(r"\b\d+(\.\d+)? (kernels|examples|launches)/s\b"), "<rate>"),            # throughputs
    (re.compile(r"\b(verikern|z3|Python|Warp|python|warp-lang|CUDA|Toolkit|Driver) \d+(\.\d+)+\S*"),
     r"\1 <version>"),                                                                # versions
    (re.compile(r"\b[0-9a-f]{16,64}\b"), "<hash>"),                                    # sha256s, MIR hashes
    (re.compile(r", from the cache"), ""),                                             # cache state
    (re.compile(r"[━─═]+"), "─"),                                  # table rules: widths follow the cells
    (re.compile(r"(?<=\S) {2,}"), " "),                           # padding inside a line (indent kept)
)


@dataclass(frozen=True)
class Block:
    """One console block: `first` and `last` are the 0-based line numbers of its
    content (between the fences) in `path`; `directives` the comments above it."""

    path: Path
    first: int
    last: int
    lines: tuple[str, ...]
    directives: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.first}"

    @property
    def skip_reason(self) -> str | None:
        for d in self.directives:
            if d.startswith("skip"):
                return d[len("skip"):].strip().strip("()").strip()
        return None

    def files(self) -> dict[str, str]:
        out = {}
        for d in self.directives:
            if d.startswith("file "):
                name, sep, source = d[len("file "):].partition("=")
                if not sep:
                    raise ValueError(f"{self.name}: write `docs-test: file NAME = PATH`")
                out[name.strip()] = source.strip()
        return out

    def commands(self) -> list[tuple[str, list[str]]]:
        """(command, shown output lines) in order."""
        out: list[tuple[str, list[str]]] = []
        for line in self.lines:
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
            elif line.strip():
                raise ValueError(f"{self.name}: a console block starts with a `$ ` command line")
        return out


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            directives = []
            j = i - 1
            while j >= 0 and DIRECTIVE.match(lines[j].strip()):
                directives.insert(0, DIRECTIVE.match(lines[j].strip()).group(1))
                j -= 1
            end = i + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            out.append(Block(path, i + 1, end, tuple(lines[i + 1:end]), tuple(directives)))
            i = end
        i += 1
    return out


def commands_outside_console(path: Path) -> list[str]:
    """`file:line` of every `$ ` command line in a fenced block that is not a
    console block (such a block would escape the test)."""
    out, fence = [], None
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip()
        elif fence is not None and fence != "console" and stripped.startswith("$ "):
            out.append(f"{path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name}:{no}")
    return out


# ------------------------------------------------------------------ comparing
def normalise(line: str, workdir: str | None = None) -> str:
    line = normalise_path(line, workdir)
    for pattern, repl in _VOLATILE:
        line = pattern.sub(repl, line)
    return line.rstrip()


def _wild(line: str) -> bool:
    return line.strip() == "..."


def _same(shown: str, actual: str) -> bool:
    """Normalised lines equal; a shown line ending in `...` matches any line it begins."""
    if shown.endswith("...") and shown.strip() != "...":
        return actual.startswith(shown[:-3].rstrip())
    return shown == actual


def _align(shown: list[str], actual: list[str], workdir: str | None):
    """Edit-distance alignment of the shown lines (with `...` wildcards) to the
    actual ones: (cost, steps), a step being ("keep", shown line),
    ("wild", shown line), ("new", actual line) or ("drop", shown line)."""
    p = [normalise(s, workdir) for s in shown]
    a = [normalise(s, workdir) for s in actual]
    n, m = len(p), len(a)
    inf = float("inf")
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    cost[0][0] = 0
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            best = inf
            if i > 0 and _wild(shown[i - 1]):
                best = cost[i - 1][j]                              # the wildcard stands for nothing
                if j > 0:
                    best = min(best, cost[i][j - 1])                 # ... or for one more line
            else:
                if i > 0 and j > 0:
                    best = cost[i - 1][j - 1] + (0 if _same(p[i - 1], a[j - 1]) else 1)
                if i > 0:
                    best = min(best, cost[i - 1][j] + 1)
                if j > 0:
                    best = min(best, cost[i][j - 1] + 1)
            cost[i][j] = best
    steps = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and _wild(shown[i - 1]):
            if cost[i][j] == cost[i - 1][j] or j == 0:             # the wildcard stands for no more
                steps.append(("wild", shown[i - 1]))
                i -= 1
            else:
                j -= 1                                              # absorbed by the wildcard
        elif i > 0 and j > 0 and _same(p[i - 1], a[j - 1]) and cost[i][j] == cost[i - 1][j - 1]:
            steps.append(("keep", shown[i - 1]))
            i, j = i - 1, j - 1
        elif i > 0 and j > 0 and cost[i][j] == cost[i - 1][j - 1] + 1:
            steps += [("new", actual[j - 1]), ("drop", shown[i - 1])]     # reversed below: - then +
            i, j = i - 1, j - 1
        elif j > 0 and cost[i][j] == cost[i][j - 1] + 1:
            steps.append(("new", actual[j - 1]))
            j -= 1
        else:
            steps.append(("drop", shown[i - 1]))
            i -= 1
    return cost[n][m], steps[::-1]


def matches(shown: list[str], actual: list[str], workdir: str | None = None) -> bool:
    return _align(shown, actual, workdir)[0] == 0


def merged(shown: list[str], actual: list[str], workdir: str | None = None) -> list[str]:
    """The shown output brought up to date (module docstring, Regeneration)."""
    cost, steps = _align(shown, actual, workdir)
    if cost == 0:
        return list(shown)
    out = []
    for kind, line in steps:
        if kind in ("keep", "wild"):
            out.append(line)
        elif kind == "new":
            out.append(normalise_path(line, workdir))
    return out


def explain(shown: list[str], actual: list[str], workdir: str | None = None) -> list[str]:
    """The alignment as a diff: `- ` a shown line nothing printed, `+ ` a printed
    line not shown, `  ` a shown line that still holds (`...` included)."""
    marks = {"keep": "  ", "wild": "  ", "new": "+ ", "drop": "- "}
    out = []
    _cost, steps = _align(shown, actual, workdir)
    for kind, line in steps:
        out.append(marks[kind] + (normalise_path(line, workdir) if kind == "new" else line))
    return out


def normalise_path(line: str, workdir: str | None) -> str:
    if workdir:
        line = line.replace(workdir + os.sep, "").replace(workdir, ".")
    return line.rstrip()


# ------------------------------------------------------------------ running
def prepare(block: Block, workdir: Path) -> None:
    for folder in COPIED:
        shutil.copytree(ROOT / folder, workdir / folder, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for name, source in block.files().items():
        target = workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / source, target)


def _shims(folder: Path) -> Path:
    """A folder with `python`, `python3` (this interpreter) and `verikern` (its
    `python -m verikern.cli`), whatever the interpreter's folder holds. Each is a
    script that runs the interpreter by its own path: a symlink to a virtualenv's
    interpreter would run as the base interpreter, without the venv's packages."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, args in (("python", ""), ("python3", ""), ("verikern", " -m verikern.cli")):
        script = folder / name
        if not script.exists():
            script.write_text(f'#!/bin/sh\nexec "{sys.executable}"{args} "$@"\n')
            script.chmod(0o755)
    return folder


def environment(cache_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(_shims(cache_dir.parent / "docs-bin")) + os.pathsep + env.get("PATH", "")
    env.update(PYTHONUNBUFFERED="1", NO_COLOR="1", TERM="dumb", COLUMNS="100",
               VERIKERN_CACHE_DIR=str(cache_dir), PYTHONHASHSEED="0")
    for name in ("VERIKERN_NO_CACHE", "FORCE_COLOR", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER"):
        env.pop(name, None)
    return env


def run(block: Block, workdir: Path, cache_dir: Path) -> list[list[str]]:
    """Each command's output lines (stdout and stderr merged, IGNORED lines dropped)."""
    prepare(block, workdir)
    commands = block.commands()
    script = "exec 2>&1\n" + "".join(f"printf '%s\\n' '{MARK}'\n{cmd}\n" for cmd, _ in commands)
    done = subprocess.run(["bash", "-c", script], cwd=workdir, env=environment(cache_dir),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=BLOCK_TIMEOUT_S, check=False)
    parts = done.stdout.split(MARK + "\n")[1:]
    if len(parts) != len(commands):
        raise AssertionError(f"{block.name}: {len(commands)} commands, {len(parts)} outputs:\n{done.stdout}")
    return [[line for line in part.splitlines() if not any(p.search(line) for p in IGNORED)]
            for part in parts]


def rewrite(path: Path, updates: dict[int, list[str]]) -> None:
    """Replace the content of the blocks starting at these lines (0-based)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for block in sorted(blocks(path), key=lambda b: b.first, reverse=True):
        if block.first in updates:
            lines[block.first:block.last] = updates[block.first]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
