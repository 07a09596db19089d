# expect: failed bounds
# Two uint32 values zero-extended to int64 are not half-width factors of a signed product: 4294967295 * 4294967295 wraps negative in int64, so the branch on a negative product runs and writes past the end of out. Witness: h = w = 4294967295.
# bug: 15:9 bounds
# witness bounds: dim=1, block_dim=1, out=zeros(int64, 1), h=4294967295, w=4294967295
import verikern as vk


@vk.kernel
def uint_product_sign(out: vk.array(dtype=vk.int64), h: vk.uint32, w: vk.uint32):
    vk.requires(out.shape[0] == 1)
    vk.requires(vk.launch_dim() == 1)
    first = vk.int64(vk.tid()) * vk.int64(w)
    total = vk.int64(h) * vk.int64(w)
    if total < vk.int64(0):
        out[5] = first
