# expect: failed assert
# The matvec of ok_matvec_loop_component_updates with its row loop copied from a 4-d version: range(4) updates res[3] of a vec3, which Warp leaves undefined; the update's one range assertion fails. Witness: dim=1, every thread reaches i = 3.
# bug: 13:13 assert
# witness assert: dim=1, block_dim=1, m=zeros(float32, (1, 3, 3)), v=zeros(float32, (1, 3)), out=zeros(float32, (1, 3))
import verikern as vk


@vk.func
def matvec(mat: vk.mat33, vec: vk.vec3):
    res = vk.vec3(0.0)
    for i in range(4):
        for j in range(3):
            res[i] += mat[i % 3, j] * vec[j]
    return res


@vk.kernel
def apply(m: vk.array(dtype=vk.mat33), v: vk.array(dtype=vk.vec3), out: vk.array(dtype=vk.vec3)):
    i = vk.tid()
    if i < m.shape[0] and i < v.shape[0] and i < out.shape[0]:
        out[i] = matvec(m[i], v[i])
