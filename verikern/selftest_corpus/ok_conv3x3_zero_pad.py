# expect: proved
# 3x3 convolution with zero padding and a 2-D launch; every neighbour read is checked against the image, i + (di - 1) cannot wrap.
import verikern as vk


@vk.kernel
def conv3x3(img: vk.array(dtype=vk.float32, ndim=2), w: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
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
