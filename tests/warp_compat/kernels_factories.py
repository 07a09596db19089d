"""Kernel factories and run-time module settings, Warp style: kernels built
inside functions read the factory's names (unknown constants for the
prover, their real values at launch), and a module setting rebound under
`if __name__ == "__main__":` is read as Warp reads it."""
import warp as wp

import verikern as vk

STEP = 0.5
SCALE = 4.0

if __name__ == "__main__":   # rebinding at run time: kernels see an unknown float32
    SCALE = float(input())


def make_scale(factor: float, n: int):
    reps = 3

    @wp.func
    def f(x: float) -> float:
        return x * factor

    @vk.requires(lambda a: a.shape[0] == vk.launch_dim())
    @wp.kernel
    def scale(a: wp.array[float]):
        i = wp.tid()
        for _ in range(reps):
            a[i] = f(a[i]) + float(n) + STEP * SCALE

    return scale


def make_stride(stride: int):
    @vk.requires(lambda src, dst: 1 <= stride and stride <= 16 and vk.launch_dim() <= src.shape[0] // 16)
    @vk.requires(lambda src, dst: dst.shape[0] == vk.launch_dim())
    @wp.kernel
    def gather(src: wp.array[float], dst: wp.array[float]):
        i = wp.tid()
        dst[i] = src[i * stride]

    return gather


def make_window(radius: int):
    """Names the factory computes from each other (a relation the proof keeps),
    one bound with a cast, one annotated."""
    width = 2 * radius + 1
    span = wp.int32(width - 1)
    last: int = span - radius

    @vk.requires(lambda src, dst: radius <= 4096 and dst.shape[0] == vk.launch_dim())
    @vk.requires(lambda src, dst: src.shape[0] - span >= vk.launch_dim())
    @wp.kernel
    def window(src: wp.array[float], dst: wp.array[float]):
        i = wp.tid()
        if radius >= 0 and span >= 0:     # (launches read `span` from the kernel's closure)
            dst[i] = src[i + width - 1 - radius] + src[i + last]

    return window


scale_2_1 = make_scale(2.0, 1)
scale_3_5 = make_scale(3.0, 5)
gather_3 = make_stride(3)
window_2 = make_window(2)
