# expect: failed race
# Shifts x right by one in place (x[i+1] = x[i]). Witness: dim=3, x.shape=(3,): thread 0 writes x[1] while thread 1 reads x[1].
# bug: 12:20 race 12:9
# witness race: dim=3, block_dim=3, x=zeros(float32, 3)
import verikern as vk


@vk.kernel
def shift_right_in_place(x: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i + 1 < x.shape[0]:
        x[i + 1] = x[i]
