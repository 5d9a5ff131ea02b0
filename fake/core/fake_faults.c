/* SPDX-License-Identifier: MIT */
/*
 * Faults on demand, besides the per-call rules of fake_core.c: a
 * device that falls off the bus, out of memory past a limit, a stall of all
 * queued work, a slow cuInit; and the devices' description from the
 * environment. All of it lives under the fake's one lock.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "fake_core.h"
#include "fake_faults.h"

static struct {
    cuabi_result lost[FAKE_MAX_DEVICES]; /* what calls using the device return; 0 while it is there */
    size_t limit[FAKE_MAX_DEVICES];      /* bytes in use an allocation may not take it past */
    bool stalled;
    /* GPUSHIM_FAKE_LOSE: device lose_device is lost with lose_result at call lose_at. */
    unsigned long calls;
    unsigned long lose_at;
    int lose_device;
    cuabi_result lose_result;
} faults;

/* ---- What the rest of the fake asks ---- */

cuabi_result fake_device_lost(int device)
{
    return device >= 0 && device < FAKE_MAX_DEVICES ? faults.lost[device] : CUABI_SUCCESS;
}

bool fake_stalled(void)
{
    return faults.stalled;
}

bool fake_over_limit(int device, size_t used, size_t bytes)
{
    return bytes > faults.limit[device] || used > faults.limit[device] - bytes;
}

/* Drops the device's queued work, through the parts that queue it: it never runs. */
static void drop_queued_work(int device)
{
    size_t n;
    const struct fake_part *p = fake_parts(&n);

    for (size_t i = 0; i < n; i++)
        if (p[i].device_lost)
            p[i].device_lost(device);
}

static void lose(int device, cuabi_result result)
{
    faults.lost[device] = result ? result : CUABI_ERROR_UNKNOWN;
    drop_queued_work(device);
    /* Whatever waits for that work looks again, and finds it gone. */
    pthread_cond_broadcast(&fake.cond);
}

void fake_faults_on_call(void)
{
    if (++faults.calls == faults.lose_at && faults.lose_device < fake.device_count)
        lose(faults.lose_device, faults.lose_result);
}

/* ---- The environment ---- */

/* GPUSHIM_FAKE_LOSE=ordinal:nth:result; a malformed one is a configuration error, and loses nothing. */
static void parse_lose(const char *text)
{
    char copy[64];
    char *nth, *result;
    long device, at, code;

    nth = strlen(text) < sizeof(copy) ? strcpy(copy, text), strchr(copy, ':') : NULL;
    result = nth ? strchr(nth + 1, ':') : NULL;
    if (!result) {
        fake_config_error("GPUSHIM_FAKE_LOSE", NULL, NULL, "wants ordinal:nth:result, e.g. 0:700:46");
        return;
    }
    *nth++ = '\0';
    *result++ = '\0';
    if (fake_env_number("GPUSHIM_FAKE_LOSE ordinal", copy, 0, FAKE_MAX_DEVICES - 1, GPU__ENV_UNIT_NONE, &device) &&
        fake_env_number("GPUSHIM_FAKE_LOSE nth", nth, 1, 100000000, GPU__ENV_UNIT_NONE, &at) &&
        fake_env_number("GPUSHIM_FAKE_LOSE result", result, 0, 100000, GPU__ENV_UNIT_NONE, &code)) {
        faults.lose_device = (int)device;
        faults.lose_at = (unsigned long)at;
        faults.lose_result = (cuabi_result)code;
    }
}

void fake_faults_configure(void)
{
    const char *v;
    size_t limit = SIZE_MAX;

    if ((v = gpu__env_raw("GPUSHIM_FAKE_MEMORY_LIMIT")))
        limit = fake_parse_bytes("GPUSHIM_FAKE_MEMORY_LIMIT", v);
    for (int i = 0; i < FAKE_MAX_DEVICES; i++)
        faults.limit[i] = limit;
    if ((v = gpu__env_raw("GPUSHIM_FAKE_LOSE")))
        parse_lose(v);
    faults.stalled = fake_env_switch("GPUSHIM_FAKE_STALL", false);
}

/* ---- Control API ---- */

FAKE_API int gpu_fake_device_lose(int ordinal, int result)
{
    int rc = -1;

    fake_lock();
    if (ordinal >= 0 && ordinal < fake.device_count) {
        lose(ordinal, (cuabi_result)result);
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API int gpu_fake_memory_limit(int ordinal, size_t bytes)
{
    int rc = -1;

    fake_lock();
    if (ordinal >= 0 && ordinal < fake.device_count) {
        faults.limit[ordinal] = bytes;
        rc = 0;
    }
    fake_unlock();
    return rc;
}

FAKE_API void gpu_fake_stall(bool stalled)
{
    fake_lock();
    faults.stalled = stalled;
    pthread_cond_broadcast(&fake.cond);
    fake_unlock();
}

FAKE_API void gpu_fake_strict_context(bool strict)
{
    fake_lock();
    fake.lenient_context = !strict;
    fake_unlock();
}

FAKE_API void gpu_fake_init_delay(unsigned long ms)
{
    fake_lock();
    fake.init_delay_ms = ms > 86400000ul ? 86400000L : (long)ms;
    fake_unlock();
}
