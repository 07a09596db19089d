"""docs/SOUNDNESS.md names, for every assumption and shortcut of the prover,
the tests that show it is needed and sufficient: each one it names exists."""
from __future__ import annotations

import re

from shared_helpers import ROOT

DOC = ROOT / "docs/SOUNDNESS.md"
_REF = re.compile(r"`(tests/[\w/]+\.py)(?:::(\w+))?`")


def _references() -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in _REF.finditer(DOC.read_text(encoding="utf-8"))]


def test_every_named_test_exists():
    refs = _references()
    assert len(refs) > 40
    missing = []
    for path, name in refs:
        file = ROOT / path
        if not file.is_file():
            missing.append(path)
        elif name is not None and not re.search(rf"^def {name}\(", file.read_text(encoding="utf-8"),
                                                re.MULTILINE):
            missing.append(f"{path}::{name}")
    assert missing == [], missing


def test_every_shortcut_the_issue_names_is_covered():
    text = DOC.read_text(encoding="utf-8").lower()
    for topic in ("lazy facts", "joined queries", "the same-block fact", "loop entry under the launch facts",
                  "houdini's subset rule", "uninit's first-candidate rule", "abstraction", "peeling",
                  "the proof cache", "suggested contracts"):
        assert topic in text, topic
