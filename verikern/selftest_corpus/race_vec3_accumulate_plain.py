# expect: failed race
# Sums an array of vec3 into acc[0] with a plain acc[0] = acc[0] + v[i]. Witness: dim=2, v.shape=(2,), acc.shape=(1,): threads 0 and 1 both read-modify-write acc[0].
# bug: 13:9 race 13:9
# bug: 13:18 race 13:9
# witness race: dim=2, block_dim=2, v=zeros(float32, (2, 3)), acc=zeros(float32, (1, 3))
import verikern as vk


@vk.kernel
def sum_vec3_plain(v: vk.array(dtype=vk.vec3), acc: vk.array(dtype=vk.vec3)):
    i = vk.tid()
    if i < v.shape[0] and acc.shape[0] > 0:
        acc[0] = acc[0] + v[i]
