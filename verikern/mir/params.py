"""A kernel's parameters as the user sees them, read from their typed origin.

The compiler lowers one source parameter to one or more MIR parameters: a
scalar or array to one, a vector/matrix/quat `v` to its scalar components
(ParamOrigin.COMPONENT), and a module constant the kernel captures to a
hidden scalar (ParamOrigin.CAPTURED). Every consumer that needs the user's
view (launch argument lists, generated inputs, suggested contracts) reads it
here, from `ScalarParam.origin` and `user_name`, never from the MIR names.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .nodes import Kernel, Param, ParamOrigin, ScalarParam, Value


@dataclass(frozen=True)
class UserParam:
    """One parameter the user passes: its name and its MIR parameters (one,
    or a vector's components in order). Invariant: `mir` is non-empty and
    holds consecutive entries of `Kernel.params`."""

    name: str
    mir: tuple[Param, ...]

    @property
    def is_components(self) -> bool:
        """Whether it is a vector/matrix/quat passed as several scalars."""
        return is_component(self.mir[0])


def origin(p: Param) -> ParamOrigin:
    """The origin of any parameter (an array is always one the user passes)."""
    return p.origin if isinstance(p, ScalarParam) else ParamOrigin.USER


def user_name(p: Param) -> str:
    """The name the user writes for `p` (a component's vector, a capture's constant)."""
    return p.user_name if isinstance(p, ScalarParam) else p.name


def is_captured(p: Param) -> bool:
    return origin(p) is ParamOrigin.CAPTURED


def is_component(p: Param) -> bool:
    return origin(p) is ParamOrigin.COMPONENT


def user_params(k: Kernel) -> tuple[UserParam, ...]:
    """The parameters the user passes at launch, in source order; captured
    constants are not among them (see `captured_params`)."""
    out: list[UserParam] = []
    for p in k.params:
        if is_captured(p):
            continue
        if is_component(p) and out and out[-1].is_components and out[-1].name == user_name(p):
            out[-1] = UserParam(out[-1].name, out[-1].mir + (p,))
        else:
            out.append(UserParam(user_name(p), (p,)))
    return tuple(out)


def captured_params(k: Kernel) -> tuple[ScalarParam, ...]:
    """The hidden parameters for the module constants `k` captures, in order
    (they follow every user parameter)."""
    return tuple(p for p in k.scalar_params if p.origin is ParamOrigin.CAPTURED)


def param_named(k: Kernel, name: str) -> Param | None:
    """The MIR parameter called `name`, or None."""
    return next((p for p in k.params if p.name == name), None)


_COMPONENT_NAME = re.compile(r"^(?P<vector>.+)\[\d+\]$")


def printed_param(name: str, v: Value) -> ScalarParam:
    """The scalar parameter MIR text (verikern.mir.parser) names `name`. The
    text carries only the MIR name, in which the frontend spells the origin
    (`@c` a captured constant, `v[i]` a component of the vector `v`); this is
    the one place that reads an origin back from a name."""
    if name.startswith("@"):
        return ScalarParam(name, v, ParamOrigin.CAPTURED, name[1:])
    m = _COMPONENT_NAME.match(name)
    if m:
        return ScalarParam(name, v, ParamOrigin.COMPONENT, m["vector"])
    return ScalarParam(name, v)


__all__ = ["UserParam", "printed_param", "captured_params", "is_captured", "is_component",
           "origin", "param_named", "user_name", "user_params"]
