/* SPDX-License-Identifier: MIT */
/*
 * device_query: every device the driver sees, with its name, memory, UUID,
 * compute capability and the value of every CU_DEVICE_ATTRIBUTE_* below
 * CU_DEVICE_ATTRIBUTE_MAX, one `name=value` line each.
 *
 * An attribute this driver does not know (a cuda.h newer than the driver)
 * answers CUDA_ERROR_INVALID_VALUE, one it does not provide
 * CUDA_ERROR_NOT_SUPPORTED: either is printed as its value; any other
 * failure is the program's error.
 *
 * usage: device_query
 */
#include "common.h"
#include "device_attribute_names.h"

static const char *attribute_name(int value)
{
    for (size_t i = 0; i < sizeof(device_attribute_names) / sizeof(device_attribute_names[0]); i++)
        if (device_attribute_names[i].value == value)
            return device_attribute_names[i].name;
    return NULL;
}

static void device_print(int ordinal)
{
    CUdevice dev;
    CUuuid uuid;
    char name[256];
    size_t total = 0;
    int major = 0, minor = 0, unknown = 0;

    CHECK(cuDeviceGet(&dev, ordinal));
    CHECK(cuDeviceGetName(name, (int)sizeof(name), dev));
    CHECK(cuDeviceTotalMem(&total, dev));
    CHECK(cuDeviceGetUuid(&uuid, dev));
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));

    printf("device %d: %s\n", ordinal, name);
    printf("  total memory: %zu bytes (%zu MiB)\n", total, total >> 20);
    printf("  UUID: GPU-");
    for (int i = 0; i < 16; i++)
        printf("%02x%s", (unsigned char)uuid.bytes[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
    printf("\n  compute capability: %d.%d\n", major, minor);

    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) {
        const char *attr = attribute_name(a);
        int value = 0;
        CUresult rc = cuDeviceGetAttribute(&value, (CUdevice_attribute)a, dev);

        if (attr == NULL)
            printf("  attribute %d", a);
        else
            printf("  %s", attr);
        if (rc == CUDA_SUCCESS) {
            printf("=%d\n", value);
        } else if (rc == CUDA_ERROR_INVALID_VALUE || rc == CUDA_ERROR_NOT_SUPPORTED) {
            const char *why = NULL;

            cuGetErrorName(rc, &why);
            printf("=(not answered: %s)\n", why != NULL ? why : "?");
            unknown++;
        } else {
            printf("\n");
            fflush(stdout);
            check_failed("cuDeviceGetAttribute", rc);
        }
    }
    printf("  %d attributes queried, %d not answered\n", CU_DEVICE_ATTRIBUTE_MAX - 1, unknown);
}

int main(int argc, char **argv)
{
    int version = 0, count = 0;

    if (argc != 1)
        usage(argv[0], "");
    CHECK(cuInit(0));
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGetCount(&count));
    printf("driver API version %d.%d, %d device(s)\n", version / 1000, version % 1000 / 10, count);
    if (count == 0) {
        fprintf(stderr, "no CUDA device\n");
        return 1;
    }
    for (int i = 0; i < count; i++)
        device_print(i);
    printf("device_query: ok\n");
    return 0;
}
