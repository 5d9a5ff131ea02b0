/* SPDX-License-Identifier: MIT */
/*
 * startup_linked's twin without libgpushim: the start-up baseline.
 */
#include <string.h>

int main(void)
{
    return strlen("GPU_OK") == 6 ? 0 : 1;
}
