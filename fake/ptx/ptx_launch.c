/* SPDX-License-Identifier: MIT */
/*
 * A launch on the interpreter: the entry's blocks spread over a pool of host
 * threads, one per core (GPUSHIM_FAKE_THREADS sets another count), started
 * for the launch and joined at its end, so that nothing outlives it (a fork
 * after a launch finds no thread of the fake). Each thread takes the next
 * cluster (a block, where the launch has no clusters) from a shared counter
 * until none is left or one faulted; in a cooperative launch, thread t takes
 * every cluster of index t modulo the pool's size at once, so that all blocks
 * of the grid run together.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_core.h"
#include "env.h"
#include "ptx_internal.h"

enum { MAX_THREADS = 256 };

static void *worker(void *arg)
{
    ptx_run_blocks(arg);
    return NULL;
}

static long cores;
static pthread_once_t cores_once = PTHREAD_ONCE_INIT;

/* Counted once: sysconf reads a file of /sys each time, which would cost more than a small launch. */
static void cores_count(void)
{
    cores = sysconf(_SC_NPROCESSORS_ONLN);
}

static unsigned pool_size(uint64_t nblocks)
{
    const char *v = gpu__env_raw("GPUSHIM_FAKE_THREADS");
    long n;

    /* A refused value (a configuration error, which cuInit reports) counts as unset. */
    if (!v || !fake_env_number("GPUSHIM_FAKE_THREADS", v, 1, MAX_THREADS, GPU__ENV_UNIT_NONE, &n)) {
        pthread_once(&cores_once, cores_count);
        n = cores;
    }

    if (n < 1)
        n = 1;
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    return (uint64_t)n < nblocks ? (unsigned)n : (unsigned)nblocks;
}

void ptx_env_configure(void)
{
    pool_size(1);
    ptx_watchdog_seconds();
}

/* A launch runs without the fake's lock (fake_kernel_unlock()): the count is atomic. */
static _Atomic uint64_t last_executed;

FAKE_API uint64_t gpu_fake_ptx_executed(void)
{
    uint64_t n;

    fake_lock();
    n = atomic_load(&last_executed);
    fake_unlock();
    return n;
}

/* The cluster shape of the launch in r->cdim: the launch's, else the entry's, else one block. */
static cuabi_result cluster_shape(const struct ptx_launch *l, struct ptx_run *r)
{
    bool own = ptx_entry_cluster(l->module, l->entry, r->cdim);

    r->explicit_cluster = own;
    if (l->cluster[0] || l->cluster[1] || l->cluster[2]) {
        for (int i = 0; i < 3; i++)
            if (l->cluster[i] == 0 || (own && l->cluster[i] != r->cdim[i]))
                return CUABI_ERROR_INVALID_CLUSTER_SIZE;
        memcpy(r->cdim, l->cluster, sizeof(r->cdim));
        r->explicit_cluster = true;
    }
    {
        /* In 64 bits: a product of three 32-bit dimensions may wrap to a small one in 32. */
        uint64_t size = 1;

        for (int i = 0; i < 3; i++) {
            if (r->cdim[i] == 0 || l->grid[i] % r->cdim[i])
                return CUABI_ERROR_INVALID_CLUSTER_SIZE;
            size *= r->cdim[i];
        }
        if (size > 32)
            return CUABI_ERROR_INVALID_CLUSTER_SIZE;
        r->csize = (unsigned)size;
    }
    return CUABI_SUCCESS;
}

cuabi_result ptx_launch_run(const struct ptx_launch *l)
{
    struct ptx_run r;
    const struct ptx_module *m = l->module;
    pthread_t threads[MAX_THREADS];
    unsigned n, started = 0;
    cuabi_result rc;

    memset(&r, 0, sizeof(r));
    r.l = l;
    r.m = m;
    for (size_t i = 0; i < m->nfuncs && !r.f; i++)
        if (m->funcs[i].entry && m->funcs[i].defined && m->funcs[i].name && strcmp(m->funcs[i].name, l->entry) == 0)
            r.f = &m->funcs[i];
    if (!r.f)
        return CUABI_ERROR_NOT_FOUND;
    {
        char why[400];

        if ((rc = ptx_code_check(m, r.f, &r.reg_lo, &r.reg_hi, why, sizeof(why))) != CUABI_SUCCESS) {
            fprintf(stderr, "gpushim-fakecuda: kernel \"%s\": %s: the interpreter does not run it\n", l->entry, why);
            return rc;
        }
    }
    r.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if ((rc = cluster_shape(l, &r)) != CUABI_SUCCESS)
        return rc;
    r.nclusters = r.nblocks / r.csize;
    r.cooperative = l->cooperative;
    r.shared_bytes = r.f->shared_static + l->shared;
    {
        unsigned checks = fake_checks();

        r.race = checks & FAKE_CHECK_RACE;
        r.init = checks & FAKE_CHECK_INIT;
        r.init_strict = checks & FAKE_CHECK_INIT_STRICT;
    }
    atomic_init(&r.init_reported, 0);
    r.watchdog = ptx_watchdog_seconds();
    /* The grid workspace: its size, then the barrier's counter, which starts at 0 each launch. */
    r.workspace[0] = PTX_GRID_WORKSPACE;
    atomic_init(&r.next_block, 0);
    atomic_init(&r.next_thread, 0);
    atomic_init(&r.progress, 0);
    atomic_init(&r.fault, 0);
    atomic_init(&r.executed, 0);
    n = r.nthreads = pool_size(r.nclusters);
    while (started + 1 < n && pthread_create(&threads[started], NULL, worker, &r) == 0)
        started++;
    ptx_run_blocks(&r);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&last_executed, atomic_load(&r.executed));
    return (cuabi_result)atomic_load(&r.fault);
}
