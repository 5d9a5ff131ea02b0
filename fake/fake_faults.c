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

#include "fake_internal.h"

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

/* Drops the queued work of every stream of the device's context: it never runs. */
static void drop_queued_work(int device)
{
    const struct fake_ctx *ctx = &fake.devices[device].ctx;

    for (struct fake_stream *s = fake.streams; s; s = s->next_live)
        if (s->ctx == ctx)
            fake_stream_drop_work(s);
    fake_stream_drop_work(&fake.devices[device].ctx.legacy);
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

/* A byte count with an optional K, M or G suffix (powers of 1024). */
static size_t parse_bytes(const char *var, const char *text)
{
    size_t len = strlen(text);
    unsigned shift = 0;
    char digits[32];
    long long n;

    if (len > 0 && strchr("KMG", text[len - 1])) {
        shift = text[len - 1] == 'K' ? 10 : text[len - 1] == 'M' ? 20 : 30;
        len--;
    }
    if (len == 0 || len >= sizeof(digits))
        fake_die(var, text);
    memcpy(digits, text, len);
    digits[len] = '\0';
    n = fake_parse_number(var, digits, 0, (long)((SIZE_MAX >> 1) >> shift));
    return (size_t)n << shift;
}

/* GPUSHIM_FAKE_COMPUTE_CAPABILITY=major.minor, e.g. 9.0 */
static void parse_capability(const char *text, int *major, int *minor)
{
    const char *dot = strchr(text, '.');
    char buf[8];

    if (!dot || (size_t)(dot - text) >= sizeof(buf))
        fake_die("GPUSHIM_FAKE_COMPUTE_CAPABILITY wants major.minor", text);
    memcpy(buf, text, (size_t)(dot - text));
    buf[dot - text] = '\0';
    *major = (int)fake_parse_number("GPUSHIM_FAKE_COMPUTE_CAPABILITY major", buf, 1, 99);
    *minor = (int)fake_parse_number("GPUSHIM_FAKE_COMPUTE_CAPABILITY minor", dot + 1, 0, 9);
}

/* GPUSHIM_FAKE_LOSE=ordinal:nth:result */
static void parse_lose(const char *text)
{
    char copy[64];
    char *nth, *result;

    if (strlen(text) >= sizeof(copy))
        fake_die("GPUSHIM_FAKE_LOSE wants ordinal:nth:result", text);
    strcpy(copy, text);
    nth = strchr(copy, ':');
    result = nth ? strchr(nth + 1, ':') : NULL;
    if (!result)
        fake_die("GPUSHIM_FAKE_LOSE wants ordinal:nth:result", text);
    *nth++ = '\0';
    *result++ = '\0';
    faults.lose_device = (int)fake_parse_number("GPUSHIM_FAKE_LOSE ordinal", copy, 0, FAKE_MAX_DEVICES - 1);
    faults.lose_at = (unsigned long)fake_parse_number("GPUSHIM_FAKE_LOSE nth", nth, 1, 100000000);
    faults.lose_result = (cuabi_result)fake_parse_number("GPUSHIM_FAKE_LOSE result", result, 0, 100000);
}

void fake_faults_configure(void)
{
    const char *v;
    size_t limit = SIZE_MAX;

    if ((v = getenv("GPUSHIM_FAKE_MEMORY_LIMIT")))
        limit = parse_bytes("GPUSHIM_FAKE_MEMORY_LIMIT", v);
    for (int i = 0; i < FAKE_MAX_DEVICES; i++)
        faults.limit[i] = limit;
    if ((v = getenv("GPUSHIM_FAKE_LOSE")))
        parse_lose(v);
    if ((v = getenv("GPUSHIM_FAKE_STALL")))
        faults.stalled = fake_parse_number("GPUSHIM_FAKE_STALL", v, 0, 1) == 1;
    for (int i = 0; i < fake.device_count; i++) {
        gpu_fake_device_desc *d = &fake.devices[i].desc;

        if ((v = getenv("GPUSHIM_FAKE_DEVICE_NAME"))) {
            if (strlen(v) == 0 || strlen(v) >= sizeof(d->name))
                fake_die("GPUSHIM_FAKE_DEVICE_NAME wants 1 to 63 bytes", v);
            strcpy(d->name, v);
        }
        if ((v = getenv("GPUSHIM_FAKE_DEVICE_MEMORY")))
            d->total_memory = parse_bytes("GPUSHIM_FAKE_DEVICE_MEMORY", v);
        if ((v = getenv("GPUSHIM_FAKE_COMPUTE_CAPABILITY")))
            parse_capability(v, &d->compute_major, &d->compute_minor);
    }
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
