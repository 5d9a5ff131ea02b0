/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's consumer: a test program as a user writes one, linked with
 * an installed gpushim and gpushim-fakecuda (see run.sh), and run with
 * GPUSHIM_LIBCUDA naming that same library. It checks that the control API
 * and gpushim see one driver: gpu_fake_identify() answers, gpushim loaded the
 * file that GPUSHIM_LIBCUDA names, and a buffer gpushim creates is counted
 * live by the fake until it is destroyed. Exits 0 when all holds, 1 otherwise,
 * saying why on stderr.
 *
 * Built with FAKE_DRIVER defined (the Meson consumer, from the dependency's
 * `driver` variable), it sets GPUSHIM_LIBCUDA to it when the environment has none.
 */
#define _POSIX_C_SOURCE 200809L /* setenv() under -std=c11 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/fake.h>
#include <gpushim/gpushim.h>

static int fail(const char *what)
{
    fprintf(stderr, "fake consumer: %s\n", what);
    return 1;
}

int main(void)
{
    const char *id = gpu_fake_identify();
    const char *lib;
    gpu_buffer *buf = NULL;
    gpu_status st;
    long live;

#ifdef FAKE_DRIVER
    if (!getenv("GPUSHIM_LIBCUDA") && setenv("GPUSHIM_LIBCUDA", FAKE_DRIVER, 1) != 0)
        return fail("setenv GPUSHIM_LIBCUDA");
#endif
    lib = getenv("GPUSHIM_LIBCUDA");
    if (!lib)
        return fail("GPUSHIM_LIBCUDA is not set: run it with the fake's path (pkg-config --variable=driver)");
    if (!id || strncmp(id, "gpushim-fakecuda ", 17) != 0) {
        fprintf(stderr, "fake consumer: gpu_fake_identify() says '%s'\n", id ? id : "(null)");
        return 1;
    }
    st = gpu_buffer_create(NULL, 4096, &buf);
    if (st != GPU_OK) {
        fprintf(stderr, "fake consumer: gpu_buffer_create: %s: %s\n", gpu_status_get_name(st), gpu_last_error_get_message());
        return 1;
    }
    live = gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS);
    if (live != 1) {
        fprintf(stderr, "fake consumer: the fake counts %ld device allocations, want 1: "
                        "gpushim and this program see different drivers\n", live);
        return 1;
    }
    gpu_buffer_destroy(buf);
    if (gpu_fake_live(GPU_FAKE_LIVE_DEVICE_ALLOCS) != 0)
        return fail("the buffer is still counted live after gpu_buffer_destroy");
    if (!gpu_driver_get_report()->file || strcmp(gpu_driver_get_report()->file, lib) != 0) {
        fprintf(stderr, "fake consumer: gpushim loaded '%s', not GPUSHIM_LIBCUDA '%s'\n",
                gpu_driver_get_report()->file ? gpu_driver_get_report()->file : "(null)", lib);
        return 1;
    }
    printf("fake consumer: ok: %s through %s\n", id, lib);
    return 0;
}
