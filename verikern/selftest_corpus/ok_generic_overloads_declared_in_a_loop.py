# expect: proved
# A generic kernel whose overloads are declared in a module-level loop over a list of types (as nvalchemi-toolkit-ops does); every typing Warp can build is proved: the declared int32 and int64 ones first, then every other scalar key type (int() of a vector does not type-check), each guarding the index it computes.
# kernel: gather_by_key[int32]
from typing import Any

import warp as wp


@wp.kernel
def gather_by_key(keys: wp.array(dtype=Any), table: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i < keys.shape[0] and i < out.shape[0]:
        j = int(keys[i])
        if j >= 0 and j < table.shape[0]:
            out[i] = table[j]


_KEY_TYPES = [wp.int32, wp.int64]
_OVERLOADS = {}
for _t in _KEY_TYPES:
    _OVERLOADS[_t] = wp.overload(gather_by_key, [wp.array(dtype=_t)] + [wp.array(dtype=float)] * 2)
