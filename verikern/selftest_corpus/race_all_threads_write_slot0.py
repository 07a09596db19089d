# expect: failed race
# Every thread stores its id into out[0] with a plain store. Witness: dim=2, out.shape=(1,): threads 0 and 1 both write out[0] with no barrier.
# bug: 12:9 race 12:9
# witness race: dim=2, block_dim=2, out=zeros(int32, 1)
import verikern as vk


@vk.kernel
def last_writer_wins(out: vk.array(dtype=vk.int32)):
    i = vk.tid()
    if out.shape[0] > 0:
        out[0] = i
