# expect: failed bounds
# Resamples a table at int(i * scale - shift), guarding only the upper end: a positive shift makes the first index negative (int() truncates -1.5 to -1). The prover's model leaves the float parameters 0.0, where nothing fails; replay confirms it with both parameters 1.5. Witness: scale = shift = 1.5, thread 0 reads table[-1].
# bug: 15:22 bounds
# witness bounds: dim=4, block_dim=4, table=zeros(float32, 8), out=zeros(float32, 4), scale=1.5, shift=1.5
import verikern as vk


@vk.kernel
def resample_shifted(table: vk.array(dtype=vk.float32), out: vk.array(dtype=vk.float32),
                     scale: float, shift: float):
    i = vk.tid()
    if i < out.shape[0]:
        k = int(float(i) * scale - shift)
        if k < table.shape[0]:
            out[i] = table[k]
