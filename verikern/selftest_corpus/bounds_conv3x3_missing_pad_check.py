# expect: failed bounds
# 3x3 convolution that forgets the zero-padding check on the neighbour. Witness: dim=(1, 1), img.shape=out.shape=(1, 1), w.shape=(3, 3): thread (0, 0) reads img[-1, -1].
# bug: 17:36 bounds
# witness bounds: dim=(1, 1), block_dim=1, img=zeros(float32, (1, 1)), w=zeros(float32, (3, 3)), out=zeros(float32, (1, 1))
import verikern as vk


@vk.kernel
def conv3x3_no_pad(img: vk.array(dtype=vk.float32, ndim=2), w: vk.array(dtype=vk.float32, ndim=2), out: vk.array(dtype=vk.float32, ndim=2)):
    vk.requires(w.shape[0] == 3 and w.shape[1] == 3)
    vk.requires(out.shape[0] == img.shape[0] and out.shape[1] == img.shape[1])
    i, j = vk.tid()
    if i < img.shape[0] and j < img.shape[1]:
        acc = 0.0
        for di in range(3):
            for dj in range(3):
                acc += w[di, dj] * img[i + (di - 1), j + (dj - 1)]
        out[i, j] = acc
