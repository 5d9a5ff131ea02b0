// SPDX-License-Identifier: MIT
/*
 * Kernels with the bugs the fake's checks catch, and a correct twin of the
 * racy one: run by corpus.c's "checks" mode on the fake driver only.
 */
extern "C" {
/* Off by one: thread n writes one element past the end. */
__global__ void fill_off_by_one(unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        out[i] = i;
}

/* Reverses 64 values through shared memory; the barrier between the write and the read is missing. */
__global__ void reverse_racy(int *data)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = data[t];
    data[t] = s[63 - t];
}

__global__ void reverse_synced(int *data)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = data[t];
    __syncthreads();
    data[t] = s[63 - t];
}

/*
 * Operands the interpreter does not take, inside a { } block of inline PTX: this kernel fails
 * its launches, and the kernels after it in the module still run.
 */
__global__ void uses_bad_operands(int *out)
{
    asm volatile("{\n\t.reg .b32 t;\n\tbar.sync 0, 32, 1;\n\t}");
    out[0] = 1;
}

/* A kernel with a call, then one with an instruction the interpreter does not run: the first still runs. */
__device__ __noinline__ int twice(int x)
{
    return 2 * x;
}

__global__ void calls_twice(int *out)
{
    out[threadIdx.x] = twice(threadIdx.x);
}

__global__ void uses_brkpt(int *out)
{
    asm volatile("brkpt;");
    out[0] = 1;
}

/* A spin on a flag nothing sets: the watchdog (GPUSHIM_FAKE_WATCHDOG) ends it. */
__global__ void spin_forever(volatile int *flag)
{
    while (*flag == 0) {
    }
}

/* Reads an input of which only part was copied in: the init check reports the first byte never written. */
__global__ void read_uninit(const int *in, int *out)
{
    out[threadIdx.x] = in[threadIdx.x] * 2;
}

/* Half the block writes shared memory, and every thread reads the other half's place. */
__global__ void shared_uninit(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < 32)
        s[t] = t;
    __syncthreads();
    out[t] = s[63 - t];
}
}
