/* SPDX-License-Identifier: MIT */
/*
 * A trivial program linked with libgpushim that calls nothing that loads the
 * driver: first_use times its start-up against startup_plain's.
 */
#include <gpushim/gpushim.h>

int main(void)
{
    /* One call keeps the library needed, whatever --as-needed does. */
    return gpu_status_get_name(GPU_OK)[0] == 'G' ? 0 : 1;
}
