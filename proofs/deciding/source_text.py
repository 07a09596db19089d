"""Source expressions for messages: an operand the prover names is quoted as
the source writes it (`x[wp.min(i, n)]`), never as an SSA value (`x[%6]`).

Invariants: text comes only from the kernel's own source (`Kernel.source`,
the file it was compiled from) at the location of the instruction in
question, and only for a location in that file; a node is taken only when
it is the one that instruction was compiled from (same syntax, same operator,
same nesting), else None, and the caller renders the operand another way.
Text never decides anything.
"""
from __future__ import annotations

import ast
import functools

from verikern.mir.nodes import Atomic, BinOp, Cast, Kernel, Load, Select, SourceLoc, UnaryOp

#: MIR binary operators and the Python operators they are compiled from.
_AST_OPS = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "div": ast.Div,
            "floordiv": ast.FloorDiv, "mod": ast.Mod, "and": ast.BitAnd, "or": ast.BitOr,
            "xor": ast.BitXor, "shl": ast.LShift, "shr": ast.RShift}


@functools.lru_cache(maxsize=16)
def _index(source: str) -> dict | None:
    """(line, 1-based col) -> the expression nodes starting there, outermost first."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    out: dict = {}
    for node in ast.walk(tree):            # breadth first: outer nodes before inner ones
        if isinstance(node, ast.expr):
            out.setdefault((node.lineno, node.col_offset + 1), []).append(node)
    return out


def _nodes_at(kernel: Kernel, loc: SourceLoc) -> list:
    if kernel.source is None or loc.file != kernel.loc.file:
        return []
    index = _index(kernel.source)
    return list(index.get((loc.line, loc.col), ())) if index is not None else []


def _text(kernel: Kernel, node) -> str | None:
    assert kernel.source is not None      # (nodes come from it)
    seg = ast.get_source_segment(kernel.source, node)
    return " ".join(seg.split()) if seg else None


def index_text(kernel: Kernel, loc: SourceLoc, k: int) -> str | None:
    """Index `k` of the array access at `loc` as the source writes it
    (`a[i, j]`, `a[i][j]`: `j` for k = 1), or None."""
    for node in _nodes_at(kernel, loc):
        if not isinstance(node, ast.Subscript):
            continue
        parts: list = []
        while isinstance(node, ast.Subscript):
            s = node.slice
            parts[:0] = list(s.elts) if isinstance(s, ast.Tuple) else [s]
            node = node.value
        return _text(kernel, parts[k]) if k < len(parts) else None
    return None


def call_text(kernel: Kernel, loc: SourceLoc, callee: str) -> str | None:
    """The source text of the call of `callee` (a bare name: `lower_bound` for
    `wp.lower_bound(...)`) that starts at `loc`, or None."""
    for node in _nodes_at(kernel, loc):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name == callee:
                return _text(kernel, node)
    return None


def _left_chain(ins, defs: dict) -> int:
    """How many instructions of `ins`'s kind at its location its left operand nests."""
    depth = 0
    while isinstance(ins, BinOp):
        inner = defs.get(getattr(ins.lhs, "id", None))
        if not (isinstance(inner, BinOp) and inner.op == ins.op and inner.loc == ins.loc):
            break
        depth, ins = depth + 1, inner
    return depth


def _node_chain(node) -> int:
    depth = 0
    while isinstance(node.left, ast.BinOp) and type(node.left.op) is type(node.op) \
            and (node.left.lineno, node.left.col_offset) == (node.lineno, node.col_offset):
        depth, node = depth + 1, node.left
    return depth


def _node_of(kernel: Kernel, ins, defs: dict):
    """The expression node `ins` was compiled from, or None."""
    nodes = _nodes_at(kernel, ins.loc)
    found: list
    if isinstance(ins, BinOp) and ins.op in _AST_OPS:
        want = _AST_OPS[ins.op]
        depth = _left_chain(ins, defs)
        found = [n for n in nodes if isinstance(n, ast.BinOp) and isinstance(n.op, want)
                 and _node_chain(n) == depth]
    elif isinstance(ins, Load):
        found = [n for n in nodes if isinstance(n, ast.Subscript)][:1]
    elif isinstance(ins, (Cast, Select, Atomic)) or isinstance(ins, BinOp):
        # a cast, a select, an atomic, a builtin (`wp.min`): the call or conditional there
        found = [n for n in nodes if isinstance(n, (ast.Call, ast.IfExp))][:1]
    elif isinstance(ins, UnaryOp):
        found = [n for n in nodes if isinstance(n, (ast.UnaryOp, ast.Call))][:1]
    else:
        return None
    return found[0] if len(found) == 1 else None


def operand_text(kernel: Kernel, ins, defs: dict) -> str | None:
    """The source text of the expression instruction `ins` computes, or None."""
    node = _node_of(kernel, ins, defs)
    return _text(kernel, node) if node is not None else None


def _division_node(kernel: Kernel, ins) -> ast.BinOp | None:
    want = _AST_OPS.get(getattr(ins, "op", ""))
    found = [n for n in _nodes_at(kernel, ins.loc) if isinstance(n, ast.BinOp)
             and want is not None and isinstance(n.op, want)]
    return found[0] if len(found) == 1 else None


def divisor_text(kernel: Kernel, ins) -> str | None:
    """The divisor of the division `ins` as the source writes it, or None."""
    node = _division_node(kernel, ins)
    return _text(kernel, node.right) if node is not None else None


def dividend_text(kernel: Kernel, ins) -> str | None:
    """The dividend of the division `ins` as the source writes it, or None."""
    node = _division_node(kernel, ins)
    return _text(kernel, node.left) if node is not None else None
