// SPDX-License-Identifier: MIT
// The toolkit's own libraries on the runtime: Thrust's sort, reduce and scan of 1M elements (CUB underneath:
// cudaFuncGetAttributes, occupancy, cudaLaunchKernelExC) and a CUB block reduction in a kernel of ours.
#include "check.h"

#include <cub/block/block_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

constexpr int block = 128;

__global__ void block_sums(const int *in, int *out)
{
    using reduce = cub::BlockReduce<int, block>;
    __shared__ typename reduce::TempStorage temp;
    int sum = reduce(temp).Sum(in[blockIdx.x * block + threadIdx.x]);

    if (threadIdx.x == 0)
        out[blockIdx.x] = sum;
}

int main()
{
    const int n = 1 << 20;
    thrust::device_vector<int> v(n);

    // n-1, n-2, ..., 0, sorted back to 0, 1, ..., n-1.
    thrust::sequence(v.begin(), v.end(), n - 1, -1);
    thrust::sort(v.begin(), v.end());
    thrust::host_vector<int> sorted = v;
    for (int i = 0; i < n; i++)
        CHECK(sorted[i] == i);
    long long sum = thrust::reduce(v.begin(), v.end(), 0LL);
    CHECK(sum == (long long)n * (n - 1) / 2);
    // The sums pass 2^31: the scan is of 64-bit values, its accumulator theirs.
    thrust::device_vector<long long> scanned(n);
    thrust::sequence(scanned.begin(), scanned.end());
    thrust::inclusive_scan(scanned.begin(), scanned.end(), scanned.begin());
    thrust::host_vector<long long> prefix = scanned;
    for (long long i = 0; i < n; i += 4099)
        CHECK(prefix[i] == i * (i + 1) / 2);
    CHECK(prefix[n - 1] == sum);

    const int blocks = 64;
    thrust::device_vector<int> sums(blocks);
    block_sums<<<blocks, block>>>(thrust::raw_pointer_cast(v.data()), thrust::raw_pointer_cast(sums.data()));
    CHECK_CUDA(cudaGetLastError());
    thrust::host_vector<int> got = sums;
    for (int b = 0; b < blocks; b++) {
        long long first = (long long)b * block, last = first + block - 1;
        CHECK(got[b] == (first + last) * block / 2);
    }
    std::printf("thrust and cub: ok\n");
    return 0;
}
