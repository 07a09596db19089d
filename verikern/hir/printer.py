"""Stable, readable text form of HIR (golden tests compare against it).

Invariant: the output depends only on the HIR content; expressions print as
fully parenthesised Python-like source with every literal's type shown
(`1:int32`), one statement per line with its `; line:col`.
"""
from __future__ import annotations

from verikern.mir.ops import symbols

from . import nodes as H
from .types import type_name

_SYM = symbols("binary", "compare")


def format_expr(e) -> str:
    f = _EXPR.get(type(e))
    if f is None:
        raise TypeError(f"no HIR printer for {type(e).__name__}")
    return f(e)


def _lit(e):
    if e.type.is_bool:
        return "True" if e.value else "False"
    return f"{e.value!r}:{e.type}"


def _chain(e):
    parts = [format_expr(e.operands[0])]
    for op, x in zip(e.ops, e.operands[1:]):
        parts += [_SYM[op], format_expr(x)]
    return "(" + " ".join(parts) + ")"


def _unary(e):
    if e.op == "neg":
        return f"(-{format_expr(e.operand)})"
    if e.op == "not":
        return f"(not {format_expr(e.operand)})"
    if e.op == "invert":
        return f"(~{format_expr(e.operand)})"
    return f"{e.op}({format_expr(e.operand)})"


def _component(e):
    if e.count == 1:
        return f"{format_expr(e.value)}.c{e.index}"
    return f"{format_expr(e.value)}.c{e.index}:{e.index + e.count}"


_EXPR = {
    H.Literal: _lit,
    H.LocalRef: lambda e: e.name if e.assigned_flag is None else f"{e.name}?",
    H.ArrayRefExpr: lambda e: e.name,
    H.BinaryExpr: lambda e: f"({format_expr(e.lhs)} {_SYM[e.op]} {format_expr(e.rhs)})",
    H.CompareExpr: lambda e: f"({format_expr(e.lhs)} {_SYM[e.op]} {format_expr(e.rhs)})",
    H.ChainCompare: _chain,
    H.BoolOpExpr: lambda e: f"({format_expr(e.lhs)} {e.op} {format_expr(e.rhs)})",
    H.UnaryExpr: _unary,
    H.CastExpr: lambda e: f"{e.type}({format_expr(e.operand)})",
    H.CondExpr: lambda e: (f"({format_expr(e.if_true)} if {format_expr(e.cond)} "
                           f"else {format_expr(e.if_false)})"),
    H.IndexExpr: lambda e: f"{e.array.name}[{', '.join(format_expr(i) for i in e.indices)}]",
    H.ShapeExpr: lambda e: f"{e.array.name}.shape[{e.dim}]",
    H.ComponentExpr: _component,
    H.DynamicComponentExpr: lambda e: (f"{format_expr(e.value)}.c["
                                       + ", ".join(format_expr(i) for i in e.indices)
                                       + ("" if e.count == 1 else f"; {e.count}") + "]"),
    H.BuiltinCall: lambda e: f"vk.{e.name}({', '.join(format_expr(a) for a in e.args)})"
    + (f":{type_name(e.type)}" if e.name.startswith("construct") else ""),
    H.FuncCall: lambda e: f"{e.func}({', '.join(format_expr(a) for a in e.args)})",
    H.EffectThen: lambda e: (f"({'address ' if e.address_only else ''}{format_expr(e.effect)}; "
                             f"{format_expr(e.value)})"),
}


def _loc(s) -> str:
    return f"  ; {s.loc.line}:{s.loc.col}"


def format_stmts(stmts, indent: int) -> list[str]:
    out = []
    pad = "    " * indent
    for s in stmts:
        f = _STMT.get(type(s))
        if f is None:
            raise TypeError(f"no HIR printer for {type(s).__name__}")
        out.extend(f(s, pad, indent))
    if not stmts:
        out.append(f"{pad}pass")
    return out


def _block(head, body, pad, indent, s):
    return [f"{pad}{head}:{_loc(s)}", *format_stmts(body, indent + 1)]


def _if(s, pad, indent):
    lines = _block(f"if {format_expr(s.cond)}", s.then, pad, indent, s)
    if s.orelse:
        lines.append(f"{pad}else:")
        lines.extend(format_stmts(s.orelse, indent + 1))
    return lines


def _part(s) -> str:
    """`.c1` / `.c3:6`: the components a partial store writes (none: all)."""
    if not s.count:
        return ""
    return f".c{s.component}" + ("" if s.count == 1 else f":{s.component + s.count}")


_STMT = {
    H.Assign: lambda s, p, i: [f"{p}{s.name} = {format_expr(s.value)}{_loc(s)}"],
    H.AssignComponent: lambda s, p, i: [
        f"{p}{s.name}.c{s.index}{'' if s.count == 1 else ':' + str(s.index + s.count)} = "
        f"{format_expr(s.value)}{_loc(s)}"],
    H.TidUnpack: lambda s, p, i: [f"{p}{', '.join(s.names)} = vk.tid(){_loc(s)}"],
    H.StoreStmt: lambda s, p, i: [
        f"{p}{s.array.name}[{', '.join(format_expr(x) for x in s.indices)}]{_part(s)} = "
        f"{format_expr(s.value)}{_loc(s)}"],
    H.AtomicUpdate: lambda s, p, i: [
        f"{p}atomic.{s.op} {s.array.name}[{', '.join(format_expr(x) for x in s.indices)}]"
        f"{_part(s)}, {format_expr(s.value)}{_loc(s)}"],
    H.ExprStmt: lambda s, p, i: [f"{p}{'address ' if s.address_only else ''}{format_expr(s.value)}"
                                 f"{_loc(s)}"],
    H.SharedDecl: lambda s, p, i: [f"{p}{s.name} = {s.type}{_loc(s)}"],
    H.ViewDecl: lambda s, p, i: [f"{p}{s.name} = view {s.array.name}[{', '.join(s.leading)}]{_loc(s)}"],
    H.If: _if,
    H.While: lambda s, p, i: _block(f"while {format_expr(s.cond)}", s.body, p, i, s),
    H.ForRange: lambda s, p, i: _block(
        f"for {s.var} in range({format_expr(s.start)}, {format_expr(s.stop)}, "
        f"{format_expr(s.step)})", s.body, p, i, s),
    H.BlockUntil: lambda s, p, i: [f"{p}vk.block_until({format_expr(s.cond)}){_loc(s)}"],
    H.Break: lambda s, p, i: [f"{p}break{_loc(s)}"],
    H.Continue: lambda s, p, i: [f"{p}continue{_loc(s)}"],
    H.ReturnStmt: lambda s, p, i: [
        f"{p}return{'' if s.value is None else ' ' + format_expr(s.value)}{_loc(s)}"],
    H.BarrierStmt: lambda s, p, i: [f"{p}vk.sync_threads(){_loc(s)}"],
    H.AssertStmt: lambda s, p, i: [
        f"{p}{s.kind} {format_expr(s.cond)}, {s.message!r}{_loc(s)}"],
    H.RequiresStmt: lambda s, p, i: [f"{p}requires {format_expr(s.cond)}{_loc(s)}"],
    H.RequiresArrayStmt: lambda s, p, i: [
        f"{p}requires vk.{s.kind}({s.array.name}"
        + ("" if s.lo is None else f", {format_expr(s.lo)}, {format_expr(s.hi)}")
        + f"){_loc(s)}"],
}


def _params(params) -> str:
    return ", ".join(f"{p.name}: {type_name(p.type)}" for p in params)


def format_func(f: H.FuncDef) -> str:
    ret = type_name(f.returns) if f.returns is not None else "None"
    lines = [f"func {f.name}({_params(f.params)}) -> {ret}:  ; {f.loc.line}:{f.loc.col}"]
    lines.extend(format_stmts(f.body, 1))
    return "\n".join(lines) + "\n"


def format_kernel(k: H.KernelDef) -> str:
    """The kernel and every func it calls (funcs first, in name order)."""
    out = [format_func(f) for f in k.funcs]
    attrs = [f"launch_ndim={k.launch_ndim}"]
    if k.block_dim is not None:
        attrs.append(f"block_dim={k.block_dim}")
    if k.fast_math:
        attrs.append("fast_math")
    if k.uses_block_features:
        attrs.append("uses_block_features")
    lines = [f"kernel {k.name}({_params(k.params)}) [{', '.join(attrs)}]:  "
             f"; {k.loc.line}:{k.loc.col}"]
    lines.extend(format_stmts(k.body, 1))
    out.append("\n".join(lines) + "\n")
    return "\n".join(out)
