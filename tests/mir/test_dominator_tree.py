"""`cfg.dominators` (the dominator tree's intervals) against the textbook
fixpoint of dominator sets, computed here independently, on random control-flow
graphs with loops, joins and unreachable blocks; and a deep dominator tree (a
chain of diamonds, the shape of real projects' inlined kernels of thousands of
blocks, where a set per block was quadratic)."""
from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from verikern.mir.cfg import dominators, immediate_postdominator, postdominators


@dataclass
class _Term:
    targets: tuple[str, ...]

    def successors(self) -> tuple[str, ...]:
        return self.targets


@dataclass
class _Block:
    label: str
    terminator: _Term


class _Graph:
    """The part of a MIR kernel `dominators` reads: blocks in order (the first is
    the entry), each with a terminator's successors, and the predecessors."""

    def __init__(self, edges: dict[str, tuple[str, ...]]):
        self.blocks = [_Block(label, _Term(succ)) for label, succ in edges.items()]
        self._by = {b.label: b for b in self.blocks}
        self.entry = self.blocks[0]

    def block(self, label: str) -> _Block:
        return self._by[label]

    def predecessors(self) -> dict[str, list[str]]:
        preds: dict[str, list[str]] = {b.label: [] for b in self.blocks}
        for b in self.blocks:
            for s in b.terminator.successors():
                preds[s].append(b.label)
        return preds


def _reference(g: _Graph) -> dict[str, set[str]]:
    """Dom(entry) = {entry}; Dom(b) = {b} | the meet of Dom(p) over b's predecessors,
    from every set full, to the greatest fixpoint (unreachable blocks stay full)."""
    every = {b.label for b in g.blocks}
    dom = {label: set(every) for label in every}
    dom[g.entry.label] = {g.entry.label}
    preds = g.predecessors()
    changed = True
    while changed:
        changed = False
        for b in g.blocks[1:]:
            ps = preds[b.label]
            if not ps:
                continue                     # no way in: unreachable, stays full
            new = set.intersection(*(dom[p] for p in ps)) | {b.label}
            if new != dom[b.label]:
                dom[b.label], changed = new, True
    return dom


def _post_reference(g: _Graph) -> dict[str, set[str]]:
    """PDom(return) = {return}; PDom(b) = {b} | the meet of PDom(s) over b's successors,
    from every set full, to the greatest fixpoint (a block no return is reachable
    from stays full)."""
    every = {b.label for b in g.blocks}
    pdom = {label: ({label} if not g.block(label).terminator.successors() else set(every))
            for label in every}
    changed = True
    while changed:
        changed = False
        for b in g.blocks:
            succ = b.terminator.successors()
            if succ:
                new = set.intersection(*(pdom[s] for s in succ)) | {b.label}
                if new != pdom[b.label]:
                    pdom[b.label], changed = new, True
    return pdom


def _random_graph(rng: random.Random, n: int) -> _Graph:
    labels = [f"b{i}" for i in range(n)]
    edges: dict[str, tuple[str, ...]] = {}
    for i, label in enumerate(labels):
        kind = rng.random()
        if i == n - 1 or kind < 0.15:
            edges[label] = ()                                    # a return
        elif kind < 0.55:
            edges[label] = (labels[rng.randrange(1, n)],)        # a jump (back edges too)
        else:
            edges[label] = (labels[rng.randrange(1, n)], labels[rng.randrange(1, n)])
    return _Graph(edges)


@pytest.mark.parametrize("seed", range(40))
def test_dominators_equal_the_fixpoint_of_dominator_sets(seed):
    rng = random.Random(seed)
    g = _random_graph(rng, rng.randrange(2, 30))
    expected = _reference(g)
    got = dominators(g)                                          # type: ignore[arg-type]
    labels = [b.label for b in g.blocks]
    for b in labels:
        assert set(got[b]) == expected[b], b
        assert got[b] == expected[b]
        for a in labels:
            assert (a in got[b]) == (a in expected[b]), (a, b)
        assert "nowhere" not in got[b]
    expected_post, got_post = _post_reference(g), postdominators(g)  # type: ignore[arg-type]
    for b in labels:
        assert set(got_post[b]) == expected_post[b], b
        for a in labels:
            assert (a in got_post[b]) == (a in expected_post[b]), (a, b)
        strict = expected_post[b] - {b}
        nearest = [c for c in strict if all(o == c or o in expected_post[c] for o in strict)]
        if expected_post[b] != {x.label for x in g.blocks}:          # reaches a return
            assert immediate_postdominator(g, b, got_post) == (nearest[0] if nearest else None)  # type: ignore[arg-type]


def test_a_chain_of_diamonds_has_the_heads_as_its_dominator_chain():
    n = 500
    edges: dict[str, tuple[str, ...]] = {}
    for i in range(n):
        edges[f"h{i}"] = (f"l{i}", f"r{i}")
        edges[f"l{i}"] = (f"h{i + 1}",)
        edges[f"r{i}"] = (f"h{i + 1}",)
    edges[f"h{n}"] = ()
    dom = dominators(_Graph(edges))                             # type: ignore[arg-type]
    assert "h0" in dom[f"h{n}"] and f"h{n // 2}" in dom[f"l{n - 1}"]
    assert "l0" not in dom["h1"] and "r5" not in dom[f"h{n}"]
    assert dom["h3"].immediate == "h2" and dom["l3"].immediate == "h3"
    assert dom["h0"].immediate is None
    assert list(dom["h4"]) == ["h4", "h3", "h2", "h1", "h0"] and len(dom[f"r{n - 1}"]) == n + 1
    pdom = postdominators(_Graph(edges))                        # type: ignore[arg-type]
    assert f"h{n}" in pdom["l0"] and "h1" in pdom["h0"] and "l1" not in pdom["h0"]
    assert list(pdom[f"h{n - 1}"]) == [f"h{n - 1}", f"h{n}"]
