# expect: failed bounds
# Thread 0 walks `steps` steps and writes out[pos] under the guard pos <= out.shape[0] (should be <); the write leaves out only after 400,000 steps. Witness: dim=1, steps=400000, out.shape=(400000,): out[400000] after the loop (replay runs it on cpu:native within its fuel: the simulator's work budget ends first).
# bug: 16:9 bounds
# witness: none (the simulator needs about 20 s for the 400,000 iterations; tests/proofs/test_native_replay.py runs this launch on cpu:native)
import verikern as vk


@vk.kernel
def walk_then_write(out: vk.array(dtype=vk.int32), steps: int):
    vk.requires(out.shape[0] == 400000)
    i = vk.tid()
    pos = 0
    for k in range(steps):
        pos = pos + 1
    if i == 0 and pos <= out.shape[0]:
        out[pos] = 1
