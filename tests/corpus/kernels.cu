/*
 * The interpreter's corpus: kernels of the kinds real programs run, each
 * checked against a plain C reference by corpus.c, on the fake driver and on
 * a GPU. Self-contained (no headers), so that nvcc and NVRTC both compile it.
 */
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
}
