"""The contracts a struct parameter's type implies (check/structs.py
`struct_shape_requires`: the fields of an array of structs have one shape; the
arrays held by its elements are padded to a width W below 2**31 - 1 and each
element's length is in 0..W) are located at the parameter's annotation, which
states none of them: every report names what they assume (the held arrays and
their lengths), never the annotation's text (proofs/reporting/scope.py)."""
from __future__ import annotations

import json
from pathlib import Path

from helpers_report import cli, validate_report

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
HELD = CORPUS / "ok_struct_held_arrays_block_sizes.py"

PLAIN = """\
import warp as wp


@wp.struct
class Particle:
    pos: wp.vec3
    mass: wp.float32


@wp.kernel
def total(parts: wp.array(dtype=Particle), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < parts.shape[0] and i < out.shape[0]:
        out[i] = parts[i].mass
"""


def _contracts(path) -> list[dict]:
    code, out, _ = cli("prove", path, "--format", "json", "--no-cache", "--no-suggest")
    data = json.loads(out)
    validate_report(data)
    assert code == 0, out
    return data["kernels"][0]["scope"]["contracts"]


def test_held_arrays_contracts_name_the_held_lengths_not_the_annotation():
    contracts = _contracts(HELD)
    at_annotation = [c for c in contracts if (c["line"], c["col"]) == (19, 21)]
    assert [c["kind"] for c in at_annotation] == ["requires", "all_in_range"], contracts
    texts = [c["text"] for c in at_annotation]
    assert texts == ["ds's struct arrays: the fields of each have one shape; the arrays its elements "
                     "hold are padded to a width W below 2**31 - 1",
                     "the length of ds.blocks.offsets in each element of its struct array is in 0..W"], texts
    assert not any("Dataset" in t for t in texts)
    code, out, _ = cli("prove", HELD, "--no-cache", "--no-suggest")
    assert "assumes: ds's struct arrays: the fields of each have one shape;" in out, out
    assert "all_in_range: the length of ds.blocks.offsets in each element" in out, out


def test_a_struct_array_without_held_arrays_states_only_its_fields_shape(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text(PLAIN)
    contracts = _contracts(path)
    assert [(c["kind"], c["text"]) for c in contracts] == \
        [("requires", "parts's struct arrays: the fields of each have one shape")], contracts
