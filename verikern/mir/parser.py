"""Parse the text form of MIR (`verikern.mir.printer`) back into Kernels.

`parse_kernel(text)` reads one kernel, `parse_module(text)` any number of
kernels one after another. The grammar is in docs/MIR.md ("Text format").

Invariants:
- exact inverse of the printer: for every Kernel k the printer accepts whose
  names (kernel, arrays, values, block labels) are identifier characters and
  dots, as the frontend and the passes make them,
  `parse_kernel(format_kernel(k)) == k` field by field (source locations,
  value ids, names and types, loops with their latches, range counters and
  invariants, shared arrays, parameters, attributes) and therefore
  `format_kernel(parse_kernel(format_kernel(k))) == format_kernel(k)`;
- the parser builds what the text says and nothing else: it never checks
  MIR well-formedness (run `verikern.mir.verifier.verify` on the result), but
  every reference must resolve: each value id is defined once (a scalar
  parameter or an instruction/phi result) and every use names it with its
  defined name, arrays and block labels of invariant sites exist;
- errors are `MirParseError` naming `source:line:col` of the MIR text and
  what was expected there.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import NoReturn

from .nodes import (
    ASSERT_KINDS, ATOMIC_OPS, BINARY_OPS, COMPARE_OPS, SPECIAL_KINDS, UNARY_OPS, UNKNOWN_LOC, ArrayRef,
    Assert, Atomic, Barrier, BinOp, Block, Branch, Cast, Compare, Const, Jump, Kernel, Load,
    LoopInfo, Phi, RangeLoopInfo, Requires, RequiresArray, Return, ScalarParam, Select,
    Instr, Operand, ShapeOf, SourceLoc, Special, Store, UnaryOp, Value,
)
from .params import printed_param
from .types import BOOL, SCALAR_TYPES, ScalarType


class MirParseError(ValueError):
    """The MIR text does not follow the grammar; `line`/`col` are 1-based."""

    def __init__(self, source: str, line: int, col: int, message: str):
        super().__init__(f"{source}:{line}:{col}: {message}")
        self.source, self.line, self.col = source, line, col


_TOKEN = re.compile(r"""
  (?P<ws>\s+)
| (?P<comment>;.*)
| (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
| (?P<value>%@?(?:[\w.]|\[\d+\])+)
| (?P<number>-?(?:\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|inf|nan)(?![\w.]))
| (?P<word>[^\W\d][\w.]*)
| (?P<punct>[:,=\[\](){}<>\#])
""", re.X)
_LOC = re.compile(r"(?:(?P<file>.*):)?(?P<line>-?\d+):(?P<col>-?\d+)", re.S)
_INT = re.compile(r"-?\d+")


@dataclass(frozen=True)
class _Tok:
    kind: str   # ws-free token kind: comment string value number word punct
    text: str
    col: int    # 1-based


class _Line:
    """The tokens of one line and a cursor over them (comment kept apart)."""

    def __init__(self, parser: "_Parser", lineno: int, text: str):
        self.p, self.lineno, self.text = parser, lineno, text
        self.toks: list[_Tok] = []
        self.comment: _Tok | None = None
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:
                self.fail_at(pos + 1, f"unexpected character {text[pos]!r}")
            kind = m.lastgroup
            assert kind is not None   # every alternative of _TOKEN is a named group
            if kind == "comment":
                self.comment = _Tok(kind, m.group()[1:].strip(), pos + 1)
            elif kind != "ws":
                self.toks.append(_Tok(kind, m.group(), pos + 1))
            pos = m.end()
        self.i = 0

    # -- cursor ---------------------------------------------------------------
    def fail_at(self, col: int, message: str) -> NoReturn:
        raise MirParseError(self.p.source, self.lineno, col, message)

    def fail(self, what: str) -> NoReturn:
        t = self.peek()
        found = "end of line" if t is None else repr(t.text)
        self.fail_at(t.col if t else len(self.text.rstrip()) + 1, f"expected {what}, found {found}")

    def peek(self, k: int = 0) -> _Tok | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def at(self, text: str) -> bool:
        t = self.peek()
        return t is not None and t.kind in ("punct", "word") and t.text == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str | None = None) -> _Tok:
        if not self.at(text):
            self.fail(what or repr(text))
        self.i += 1
        return self.toks[self.i - 1]

    def take(self, kind: str, what: str) -> _Tok:
        t = self.peek()
        if t is None or t.kind != kind:
            self.fail(what)
        self.i += 1
        return t

    def at_colon(self) -> bool:
        """Whether the second token is ':' (a result `%v: type =` or a label)."""
        t = self.peek(1)
        return t is not None and t.kind == "punct" and t.text == ":"

    def end(self):
        if self.peek() is not None:
            self.fail("end of line")

    # -- small grammar pieces ----------------------------------------------------
    def word(self, what: str) -> str:
        return self.take("word", what).text

    def integer(self, what: str = "an integer") -> int:
        t = self.peek()
        if t is None or t.kind != "number" or not _INT.fullmatch(t.text):
            self.fail(what)
        self.i += 1
        return int(t.text)

    def scalar_type(self) -> ScalarType:
        t = self.peek()
        if t is None or t.kind != "word" or t.text not in SCALAR_TYPES:
            self.fail("a scalar type (int32, float32, bool, ...)")
        self.i += 1
        return SCALAR_TYPES[t.text]

    def label_list(self) -> tuple[str, ...]:
        self.expect("[")
        out: list[str] = []
        while not self.accept("]"):
            if out:
                self.expect(",", "',' or ']'")
            out.append(self.word("a block label"))
        return tuple(out)

    def value(self) -> Value:
        t = self.take("value", "a value (%name.id or %id)")
        return self.p.use(self, t)

    def operand(self):
        t = self.peek()
        if t is not None and t.kind == "value":
            return self.value()
        if t is not None and t.kind == "word" and t.text in ("true", "false"):
            self.i += 1
            return Const(t.text == "true", BOOL)
        if t is None or t.kind != "number":
            self.fail("an operand (%value, NUMBER:type, true or false)")
        self.i += 1
        self.expect(":", "':' and the constant's type")
        number = int(t.text) if _INT.fullmatch(t.text) else float(t.text)
        return Const(number, self.scalar_type())

    def operands(self, n: int) -> list:
        out = [self.operand()]
        for _ in range(n - 1):
            self.expect(",")
            out.append(self.operand())
        return out

    def array(self) -> ArrayRef:
        t = self.take("word", "an array name")
        if t.text not in self.p.arrays:
            self.fail_at(t.col, f"unknown array {t.text!r}")
        return self.p.arrays[t.text]

    def indexed(self) -> tuple[ArrayRef, tuple]:
        a = self.array()
        self.expect("[")
        idx: list[Operand] = []
        while not self.accept("]"):
            if idx:
                self.expect(",", "',' or ']'")
            idx.append(self.operand())
        return a, tuple(idx)

    def loc(self, default: SourceLoc) -> SourceLoc:
        """The trailing `; [file:]line:col` comment, or `default` without one."""
        if self.comment is None:
            return default
        m = _LOC.fullmatch(self.comment.text)
        if m is None:
            self.fail_at(self.comment.col, "expected a location '; line:col' or "
                                           f"'; file:line:col', found {self.comment.text!r}")
        file = m.group("file")
        if file is None:
            file = default.file
        elif file[:1] in ("'", '"'):
            try:
                file = ast.literal_eval(file)
            except (ValueError, SyntaxError):
                self.fail_at(self.comment.col, f"bad quoted file name {file}")
        return SourceLoc(file, int(m.group("line")), int(m.group("col")))


class _Parser:
    def __init__(self, text: str, source: str):
        self.source = source
        self.lines = [_Line(self, n, t) for n, t in enumerate(text.splitlines(), 1)]
        self.lines = [ln for ln in self.lines if ln.toks]   # blank and comment-only lines
        self.pos = 0
        self.defs: dict[int, Value] = {}
        self.arrays: dict[str, ArrayRef] = {}

    def use(self, line: _Line, t: _Tok) -> Value:
        name, vid = _split_value(line, t)
        v = self.defs.get(vid)
        if v is None:
            line.fail_at(t.col, f"value {t.text} is never defined")
        if v.name != name:
            line.fail_at(t.col, f"{t.text} names value {vid}, defined as {v}")
        return v

    def define(self, line: _Line, t: _Tok, type_: ScalarType) -> Value:
        name, vid = _split_value(line, t)
        if vid in self.defs:
            line.fail_at(t.col, f"value id {vid} is defined twice (also as {self.defs[vid]})")
        v = self.defs[vid] = Value(vid, type_, name)
        return v

    # -- one kernel --------------------------------------------------------------
    def kernel(self) -> Kernel:
        head = self.lines[self.pos]
        self.pos += 1
        self.defs, self.arrays = {}, {}
        name, params, attrs = self.header(head)
        start = self.pos
        while self.pos < len(self.lines) and not self.lines[self.pos].at("}"):
            ln = self.lines[self.pos]       # pre-scan: every result definition
            if ln.at("kernel") and not _is_label(ln):
                ln.fail_at(1, "expected '}' closing the kernel before the next one")
            tok = ln.peek()
            if tok is not None and tok.kind == "value" and ln.at_colon():
                ln.i = 2
                self.define(ln, tok, ln.scalar_type())
                ln.i = 0
            self.pos += 1
        if self.pos == len(self.lines):
            self.lines[-1].fail_at(len(self.lines[-1].text) + 1, "expected '}' closing the kernel")
        end, self.pos = self.pos, start
        kloc = head.loc(UNKNOWN_LOC)
        default = SourceLoc(kloc.file, 0, 0)
        shared, loops = [], []
        while self.pos < end and not _is_label(self.lines[self.pos]):
            ln = self.lines[self.pos]
            if ln.at("loop"):
                loops.append(self.loop(ln, default))
            else:
                shared.append(self.shared(ln))
            self.pos += 1
        blocks = self.blocks(end, default)
        self.lines[end].expect("}")
        self.lines[end].end()
        self.pos = end + 1
        by_label = {b.label: b for b in blocks}
        loops = [self.invariants(lp, by_label) for lp in loops]
        return Kernel(name, tuple(params), tuple(shared), tuple(blocks), tuple(loops), kloc,
                      **attrs)

    def header(self, ln: _Line):
        ln.expect("kernel", "'kernel'")
        name = ln.word("the kernel name")
        ln.expect("(")
        params: list[ScalarParam | ArrayRef] = []
        while not ln.accept(")"):
            if params:
                ln.expect(",", "',' or ')'")
            t = ln.peek()
            if t is not None and t.kind == "value":
                ln.i += 1
                ln.expect(":")
                v = self.define(ln, t, ln.scalar_type())
                pname = v.name
                if ln.accept("name"):
                    ln.expect("=")
                    pname = ast.literal_eval(ln.take("string", "a quoted name").text)
                params.append(printed_param(pname, v))
            else:
                aname = ln.word("a parameter (%value: type or name: array<...>)")
                ln.expect(":")
                ln.expect("array", "'array<dtype, ndim>'")
                ln.expect("<")
                dtype, inner = ln.scalar_type(), self.inner(ln)
                ln.expect(",")
                ndim = ln.integer("the number of dimensions")
                ln.expect(">")
                params.append(self.add_array(ln, ArrayRef(aname, dtype, ndim, inner)))
        ln.expect("[")
        attrs: dict = {}
        while not ln.accept("]"):
            if attrs:
                ln.expect(",", "',' or ']'")
            key = ln.word("launch_ndim=N, block_dim=N, fast_math or uses_block_features")
            if key in ("launch_ndim", "block_dim"):
                ln.expect("=")
                attrs[key] = ln.integer()
            elif key in ("fast_math", "uses_block_features"):
                attrs[key] = True
            else:
                ln.i -= 1
                ln.fail("launch_ndim=N, block_dim=N, fast_math or uses_block_features")
        ln.expect("{")
        ln.end()
        return name, params, attrs

    @staticmethod
    def inner(ln: _Line) -> tuple[int, ...]:
        inner = []
        while ln.at("[") and (num := ln.peek(1)) is not None and num.kind == "number" \
                and (close := ln.peek(2)) is not None and close.text == "]":
            ln.i += 1
            inner.append(ln.integer())
            ln.expect("]")
        return tuple(inner)

    def add_array(self, ln: _Line, a: ArrayRef) -> ArrayRef:
        if a.name in self.arrays:
            ln.fail_at(1, f"array {a.name!r} is declared twice")
        self.arrays[a.name] = a
        return a

    def shared(self, ln: _Line) -> ArrayRef:
        name = ln.word("'loop', a shared array 'name = shared dtype[...]' or a block label")
        ln.expect("=")
        ln.expect("shared", "'shared'")
        dtype = ln.scalar_type()
        groups: list[tuple[list[int], str]] = []   # [inner]...[shape, layout]: the last is the shape
        ln.expect("[", "'[' and the shared array's shape")
        while not groups or ln.accept("["):
            shape: list[int] = []
            layout = "row_major"
            while not ln.accept("]"):
                if shape or layout != "row_major":
                    ln.expect(",", "',' or ']'")
                t = ln.peek()
                if t is not None and t.kind == "word":
                    layout = ln.word("a layout")
                else:
                    shape.append(ln.integer("a dimension or a layout"))
            groups.append((shape, layout))
        ln.end()
        if any(len(g) != 1 or lay != "row_major" for g, lay in groups[:-1]):
            ln.fail_at(1, "an inner dimension of a shared array is one integer")
        dims = [g[0] for g, _ in groups[:-1]]
        shape, layout = groups[-1]
        return self.add_array(ln, ArrayRef(name, dtype, len(shape), tuple(dims), "shared",
                                           tuple(shape), layout))

    def loop(self, ln: _Line, default: SourceLoc):
        ln.expect("loop")
        header = ln.word("the loop's header label")
        fields = {}
        for key in ("body", "latches"):
            ln.expect(key, f"'{key}=[...]'")
            ln.expect("=")
            fields[key] = ln.label_list()
        ln.expect("exit", "'exit=LABEL'")
        ln.expect("=")
        exit_ = ln.word("the exit label")
        rng = None
        if ln.accept("range"):
            counter = ln.value()
            ln.expect("=")
            start = ln.operand()
            ln.expect("to")
            stop = ln.operand()
            ln.expect("step")
            rng = RangeLoopInfo(counter, start, stop, ln.operand())
        sites: list[tuple[int, str, int]] = []
        if ln.accept("invariants"):
            ln.expect("=")
            ln.expect("[")
            while not ln.accept("]"):
                if sites:
                    ln.expect(",", "',' or ']'")
                t = ln.take("word", "an invariant site LABEL#INDEX")
                label = t.text
                ln.expect("#")
                sites.append((t.col, label, ln.integer("the instruction's index in its block")))
        ln.end()
        info = LoopInfo(header, fields["body"], fields["latches"], exit_, ln.loc(default), rng)
        return info, ln, sites

    @staticmethod
    def invariants(entry, by_label) -> LoopInfo:
        info, ln, sites = entry
        invs = []
        for col, label, idx in sites:
            b = by_label.get(label)
            if b is None or not 0 <= idx < len(b.instrs) or not isinstance(b.instrs[idx], Assert):
                ln.fail_at(col, f"{label}#{idx} is not an assert of the kernel")
            invs.append(b.instrs[idx])
        return LoopInfo(info.header, info.body, info.latches, info.exit, info.loc, info.range,
                        tuple(invs))

    def blocks(self, end: int, default: SourceLoc) -> list[Block]:
        blocks = []
        while self.pos < end:
            ln = self.lines[self.pos]
            if not _is_label(ln):
                ln.fail("a block label 'name:'")
            label = ln.word("a block label")
            self.pos += 1
            phis: list[Phi] = []
            instrs: list[Instr] = []
            term: Jump | Branch | Return | None = None
            while term is None:
                if self.pos >= end:
                    self.lines[end].fail_at(1, f"expected a terminator (jmp, br, ret) "
                                               f"ending block {label}")
                ln = self.lines[self.pos]
                ins = self.instruction(ln, default)
                if isinstance(ins, Phi):
                    if instrs:
                        ln.fail_at(1, "phis must come before the block's other instructions")
                    phis.append(ins)
                elif isinstance(ins, (Jump, Branch, Return)):
                    term = ins
                else:
                    instrs.append(ins)
                self.pos += 1
            blocks.append(Block(label, tuple(phis), tuple(instrs), term))
        return blocks

    def instruction(self, ln: _Line, default: SourceLoc):
        result = None
        if (first := ln.peek()) is not None and first.kind == "value":
            result = ln.value()
            ln.expect(":")
            ln.scalar_type()
            ln.expect("=")
        t = ln.take("word", "an instruction")
        op = t.text
        base, _, sub = op.partition(".")
        with_result = _WITH_RESULT.get(base if sub else op)
        if with_result is None:
            ln.i -= 1
            ln.fail("an instruction")
        if with_result != (result is not None):
            ln.fail_at(t.col, f"{op} {'needs a result %v: type =' if with_result else 'has no result'}")
        return _build(ln, op, base, sub, result, t.col, default)

    def module(self) -> list[Kernel]:
        out = []
        while self.pos < len(self.lines):
            out.append(self.kernel())
        return out


def _is_label(ln: _Line) -> bool:
    return len(ln.toks) == 2 and ln.toks[0].kind == "word" and ln.toks[1].text == ":"


def _split_value(line: _Line, t: _Tok) -> tuple[str, int]:
    body = t.text[1:]
    name, _, vid = body.rpartition(".")
    if not vid.isdigit():
        line.fail_at(t.col, f"expected a value %name.id or %id, found {t.text!r}")
    return name, int(vid)


# opcode -> whether it defines a result (the prefix before '.' for cmp/atomic/requires.KIND/load.address)
_WITH_RESULT = {
    "phi": True, "cmp": True, "atomic": True, "cast": True, "select": True, "shape": True,
    "load": True, **{k: True for k in SPECIAL_KINDS}, **{o: True for o in BINARY_OPS},
    **{o: True for o in UNARY_OPS},
    "store": False, "barrier": False, **{k: False for k in ASSERT_KINDS}, "requires": False,
    "jmp": False, "br": False, "ret": False,
}


def _build(ln: _Line, op: str, base: str, sub: str, result, col: int, default: SourceLoc):
    """The node for opcode `op` (cursor after it), with its location."""
    def loc():
        ln.end()
        return ln.loc(default)

    if sub and base not in ("cmp", "atomic", "requires") and op != "load.address":
        ln.fail_at(col, f"unknown instruction {op!r}")
    if base == "cmp":
        if sub not in COMPARE_OPS:
            ln.fail_at(col, f"unknown comparison {op!r}")
        a, b = ln.operands(2)
        return Compare(result, sub, a, b, loc())
    if base == "atomic":
        if sub not in ATOMIC_OPS:
            ln.fail_at(col, f"unknown atomic {op!r}")
        arr, idx = ln.indexed()
        ln.expect(",")
        value = ln.operand()
        compare = ln.operand() if ln.accept(",") else None
        return Atomic(result, sub, arr, idx, value, loc(), compare)
    if op == "phi":
        incoming: list[tuple[str, Operand]] = []
        while ln.peek() is not None:
            if incoming:
                ln.expect(",", "',' or end of line")
            ln.expect("[", "'[label: operand]'")
            label = ln.word("a predecessor label")
            ln.expect(":")
            incoming.append((label, ln.operand()))
            ln.expect("]")
        return Phi(result, tuple(incoming), loc())
    if op in BINARY_OPS:
        a, b = ln.operands(2)
        return BinOp(result, op, a, b, loc())
    if op in UNARY_OPS:
        return UnaryOp(result, op, ln.operand(), loc())
    if op == "cast":
        return Cast(result, ln.operand(), loc())
    if op == "select":
        c, a, b = ln.operands(3)
        return Select(result, c, a, b, loc())
    if op in SPECIAL_KINDS:
        dim = 0
        if ln.accept("("):
            dim = ln.integer("a launch dimension")
            ln.expect(")")
        return Special(result, op, loc(), dim)
    if op == "shape":
        arr = ln.array()
        ln.expect("[")
        dim = ln.integer("a dimension")
        ln.expect("]")
        return ShapeOf(result, arr, dim, loc())
    if base == "load":
        arr, idx = ln.indexed()
        return Load(result, arr, idx, loc(), address_only=op == "load.address")
    if op == "store":
        arr, idx = ln.indexed()
        ln.expect(",")
        return Store(arr, idx, ln.operand(), loc())
    if op == "barrier":
        return Barrier(loc())
    if op in ASSERT_KINDS:
        cond = ln.operand()
        ln.expect(",")
        message = ast.literal_eval(ln.take("string", "the assert's message (a string)").text)
        return Assert(cond, message, loc(), op)
    if op == "requires":
        return Requires(ln.operand(), loc())
    if base == "requires":
        arr = ln.array()
        lo = hi = None
        if ln.accept(","):
            lo, hi = ln.operands(2)
        return RequiresArray(sub, arr, loc(), lo, hi)
    if op == "jmp":
        return Jump(ln.word("a block label"), loc())
    if op == "br":
        cond = ln.operand()
        ln.expect(",")
        yes = ln.word("a block label")
        ln.expect(",")
        return Branch(cond, yes, ln.word("a block label"), loc())
    return Return(loc())


def parse_kernel(text: str, source: str = "<mir>") -> Kernel:
    """The one kernel `text` holds (see the module docstring)."""
    kernels = parse_module(text, source)
    if len(kernels) != 1:
        raise MirParseError(source, 1, 1, f"expected one kernel, found {len(kernels)}")
    return kernels[0]


def parse_module(text: str, source: str = "<mir>") -> list[Kernel]:
    """Every kernel of `text`, in order (kernels printed one after another)."""
    return _Parser(text, source).module()


__all__ = ["MirParseError", "parse_kernel", "parse_module"]
