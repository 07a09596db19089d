# expect: proved
# Two contacts per body: each thread adds the spatial wrench of its contact (spatial_cross of the body twist and the contact force) to its body with wp.atomic_add on a spatial_vector array.
import warp as wp


@wp.kernel
def accumulate_wrenches(twist: wp.array(dtype=wp.spatial_vector),
                        force: wp.array(dtype=wp.spatial_vector),
                        body_f: wp.array(dtype=wp.spatial_vector)):
    wp.requires(force.shape[0] == 2 * body_f.shape[0])
    wp.requires(twist.shape[0] == body_f.shape[0])
    i = wp.tid()
    if i < force.shape[0]:
        b = i // 2
        wp.atomic_add(body_f, b, wp.spatial_cross(twist[b], force[i]))
