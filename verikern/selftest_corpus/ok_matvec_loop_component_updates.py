# expect: proved
# A 3x3 matrix-vector product written as warpsphcore's matmul writes it: res[i] += mat[i, j] * vec[j] in loops over range(3), each update at a run-time component index that stays inside the vec3.
import verikern as vk


@vk.func
def matvec(mat: vk.mat33, vec: vk.vec3):
    res = vk.vec3(0.0)
    for i in range(3):
        for j in range(3):
            res[i] += mat[i, j] * vec[j]
    return res


@vk.kernel
def apply(m: vk.array(dtype=vk.mat33), v: vk.array(dtype=vk.vec3), out: vk.array(dtype=vk.vec3)):
    i = vk.tid()
    if i < m.shape[0] and i < v.shape[0] and i < out.shape[0]:
        out[i] = matvec(m[i], v[i])
