// SPDX-License-Identifier: MIT
// A device function in its own translation unit (compiled with -rdc=true), for
// link_main.cu's kernel: jit_link links the two PTX files at run time.
extern "C" __device__ float poly(float x)
{
    return 3.0f * x * x - 2.0f * x + 1.0f;
}
