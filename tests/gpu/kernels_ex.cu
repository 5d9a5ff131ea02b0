// SPDX-License-Identifier: MIT
// Kernels of the gpu-kernels test: dynamic shared memory past
// 48 KiB, a persistent kernel, a grid-wide barrier, cluster ranks, a
// programmatic-serialization pair and a __constant__ table. The checked-in
// kernels_ex.ptx is generated from this file, never edited by hand:
//
//   /usr/local/cuda/bin/nvcc -arch=sm_90 -ptx -o tests/gpu/kernels_ex.ptx tests/gpu/kernels_ex.cu
//
// Every kernel that waits for other blocks gives up after timeout_ns (read
// from %globaltimer) and says so in its output, so a broken launch fails the
// test instead of hanging the GPU; the first block to give up raises a flag
// (sync[1]) that makes the others give up at once.
#include <cuda.h> /* CUtensorMap */
#include <stdint.h>

extern "C" {

__device__ __forceinline__ uint64_t now_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One block: fills `words` words of dynamic shared memory, then writes them
// out reversed, so every word of it is both written and read.
__global__ void big_shared(uint32_t *out, uint32_t words)
{
    extern __shared__ uint32_t s[];

    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        s[i] = i * 3u + 1u;
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < words; i += blockDim.x)
        out[i] = s[words - 1u - i];
}

// Waits until sync[0] reaches `total`; false when it gave up (timeout or sync[1] raised).
__device__ bool wait_for(uint32_t *sync, uint32_t total, uint64_t timeout_ns)
{
    uint64_t start = now_ns();

    while (atomicAdd(&sync[0], 0u) < total) {
        if (atomicAdd(&sync[1], 0u) != 0u)
            return false;
        if (now_ns() - start > timeout_ns) {
            atomicExch(&sync[1], 1u);
            return false;
        }
    }
    return true;
}

// Each block takes a ticket, then waits until every block of the grid has
// one: only a grid whose blocks are all resident at once gets past. out[b]
// is the block's ticket + 1, or 0 where it gave up waiting.
__global__ void persistent(uint32_t *sync, uint32_t *out, uint64_t timeout_ns)
{
    __shared__ uint32_t ticket;
    __shared__ int done;

    if (threadIdx.x == 0) {
        ticket = atomicAdd(&sync[0], 1u);
        done = wait_for(sync, gridDim.x * gridDim.y * gridDim.z, timeout_ns) ? 1 : 0;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = done == 1 ? ticket + 1u : 0u;
}

// A grid-wide barrier between two phases: block b writes phase1[b] = b + 1,
// meets every other block, then reads its neighbour's value into
// out[b]; 0 where it gave up waiting.
__global__ void grid_barrier(uint32_t *sync, uint32_t *phase1, uint32_t *out, uint64_t timeout_ns)
{
    __shared__ int ok;
    uint32_t blocks = gridDim.x;

    if (threadIdx.x == 0) {
        phase1[blockIdx.x] = blockIdx.x + 1u;
        __threadfence();
        atomicAdd(&sync[0], 1u);
        ok = wait_for(sync, blocks, timeout_ns);
        __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = ok ? ((volatile uint32_t *)phase1)[(blockIdx.x + 1u) % blocks] : 0u;
}

// out[b] = the block's rank in its cluster | cluster size << 8 | cluster index (x) << 16.
__global__ void cluster_rank(uint32_t *out)
{
    uint32_t rank, size, id;

    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(id));
    if (threadIdx.x == 0)
        out[blockIdx.x] = rank | size << 8 | id << 16;
}

// The primary of a programmatic-serialization pair: a long write, then the
// trigger that lets the secondary start.
__global__ void pss_primary(uint32_t *buf, uint32_t n, uint32_t spins)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        uint32_t v = i;

        for (uint32_t k = 0; k < spins; k++)
            v = v * 1664525u + 1013904223u;
        buf[i] = v;
    }
    asm volatile("griddepcontrol.launch_dependents;");
}

// The secondary: starts early, waits for the primary's memory, then reads it.
__global__ void pss_secondary(const uint32_t *buf, uint32_t *out, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

    asm volatile("griddepcontrol.wait;" ::: "memory");
    if (i < n)
        out[i] = buf[i] ^ 0x5a5a5a5au;
}

__constant__ uint32_t const_table[64];

// out[i] = const_table[i % 64] * 2 + 1.
__global__ void read_constant(uint32_t *out, uint32_t n)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        out[i] = const_table[i % 64u] * 2u + 1u;
}

// Tensor maps: one TILE_W x TILE_H tile of u32 at (x0, y0) loaded through the
// map with cp.async.bulk.tensor into shared memory (completion counted on an
// mbarrier), then written out row-major to out[]. Launch one block of
// TILE_W * TILE_H threads at most; the test's map must use that box.
#define TILE_W 32
#define TILE_H 16

__global__ void tma_tile(const __grid_constant__ CUtensorMap map, uint32_t *out, int x0, int y0)
{
    __shared__ alignas(128) uint32_t tile[TILE_H * TILE_W];
    __shared__ alignas(8) uint64_t bar;
    uint32_t bar_addr = (uint32_t)__cvta_generic_to_shared(&bar);
    uint32_t tile_addr = (uint32_t)__cvta_generic_to_shared(tile);

    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                     "r"((uint32_t)sizeof(tile))
                     : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(tile_addr),
                     "l"((uint64_t)&map), "r"(x0), "r"(y0), "r"(bar_addr)
                     : "memory");
    }
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "WAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
                 "@!done bra WAIT_%=;\n"
                 "}" ::"r"(bar_addr)
                 : "memory");
    for (uint32_t i = threadIdx.x; i < TILE_H * TILE_W; i += blockDim.x)
        out[i] = tile[i];
}

} // extern "C"
