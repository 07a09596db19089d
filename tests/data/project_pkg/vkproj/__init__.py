"""A small Warp project for tests/frontend/test_fe_project.py: kernels that
import constants, an IntEnum and a func from the package's other modules."""
