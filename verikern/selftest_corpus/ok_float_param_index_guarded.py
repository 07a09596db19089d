# expect: proved
# Resamples a table at int(i * scale - shift) for any float scale and shift, guarding both ends of the index (a negative one included), so every read is in bounds.
import verikern as vk


@vk.kernel
def resample_shifted_guarded(table: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32),
                             scale: float, shift: float):
    i = vk.tid()
    if i < out.shape[0]:
        k = int(float(i) * scale - shift)
        if k >= 0 and k < table.shape[0]:
            out[i] = table[k]
