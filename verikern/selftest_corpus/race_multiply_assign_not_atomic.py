# expect: failed race
# Multiplies all of x into prod[0] with `prod[0] *= x[i]`, which is NOT atomic (only += -= &= |= ^= are). Witness: dim=2, x.shape=(2,), prod.shape=(1,): threads 0 and 1 both read-modify-write prod[0].
# bug: 12:9 race 12:9
# witness race: dim=2, block_dim=2, x=zeros(float32, 2), prod=zeros(float32, 1)
import verikern as vk


@vk.kernel
def product_plain(x: vk.array(dtype=vk.float32), prod: vk.array(dtype=vk.float32)):
    i = vk.tid()
    if i < x.shape[0] and prod.shape[0] > 0:
        prod[0] *= x[i]
