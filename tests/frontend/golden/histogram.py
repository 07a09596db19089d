import verikern as vk


@vk.kernel
def histogram(x: vk.array(dtype=vk.int32), bins: vk.array(dtype=vk.int32)):
    vk.requires(vk.all_in_range(x, 0, 16))
    vk.requires(bins.shape[0] == 16)
    i = vk.tid()
    if i < x.shape[0]:
        bins[x[i]] += 1
