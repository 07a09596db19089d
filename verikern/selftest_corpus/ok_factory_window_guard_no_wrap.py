# expect: proved
# A kernel factory captures width = 2 * radius + 1 (at least 1, the relation the factory computes); the window guard `i < x.shape[0] - width + 1` cannot wrap, so every read x[i + k], k < width, is in bounds for every radius.
import warp as wp


def make_window_mean(radius: int):
    width = 2 * radius + 1

    @wp.kernel
    def window_mean(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        if i < x.shape[0] - width + 1 and i < out.shape[0]:
            s = float(0.0)
            for k in range(width):
                s += x[i + k]
            out[i] = s / float(width)

    return window_mean
