"""z3's SMT-LIB 2 output as standard SMT-LIB 2 (what `--dump-smt` writes and
what a cross-checking solver reads).

Invariant: the rewrite keeps every query's meaning (SMT-LIB 2.6 semantics,
division by zero included); text it does not know is left as it is, so a
solver that cannot read it answers unknown, never agreement.
"""
from __future__ import annotations

import re


#: z3's internal spellings of standard operators (SMT-LIB 2.6 semantics,
#: division by zero included).
_Z3_INTERNAL = {"bvudiv_i": "bvudiv", "bvsdiv_i": "bvsdiv", "bvurem_i": "bvurem",
                "bvsrem_i": "bvsrem", "bvsmod_i": "bvsmod"}


def standard_smtlib(text: str) -> str:
    """z3's SMT-LIB output in standard SMT-LIB: internal operator names
    renamed; z3's multiplication overflow predicates in standard terms --
    `(bvumul_noovfl a b)` as `(not (bvumulo a b))`, `(bvsmul_noovfl a b)`
    (no signed overflow upwards) as "not (bvsmulo a b) with a and b of one
    sign", `(bvsmul_noudfl a b)` (no signed underflow) the same with signs
    that differ (a product of operands of one sign is never negative, of
    differing signs never positive); and z3's one-argument `(or x)` /
    `(and x)` as `x`. Anything else is left as it is (a solver that cannot
    read it answers unknown, never agreement)."""
    text = re.sub(r"\b(" + "|".join(_Z3_INTERNAL) + r")\b", lambda m: _Z3_INTERNAL[m.group(1)], text)
    if not any(w in text for w in ("(or ", "(and ", "mul_noovfl ", "mul_noudfl ")):
        return text
    stack: list[list] = [[]]
    for tok in _TOKEN.findall(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            node = stack.pop()
            stack[-1].append(_standard_node(node))
        else:
            stack[-1].append(tok)
    return "\n".join(_show(n) for n in stack[0]) + "\n"


_TOKEN = re.compile(r'\|[^|]*\||"(?:[^"]|"")*"|;[^\n]*|\(|\)|[^\s()|";]+')


def _negative(x) -> list:
    return ["bvslt", x, ["bvsub", x, x]]          # x < 0 at x's own width


def _standard_node(node: list):
    if len(node) == 2 and node[0] in ("or", "and"):
        return node[1]
    if len(node) == 3 and node[0] == "bvumul_noovfl":
        return ["not", ["bvumulo", node[1], node[2]]]
    if len(node) == 3 and node[0] in ("bvsmul_noovfl", "bvsmul_noudfl"):
        same = "=" if node[0] == "bvsmul_noovfl" else "distinct"
        return ["not", ["and", ["bvsmulo", node[1], node[2]],
                        [same, _negative(node[1]), _negative(node[2])]]]
    return node


def _show(node) -> str:
    """`node` as SMT-LIB text, iteratively (queries nest deeply)."""
    out: list[str] = []
    work: list = [node]
    while work:
        item = work.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        out.append("(")
        work.append(")")
        for k, child in enumerate(reversed(item)):
            work.append(child)
            if k < len(item) - 1:
                work.append(" ")
    return "".join(out)


__all__ = ["standard_smtlib"]
