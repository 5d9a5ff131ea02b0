/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's legacy launch API, deprecated in CUDA but still what
 * older clients (PyCUDA among them) call before a launch: a function keeps
 * a block shape (cuFuncSetBlockShape), a dynamic shared memory size
 * (cuFuncSetSharedSize) and a parameter buffer (cuParamSetSize and
 * cuParamSeti, cuParamSetf, cuParamSetv write it at byte offsets), and
 * cuLaunch, cuLaunchGrid and cuLaunchGridAsync launch it with them: the
 * buffer goes to the launch as cuLaunchKernel's CU_LAUNCH_PARAM_BUFFER_POINTER.
 *
 * Like the driver, this state is the function's, shared by every thread that
 * uses the handle; a launch copies the buffer, so it can change at once.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_core.h"
#include "fake_launch.h"
#include "fake_module.h"

/* The function's legacy state, made on first use; NULL when out of memory. */
static struct fake_legacy_launch *legacy_of(struct fake_function *fn)
{
    if (!fn->legacy)
        fn->legacy = calloc(1, sizeof(*fn->legacy));
    return fn->legacy;
}

/* The function behind `f` and its legacy state, or the CUresult that refuses the call. */
static cuabi_result legacy_find(cuabi_function f, struct fake_legacy_launch **out)
{
    struct fake_function *fn = fake_function_find(f);

    if (!fn)
        return CUABI_ERROR_INVALID_HANDLE;
    if (!(*out = legacy_of(fn)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    return CUABI_SUCCESS;
}

/* Room for `want` bytes in the parameter buffer, the new ones zeros, up to what a kernel's parameters may take. */
static cuabi_result param_room(struct fake_legacy_launch *l, size_t want)
{
    size_t cap = l->capacity ? l->capacity : 256;
    unsigned char *grown;

    if (want > FAKE_LEGACY_PARAM_MAX)
        return CUABI_ERROR_INVALID_VALUE;
    if (want <= l->capacity)
        return CUABI_SUCCESS;
    while (cap < want)
        cap *= 2;
    if (cap > FAKE_LEGACY_PARAM_MAX)
        cap = FAKE_LEGACY_PARAM_MAX;
    if (!(grown = realloc(l->params, cap)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    memset(grown + l->capacity, 0, cap - l->capacity);
    l->params = grown;
    l->capacity = cap;
    return CUABI_SUCCESS;
}

/* Writes `bytes` of `src` at `offset` of the parameter buffer. */
static cuabi_result param_write(cuabi_function f, int offset, const void *src, unsigned bytes)
{
    struct fake_legacy_launch *l;
    cuabi_result rc = legacy_find(f, &l);

    if (rc == CUABI_SUCCESS && (offset < 0 || (bytes && !src)))
        rc = CUABI_ERROR_INVALID_VALUE;
    if (rc == CUABI_SUCCESS && (rc = param_room(l, (size_t)offset + bytes)) == CUABI_SUCCESS && bytes)
        memcpy(l->params + offset, src, bytes);
    return rc;
}

cuabi_result cuFuncSetBlockShape(cuabi_function f, int x, int y, int z)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncSetBlockShape, true);
    struct fake_legacy_launch *l;

    if (rc == CUABI_SUCCESS && (rc = legacy_find(f, &l)) == CUABI_SUCCESS) {
        if (x <= 0 || y <= 0 || z <= 0) {
            rc = CUABI_ERROR_INVALID_VALUE;
        } else {
            l->block[0] = (unsigned)x;
            l->block[1] = (unsigned)y;
            l->block[2] = (unsigned)z;
        }
    }
    return fake_end(rc);
}

cuabi_result cuFuncSetSharedSize(cuabi_function f, unsigned int bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuFuncSetSharedSize, true);
    struct fake_legacy_launch *l;

    if (rc == CUABI_SUCCESS && (rc = legacy_find(f, &l)) == CUABI_SUCCESS)
        l->shared = bytes;
    return fake_end(rc);
}

cuabi_result cuParamSetSize(cuabi_function f, unsigned int bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuParamSetSize, true);
    struct fake_legacy_launch *l;

    if (rc == CUABI_SUCCESS && (rc = legacy_find(f, &l)) == CUABI_SUCCESS) {
        if (bytes > FAKE_LEGACY_PARAM_MAX)
            rc = CUABI_ERROR_INVALID_VALUE;
        else
            l->size = bytes;
    }
    return fake_end(rc);
}

cuabi_result cuParamSeti(cuabi_function f, int offset, unsigned int value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuParamSeti, true);

    if (rc == CUABI_SUCCESS)
        rc = param_write(f, offset, &value, sizeof(value));
    return fake_end(rc);
}

cuabi_result cuParamSetf(cuabi_function f, int offset, float value)
{
    cuabi_result rc = fake_begin(FAKE_E_cuParamSetf, true);

    if (rc == CUABI_SUCCESS)
        rc = param_write(f, offset, &value, sizeof(value));
    return fake_end(rc);
}

cuabi_result cuParamSetv(cuabi_function f, int offset, void *ptr, unsigned int bytes)
{
    cuabi_result rc = fake_begin(FAKE_E_cuParamSetv, true);

    if (rc == CUABI_SUCCESS)
        rc = param_write(f, offset, ptr, bytes);
    return fake_end(rc);
}

/*
 * A grid of width x height blocks of the function's block shape, with its
 * shared size and its parameter buffer's first cuParamSetSize bytes.
 */
static cuabi_result legacy_launch(cuabi_function f, int width, int height, cuabi_stream stream)
{
    struct fake_legacy_launch *l;
    cuabi_result rc = legacy_find(f, &l);
    const unsigned grid[3] = {(unsigned)width, (unsigned)height, 1};
    size_t size;
    void *extra[5];

    /* Without a block shape the launch has no threads to run. */
    if (rc == CUABI_SUCCESS && (width <= 0 || height <= 0 || l->block[0] == 0))
        rc = CUABI_ERROR_INVALID_VALUE;
    /* Bytes of the size that no cuParamSet* wrote read as zeros. */
    if (rc == CUABI_SUCCESS)
        rc = param_room(l, l->size ? l->size : 1);
    if (rc != CUABI_SUCCESS)
        return rc;
    size = l->size;
    extra[0] = (void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_POINTER;
    extra[1] = l->params;
    extra[2] = (void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_SIZE;
    extra[3] = &size;
    extra[4] = (void *)(uintptr_t)CUABI_LAUNCH_PARAM_END;
    return fake_launch(f, grid, l->block, l->shared, stream, NULL, extra, NULL);
}

cuabi_result cuLaunch(cuabi_function f)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunch, true);

    if (rc == CUABI_SUCCESS)
        rc = legacy_launch(f, 1, 1, NULL);
    return fake_end(rc);
}

cuabi_result cuLaunchGrid(cuabi_function f, int grid_width, int grid_height)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchGrid, true);

    if (rc == CUABI_SUCCESS)
        rc = legacy_launch(f, grid_width, grid_height, NULL);
    return fake_end(rc);
}

cuabi_result cuLaunchGridAsync(cuabi_function f, int grid_width, int grid_height, cuabi_stream stream)
{
    cuabi_result rc = fake_begin(FAKE_E_cuLaunchGridAsync, true);

    if (rc == CUABI_SUCCESS)
        rc = legacy_launch(f, grid_width, grid_height, stream);
    return fake_end(rc);
}
