# expect: failed race
# Sums an array of vec3 into acc[0] with a plain acc[0] = acc[0] + v[i]. Witness: dim=2, v.shape=(2,), acc.shape=(1,): threads 0 and 1 both read-modify-write acc[0].
import verikern as vk


@vk.kernel
def sum_vec3_plain(v: vk.array(dtype=vk.vec3), acc: vk.array(dtype=vk.vec3)):
    i = vk.tid()
    if i < v.shape[0] and acc.shape[0] > 0:
        acc[0] = acc[0] + v[i]
