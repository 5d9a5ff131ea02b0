/* SPDX-License-Identifier: MIT */
/*
 * What nvcc's generated code registers at start-up (crt/host_runtime.h): each
 * translation unit's fatbin, its kernels by their host stubs and its
 * variables by their host shadows. A fatbin is loaded as a CUlibrary at the
 * first use of one of its kernels or variables, so that a program that never
 * launches needs no driver; a CUlibrary serves every context.
 *
 * The registry is the only judge of a handle: every call that takes one looks
 * it up among the live fatbins and never reads through one it does not hold,
 * so a handle unregistered, or never handed out, is refused. These calls return
 * no error code: a refusal is cudaErrorInvalidValue recorded as the calling
 * thread's last error, and a kernel or variable refused for its arguments is
 * kept with that code, which its launch or lookup returns.
 */
#include "runtime.h"

#include <fatbinary_section.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct cudart_fatbin {
    const void *image; /* first: nvcc holds the fatbin's handle as a void ** */
    const void *registered; /* what __cudaRegisterFatBinary was given */
    unsigned refs;          /* registrations of it not yet given back */
    CUlibrary library; /* NULL until loaded */
    cudaError_t load_error;
    bool load_tried;
    struct cudart_fatbin *next;
};

struct cudart_function {
    struct cudart_fatbin *fatbin;
    const void *host;
    char *name;      /* NULL where `error` is set */
    cudaError_t error; /* what registering it was refused for; cudaSuccess */
    CUkernel kernel; /* NULL until looked up */
    struct cudart_function *next;
};

struct cudart_var {
    struct cudart_fatbin *fatbin;
    const void *host;
    char *name;        /* NULL where `error` is set */
    cudaError_t error; /* what registering it was refused for; cudaSuccess */
    void **managed; /* a __managed__ variable's host pointer, set when loaded; else NULL */
    struct cudart_var *next;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cudart_fatbin *fatbins;
static struct cudart_function *functions;
static struct cudart_var *vars;

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
void __cudaRegisterTexture(void **fatCubinHandle, const void *hostVar, const void **deviceAddress,
                           const char *deviceName, int dim, int norm, int ext);
void __cudaRegisterSurface(void **fatCubinHandle, const void *hostVar, const void **deviceAddress,
                           const char *deviceName, int dim, int ext);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);

/* The live fatbin that `handle` is, or NULL; with registry_lock held. Compares, never reads through it. */
static struct cudart_fatbin *live_locked(void **handle)
{
    struct cudart_fatbin *fb;

    for (fb = fatbins; fb && (void **)fb != handle; fb = fb->next)
        ;
    return handle ? fb : NULL;
}

void **__cudaRegisterFatBinary(void *fatCubin)
{
    const __fatBinC_Wrapper_t *wrapper = fatCubin;
    struct cudart_fatbin *fb;

    if (!fatCubin) {
        gpu__cudart_set(cudaErrorInvalidValue);
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    /* The same fatbin registered again is the same handle; each registration is given back by one unregister. */
    for (fb = fatbins; fb && fb->registered != fatCubin; fb = fb->next)
        ;
    if (fb && fb->refs < UINT_MAX) {
        fb->refs++;
        pthread_mutex_unlock(&registry_lock);
        return (void **)fb;
    }
    fb = calloc(1, sizeof(*fb));
    if (!fb) {
        pthread_mutex_unlock(&registry_lock);
        gpu__cudart_set(cudaErrorMemoryAllocation);
        return NULL;
    }
    /* nvcc's wrapper (fatbinary_section.h) points at the fatbin the driver loads; anything else is loaded as given. */
    fb->image = wrapper->magic == FATBINC_MAGIC ? (const void *)wrapper->data : fatCubin;
    fb->registered = fatCubin;
    fb->refs = 1;
    fb->next = fatbins;
    fatbins = fb;
    pthread_mutex_unlock(&registry_lock);
    return (void **)fb;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    bool live;

    pthread_mutex_lock(&registry_lock);
    live = live_locked(fatCubinHandle) != NULL;
    pthread_mutex_unlock(&registry_lock);
    if (!live)
        gpu__cudart_set(cudaErrorInvalidValue);
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    const char *name = deviceName ? deviceName : deviceFun;
    struct cudart_function *fn;
    struct cudart_fatbin *fb;
    cudaError_t e = cudaSuccess;

    pthread_mutex_lock(&registry_lock);
    fb = live_locked(fatCubinHandle);
    for (fn = functions; fb && hostFun && fn && fn->host != hostFun; fn = fn->next)
        ;
    if (!fb || !hostFun)
        e = cudaErrorInvalidValue;
    else if (fn) {
        /* A host stub names one kernel: registered again, the first registration stands. */
        pthread_mutex_unlock(&registry_lock);
        return;
    } else if (!(fn = calloc(1, sizeof(*fn))))
        e = cudaErrorMemoryAllocation;
    else {
        fn->fatbin = fb;
        fn->host = hostFun;
        /* No name: the stub is kept, refused, so that its launch says why. */
        fn->error = !name ? cudaErrorInvalidValue : !(fn->name = strdup(name)) ? cudaErrorMemoryAllocation : cudaSuccess;
        e = fn->error;
        fn->next = functions;
        functions = fn;
    }
    pthread_mutex_unlock(&registry_lock);
    gpu__cudart_set(e);
}

static void register_var(void **handle, const void *host, void **managed, const char *name)
{
    struct cudart_fatbin *fb;
    struct cudart_var *v;
    cudaError_t e = cudaSuccess;

    pthread_mutex_lock(&registry_lock);
    fb = live_locked(handle);
    for (v = vars; fb && host && v && v->host != host; v = v->next)
        ;
    if (!fb || !host)
        e = cudaErrorInvalidValue;
    else if (v) {
        /* A host shadow names one variable: registered again, the first registration stands. */
        pthread_mutex_unlock(&registry_lock);
        return;
    } else if (!(v = calloc(1, sizeof(*v))))
        e = cudaErrorMemoryAllocation;
    else {
        v->fatbin = fb;
        v->host = host;
        v->managed = managed;
        v->error = !name ? cudaErrorInvalidValue : !(v->name = strdup(name)) ? cudaErrorMemoryAllocation : cudaSuccess;
        e = v->error;
        v->next = vars;
        vars = v;
    }
    pthread_mutex_unlock(&registry_lock);
    gpu__cudart_set(e);
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global)
{
    register_var(fatCubinHandle, hostVar, NULL, deviceName ? deviceName : deviceAddress);
}

void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global)
{
    register_var(fatCubinHandle, hostVarPtrAddress, hostVarPtrAddress, deviceName ? deviceName : deviceAddress);
}

/* Texture and surface references are gone from the CUDA 12 runtime API: nothing to serve. */
void __cudaRegisterTexture(void **fatCubinHandle, const void *hostVar, const void **deviceAddress,
                           const char *deviceName, int dim, int norm, int ext)
{
}

void __cudaRegisterSurface(void **fatCubinHandle, const void *hostVar, const void **deviceAddress,
                           const char *deviceName, int dim, int ext)
{
}

/* Loads `fb` once, with registry_lock held; a __managed__ variable's host pointer is set then. */
static cudaError_t load_locked(struct cudart_fatbin *fb)
{
    if (fb->load_tried)
        return fb->load_error;
    fb->load_tried = true;
    fb->load_error = gpu__cudart_map(cuLibraryLoadData(&fb->library, fb->image, NULL, NULL, 0, NULL, NULL, 0));
    for (struct cudart_var *v = vars; fb->load_error == cudaSuccess && v; v = v->next) {
        CUdeviceptr address = 0;
        size_t size = 0;

        if (v->fatbin == fb && v->managed && v->name && cuLibraryGetManaged(&address, &size, fb->library, v->name) == CUDA_SUCCESS)
            *v->managed = (void *)(uintptr_t)address;
    }
    return fb->load_error;
}

char __cudaInitModule(void **fatCubinHandle)
{
    cudaError_t e = gpu__cudart_init();
    struct cudart_fatbin *fb;

    pthread_mutex_lock(&registry_lock);
    fb = live_locked(fatCubinHandle);
    if (!fb)
        e = cudaErrorInvalidValue;
    else if (e == cudaSuccess)
        e = load_locked(fb);
    pthread_mutex_unlock(&registry_lock);
    if (e == cudaErrorInvalidValue)
        gpu__cudart_set(e);
    return e == cudaSuccess;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    struct cudart_fatbin *fb;

    pthread_mutex_lock(&registry_lock);
    fb = live_locked(fatCubinHandle);
    if (!fb || --fb->refs > 0) {
        pthread_mutex_unlock(&registry_lock);
        /* Unregistered already, or never handed out: nothing of it is read. */
        if (!fb)
            gpu__cudart_set(cudaErrorInvalidValue);
        return;
    }
    for (struct cudart_fatbin **p = &fatbins; *p; p = &(*p)->next)
        if (*p == fb) {
            *p = fb->next;
            break;
        }
    for (struct cudart_function **p = &functions; *p;) {
        struct cudart_function *fn = *p;

        if (fn->fatbin != fb) {
            p = &fn->next;
            continue;
        }
        *p = fn->next;
        free(fn->name);
        free(fn);
    }
    for (struct cudart_var **p = &vars; *p;) {
        struct cudart_var *v = *p;

        if (v->fatbin != fb) {
            p = &v->next;
            continue;
        }
        *p = v->next;
        free(v->name);
        free(v);
    }
    pthread_mutex_unlock(&registry_lock);
    if (fb->library)
        (void)cuLibraryUnload(fb->library);
    free(fb);
}

struct cudart_function *gpu__cudart_function_find(const void *host_fun)
{
    struct cudart_function *fn;

    pthread_mutex_lock(&registry_lock);
    for (fn = functions; fn && fn->host != host_fun; fn = fn->next)
        ;
    pthread_mutex_unlock(&registry_lock);
    return fn;
}

bool gpu__cudart_function_valid(const struct cudart_function *handle)
{
    const struct cudart_function *fn;

    pthread_mutex_lock(&registry_lock);
    for (fn = functions; fn && fn != handle; fn = fn->next)
        ;
    pthread_mutex_unlock(&registry_lock);
    return handle && fn == handle;
}

cudaError_t gpu__cudart_function_kernel(struct cudart_function *fn, CUkernel *out)
{
    const struct cudart_function *live;
    cudaError_t e;

    *out = NULL;
    pthread_mutex_lock(&registry_lock);
    /* Its fatbin may have been unregistered since it was found. */
    for (live = functions; live && live != fn; live = live->next)
        ;
    if (!live || fn->error != cudaSuccess) {
        e = live ? fn->error : cudaErrorInvalidDeviceFunction;
        pthread_mutex_unlock(&registry_lock);
        return e;
    }
    e = load_locked(fn->fatbin);
    if (e == cudaSuccess && !fn->kernel)
        e = gpu__cudart_map(cuLibraryGetKernel(&fn->kernel, fn->fatbin->library, fn->name));
    *out = fn->kernel;
    pthread_mutex_unlock(&registry_lock);
    return e;
}

cudaError_t gpu__cudart_symbol(const void *symbol, CUdeviceptr *address, size_t *size)
{
    cudaError_t e = cudaErrorInvalidSymbol;

    pthread_mutex_lock(&registry_lock);
    for (struct cudart_var *v = vars; v; v = v->next) {
        if (v->host != symbol)
            continue;
        e = v->error != cudaSuccess ? v->error : load_locked(v->fatbin);
        if (e == cudaSuccess)
            e = gpu__cudart_map(v->managed ? cuLibraryGetManaged(address, size, v->fatbin->library, v->name)
                                       : cuLibraryGetGlobal(address, size, v->fatbin->library, v->name));
        break;
    }
    pthread_mutex_unlock(&registry_lock);
    return e;
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    CUdeviceptr address = 0;
    size_t size = 0;
    cudaError_t e = gpu__cudart_context();

    if (!devPtr)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_symbol(symbol, &address, &size);
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)address;
    return gpu__cudart_set(e);
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    CUdeviceptr address = 0;
    size_t bytes = 0;
    cudaError_t e = gpu__cudart_context();

    if (!size)
        return gpu__cudart_set(cudaErrorInvalidValue);
    if (e == cudaSuccess)
        e = gpu__cudart_symbol(symbol, &address, &bytes);
    if (e == cudaSuccess)
        *size = bytes;
    return gpu__cudart_set(e);
}
