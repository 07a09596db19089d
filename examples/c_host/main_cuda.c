/* The C host example on an NVIDIA GPU, through the C loader that
   `verikern build --target sm_XY` writes (CUDA driver API, opened at run
   time: this file compiles and links with gcc alone).

     verikern build examples/c_host/kernels.py --target sm_80 -o build_gpu
     gcc -O2 -I build_gpu examples/c_host/main_cuda.c -L build_gpu -lkernels_cuda \
         -Wl,-rpath,"$PWD/build_gpu" -o c_host_cuda && ./c_host_cuda build_gpu

   It computes what main.c computes and prints it in the same format. A
   contract broken before any device work still gives VK_ERR_CONTRACT on a
   machine without a GPU; then the program prints "no-device <message>" and
   exits with status 2. Exit status 0: every call returned what is expected
   here; 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels_cuda.h"

static int failures = 0;

static void expect(const char* what, int32_t got, int32_t want, const vk_status* st) {
    printf("status %s %d %d %s\n", what, (int)got, (int)st->line, st->message);
    if (got != want) {
        fprintf(stderr, "%s: expected status %d, got %d (%s)\n", what, (int)want, (int)got,
                st->message);
        failures++;
    }
}

static uint64_t to_device(const void* host, uint64_t bytes) {
    vk_status st;
    uint64_t address = 0;
    if (vk_kernels_alloc(&address, bytes, &st) || vk_kernels_upload(address, host, bytes, &st)) {
        fprintf(stderr, "%s\n", st.message);
        exit(1);
    }
    return address;
}

static void print_device(const char* name, uint64_t address, long n) {
    vk_status st;
    float* v = malloc((size_t)n * sizeof(float));
    if (vk_kernels_download(v, address, (uint64_t)n * sizeof(float), &st)) {
        fprintf(stderr, "%s\n", st.message);
        exit(1);
    }
    printf("%s %ld", name, n);
    for (long i = 0; i < n; i++) printf(" %.9g", v[i]);
    printf("\n");
    free(v);
}

int main(int argc, char** argv) {
    vk_status st;
    enum { N = 1000, M = 777, R = 13, C = 17 };
    /* broken before any device work (the addresses are never used): refused on every
       machine */
    expect("saxpy_lengths", vk_saxpy(0x100000, N, 0x200000, N - 1, 2.5f, N, 128, &st), VK_ERR_CONTRACT, &st);
    if (vk_kernels_load(argc > 1 ? argv[1] : ".", 0, &st) != VK_OK) {
        printf("no-device %s\n", st.message);
        expect("saxpy_unloaded", vk_saxpy(0x100000, N, 0x200000, N, 2.5f, N, 128, &st), VK_ERR_DEVICE, &st);
        return failures ? 1 : 2;
    }
    float* x = malloc(N * sizeof(float));
    float* y = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) { x[i] = 0.5f * (float)i - 3.0f; y[i] = 1.0f / (float)(i + 1); }
    uint64_t dx = to_device(x, N * sizeof(float)), dy = to_device(y, N * sizeof(float));
    expect("saxpy", vk_saxpy(dx, N, dy, N, 2.5f, N, 128, &st), VK_OK, &st);
    print_device("saxpy", dy, N);

    int32_t* idx = malloc(M * sizeof(int32_t));
    float* out = malloc(M * sizeof(float));
    for (int i = 0; i < M; i++) { idx[i] = (int32_t)((i * 37L) % N); out[i] = -1.0f; }
    uint64_t didx = to_device(idx, M * sizeof(int32_t)), dout = to_device(out, M * sizeof(float));
    expect("gather", vk_gather(dx, N, didx, M, dout, M, M, 64, &st), VK_OK, &st);
    print_device("gather", dout, M);

    float* img = malloc(R * C * sizeof(float));
    float* blurred = calloc(R * C, sizeof(float));
    for (int i = 0; i < R * C; i++) img[i] = (float)((i * 7) % 11) - 2.0f;
    uint64_t dimg = to_device(img, R * C * sizeof(float));
    uint64_t dblur = to_device(blurred, R * C * sizeof(float));
    expect("blur_rows", vk_blur_rows(dimg, R, C, dblur, R, C, R, C, 32, &st), VK_OK, &st);
    print_device("blur_rows", dblur, R * C);

    idx[5] = N;              /* the contract is checked on the device's copy */
    uint64_t dbad = to_device(idx, M * sizeof(int32_t));
    expect("gather_index", vk_gather(dx, N, dbad, M, dout, M, M, 64, &st), VK_ERR_CONTRACT, &st);
    expect("saxpy_block_dim", vk_saxpy(dx, N, dy, N, 2.5f, N, 0, &st), VK_ERR_LAUNCH, &st);
    vk_kernels_free(dx); vk_kernels_free(dy); vk_kernels_free(didx); vk_kernels_free(dout);
    vk_kernels_free(dimg); vk_kernels_free(dblur); vk_kernels_free(dbad);
    free(x); free(y); free(idx); free(out); free(img); free(blurred);
    return failures ? 1 : 0;
}
