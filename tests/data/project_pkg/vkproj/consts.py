"""Constants of the project (no kernels here)."""
from enum import IntEnum

import warp as wp

OFFSET = 1
SCALE = wp.constant(2.0)
HALF_SCALE = SCALE / 2.0


class Mode(IntEnum):
    COPY = 0
    DOUBLE = 1
