/* SPDX-License-Identifier: MIT */
/*
 * The input as a PTX module for the fake driver, loaded and every entry it
 * defines launched, as a CUDA program would: whatever the text and whatever
 * its kernels do, a clear status, never a crash, a hang, a leak or a write
 * outside what the fake owns (ASan watches).
 *
 * Each launch is small and bounded: 2 blocks of 33 threads (one partial
 * warp), 64 bytes of dynamic shared memory, each parameter word the address
 * of a small zeroed buffer (so that loads and stores through any pointer
 * parameter reach real memory, and any offset past it faults). An entry is
 * launched only when the decoder's form of it (linked in, not through the
 * driver) shows it cannot run long: no backward branch and no call cycle,
 * and at most STEPS_MAX instructions for each thread along its longest path,
 * calls expanded. A barrier that cannot be met ends at the watchdog (1 s).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_core.h"
#include "ptx/ptx_internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
const char *__ubsan_default_options(void);

/* Undefined behaviour is a finding like any other: the input that shows it is kept. */
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

enum {
    BLOCKS = 2,
    THREADS = 33,
    DYNAMIC_SHARED = 64,
    BUFFER_BYTES = 4096,
    STEPS_MAX = 1 << 14, /* each thread's instructions; times 66 threads, a launch is well under a second */
};

static cuabi_deviceptr buffer;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz-launch: %s\n", what);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    cuabi_context ctx = NULL;

    (void)argc;
    (void)argv;
    setenv("GPUSHIM_FAKE_WATCHDOG", "1", 1);
    /* Each fault told once rather than left on the context: one process runs every input. */
    setenv("GPUSHIM_FAKE_STICKY", "0", 1);
    check(cuInit(0) == CUABI_SUCCESS, "cuInit");
    check(cuDevicePrimaryCtxRetain(&ctx, 0) == CUABI_SUCCESS && cuCtxSetCurrent(ctx) == CUABI_SUCCESS, "a context");
    check(cuMemAlloc_v2(&buffer, BUFFER_BYTES) == CUABI_SUCCESS, "the parameters' buffer");
    return 0;
}

/*
 * The most instructions one thread of entry `fi` can run, capped at
 * STEPS_MAX + 1; STEPS_MAX + 1 too when a branch goes backward or a call
 * chain comes back to a function it left (either may never end). A
 * depth-first walk with its own stack, each function's cost known once its
 * callees' are.
 */
static uint64_t steps_bound(const struct ptx_module *m, size_t fi)
{
    enum { NEW, OPEN, DONE };
    unsigned char *state = calloc(m->nfuncs, 1);
    uint64_t *cost = calloc(m->nfuncs, sizeof(*cost));
    uint32_t *stack = malloc(m->nfuncs * sizeof(*stack));
    size_t depth = 0;
    uint64_t over = STEPS_MAX + 1, result = over;

    if (!state || !cost || !stack)
        goto done;
    stack[depth++] = (uint32_t)fi;
    state[fi] = OPEN;
    while (depth) {
        uint32_t g = stack[depth - 1];
        const struct ptx_function *f = &m->funcs[g];
        bool pushed = false;
        uint64_t c = 0;

        for (uint32_t i = f->defined ? f->start : 0; f->defined && i < f->end && !pushed; i++) {
            const struct ptx_inst *in = &m->code[i];

            if (in->op == X_BRA && in->target >= 0 && (uint32_t)in->target <= i)
                goto done;
            if (in->op != X_CALL || in->target < 0)
                continue;
            if (state[in->target] == OPEN)
                goto done;
            if (state[in->target] == NEW) {
                state[in->target] = OPEN;
                stack[depth++] = (uint32_t)in->target;
                pushed = true;
            }
        }
        if (pushed)
            continue;
        /* Every callee's cost is known: this one's is its own instructions and theirs. */
        for (uint32_t i = f->defined ? f->start : 0; f->defined && i < f->end && c <= over; i++) {
            const struct ptx_inst *in = &m->code[i];

            c += 1 + (in->op == X_CALL && in->target >= 0 ? cost[in->target] : 0);
        }
        cost[g] = c < over ? c : over;
        state[g] = DONE;
        depth--;
    }
    result = cost[fi];
done:
    free(state);
    free(cost);
    free(stack);
    return result;
}

/* Launches entry NAME of the loaded module, its parameters each the buffer's address; the status it ends with. */
static cuabi_result launch(cuabi_module mod, const char *name, size_t param_bytes)
{
    uint64_t words[PTX_KPARAM_MAX / 8];
    size_t bytes = param_bytes;
    void *extra[] = {(void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_POINTER, words,
                     (void *)(uintptr_t)CUABI_LAUNCH_PARAM_BUFFER_SIZE, &bytes,
                     (void *)(uintptr_t)CUABI_LAUNCH_PARAM_END};
    cuabi_function f = NULL;
    cuabi_result rc = cuModuleGetFunction(&f, mod, name);

    if (rc != CUABI_SUCCESS)
        return rc;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        words[i] = buffer;
    check(cuMemsetD8_v2(buffer, 0, BUFFER_BYTES) == CUABI_SUCCESS, "clearing the buffer");
    rc = cuLaunchKernel(f, BLOCKS, 1, 1, THREADS, 1, 1, DYNAMIC_SHARED, NULL, NULL, extra);
    if (rc == CUABI_SUCCESS)
        rc = cuCtxSynchronize();
    /* A fault is the stream's until a synchronisation takes it; the next launch starts clean. */
    (void)cuCtxSynchronize();
    return rc;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    char *text = malloc(size + 1);
    char log[512] = "";
    cuabi_jit_option opts[] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof(log)};
    struct ptx_module *ptx;
    cuabi_module mod = NULL;
    cuabi_result rc;

    check(text != NULL, "out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    /* A fatbin or a cubin says its own size, which the driver believes: fuzz-module checks those through gpushim. */
    if (size >= 4 && (memcmp(data, "\x7f" "ELF", 4) == 0 || memcmp(data, "\x50\xed\x55\xba", 4) == 0)) {
        free(text);
        return 0;
    }
    rc = cuModuleLoadDataEx(&mod, text, 2, opts, values);
    check(rc == CUABI_SUCCESS || log[0] != '\0' || rc == CUABI_ERROR_NOT_SUPPORTED, "load: a failure without a reason");
    check((rc == CUABI_SUCCESS) == (mod != NULL), "load: out set on failure, or not on success");
    if (rc == CUABI_SUCCESS) {
        ptx = ptx_module_decode(text);
        check(ptx != NULL, "out of memory");
        check(ptx_module_error(ptx) == NULL, "a module loaded that the decoder refuses");
        for (size_t i = 0; i < ptx->nfuncs; i++) {
            const struct ptx_function *f = &ptx->funcs[i];

            if (f->entry && f->defined && !f->error && f->name && steps_bound(ptx, i) <= STEPS_MAX)
                (void)launch(mod, f->name, f->kparam_bytes);
        }
        ptx_module_release(ptx);
        check(cuModuleUnload(mod) == CUABI_SUCCESS, "unload");
    }
    free(text);
    check(gpu_fake_live(GPU_FAKE_LIVE_MODULES) == 0, "a module was left loaded");
    return 0;
}
