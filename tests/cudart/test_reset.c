/* SPDX-License-Identifier: MIT */
/*
 * cudaDeviceReset in one thread, as CUDA documents it for every thread: any
 * later call to the device, from any thread, initialises the device again.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

static pthread_barrier_t step;

static void *other(void *arg)
{
    cudaError_t *out = arg;
    void *p = NULL;

    /* This thread's first call makes device 0's primary context current here. */
    out[0] = cudaMalloc(&p, 64);
    if (out[0] == cudaSuccess)
        out[0] = cudaFree(p);
    pthread_barrier_wait(&step); /* the main thread resets the device */
    pthread_barrier_wait(&step);
    out[1] = cudaMalloc(&p, 64);
    if (out[1] == cudaSuccess)
        out[1] = cudaFree(p);
    out[2] = cudaDeviceSynchronize();
    out[3] = cudaGetLastError();
    return NULL;
}

static void reset_seen_by_other_threads(void **state)
{
    cudaError_t seen[4] = {cudaErrorUnknown, cudaErrorUnknown, cudaErrorUnknown, cudaErrorUnknown};
    void *p = NULL;
    pthread_t t;

    (void)state;
    assert_int_equal(pthread_barrier_init(&step, NULL, 2), 0);
    assert_int_equal(pthread_create(&t, NULL, other, seen), 0);
    pthread_barrier_wait(&step);
    assert_int_equal(cudaDeviceReset(), cudaSuccess);
    pthread_barrier_wait(&step);
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_barrier_destroy(&step);
    assert_int_equal(seen[0], cudaSuccess);
    assert_int_equal(seen[1], cudaSuccess);
    assert_int_equal(seen[2], cudaSuccess);
    assert_int_equal(seen[3], cudaSuccess);
    /* And in the thread that reset it. */
    assert_int_equal(cudaMalloc(&p, 64), cudaSuccess);
    assert_int_equal(cudaFree(p), cudaSuccess);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(reset_seen_by_other_threads)};

    return cmocka_run_group_tests(tests, NULL, NULL);
}
