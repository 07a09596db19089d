"""The memory traffic of examples/ray_triangle.py's `intersect` without its
arithmetic: each thread reads the same five vec3 elements (60 bytes) and
writes one float32 (4 bytes), their sum. benchmarks/native_vs_warp.py times
it beside ray-triangle, in the same rounds: its rate is what the machine's
memory delivers to cpu:native at that moment, so ray-triangle can be no
faster than it at sizes that do not fit in the caches. Proved for every
launch (`verikern prove`)."""
import verikern as vk


@vk.kernel
def ray_traffic(origins: vk.array(dtype=vk.vec3), directions: vk.array(dtype=vk.vec3),
                v0: vk.array(dtype=vk.vec3), v1: vk.array(dtype=vk.vec3),
                v2: vk.array(dtype=vk.vec3), t_hit: vk.array(dtype=vk.float32)):
    vk.requires(directions.shape[0] == origins.shape[0])
    vk.requires(v0.shape[0] == origins.shape[0] and v1.shape[0] == origins.shape[0])
    vk.requires(v2.shape[0] == origins.shape[0] and t_hit.shape[0] == origins.shape[0])
    i = vk.tid()
    if i < origins.shape[0]:
        s = origins[i] + directions[i] + v0[i] + v1[i] + v2[i]
        t_hit[i] = s[0] + s[1] + s[2]
