# expect: proved
# RADIUS is bound once: host code reads it, a function binds a local of that name and another declares `global` for a different name; none of them rebinds it, so it stays a constant.
import warp as wp

RADIUS = 2
calls = 0


def describe():
    print("radius", RADIUS)


def set_radius(r):
    RADIUS = r  # noqa: F841 (a local: the module constant is unchanged)
    return RADIUS


def count_call():
    global calls
    calls += 1


@wp.kernel
def blur_right_guarded(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if i < x.shape[0] - RADIUS and i < y.shape[0]:
        y[i] = x[i + RADIUS]
