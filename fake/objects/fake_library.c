/* SPDX-License-Identifier: MIT */
/*
 * CUDA 12's context-independent loading: cuLibraryLoadData and
 * cuLibraryLoadFromFile, the library's kernels (CUkernel), its module,
 * globals and functions in the current context.
 *
 * A library keeps its PTX and reads it once, without a context, into a
 * module that is only read (a probe: fake_module_new()): its functions are
 * the library's kernels, whose handles are the same in every context. In a
 * context that needs the library (its module, a global, a kernel's function,
 * a launch of a kernel), the PTX is loaded into a module of that context,
 * owned by the library: not the client's to unload, gone with the context
 * or with the library. A CUkernel is taken wherever a CUfunction is
 * (fake_function_find()), as the driver does.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_context.h"
#include "fake_core.h"
#include "fake_device.h"
#include "fake_image.h"
#include "fake_module.h"

struct fake_library {
    struct fake_library *next_live;
    char *text;                 /* the library's PTX */
    struct fake_module *kernels; /* the probe: its functions are the CUkernels */
};

static struct fake_library *libraries;

static struct fake_library *library_find(cuabi_library handle)
{
    for (struct fake_library *l = libraries; l; l = l->next_live)
        if ((void *)l == (void *)handle)
            return l;
    return NULL;
}

/* The library a CUkernel is of, and its index there; NULL for no kernel. */
static struct fake_library *kernel_find(cuabi_kernel kernel, size_t *index)
{
    for (struct fake_library *l = libraries; l; l = l->next_live)
        for (size_t i = 0; i < l->kernels->count; i++)
            if ((void *)&l->kernels->functions[i] == (void *)kernel) {
                *index = i;
                return l;
            }
    return NULL;
}

/* The library's module in the context, loaded at its first need. */
static cuabi_result library_module(struct fake_library *l, struct fake_ctx *c, struct fake_module **out)
{
    char log[FAKE_LOG_MAX] = "";

    /* Loading it allocates its globals, which a kernel running meanwhile must not see change: it waits for them. */
    for (;;) {
        for (struct fake_module *m = fake.modules; m; m = m->next_live)
            if (m->library == l && m->ctx == c) {
                *out = m;
                return CUABI_SUCCESS;
            }
        if (!fake_kernels_exclude())
            break;
        /* Looked at afresh: the library may have been unloaded meanwhile (handles are compared, never read). */
        if (!library_find((cuabi_library)(void *)l))
            return CUABI_ERROR_INVALID_HANDLE;
        if (c->retains == 0)
            return CUABI_ERROR_INVALID_CONTEXT;
    }
    return fake_module_new(l->text, c, l, false, log, sizeof(log), out);
}

/* The function a CUkernel is in the current context, its library loaded there at the first need; else NULL. */
static struct fake_function *kernel_function(cuabi_kernel kernel)
{
    struct fake_ctx *c = fake_current();
    struct fake_module *m = NULL;
    size_t i = 0;
    struct fake_library *l = kernel_find(kernel, &i);

    if (!l || !c || c->retains == 0 || library_module(l, c, &m) != CUABI_SUCCESS || i >= m->count)
        return NULL;
    return &m->functions[i];
}

/* ---- Loading ---- */

static cuabi_result options_check(unsigned njit, const cuabi_jit_option *jit, void **jit_values, unsigned nlib,
                                  const cuabi_library_option *lib, void **lib_values)
{
    if (nlib && (!lib || !lib_values))
        return CUABI_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < nlib; i++)
        if (lib[i] >= CUABI_LIBRARY_NUM_OPTIONS)
            return CUABI_ERROR_INVALID_VALUE;
    return fake_jit_options_check(njit, jit, jit_values);
}

/*
 * Reads `code` (size bytes, or FAKE_IMAGE_UNSIZED; from `from`) into a new
 * library; its reason in `log` on failure.
 */
static cuabi_result library_new(const void *code, size_t size, enum fake_image_source from,
                                struct fake_library **out, char *log, size_t log_size)
{
    struct fake_library *l = calloc(1, sizeof(*l));
    cuabi_result rc = l ? fake_image_ptx(code, size, from, &l->text, log, log_size) : CUABI_ERROR_OUT_OF_MEMORY;

    if (rc == CUABI_SUCCESS)
        rc = fake_module_new(l->text, NULL, l, true, log, log_size, &l->kernels);
    if (rc != CUABI_SUCCESS) {
        if (l)
            free(l->text);
        free(l);
        return rc;
    }
    l->next_live = libraries;
    libraries = l;
    fake.live[GPU_FAKE_LIVE_LIBRARIES]++;
    fake_function_kernels(kernel_function); /* a CUkernel is taken wherever a CUfunction is */
    *out = l;
    return CUABI_SUCCESS;
}

/* What both loads share, their begin done (`rc`): the logs written where the JIT options say. */
static cuabi_result library_load(cuabi_result rc, cuabi_library *library, const void *code, size_t size,
                                 enum fake_image_source from, cuabi_jit_option *jit, void **jit_values, unsigned njit)
{
    struct fake_library *l = NULL;
    char log[FAKE_LOG_MAX] = "";

    if (rc != CUABI_SUCCESS)
        return rc;
    rc = library_new(code, size, from, &l, log, sizeof(log));
    fake_module_note_set(rc, "");
    if (rc != CUABI_SUCCESS && log[0] &&
        !fake_jit_log(njit, jit, jit_values, CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, log))
        fake_module_note_set(rc, log);
    if (rc == CUABI_SUCCESS)
        *library = (cuabi_library)(void *)l;
    return rc;
}

cuabi_result cuLibraryLoadData(cuabi_library *library, const void *code, cuabi_jit_option *jit_options,
                               void **jit_option_values, unsigned int num_jit_options,
                               cuabi_library_option *library_options, void **library_option_values,
                               unsigned int num_library_options)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryLoadData, true);

    if (rc == CUABI_SUCCESS && (!library || !code))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = options_check(num_jit_options, jit_options, jit_option_values, num_library_options, library_options,
                           library_option_values);
    if (rc == CUABI_SUCCESS)
        /* The caller's memory, of no size given: the image's own headers (or its NUL) bound it. */
        rc = library_load(rc, library, code, FAKE_IMAGE_UNSIZED, FAKE_IMAGE_CALLER, jit_options, jit_option_values,
                          num_jit_options);
    return fake_end(rc);
}

cuabi_result cuLibraryLoadFromFile(cuabi_library *library, const char *path, cuabi_jit_option *jit_options,
                                   void **jit_option_values, unsigned int num_jit_options,
                                   cuabi_library_option *library_options, void **library_option_values,
                                   unsigned int num_library_options)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryLoadFromFile, true);
    char *bytes = NULL;
    size_t size = 0;

    if (rc == CUABI_SUCCESS && (!library || !path))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = options_check(num_jit_options, jit_options, jit_option_values, num_library_options, library_options,
                           library_option_values);
    if (rc == CUABI_SUCCESS)
        rc = fake_module_file_read("cuLibraryLoadFromFile", path, &bytes, &size);
    if (rc == CUABI_SUCCESS)
        rc = library_load(rc, library, bytes, size, FAKE_IMAGE_BYTES, jit_options, jit_option_values, num_jit_options);
    free(bytes);
    return fake_end(rc);
}

cuabi_result cuLibraryUnload(cuabi_library library)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryUnload, true);
    struct fake_library *l = NULL;
    struct fake_library **p = &libraries;

    if (rc == CUABI_SUCCESS) {
        fake_work_drain(); /* a queued launch may still use its globals */
        l = library_find(library);
    }

    if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS) {
        for (struct fake_module *m = fake.modules, *next; m; m = next) {
            next = m->next_live;
            if (m->library == l)
                fake_module_free(m);
        }
        while (*p != l)
            p = &(*p)->next_live;
        *p = l->next_live;
        fake_module_free(l->kernels);
        free(l->text);
        free(l);
        fake.live[GPU_FAKE_LIVE_LIBRARIES]--;
    }
    return fake_end(rc);
}

/* ---- Kernels ---- */

cuabi_result cuLibraryGetKernel(cuabi_kernel *kernel, cuabi_library library, const char *name)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryGetKernel, true);
    struct fake_library *l = rc == CUABI_SUCCESS ? library_find(library) : NULL;

    if (rc == CUABI_SUCCESS && (!kernel || !name))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS)
        rc = CUABI_ERROR_NOT_FOUND;
    for (size_t i = 0; rc == CUABI_ERROR_NOT_FOUND && i < l->kernels->count; i++)
        if (strcmp(fake_function_name(&l->kernels->functions[i]), name) == 0) {
            *kernel = (cuabi_kernel)(void *)&l->kernels->functions[i];
            rc = CUABI_SUCCESS;
        }
    return fake_end(rc);
}

cuabi_result cuLibraryGetKernelCount(unsigned int *count, cuabi_library library)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryGetKernelCount, true);
    struct fake_library *l = rc == CUABI_SUCCESS ? library_find(library) : NULL;

    if (rc == CUABI_SUCCESS && !count)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS)
        *count = (unsigned)l->kernels->count;
    return fake_end(rc);
}

cuabi_result cuLibraryEnumerateKernels(cuabi_kernel *kernels, unsigned int count, cuabi_library library)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryEnumerateKernels, true);
    struct fake_library *l = rc == CUABI_SUCCESS ? library_find(library) : NULL;

    if (rc == CUABI_SUCCESS && (!kernels || count == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    for (size_t i = 0; rc == CUABI_SUCCESS && i < count && i < l->kernels->count; i++)
        kernels[i] = (cuabi_kernel)(void *)&l->kernels->functions[i];
    return fake_end(rc);
}

cuabi_result cuKernelGetLibrary(cuabi_library *library, cuabi_kernel kernel)
{
    cuabi_result rc = fake_begin(FAKE_E_cuKernelGetLibrary, true);
    size_t i = 0;
    struct fake_library *l = rc == CUABI_SUCCESS ? kernel_find(kernel, &i) : NULL;

    if (rc == CUABI_SUCCESS && !library)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS)
        *library = (cuabi_library)(void *)l;
    return fake_end(rc);
}

cuabi_result cuKernelGetName(const char **name, cuabi_kernel kernel)
{
    cuabi_result rc = fake_begin(FAKE_E_cuKernelGetName, true);
    size_t i = 0;
    struct fake_library *l = rc == CUABI_SUCCESS ? kernel_find(kernel, &i) : NULL;

    if (rc == CUABI_SUCCESS && !name)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS)
        *name = fake_function_name(&l->kernels->functions[i]);
    return fake_end(rc);
}

cuabi_result cuKernelGetAttribute(int *value, cuabi_function_attribute attrib, cuabi_kernel kernel, cuabi_device dev)
{
    cuabi_result rc = fake_begin(FAKE_E_cuKernelGetAttribute, true);
    size_t i = 0;
    struct fake_library *l = rc == CUABI_SUCCESS ? kernel_find(kernel, &i) : NULL;

    if (rc == CUABI_SUCCESS && !value)
        rc = CUABI_ERROR_INVALID_VALUE;
    else if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS && !fake_device_valid(dev))
        rc = CUABI_ERROR_INVALID_DEVICE;
    else if (rc == CUABI_SUCCESS)
        rc = fake_function_attribute(&l->kernels->functions[i], dev, attrib, value);
    return fake_end(rc);
}

cuabi_result cuKernelGetParamInfo(cuabi_kernel kernel, size_t index, size_t *offset, size_t *size)
{
    cuabi_result rc = fake_begin(FAKE_E_cuKernelGetParamInfo, true);
    size_t i = 0;
    struct fake_library *l = rc == CUABI_SUCCESS ? kernel_find(kernel, &i) : NULL;
    const struct fake_layout *layout = l ? l->kernels->functions[i].layout : NULL;

    if (rc == CUABI_SUCCESS && !l)
        rc = CUABI_ERROR_INVALID_HANDLE;
    else if (rc == CUABI_SUCCESS && (!layout || index >= layout->count))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && offset)
        *offset = layout->offset[index];
    if (rc == CUABI_SUCCESS && size)
        *size = layout->size[index];
    return fake_end(rc);
}

/* ---- In the current context ---- */

/* The current context and the library's module there. */
static cuabi_result module_here(cuabi_result rc, cuabi_library library, struct fake_module **m)
{
    struct fake_ctx *c = NULL;
    struct fake_library *l = NULL;

    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && !(l = library_find(library)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        rc = library_module(l, c, m);
    return rc;
}

cuabi_result cuLibraryGetModule(cuabi_module *module, cuabi_library library)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryGetModule, true);
    struct fake_module *m = NULL;

    if (rc == CUABI_SUCCESS && !module)
        rc = CUABI_ERROR_INVALID_VALUE;
    rc = module_here(rc, library, &m);
    if (rc == CUABI_SUCCESS)
        *module = (cuabi_module)(void *)m;
    return fake_end(rc);
}

cuabi_result cuLibraryGetGlobal(cuabi_deviceptr *ptr, size_t *bytes, cuabi_library library, const char *name)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryGetGlobal, true);
    struct fake_module *m = NULL;

    if (rc == CUABI_SUCCESS && !name)
        rc = CUABI_ERROR_INVALID_VALUE;
    rc = module_here(rc, library, &m);
    if (rc == CUABI_SUCCESS)
        rc = fake_module_global(m, name, ptr, bytes);
    return fake_end(rc);
}

/* The fake's globals are plain device memory: none is a __managed__ variable. */
cuabi_result cuLibraryGetManaged(cuabi_deviceptr *ptr, size_t *bytes, cuabi_library library, const char *name)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLibraryGetManaged, true);
    struct fake_module *m = NULL;

    if (rc == CUABI_SUCCESS && !name)
        rc = CUABI_ERROR_INVALID_VALUE;
    rc = module_here(rc, library, &m);
    (void)ptr;
    (void)bytes;
    return fake_end(rc == CUABI_SUCCESS ? CUABI_ERROR_NOT_FOUND : rc);
}

cuabi_result cuKernelGetFunction(cuabi_function *function, cuabi_kernel kernel)
{
    cuabi_result rc = fake_begin(FAKE_E_cuKernelGetFunction, true);
    struct fake_ctx *c = NULL;
    struct fake_module *m = NULL;
    size_t i = 0;
    struct fake_library *l = NULL;

    if (rc == CUABI_SUCCESS && !function)
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS)
        rc = fake_need_ctx(&c);
    if (rc == CUABI_SUCCESS && !(l = kernel_find(kernel, &i)))
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        rc = library_module(l, c, &m);
    if (rc == CUABI_SUCCESS && i >= m->count)
        rc = CUABI_ERROR_INVALID_HANDLE;
    if (rc == CUABI_SUCCESS)
        *function = (cuabi_function)(void *)&m->functions[i];
    return fake_end(rc);
}
