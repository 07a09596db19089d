# expect: failed bounds
# A kernel factory captures width = 2 * radius + 1, and the window guard `i + width - 1 < x.shape[0]` wraps in int32 when width is near 2**31, so a thread past the end passes it. Witness: width=2147483647 (radius 1073741823), dim=3, x.shape=(2,): thread 2 computes 2 + width - 1 = -2**31 < 2 and reads x[2].
# bug: 17:22 bounds
# witness bounds: dim=3, block_dim=3, x=zeros(float32, 2), out=zeros(float32, 3), width=2147483647
import warp as wp


def make_window_mean(radius: int):
    width = 2 * radius + 1

    @wp.kernel
    def window_mean(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        if i + width - 1 < x.shape[0] and i < out.shape[0]:
            s = float(0.0)
            for k in range(width):
                s += x[i + k]
            out[i] = s / float(width)

    return window_mean
