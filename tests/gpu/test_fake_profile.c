/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's H200 profile against the H200 it imitates: its name,
 * total memory and each of CUDA 13.0's device attributes as the real driver
 * answers them for device 0 and as the fake (opened here with dlopen, its
 * symbols kept local) answers them for its default device. Prints one
 * PROFILE line per attribute that differs and fails if any does, except the
 * device's own (its PCI place and NUMA nodes, its board group). Skipped
 * where device 0 is not an H200.
 *
 * The fake's file comes as argv[1].
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

enum { ATTRIBUTE_COUNT = 148 }; /* CU_DEVICE_ATTRIBUTE_MAX of CUDA 13.0 */

static const char *fake_file;

typedef int (*init_fn)(unsigned flags);
typedef int (*attribute_fn)(int *value, int attribute, int device);
typedef int (*name_fn)(char *name, int len, int device);
typedef int (*total_fn)(size_t *bytes, int device);

/* A device's own, not its board's: where it sits and which it is. */
static bool device_own(int attribute)
{
    static const int own[] = {33, 34, 50, 85, 131, 134, 140}; /* PCI bus, device, domain; group; NUMA; host NUMA; subsystem */

    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (own[i] == attribute)
            return true;
    return false;
}

/* The fake's function `name`, into *fn (a function pointer of `size` bytes). */
static void symbol(void *lib, const char *name, void *fn, size_t size)
{
    void *sym = dlsym(lib, name);

    assert_non_null(sym);
    memcpy(fn, &sym, size);
}

static void h200_profile(void **state)
{
    void *fake = dlopen(fake_file, RTLD_NOW | RTLD_LOCAL);
    init_fn init;
    attribute_fn attribute;
    name_fn name;
    total_fn total;
    char fake_name[64] = "";
    gpu_device_info real;
    size_t fake_total = 0;
    int differ = 0;

    (void)state;
    assert_non_null(fake);
    symbol(fake, "cuInit", &init, sizeof(init));
    symbol(fake, "cuDeviceGetAttribute", &attribute, sizeof(attribute));
    symbol(fake, "cuDeviceGetName", &name, sizeof(name));
    symbol(fake, "cuDeviceTotalMem_v2", &total, sizeof(total));
    assert_int_equal(init(0), 0);
    assert_gpu_ok(gpu_device_get_info(0, &real));
    assert_int_equal(name(fake_name, sizeof(fake_name), 0), 0);
    assert_int_equal(total(&fake_total, 0), 0);
    printf("PROFILE name real=\"%s\" fake=\"%s\"\n", real.name, fake_name);
    printf("PROFILE total_memory real=%zu fake=%zu\n", real.total_memory, fake_total);
    differ += strcmp(real.name, fake_name) != 0;
    differ += real.total_memory != fake_total;
    for (int a = 1; a < ATTRIBUTE_COUNT; a++) {
        int r = -1, f = -1;
        gpu_status st = gpu_device_get_attribute(0, (gpu_device_attribute)a, &r);
        int frc = attribute(&f, a, 0);

        if (st != GPU_OK || frc != 0 || r != f) {
            printf("PROFILE attribute %d real=%d (%s) fake=%d (%d)%s\n", a, r, gpu_status_get_name(st), f, frc,
                   device_own(a) ? " device's own" : "");
            differ += !device_own(a);
        }
    }
    dlclose(fake);
    assert_int_equal(differ, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h200_profile),
    };
    gpu_device_info info;
    int rc = gpu_test_start("fake-profile");

    if (rc != 0)
        return rc;
    if (argc != 2) {
        fprintf(stderr, "usage: %s FAKE_DRIVER\n", argv[0]);
        return 2;
    }
    fake_file = argv[1];
    if (gpu_device_get_info(0, &info) != GPU_OK || strcmp(info.name, "NVIDIA H200") != 0) {
        printf("fake-profile: skipped: device 0 is not an NVIDIA H200\n");
        return GPU_TEST_SKIP;
    }
    return cmocka_run_group_tests_name("fake-profile", tests, NULL, NULL);
}
