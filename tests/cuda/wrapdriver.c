/* SPDX-License-Identifier: MIT */
/*
 * A "driver" built on libgpushim-cuda, as a tool that wraps libcuda by
 * linking it would be: its own cuInit and cuDriverGetVersion, and every other
 * cu* symbol found through what it links, libgpushim-cuda. Forwarding those
 * would make each forwarder call itself; gpushim must refuse them.
 */
#define WRAP_API __attribute__((visibility("default")))

WRAP_API unsigned cuInit(unsigned flags);
WRAP_API unsigned cuDriverGetVersion(int *version);
unsigned cuDeviceGetCount(int *count); /* libgpushim-cuda's */

unsigned cuInit(unsigned flags)
{
    (void)flags;
    return 0;
}

unsigned cuDriverGetVersion(int *version)
{
    *version = 12080;
    return 0;
}

/* Makes the link need libgpushim-cuda, as a wrapper's calls into "the driver" would. */
WRAP_API unsigned wrapdriver_count(int *count);
unsigned wrapdriver_count(int *count)
{
    return cuDeviceGetCount(count);
}
