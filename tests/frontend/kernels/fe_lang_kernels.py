"""Kernels imported by test_fe_lang (a real module: handles compile lazily)."""
import verikern as vk

vk.set_module_options({"fast_math": True})


@vk.func
def add_one(x: vk.float32) -> vk.float32:
    return x + 1.0


@vk.kernel(block_dim=64)
def inc(a: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < a.shape[0]:
        a[i] = add_one(a[i])


@vk.kernel
def broken(a: vk.array(dtype=vk.float32)):
    a[0] = 1
    a = 2.0


def host_code():
    return "never compiled"
