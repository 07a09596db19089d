# expect: failed bounds
# Cross product of each vec3 with the next one, guarded only by i < len(v). Witness: dim=1, v.shape=out.shape=(1,): thread 0 reads v[1].
# bug: 13:33 bounds
# witness bounds: dim=1, block_dim=1, v=zeros(float32, (1, 3)), out=zeros(float32, (1, 3))
import verikern as vk


@vk.kernel
def cross_next(v: vk.array(dtype=vk.vec3), out: vk.array(dtype=vk.vec3)):
    vk.requires(out.shape[0] == v.shape[0])
    i = vk.tid()
    if i < v.shape[0]:
        out[i] = vk.cross(v[i], v[i + 1])
