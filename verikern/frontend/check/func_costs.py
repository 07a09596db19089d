"""What checking each func of a FuncRegistry cost, in compile work units
(verikern.mir.work), so that a kernel is charged for the funcs it uses as if the
registry's cache were its own.

Invariant: a kernel's meter is charged each func check (a registry key: a func,
an overload, a generic func's typing) it uses, directly or through other funcs,
once -- its own cost, the units its check charged less those of the funcs it
called --, whether this kernel checked it or found it checked by an earlier one;
so a kernel's count is the same compiled alone or after others, and grows with
the work a fresh check of it would do, not with how often its funcs are called."""
from __future__ import annotations

import contextlib
from typing import Iterator

from verikern.mir.work import charge, current_meter, spent_now


class FuncCosts:
    """The costs of one registry's func checks. Mutable on purpose: filled as
    the registry checks funcs. `own`: key -> the units of its own check; `callees`:
    key -> the keys its check used; the checks in progress, innermost last, each
    [units of the funcs it used, the keys it used]; the keys each meter was charged."""

    def __init__(self) -> None:
        self.own: dict[str, int] = {}
        self.callees: dict[str, frozenset[str]] = {}
        self._frames: list[list] = []
        self._charged: dict[int, set[str]] = {}

    def _charged_to_meter(self) -> set[str]:
        return self._charged.setdefault(id(current_meter()), set())

    def _used(self, key: str, units: int) -> None:
        """The check in progress (if any) used func `key`, which charged `units`."""
        if self._frames:
            self._frames[-1][0] += units
            self._frames[-1][1].add(key)

    @contextlib.contextmanager
    def checking(self, key: str) -> Iterator[None]:
        """Run the block, the first check of func `key`, recording its own cost."""
        self._charged_to_meter().add(key)
        frame: list = [0, set()]
        self._frames.append(frame)
        before = spent_now()
        try:
            yield
        finally:
            self._frames.pop()
            total = spent_now() - before
            self.own[key], self.callees[key] = total - frame[0], frozenset(frame[1])
            self._used(key, total)

    def reused(self, key: str) -> None:
        """Func `key`, checked before, is used again: charge the meter in use the own
        cost of it and of every func it used that this meter was not charged yet."""
        charged, todo, units = self._charged_to_meter(), [key], 0
        while todo:
            k = todo.pop()
            if k in charged or k not in self.own:
                continue
            charged.add(k)
            units += self.own[k]
            todo.extend(sorted(self.callees[k]))
        if units:
            charge(units, "reused")
        self._used(key, units)


__all__ = ["FuncCosts"]
