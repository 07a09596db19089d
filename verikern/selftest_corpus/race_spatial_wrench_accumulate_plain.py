# expect: failed race
# Two contacts per body, but each thread adds its contact's spatial wrench to its body with a plain read-modify-write of the spatial_vector element: threads 2b and 2b+1 race on body_f[b]. Witness: two contacts on one body.
# bug: 17:9 race 17:21
# witness race: dim=2, block_dim=2, twist=array(float32, [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0]]), force=array(float32, [[0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0]]), body_f=zeros(float32, (1, 6))
import warp as wp


@wp.kernel
def accumulate_wrenches_plain(twist: wp.array(dtype=wp.spatial_vector),
                              force: wp.array(dtype=wp.spatial_vector),
                              body_f: wp.array(dtype=wp.spatial_vector)):
    wp.requires(force.shape[0] == 2 * body_f.shape[0])
    wp.requires(twist.shape[0] == body_f.shape[0])
    i = wp.tid()
    if i < force.shape[0]:
        b = i // 2
        body_f[b] = body_f[b] + wp.spatial_cross(twist[b], force[i])
