/* A C program that calls kernels proved by verikern, with no Python at run
   time: build the library, then compile and run this file.

     verikern build examples/c_host/kernels.py --checks unproved -o build
     gcc -O2 -I build examples/c_host/main.c -L build -lkernels \
         -Wl,-rpath,"$PWD/build" -o c_host && ./c_host

   It fills its inputs deterministically, runs each kernel, prints every
   output element (one "name count v0 v1 ..." line per kernel; the test
   tests/artifact/test_build_c_host.py compares them with the simulator), then
   breaks each kernel's contract on purpose and prints the status it gets
   ("status what code line message"). Exit status: 0 when every call
   returned what is expected here, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static int failures = 0;

static void print_array(const char* name, const float* v, long n) {
    printf("%s %ld", name, n);
    for (long i = 0; i < n; i++) printf(" %.9g", v[i]);
    printf("\n");
}

static void expect(const char* what, int32_t got, int32_t want, const vk_status* st) {
    printf("status %s %d %d %s\n", what, (int)got, (int)st->line, st->message);
    if (got != want || st->code != want) {
        fprintf(stderr, "%s: expected status %d, got %d (%s)\n", what, (int)want, (int)got,
                st->message);
        failures++;
    }
}

int main(void) {
    vk_status st;

    /* saxpy: 1000 elements, a partial last block of 128 threads */
    enum { N = 1000 };
    float* x = malloc(N * sizeof(float));
    float* y = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) { x[i] = 0.5f * (float)i - 3.0f; y[i] = 1.0f / (float)(i + 1); }
    expect("saxpy", vk_saxpy(x, N, y, N, 2.5f, N, 128, &st), VK_OK, &st);
    print_array("saxpy", y, N);

    /* gather: out[i] = x[idx[i]] with every index in range */
    enum { M = 777 };
    int32_t* idx = malloc(M * sizeof(int32_t));
    float* out = malloc(M * sizeof(float));
    for (int i = 0; i < M; i++) { idx[i] = (int32_t)((i * 37L) % N); out[i] = -1.0f; }
    expect("gather", vk_gather(x, N, idx, M, out, M, M, 64, &st), VK_OK, &st);
    print_array("gather", out, M);

    /* blur_rows on a 13 x 17 image, a 2-D launch */
    enum { R = 13, C = 17 };
    float* img = malloc(R * C * sizeof(float));
    float* blurred = calloc(R * C, sizeof(float));
    for (int i = 0; i < R * C; i++) img[i] = (float)((i * 7) % 11) - 2.0f;
    expect("blur_rows", vk_blur_rows(img, R, C, blurred, R, C, R, C, 32, &st), VK_OK, &st);
    print_array("blur_rows", blurred, R * C);

    /* contract violations: the kernel must not run */
    float saved = y[0];
    expect("saxpy_lengths", vk_saxpy(x, N, y, N - 1, 2.5f, N, 128, &st), VK_ERR_CONTRACT, &st);
    if (y[0] != saved) { fprintf(stderr, "saxpy ran despite its contract\n"); failures++; }
    idx[5] = N;
    expect("gather_index", vk_gather(x, N, idx, M, out, M, M, 64, &st), VK_ERR_CONTRACT, &st);
    idx[5] = 0;
    expect("saxpy_block_dim", vk_saxpy(x, N, y, N, 2.5f, N, 0, &st), VK_ERR_LAUNCH, &st);
    expect("saxpy_overlap", vk_saxpy(y, N, y, N, 2.5f, N, 128, &st), VK_ERR_LAUNCH, &st);
    expect("saxpy_dim", vk_saxpy(x, N, y, N, 2.5f, 0, 128, &st), VK_ERR_LAUNCH, &st);

    free(x); free(y); free(idx); free(out); free(img); free(blurred);
    return failures ? 1 : 0;
}
