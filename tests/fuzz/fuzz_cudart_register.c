/* SPDX-License-Identifier: MIT */
/*
 * libgpushim-cudart's registration calls (cudart/register.c) in any order
 * with any arguments: each input byte pair is one call, its fatbin, handle,
 * host stub and name picked from small tables that hold NULL, handles
 * unregistered already and pointers the runtime never handed out. A model of
 * the registry checks every answer: a refusal is cudaErrorInvalidValue, a
 * second unregister of a handle is refused, a stub is launchable exactly
 * while its first registration's fatbin is registered. Nothing is loaded: no
 * driver is needed.
 */
#include <fatbinary_section.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

enum { FATBINS = 4, HOSTS = 8, HISTORY = 16 };

static const unsigned long long images[FATBINS][4];
/* Three of nvcc's wrappers and one fatbin given bare (not a wrapper): each is registered as it is. */
static __fatBinC_Wrapper_t wrappers[FATBINS - 1] = {
    {FATBINC_MAGIC, 1, images[0], NULL}, {FATBINC_MAGIC, 1, images[1], NULL}, {FATBINC_MAGIC, 1, images[2], NULL}};
static void *const fatbin_inputs[FATBINS] = {&wrappers[0], &wrappers[1], &wrappers[2], (void *)images[3]};
static char hosts[HOSTS]; /* the host stubs' and shadows' addresses */
static void *managed[HOSTS];
static const char *const names[4] = {NULL, "k", "a_longer_kernel_name", ""};

/* The model: each fatbin's live handle and registrations; each stub's and variable's owner (-1: none). */
static void **handle_of[FATBINS];
static unsigned refs[FATBINS];
static int owner[HOSTS], var_owner[HOSTS], managed_owner[HOSTS];

static void expect(bool ok)
{
    if (!ok)
        abort();
}

static int live_fatbin(void **h)
{
    for (int i = 0; i < FATBINS; i++)
        if (h && refs[i] && handle_of[i] == h)
            return i;
    return -1;
}

/* An unregister, checked: refused unless `h` is live; the fatbin's kernels and variables go with its last. */
static void unregister(void **h)
{
    int fb = live_fatbin(h);

    (void)cudaGetLastError();
    __cudaUnregisterFatBinary(h);
    expect(cudaGetLastError() == (fb < 0 ? cudaErrorInvalidValue : cudaSuccess));
    if (fb < 0 || --refs[fb] > 0)
        return;
    for (int i = 0; i < HOSTS; i++) {
        owner[i] = owner[i] == fb ? -1 : owner[i];
        var_owner[i] = var_owner[i] == fb ? -1 : var_owner[i];
        managed_owner[i] = managed_owner[i] == fb ? -1 : managed_owner[i];
    }
}

/* What registering a kernel or variable answers: refused without a live fatbin or a host address; the first
 * registration of an address stands; one without a name is kept, refused. */
static cudaError_t registered(int fb, bool host, int *owned, const char *name)
{
    if (fb < 0 || !host)
        return cudaErrorInvalidValue;
    if (*owned >= 0)
        return cudaSuccess;
    *owned = fb;
    return name ? cudaSuccess : cudaErrorInvalidValue;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    void **history[HISTORY] = {NULL};
    size_t seen = 1;

    for (int i = 0; i < HOSTS; i++)
        owner[i] = var_owner[i] = managed_owner[i] = -1;
    (void)cudaGetLastError();
    for (size_t at = 0; at + 1 < size; at += 2) {
        unsigned op = data[at] & 7, arg = data[at + 1];
        /* A handle: one handed out (live or not), NULL, or a pointer never handed out. */
        unsigned pick = arg >> 4;
        void **h = pick < seen ? history[pick] : pick == 15 ? (void **)&wrappers[0] : (void **)&managed[pick & 7];
        int fb = live_fatbin(h), host = (int)(arg & 7);
        const char *name = names[(arg >> 3) & 3];
        const void *host_ptr = (arg & 8) && !(arg & 7) ? NULL : &hosts[host];
        cudaKernel_t k;

        (void)cudaGetLastError();
        switch (op) {
        case 0:
        case 1: {
            int f = (int)(arg % (FATBINS + 1)) - 1;
            void **got = __cudaRegisterFatBinary(f < 0 ? NULL : fatbin_inputs[f]);

            if (f < 0) {
                expect(!got && cudaGetLastError() == cudaErrorInvalidValue);
                break;
            }
            expect(got != NULL);
            expect(!refs[f] || got == handle_of[f]);
            handle_of[f] = got;
            refs[f]++;
            if (seen < HISTORY)
                history[seen++] = got;
            break;
        }
        case 2:
            __cudaRegisterFatBinaryEnd(h);
            expect(cudaGetLastError() == (fb < 0 ? cudaErrorInvalidValue : cudaSuccess));
            break;
        case 3:
            unregister(h);
            break;
        case 4:
            /* The name as deviceName, or as deviceFun alone: either names the kernel. */
            __cudaRegisterFunction(h, host_ptr, (char *)(uintptr_t)name, (arg & 64) ? NULL : name, -1, NULL, NULL,
                                   NULL, NULL, NULL);
            expect(cudaGetLastError() == registered(fb, host_ptr != NULL, &owner[host], name));
            break;
        case 5:
            __cudaRegisterVar(h, (char *)(uintptr_t)host_ptr, (char *)(uintptr_t)name, (arg & 64) ? NULL : name, 0, 4,
                              arg & 1, 0);
            expect(cudaGetLastError() == registered(fb, host_ptr != NULL, &var_owner[host], name));
            break;
        case 6:
            __cudaRegisterManagedVar(h, host_ptr ? &managed[host] : NULL, (char *)(uintptr_t)name,
                                     (arg & 64) ? NULL : name, 0, 4, 0, 0);
            expect(cudaGetLastError() == registered(fb, host_ptr != NULL, &managed_owner[host], name));
            break;
        default:
            /* A stub is found exactly while it has an owner. */
            expect((__cudaGetKernel(&k, host_ptr) == cudaSuccess) == (host_ptr && owner[host] >= 0));
            break;
        }
    }
    /* Everything given back, so that the next input starts from an empty registry. */
    for (int i = 0; i < FATBINS; i++) {
        while (refs[i])
            unregister(handle_of[i]);
        /* Once more: refused, or the live handle of another fatbin at the same address. */
        if (handle_of[i])
            unregister(handle_of[i]);
    }
    for (int i = 0; i < FATBINS; i++) {
        while (refs[i])
            unregister(handle_of[i]);
        handle_of[i] = NULL;
    }
    for (int i = 0; i < HOSTS; i++)
        expect(__cudaGetKernel(&(cudaKernel_t){0}, &hosts[i]) == cudaErrorInvalidDeviceFunction);
    (void)cudaGetLastError();
    return 0;
}
