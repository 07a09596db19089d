# expect: failed race
# Counts elements with count[0] = count[0] + 1, a plain read-modify-write. Witness: dim=2, x.shape=(2,), count.shape=(1,): threads 0 and 1 both read and write count[0].
# bug: 13:9 race 13:9
# bug: 13:20 race 13:9
# witness race: dim=2, block_dim=2, x=zeros(float32, 2), count=zeros(int32, 1)
import verikern as vk


@vk.kernel
def count_plain(x: vk.array(dtype=vk.float32), count: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if i < x.shape[0] and count.shape[0] > 0:
        count[0] = count[0] + 1
