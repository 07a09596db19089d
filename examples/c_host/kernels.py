"""Kernels the C host example (main.c) calls through `verikern build`.

Each is proved for every launch under its contract; the built library checks
the contract at its C entry point, so a C caller that breaks it gets
VK_ERR_CONTRACT and the kernel does not run.
"""
import verikern as vk


@vk.kernel
def saxpy(x: vk.array(dtype=vk.float32), y: vk.array(dtype=vk.float32), a: vk.float32):
    vk.requires(x.shape[0] == y.shape[0])
    i = vk.tid()
    if i < x.shape[0]:
        y[i] = a * x[i] + y[i]


@vk.kernel
def gather(x: vk.array(dtype=vk.float32), idx: vk.array(dtype=vk.int32),
           out: vk.array(dtype=vk.float32)):
    vk.requires(vk.all_in_range(idx, 0, x.shape[0]))
    i = vk.tid()
    if i < idx.shape[0] and i < out.shape[0]:
        out[i] = x[idx[i]]


@vk.kernel
def blur_rows(img: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(img.shape[0] == out.shape[0] and img.shape[1] == out.shape[1])
    r, c = vk.tid()
    if r < img.shape[0] and c >= 1 and c + 1 < img.shape[1]:
        out[r, c] = 0.25 * img[r, c - 1] + 0.5 * img[r, c] + 0.25 * img[r, c + 1]
