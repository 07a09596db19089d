"""Project modules read once per process for all the configurations that read
them alike, and the reading work charged to the compile meter.

A file with configuration choices (configuration.py) is read once as written
and once per configuration, each time with a fresh `Project` whose modules are
read again (project.py `read_module`). What a module's read depends on, read
from the code: its own bytes and path, the project's place (base folder, top
package), every project module its read reads in turn (transitively, with
their bytes), the answers to the layout questions it asks the project
(`locate`, `compiled`, `in_project`: which files exist), every source file of
the project (rebindings from outside, class constants and class funcs read
them all: `PROJECT_SOURCES`' digest), whether a configuration is in force at
all (`decided_tree` runs only then) and, of the configuration, only the
choices of the modules in that closure (`configured_tree` rewrites a module
only for its own choices). Nothing else: project.py's `read_module` is the only
reader of `Project.configuration`.

Invariants:
- a module's read is taken from the memo only when every one of those inputs
  is the same as when it was made (its key, then each closure file's current
  sha256, each layout answer asked again, the configuration restricted to the
  closure); never on a path alone;
- a read that met a module still being read (an import cycle, or the
  kernel's own file) depends on the order of reading: it, and every read
  around it, is never kept;
- a kept read is installed whole: every module of its closure, the same
  objects, into the new project (and its files into `Project.files`); when
  the project already holds another object for one of them, it is no hit;
- work: each module read is charged to the meter in use as it is done
  (READ_UNITS per AST node, TAKE_UNITS per node of a func taken in); a hit
  charges what the read it stands for counted, once per `reading_ledger`
  (one compile_source call), as a fresh read in that call would have: so the
  count of a call does not depend on what the process read before it.
"""
from __future__ import annotations

import ast
import contextlib
import contextvars
from dataclasses import dataclass, field
from typing import Callable, Iterator

from verikern.mir.work import READ_UNITS, charge

from .source_reads import read_source

#: the most reads kept (the earliest made are dropped first, between compile calls)
MAX_KEPT = 2048


@dataclass(frozen=True)
class ModuleRead:
    """One module read under one configuration: its ModuleInfo and what it was made
    of. `closure`: the reads of the other modules its read read (transitively, each
    once); `layout`: ((question, module), answer) asked of the project; `choices`:
    the configuration restricted to the files of the closure; `units`, `counts`:
    its own reading work (not its closure's), and its counts by kind (work.py)."""

    dotted: str
    path: str
    sha: str
    info: object
    closure: tuple["ModuleRead", ...]
    layout: tuple
    choices: tuple
    units: int
    counts: tuple


@dataclass
class _Frame:
    """The reading of one module, while it is done."""
    dotted: str
    closure: dict = field(default_factory=dict)    # id -> ModuleRead
    layout: dict = field(default_factory=dict)
    poisoned: bool = False
    units: int = 0
    counts: dict = field(default_factory=dict)


#: key -> [ModuleRead]: the kept reads (see the module docstring for the key)
_KEPT: dict[tuple, list[ModuleRead]] = {}
#: the reads charged in the current compile call: id -> ModuleRead (held, so ids stay theirs)
_LEDGER: contextvars.ContextVar[dict | None] = contextvars.ContextVar("verikern_read_ledger", default=None)
#: a marker in `Project.reads` for a module whose read was not kept (an import cycle)
POISONED = "poisoned"
#: how many module reads were made fresh and taken from the memo (for tests and profiles)
COUNTS = {"fresh": 0, "kept": 0}


@contextlib.contextmanager
def reading_ledger() -> Iterator[dict]:
    """One compile call: a kept read is charged at most once in it. Old reads beyond
    MAX_KEPT are dropped here, never during a call (so a call's hits do not depend on
    how long the process ran)."""
    while sum(len(v) for v in _KEPT.values()) > MAX_KEPT:
        del _KEPT[next(iter(_KEPT))]
    ledger: dict = {}
    token = _LEDGER.set(ledger)
    try:
        yield ledger
    finally:
        _LEDGER.reset(token)


def forget_reads() -> None:
    """Drop every kept read (tests: a cold process)."""
    _KEPT.clear()


def count_read(project, nodes: int, units_each: int, kind: str = "reading") -> None:
    """`nodes` AST nodes read (READ_UNITS, kind `reading`) or taken in (TAKE_UNITS,
    `taking`): charged to the meter in use, and to the module being read (`project`:
    its Project, or None)."""
    units = nodes * units_each
    frames = getattr(project, "frames", None)
    if frames:
        frames[-1].units += units
        frames[-1].counts[kind] = frames[-1].counts.get(kind, 0) + nodes
    charge(units, kind, nodes)


def count_tree(project, tree: ast.AST) -> None:
    """A parsed module read: READ_UNITS per node of it."""
    count_read(project, sum(1 for _ in ast.walk(tree)), READ_UNITS)


def asked(project, question: str, dotted: str, answer):
    """Record a layout answer in the module being read (its read depends on it)."""
    frames = getattr(project, "frames", None)
    if frames:
        frames[-1].layout[(question, dotted)] = answer
    return answer


def known(project, dotted: str) -> None:
    """`dotted` was found in `project.modules` by the module being read: its read
    depends on that module's read (None there: still being read, a cycle)."""
    frames = project.frames
    if not frames:
        return
    record = project.reads.get(dotted)
    if project.modules.get(dotted) is None or record is None or record == POISONED:
        for f in frames:        # every read around it met a module being read
            f.poisoned = True
        return
    _include(frames[-1], record)


def _include(frame: _Frame, record: ModuleRead) -> None:
    for r in (record,) + record.closure:
        frame.closure.setdefault(id(r), r)
    frame.layout.update(record.layout)


def _choices(configuration, files: set[str]) -> tuple:
    return tuple((c.filename, c.name, i, c.alternatives[i][0]) for c, i in configuration or ()
                 if c.filename in files)


def read(project, dotted: str, path, digest: str | None,
         fresh: Callable[[bytes], object], ask: Callable[[str, str], object]):
    """The ModuleInfo of project module `dotted` at `path`: kept, or `fresh(data)`
    (recorded, kept when it may be). `digest`: every project source file's digest
    (None: too many files to keep reads of this project); `ask(question, dotted)`:
    the project's layout answer now."""
    data = read_source(str(path))
    sha = data.digest.hex()
    key = (str(project.base), project.top, dotted, str(path), sha, digest, bool(project.configuration))
    if digest is not None:
        for kept in _KEPT.get(key, ()):
            if _installed(project, kept, ask):
                COUNTS["kept"] += 1
                return kept.info
    COUNTS["fresh"] += 1
    project.files[str(path)] = sha
    frame = _Frame(dotted)
    project.frames.append(frame)
    try:
        info = fresh(data.data)
    finally:
        project.frames.pop()
    if frame.poisoned or digest is None:
        project.reads[dotted] = POISONED
        if project.frames and frame.poisoned:
            project.frames[-1].poisoned = True
        return info
    files = {str(path)} | {r.path for r in frame.closure.values()}
    made = ModuleRead(dotted, str(path), sha, info, tuple(frame.closure.values()),
                      tuple(sorted(frame.layout.items(), key=repr)), _choices(project.configuration, files),
                      frame.units, tuple(sorted(frame.counts.items())))
    project.reads[dotted] = made
    ledger = _LEDGER.get()
    if ledger is not None:
        ledger[id(made)] = made
    _KEPT.setdefault(key, []).append(made)
    if project.frames:
        _include(project.frames[-1], made)
    return info


def _installed(project, kept: ModuleRead, ask) -> bool:
    """Install `kept` into `project` when every input it was made of is the same now."""
    every = (kept,) + kept.closure
    for r in kept.closure:
        try:
            if read_source(r.path).digest.hex() != r.sha:
                return False
        except OSError:
            return False
    if any(ask(q, d) != answer for (q, d), answer in kept.layout):
        return False
    if _choices(project.configuration, {r.path for r in every}) != kept.choices:
        return False
    if any(r.dotted in project.modules and project.modules[r.dotted] is not r.info for r in kept.closure):
        return False    # (`kept` itself: None there, being read now)
    ledger = _LEDGER.get()
    for r in every:
        project.modules[r.dotted] = r.info
        project.files[r.path] = r.sha
        project.reads[r.dotted] = r
        if ledger is None or id(r) not in ledger:
            if ledger is not None:
                ledger[id(r)] = r
            charge(r.units, "reading", dict(r.counts).get("reading", 0))
            charge(0, "taking", dict(r.counts).get("taking", 0))
    if project.frames:
        _include(project.frames[-1], kept)
    return True


__all__ = ["COUNTS", "MAX_KEPT", "ModuleRead", "POISONED", "asked", "count_read", "count_tree", "forget_reads",
           "known", "read", "reading_ledger"]
