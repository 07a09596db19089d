"""2-D 3x3 convolution (cross-correlation, as in image filters and deep
learning) with zero padding: out[i, j] = sum over di, dj in 0..2 of
w[di, dj] * img[i + di - 1, j + dj - 1], neighbours outside the image being 0.
2-D launch of exactly the image's shape; no shared memory, so any block_dim
and a partial last block are fine.
"""
import numpy as np

import verikern as vk


@vk.kernel
def conv3x3(img: vk.array(dtype=vk.float32, ndim=2), w: vk.array(dtype=vk.float32, ndim=2),
            out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(w.shape[0] == 3 and w.shape[1] == 3)
    vk.requires(out.shape[0] == img.shape[0] and out.shape[1] == img.shape[1])
    i, j = vk.tid()
    if i < img.shape[0] and j < img.shape[1]:
        acc = 0.0
        for di in range(3):
            for dj in range(3):
                y = i + (di - 1)
                x = j + (dj - 1)
                if y >= 0 and y < img.shape[0] and x >= 0 and x < img.shape[1]:
                    acc += w[di, dj] * img[y, x]
        out[i, j] = acc


# ------------------------------------------------------------------ host code
def make_inputs(rng, n):
    rows = max(1, n)
    cols = max(1, n // 2 + 3)
    return {
        "img": rng.uniform(0.0, 1.0, (rows, cols)).astype(np.float32),
        "w": rng.uniform(0.0, 1.0, (3, 3)).astype(np.float32),
    }


def reference(inputs):
    img = inputs["img"].astype(np.float64)
    w = inputs["w"].astype(np.float64)
    rows, cols = img.shape
    padded = np.pad(img, 1)
    out = np.zeros_like(img)
    for di in range(3):
        for dj in range(3):
            out += w[di, dj] * padded[di:di + rows, dj:dj + cols]
    return {"out": out}


def run(inputs, device="cpu", block_dim=256):
    img = inputs["img"].copy()
    w = inputs["w"].copy()
    out = np.zeros_like(img)
    vk.launch(conv3x3, img.shape, inputs=[img, w, out], block_dim=block_dim, device=device)
    return {"out": out}


if __name__ == "__main__":
    data = make_inputs(np.random.default_rng(0), 40)
    got, want = run(data), reference(data)
    print("conv2d max abs error:", float(np.max(np.abs(got["out"] - want["out"]))))
