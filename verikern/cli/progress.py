"""Progress of long proving runs, and what an interrupt leaves behind.

Invariants:
- progress is written to stderr only, so every stdout format (json, sarif,
  junit, short, text) stays exactly the report;
- on a terminal it is a transient rich bar; anywhere else (CI logs, pipes)
  one line per kernel as its file finishes, in the order files finish;
  `quiet` turns both off;
- every file's reports reach `Progress.done` as they finish, so an
  interrupted run can still say what it established before it stopped;
- Ctrl-C (SIGINT) reaches Python promptly: z3's own handler, which would turn
  the first Ctrl-C into a cancelled ("unknown") query and let the run go on,
  is switched off (`allow_interrupts`), so the interrupt arrives when the
  solver call in flight returns (a call is bounded by the --budget);
- an interrupt is never lost: Python raises it at the next bytecode, and when
  that bytecode is a finalizer's (a z3 object's `__del__`), the exception is
  "ignored" -- so the SIGINT handler also records it (`interrupt_pending`), and
  the next file's progress raises it again (`Progress.__call__`).
"""
from __future__ import annotations

import contextlib
import signal
import sys
from dataclasses import dataclass, field
from typing import Any

import click

#: The exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


#: A SIGINT arrived during this run (set by `_on_sigint`, cleared by `allow_interrupts`).
_interrupt_seen = False


def _on_sigint(signum, frame) -> None:
    """Python's own SIGINT handling (raise KeyboardInterrupt), remembered."""
    global _interrupt_seen
    _interrupt_seen = True
    raise KeyboardInterrupt


def interrupt_pending() -> bool:
    """Whether a SIGINT arrived during this run (even one a finalizer swallowed)."""
    return _interrupt_seen


def allow_interrupts() -> None:
    """Let SIGINT raise KeyboardInterrupt instead of cancelling one z3 query
    (z3's default installs a handler for the length of each check), and remember
    it (`interrupt_pending`); worker processes started afterwards inherit the
    setting. An ignored SIGINT (inherited SIG_IGN) stays ignored."""
    import z3  # lazy: CLI start-up (z3 is loaded by the proofs anyway)

    global _interrupt_seen
    _interrupt_seen = False
    z3.set_param("ctrl_c", False)
    if signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _on_sigint):
        with contextlib.suppress(ValueError):   # not the main thread: Python's handler stays
            signal.signal(signal.SIGINT, _on_sigint)


def exit_interrupted() -> None:
    """Exit with EXIT_INTERRUPTED, silencing the teardown noise Ctrl-C can
    leave: an object whose constructor the interrupt cut short (a z3 Context
    without its `owner`) fails in `__del__` at shutdown, and Python would
    print that as "Exception ignored in ..." after the summary."""
    sys.unraisablehook = lambda _unraisable: None
    sys.exit(EXIT_INTERRUPTED)


def kernel_line(report, done: int, total: int) -> str:
    """`[done/total files] STATUS  kernel (file:line, seconds)`: one kernel as its
    file finishes (the counter counts files, so a file's kernels share its number)."""
    word = report.status.value.upper()
    where = f"{report.file}:{report.line}" if report.line else report.file
    if report.kernel == "<module>":
        return f"[{done}/{total} files] {word:<7} {report.file} (the file does not compile)"
    cached = ", cached" if getattr(report, "cached", False) else ""
    return f"[{done}/{total} files] {word:<7} {report.kernel} ({where}, {report.seconds:.2f} s{cached})"


@dataclass
class Progress:
    """The progress callback of `verikern.app.prove.prove_paths` (call the
    object) and the reports seen so far. `quiet`: draw nothing."""

    quiet: bool = False
    terminal: bool = field(default_factory=lambda: sys.stderr.isatty())
    reports: list = field(default_factory=list)
    files_done: int = 0
    files_total: int = 0
    _bar: Any = None        # a rich.progress.Progress while drawn
    _task: Any = None

    def __call__(self, done: int, total: int, file: str, reports: list) -> None:
        self.reports.extend(reports)
        self.files_done, self.files_total = done, total
        self._show(done, total, file, reports)
        self.raise_pending_interrupt()

    def _show(self, done: int, total: int, file: str, reports: list) -> None:
        if self.quiet:
            return
        if self.terminal:
            self._draw(done, total, file)
            return
        for report in reports:
            click.echo(kernel_line(report, done, total), err=True)

    @staticmethod
    def raise_pending_interrupt() -> None:
        """Raise KeyboardInterrupt again if a SIGINT arrived and was swallowed (a
        finalizer ran when it was raised): the run stops after this file."""
        if interrupt_pending():
            raise KeyboardInterrupt

    def _draw(self, done: int, total: int, file: str) -> None:
        from rich.console import Console  # lazy: CLI start-up
        from rich.progress import (  # lazy: CLI start-up
            BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn,
        )

        if self._bar is None:
            self._bar = Bar(TextColumn("proving"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TextColumn("{task.description}"), console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("", total=total)
        self._bar.update(self._task, completed=done, description=file)

    def close(self) -> None:
        """Remove the bar (if one was drawn)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def interrupted_summary(self) -> str:
        """What a run stopped by Ctrl-C established: the files finished and the
        verdicts of their kernels; every other file is unproved."""
        from verikern.proofs.reporting.render import summary_line  # lazy: CLI start-up

        total = f" of {self.files_total}" if self.files_total else ""
        return (f"interrupted: {self.files_done}{total} file(s) finished before Ctrl-C; "
                f"{summary_line(self.reports)} (partial: the other files were not proved)")
