// SPDX-License-Identifier: MIT
/*
 * The interpreter's corpus: kernels of the kinds real programs run, each
 * checked against a plain C reference by corpus.c, on the fake driver and on
 * a GPU. Its one header is cooperative groups', for the kernels that use it,
 * which only nvcc compiles (NVRTC has no include path to the toolkit here).
 */
#ifndef __CUDACC_RTC__
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;
#endif

extern "C" {
__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

__global__ void saxpy(float a, const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

#define TILE 16
__global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[TILE][TILE], tb[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        ta[threadIdx.y][threadIdx.x] = row < n && ac < n ? a[row * n + ac] : 0.0f;
        tb[threadIdx.y][threadIdx.x] = br < n && col < n ? b[br * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n)
        c[row * n + col] = sum;
}

__global__ void reduce_tree(const unsigned *in, unsigned long long *out, int n)
{
    extern __shared__ unsigned part[];
    unsigned i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    unsigned v = 0;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    part[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, (unsigned long long)part[0]);
}

__global__ void reduce_shfl(const int *in, int *out, int n)
{
    __shared__ int warps[32];
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, o);
    if ((threadIdx.x & 31) == 0)
        warps[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < (blockDim.x + 31) / 32 ? warps[threadIdx.x] : 0;
        for (int o = 16; o > 0; o >>= 1)
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        if (threadIdx.x == 0)
            atomicAdd(out, sum);
    }
}

__global__ void histogram(const unsigned char *data, unsigned *bins, int n)
{
    __shared__ unsigned local[64];
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
        local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] & 63], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
        if (local[i])
            atomicAdd(&bins[i], local[i]);
}

/* Inclusive scan of one block (Hillis-Steele, double-buffered in shared memory). */
__global__ void scan_block(const int *in, int *out, int n)
{
    extern __shared__ int buf[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x, in_buf = 0;
    buf[t] = base + t < n ? in[base + t] : 0;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        int v = buf[in_buf * blockDim.x + t];
        if (t >= o)
            v += buf[in_buf * blockDim.x + t - o];
        in_buf ^= 1;
        buf[in_buf * blockDim.x + t] = v;
        __syncthreads();
    }
    if (base + t < n)
        out[base + t] = buf[in_buf * blockDim.x + t];
}

#define TD 32
__global__ void transpose_padded(const float *in, float *out, int w, int h)
{
    __shared__ float tile[TD][TD + 1];
    int x = blockIdx.x * TD + threadIdx.x, y = blockIdx.y * TD + threadIdx.y;
    for (int j = 0; j < TD; j += blockDim.y)
        if (x < w && y + j < h)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x;
    y = blockIdx.x * TD + threadIdx.y;
    for (int j = 0; j < TD; j += blockDim.y)
        if (x < h && y + j < w)
            out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

/* One row per block. */
__global__ void softmax_rows(const float *in, float *out, int cols)
{
    __shared__ float red[32];
    const float *row = in + blockIdx.x * cols;
    float m = __int_as_float(0xff800000), s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, row[c]);
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
    __syncthreads();
    m = red[0];
    for (int w = 1; w < (blockDim.x + 31) / 32; w++) m = fmaxf(m, red[w]);
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += __expf(row[c] - m);
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    s = 0.0f;
    for (int w = 0; w < (blockDim.x + 31) / 32; w++) s += red[w];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[blockIdx.x * cols + c] = __expf(row[c] - m) / s;
}

/* Half precision through the PTX conversions, as cuda_fp16.h does it. */
__device__ float half_to_float(unsigned short h)
{
    float f;
    asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h));
    return f;
}

__device__ unsigned short float_to_half(float f)
{
    unsigned short h;
    asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h) : "f"(f));
    return h;
}

/* One row per block, one thread: the row's maximum, the sum of exponentials, then each value. */
__global__ void softmax_half(const unsigned short *in, unsigned short *out, int cols)
{
    if (threadIdx.x != 0)
        return;
    const unsigned short *row = in + blockIdx.x * cols;
    float m = __int_as_float(0xff800000), s = 0.0f;
    for (int c = 0; c < cols; c++)
        m = fmaxf(m, half_to_float(row[c]));
    for (int c = 0; c < cols; c++)
        s += expf(half_to_float(row[c]) - m);
    for (int c = 0; c < cols; c++)
        out[blockIdx.x * cols + c] = float_to_half(expf(half_to_float(row[c]) - m) / s);
}

__global__ void hello_printf(int base)
{
    printf("block %d thread %d value %d %f\n", blockIdx.x, threadIdx.x, base + threadIdx.x, 0.5 * threadIdx.x);
}

__device__ __noinline__ unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__global__ void fib_kernel(unsigned *out)
{
    out[threadIdx.x] = fib(threadIdx.x % 12);
}

/* Warp-level operations, one warp a block: 8 results a thread. Odd lanes also run a divergent branch. */
__global__ void warp_ops(unsigned *out)
{
    unsigned t = threadIdx.x, *o = out + (blockIdx.x * blockDim.x + t) * 8;
    const unsigned full = 0xffffffffu;
    o[0] = __ballot_sync(full, t % 3 == 0);
    o[1] = __any_sync(full, t == 5) | (__all_sync(full, t < 100) << 1) | (__all_sync(full, t < 16) << 2);
    o[2] = __match_any_sync(full, t / 4);
    o[3] = __shfl_up_sync(full, t * 10, 3);
    o[4] = __shfl_sync(full, t * 2 + blockIdx.x, 7);
#if __CUDA_ARCH__ >= 800
    o[5] = __reduce_add_sync(full, t) + __reduce_max_sync(full, t * 3);
#else
    unsigned sum = t, mx = t * 3;
    for (int k = 16; k > 0; k >>= 1) {
        sum += __shfl_xor_sync(full, sum, k);
        mx = max(mx, __shfl_xor_sync(full, mx, k));
    }
    o[5] = sum + mx;
#endif
    if (t & 1)
        o[6] = __activemask();
    else
        o[6] = __popc(__activemask());
    o[7] = __shfl_down_sync(full, t + 100, 5, 16);
}

/* Integer and bit operations on a hashed input: 12 results a thread. */
__global__ void bit_ops(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = in[i], y = in[(i + 1) % n];
    unsigned long long a = ((unsigned long long)x << 32) | y, b = ((unsigned long long)y << 29) ^ x;
    int sx = (int)x;
    unsigned *o = out + i * 12;
    o[0] = __popc(x) | (__clz(y) << 8) | (__ffs(x) << 16);
    o[1] = __brev(x);
    o[2] = __byte_perm(x, y, 0x5140 + (i & 7));
    o[3] = (x >> (i % 29)) & 0x1ff;
    o[4] = (unsigned)(sx >> (i % 31));
    o[5] = __umulhi(x, y);
    o[6] = (unsigned)__mulhi(sx, (int)y);
    o[7] = (unsigned)(__umul64hi(a, b) >> 7);
    o[8] = (unsigned)(a / (b | 1) + a % (y | 1));
    o[9] = (unsigned)((int)x / ((int)(y | 1) >> 3 | 1)) ^ (unsigned)(sx % 1000);
    o[10] = (unsigned)min(sx, (int)y) ^ max(x, y);
    o[11] = (unsigned)__float2int_rz((float)sx * 1e-3f) + __float2uint_rn(x * 1e-6f) + (unsigned)(long long)((double)a * 1e-12);
}

/* Floating-point functions, the fast approximations and the exact ones: 8 results a thread. */
__global__ void math_ops(const float *in, float *out, double *dout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float x = in[i];
    float *o = out + i * 8;
    o[0] = __sinf(x);
    o[1] = __cosf(x);
    o[2] = __log2f(fabsf(x) + 1.0f);
    o[3] = rsqrtf(fabsf(x) + 0.5f);
    o[4] = sqrtf(fabsf(x));
    o[5] = __fdividef(x, 3.0f);
    o[6] = exp2f(x * 0.25f);
    o[7] = fminf(x, 1.0f) + fmaxf(x, -1.0f) + floorf(x) + ceilf(x) + truncf(x) + rintf(x);
    dout[i] = (double)x * 1.5 + sqrt((double)fabsf(x)) - (double)i / 7.0;
}

/* Every kind of atomic, on global memory (g) and shared memory: results that do not depend on the order. */
__global__ void atomics(unsigned *g, unsigned long long *g64, float *gf, int n)
{
    __shared__ unsigned s[4];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t < 4)
        s[t] = t == 1 ? 0xffffffffu : 0;
    __syncthreads();
    if (i < n) {
        atomicMin(&g[0], i * 7 % 1000 + 3);
        atomicMax(&g[1], i * 13 % 977);
        atomicAnd(&g[2], ~(1u << (i % 32)) | (i & 1));
        atomicOr(&g[3], 1u << (i % 29));
        atomicXor(&g[4], i * 2654435761u);
        atomicInc(&g[5], 9);
        atomicDec(&g[6], 6);
        unsigned old = g[7], seen;
        while ((seen = atomicCAS(&g[7], old, old + 2)) != old)
            old = seen;
        atomicExch(&g[8], i + 1);
        atomicMin((int *)&g[9], (int)i - 50);
        atomicAdd(&g64[0], (unsigned long long)i << 33);
        atomicMax(&g64[1], (unsigned long long)i * 0x100000001ull);
        atomicAdd(&gf[0], (float)(i % 17));
        atomicAdd(&s[0], i);
        atomicMin(&s[1], i + 5);
        atomicXor(&s[2], i);
        atomicExch(&s[3], 1);
    }
    __syncthreads();
    if (t < 4)
        atomicAdd(&g[10 + t], s[t]);
}

#ifndef __CUDACC_RTC__
/*
 * A cooperative launch: every block adds its share into partial[], the whole grid waits
 * (cg's grid barrier: an atomic on the grid workspace, then a spin), each block sums every
 * block's share into out[block], the grid waits again, and each block copies its neighbour's
 * sum into out[grid + block].
 */
__global__ void grid_sync_sum(const int *in, int *partial, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    int s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        s += in[i];
    atomicAdd(&partial[blockIdx.x], s);
    grid.sync();
    if (threadIdx.x == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; b++)
            t += partial[b];
        out[blockIdx.x] = t;
    }
    grid.sync();
    if (threadIdx.x == 0)
        out[gridDim.x + blockIdx.x] = out[(blockIdx.x + 1) % gridDim.x];
}

/*
 * Half and bfloat16 through cuda_fp16.h and cuda_bf16.h (conversions, packing two floats, arithmetic,
 * hexp's inline PTX, atomics), and warp reductions and scans as cooperative groups and
 * __reduce_add_sync write them. Inputs are multiples of 1/8 in [-4, 4): exact in both.
 */
__global__ void half_warp_ops(const float *in, float *out, __half *hsum, __half2 *h2sum, __nv_bfloat16 *bsum)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    int t = blockIdx.x * blockDim.x + threadIdx.x, v = t % 7;
    float f = in[t], *o = out + t * 8;
    __half x = __float2half_rn(f);
    __nv_bfloat16 y = __float2bfloat16_rn(f);
    __half2 p = __floats2half2_rn(f, 2 * f);
    o[0] = __half2float(__hmul(x, x));
    o[1] = __bfloat162float(__hadd(y, y));
    o[2] = __half2float(__low2half(p)) + __half2float(__high2half(p));
    o[3] = __half2float(hexp(__float2half_rn(f / 4)));
    o[4] = (float)cg::reduce(tile, v, cg::plus<int>());
    o[5] = (float)cg::inclusive_scan(tile, v);
    o[6] = cg::reduce(tile, f, cg::greater<float>());
#if __CUDA_ARCH__ >= 800
    o[7] = (float)__reduce_add_sync(0xffffffffu, (unsigned)v);
#else
    o[7] = (float)cg::reduce(tile, (unsigned)v, cg::plus<unsigned>());
#endif
    atomicAdd(hsum, __float2half_rn(0.5f));
    atomicAdd(h2sum, __floats2half2_rn(1.0f, 0.25f));
    atomicAdd(bsum, __float2bfloat16_rn(1.0f));
}

#if __CUDA_ARCH__ >= 900
/*
 * Thread-block clusters (compute capability 9.0): each block writes into its shared memory,
 * the cluster waits, and each block reads its neighbour's through distributed shared memory;
 * the second barrier keeps that memory alive until every read is done.
 */
__global__ void cluster_exchange(unsigned *out)
{
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ unsigned v[64];
    unsigned rank = cluster.block_rank(), n = cluster.num_blocks();
    v[threadIdx.x] = blockIdx.x << 8 | threadIdx.x;
    cluster.sync();
    unsigned *other = cluster.map_shared_rank(v, (rank + 1) % n);
    unsigned x = other[threadIdx.x];
    cluster.sync();
    out[2 * (blockIdx.x * blockDim.x + threadIdx.x)] = x;
    out[2 * (blockIdx.x * blockDim.x + threadIdx.x) + 1] = rank | n << 8 | cluster.block_index().x << 16;
}

/* A cluster shape the kernel is compiled with, which a plain launch takes. */
__global__ void __cluster_dims__(2, 1, 1) cluster_fixed(unsigned *out)
{
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0)
        out[blockIdx.x] = cluster.block_rank() + 10 * cluster.num_blocks() + 100 * blockIdx.x;
    cluster.sync();
}
#endif
#endif
}
