"""Module settings (verikern/frontend/scan/settings.py): a module-level int read
from the environment when the module is imported (nvalchemi's Ewald
`BATCH_BLOCK_SIZE = int(os.environ.get(..., 16))`, then `BATCH_BLOCK_SIZE if
BATCH_BLOCK_SIZE > 0 else 16`), or chosen among int literals under an `if`, is
read as an unknown int32 (the hidden parameter `@NAME`), so one proof covers
every value, the default among them, with the bounds its bindings give. A bug
only under a value other than the default fails with a counterexample naming
the setting's value; a name verikern cannot bound stays a located error naming
it."""
from __future__ import annotations

import pytest

from verikern.app.prove import prove_source
from verikern.frontend import compile_source

HEAD = "import os\n\nimport warp as wp\nimport verikern as vk\n\n"

ENV_BLOCK = HEAD + '''BLOCK = int(os.environ.get("VK_TEST_BLOCK", 16))
BLOCK = BLOCK if BLOCK > 0 else 16


@wp.kernel
def per_block(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = i // BLOCK
'''

LITERAL_LANES = HEAD + '''if os.environ.get("VK_TEST_WIDE"):
    LANES = 32
else:
    LANES = 16


@vk.requires(lambda lut: lut.shape[0] == SIZE)
@wp.kernel
def last_lane(lut: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = lut[LANES - 1]
'''


def _report(text: str):
    (r,) = prove_source(text, "k.py", suggest=False)
    return r


def _failed(r) -> list:
    return [o for o in r.obligations if o.status.value == "failed"]


def test_an_environment_int_is_every_value_its_bindings_allow():
    r = compile_source(ENV_BLOCK, "k.py")
    (k,) = r.kernels
    assert k.mir is not None, k.error.render() if k.error else None
    assert [p.name for p in k.mir.params] == ["out", "@BLOCK"]
    # `BLOCK if BLOCK > 0 else 16` is at least 1 in every import: i // BLOCK cannot divide by 0
    report = _report(ENV_BLOCK)
    assert report.status.value == "proved", [(o.kind.value, o.message) for o in report.obligations]
    assert "BLOCK: a module setting" in report.scope.contracts[0].text


def test_a_setting_that_can_be_zero_fails_with_its_value():
    """The near miss: `BLOCK if BLOCK > -1 else 16` admits 0, and the division fails there."""
    r = _report(ENV_BLOCK.replace("BLOCK > 0", "BLOCK > -1"))
    (ob,) = _failed(r)
    assert ob.kind.value == "div-zero" and ob.confirmed is True
    assert ob.counterexample.scalars["@BLOCK"] == 0


def test_without_the_guard_every_int32_is_covered():
    r = _report(ENV_BLOCK.replace("BLOCK = BLOCK if BLOCK > 0 else 16\n", ""))
    (ob,) = _failed(r)
    assert ob.kind.value == "div-zero" and ob.counterexample.scalars["@BLOCK"] == 0


def test_a_bug_only_under_the_non_default_literal_is_found():
    """LANES is 16 by default (VK_TEST_WIDE unset) and 32 otherwise: a 16-entry table
    is read out of bounds only under 32, and that is the counterexample."""
    r = _report(LITERAL_LANES.replace("SIZE", "16"))
    (ob,) = _failed(r)
    assert ob.kind.value == "bounds" and ob.confirmed is True
    assert ob.counterexample.scalars["@LANES"] == 32
    # a 32-entry table serves both, and the bounds 16 <= LANES <= 32 prove it
    assert _report(LITERAL_LANES.replace("SIZE", "32")).status.value == "proved"
    # one entry fewer fails again, at LANES = 32
    (ob,) = _failed(_report(LITERAL_LANES.replace("SIZE", "31")))
    assert ob.counterexample.scalars["@LANES"] == 32


@pytest.mark.parametrize("binding, where, why", [
    # another binding that is no setting's: a function rebinds it
    ('BLOCK = int(os.environ.get("VK_TEST_BLOCK", 16))\n\n\ndef resize(n):\n    global BLOCK\n'
     '    BLOCK = n\n', "k.py:", "can rebind it"),
    # no default: not read
    ('BLOCK = int(os.environ["VK_TEST_BLOCK"])\n', "k.py:", "only literal constants"),
    # through a helper function: not read (nvalchemi's RECIP_TILED_BLOCK_DIM = _env_int(...))
    ('def _env_int(name, default):\n    return int(os.environ.get(name, default))\n\n\n'
     'BLOCK = _env_int("VK_TEST_BLOCK", 16)\n', "k.py:", "only literal constants"),
    # a float setting is not an int
    ('BLOCK = float(os.environ.get("VK_TEST_BLOCK", 16))\n', "k.py:", "only literal constants"),
])
def test_a_value_verikern_cannot_bound_is_a_located_error_naming_it(binding, where, why):
    text = HEAD + binding + '''

@wp.kernel
def per_block(out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if i < out.shape[0]:
        out[i] = i // BLOCK
'''
    (k,) = compile_source(text, "k.py").kernels
    assert k.mir is None and k.error is not None
    rendered = k.error.render()
    line = text.splitlines().index("        out[i] = i // BLOCK") + 1
    assert f"{where}{line}:" in rendered and "'BLOCK'" in rendered and why in rendered, rendered
