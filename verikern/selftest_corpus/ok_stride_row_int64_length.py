# expect: proved
# A row packed with a literal stride per basis function (nvalchemi's multipole k-space reductions: column s * 12 + beta * 4 + lm for s < grad.shape[1]). The int64 length contract 12 * grad.shape[1] <= contribs.shape[1] keeps every column in the row; the column's other terms (beta * 4 + lm <= 11) stay below the stride.
import verikern as vk


@vk.kernel
def reduce_rows(grad: vk.array3d(dtype=vk.float64), contribs: vk.array2d(dtype=vk.float64),
                out: vk.array2d(dtype=vk.float64)):
    vk.requires(vk.launch_dim() <= grad.shape[0] and 4 <= grad.shape[2])
    vk.requires(vk.launch_dim() <= contribs.shape[0])
    vk.requires(vk.int64(12) * vk.int64(grad.shape[1]) <= vk.int64(contribs.shape[1]))
    vk.requires(vk.launch_dim() <= out.shape[0] and 3 <= out.shape[1])
    i = vk.tid()
    n_sigma = grad.shape[1]
    for beta in range(3):
        total = vk.float64(0.0)
        for s in range(n_sigma):
            for lm in range(4):
                total += grad[i, s, lm] * contribs[i, s * 12 + beta * 4 + lm]
        out[i, beta] = total
