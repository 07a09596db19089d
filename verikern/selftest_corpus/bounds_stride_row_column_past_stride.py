# expect: failed bounds
# The packed-row kernel with a column that reaches past its stride (beta * 5 for beta * 4): beta = 2, lm = 3 gives 13, past the stride of 12, so the last basis function's columns leave the row the int64 length contract admits. Witness: grad (1, 1, 4), contribs (1, 12): column 13 of a 12-column row.
# bug: 21:43 bounds
# witness bounds: dim=1, block_dim=1, grad=zeros(float64, (1, 1, 4)), contribs=zeros(float64, (1, 12)), out=zeros(float64, (1, 3))
import verikern as vk


@vk.kernel
def reduce_rows(grad: vk.array3d(dtype=vk.float64), contribs: vk.array2d(dtype=vk.float64),
                out: vk.array2d(dtype=vk.float64)):
    vk.requires(vk.launch_dim() <= grad.shape[0] and grad.shape[2] == 4)
    vk.requires(vk.launch_dim() <= contribs.shape[0])
    vk.requires(vk.int64(12) * vk.int64(grad.shape[1]) <= vk.int64(contribs.shape[1]))
    vk.requires(vk.launch_dim() <= out.shape[0] and 3 <= out.shape[1])
    i = vk.tid()
    n_sigma = grad.shape[1]
    for beta in range(3):
        total = vk.float64(0.0)
        for s in range(n_sigma):
            for lm in range(4):
                total += grad[i, s, lm] * contribs[i, s * 12 + beta * 5 + lm]
        out[i, beta] = total
