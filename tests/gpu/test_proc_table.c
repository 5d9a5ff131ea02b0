/* SPDX-License-Identifier: MIT */
/*
 * The table of src/sys/driver/cuda_proc_versions.h against the real driver: for
 * every row, the driver's cuGetProcAddress_v2 and its plain form at the row's
 * version (with the per-thread flag for a per-thread row, with no flag and
 * with the legacy stream's for another) must hand out the very function that
 * dlsym finds for the row's symbol; one version below a function's first it
 * must say "version not sufficient"; at the driver's own version, the newest
 * row. A name the headers declare and the driver does not export must be
 * "symbol not found" at every version (each is printed: PROCTABLE absent).
 * The plain form answers CUDA_ERROR_NOT_FOUND wherever it hands out no
 * pointer. Prints one PROCTABLE line per mismatch (dladdr names what the
 * driver handed out instead) and a summary; fails on any mismatch.
 *
 * Also prints, without asserting, what the driver's legacy 32-bit forms do on
 * this device (PROCTABLE legacy), which the fake's fake_legacy.c plays.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_proc_rows.h"
#include "harness.h"

static const struct gpu__cuda_proc *const rows = gpu__cuda_procs;

/* cuGetProcAddress_v2's prototype, as of CUDA 12.0, and the plain form's, as of CUDA 11.3. */
typedef int (*get_proc_address_fn)(const char *symbol, void **pfn, int cuda_version, uint64_t flags, int *status);
typedef int (*get_proc_address_plain_fn)(const char *symbol, void **pfn, int cuda_version, uint64_t flags);

enum { LEGACY_STREAM_FLAG = 1, PER_THREAD_FLAG = 2, SUCCESS = 0, SYMBOL_NOT_FOUND = 1, VERSION_NOT_SUFFICIENT = 2,
       NOT_FOUND = 500 };

struct walk {
    void *driver;
    get_proc_address_fn gpa;
    get_proc_address_plain_fn plain;
    size_t asks, mismatches;
};

static const char *symbol_at(void *fn)
{
    Dl_info info;

    return !fn ? "NULL" : dladdr(fn, &info) && info.dli_sname ? info.dli_sname : "?";
}

/*
 * Asks both forms for `base` at `version` with `flags`. `symbol` NULL expects "version not sufficient";
 * `absent` (a name the headers declare and this driver does not export) expects "symbol not found" at
 * every version. The plain form has no status: CUDA_ERROR_NOT_FOUND wherever no pointer comes back.
 */
static void ask_flags(struct walk *w, const char *base, int version, uint64_t flags, const char *symbol, bool absent)
{
    void *fn = NULL, *plain_fn = NULL, *want = symbol && !absent ? dlsym(w->driver, symbol) : NULL;
    int status = -1;
    int want_status = absent ? SYMBOL_NOT_FOUND : symbol ? SUCCESS : VERSION_NOT_SUFFICIENT;
    int rc = w->gpa(base, &fn, version, flags, &status);
    int plain_rc = w->plain ? w->plain(base, &plain_fn, version, flags) : 0;

    w->asks++;
    if (rc == 0 && status == want_status && fn == want && (want || want_status != SUCCESS) &&
        (!w->plain || (plain_rc == (want ? SUCCESS : NOT_FOUND) && plain_fn == want)))
        return;
    w->mismatches++;
    printf("PROCTABLE mismatch %s at %d flags %llu: want %s%s, driver rc=%d status=%d pfn=%p (%s); "
           "plain form rc=%d pfn=%p (%s)\n",
           base, version, (unsigned long long)flags, symbol ? symbol : "version not sufficient",
           absent ? " (not exported: symbol not found)" : symbol && !want ? " (not exported)" : "", rc, status, fn,
           symbol_at(fn), plain_rc, plain_fn, symbol_at(plain_fn));
}

/* A per-thread row with its flag; a default one with no flag and with CU_GET_PROC_ADDRESS_LEGACY_STREAM. */
static void ask(struct walk *w, const char *base, int version, bool per_thread, const char *symbol, bool absent)
{
    if (per_thread) {
        ask_flags(w, base, version, PER_THREAD_FLAG, symbol, absent);
        return;
    }
    ask_flags(w, base, version, 0, symbol, absent);
    ask_flags(w, base, version, LEGACY_STREAM_FLAG, symbol, absent);
}

/* Whether the driver exports any symbol of row i's base name. */
static bool base_exported(const struct walk *w, const struct gpu__cuda_proc *r, size_t n, size_t i)
{
    size_t b = i;

    while (b > 0 && strcmp(r[b - 1].base, r[i].base) == 0)
        b--;
    for (; b < n && strcmp(r[b].base, r[i].base) == 0; b++)
        if (dlsym(w->driver, r[b].symbol))
            return true;
    return false;
}

/* What the legacy 32-bit forms do on this device: printed for the fake to follow. */
static void legacy_report(void *driver)
{
    void *total_sym = dlsym(driver, "cuDeviceTotalMem"), *alloc_sym = dlsym(driver, "cuMemAlloc");
    int (*total_fn)(unsigned int *, int);
    int (*alloc_fn)(unsigned int *, unsigned int);
    unsigned int bytes = 0, ptr = 0;

    if (total_sym) {
        memcpy(&total_fn, &total_sym, sizeof(total_sym));
        printf("PROCTABLE legacy cuDeviceTotalMem(unsigned *, 0): rc=%d bytes=%u\n", total_fn(&bytes, 0), bytes);
    }
    if (alloc_sym) {
        memcpy(&alloc_fn, &alloc_sym, sizeof(alloc_sym));
        printf("PROCTABLE legacy cuMemAlloc(unsigned *, 256): rc=%d ptr=0x%x\n", alloc_fn(&ptr, 256), ptr);
    }
}

static void proc_table(void **state)
{
    const gpu_load_report *r = gpu_driver_get_report();
    size_t n = GPU__CUDA_PROC_COUNT, skipped = 0;
    struct walk w = {0};
    int version = 0;
    size_t absent_names = 0;
    bool absent;
    void *sym;

    (void)state;
    assert_non_null(r->file);
    w.driver = dlopen(r->file, RTLD_NOW | RTLD_NOLOAD);
    if (!w.driver)
        w.driver = dlopen(r->file, RTLD_NOW);
    assert_non_null(w.driver);
    sym = dlsym(w.driver, "cuGetProcAddress_v2");
    assert_non_null(sym);
    memcpy(&w.gpa, &sym, sizeof(sym));
    sym = dlsym(w.driver, "cuGetProcAddress");
    if (sym)
        memcpy(&w.plain, &sym, sizeof(sym));
    assert_gpu_ok(gpu_driver_get_version(&version));
    printf("PROCTABLE driver %s, version %d, %zu rows\n", r->file, version, n);

    for (size_t i = 0; i < n; i++) {
        bool first = i == 0 || strcmp(rows[i - 1].base, rows[i].base) != 0;
        bool last = i + 1 == n || strcmp(rows[i + 1].base, rows[i].base) != 0;

        if (rows[i].version > version) {
            skipped++;
            continue;
        }
        /* A name the driver does not export at all: "symbol not found" for every version asked. */
        absent = !base_exported(&w, rows, n, i);
        if (absent && first) {
            absent_names++;
            printf("PROCTABLE absent %s: declared by the headers, not exported by this driver\n", rows[i].base);
        }
        ask(&w, rows[i].base, rows[i].version, rows[i].per_thread, rows[i].symbol, absent);
        if (first)
            ask(&w, rows[i].base, rows[i].version - 1, false, NULL, absent);
        if (last) {
            size_t d = i;

            while (rows[d].per_thread)
                d--;
            if (rows[d].version <= version)
                ask(&w, rows[i].base, version, false, rows[d].symbol, absent);
            if (rows[i].per_thread)
                ask(&w, rows[i].base, version, true, rows[i].symbol, absent);
        }
    }
    printf("PROCTABLE summary: %zu rows (%zu newer than the driver, skipped; %zu names the driver does not export), "
           "%zu asks, %zu mismatches\n", n, skipped, absent_names, w.asks, w.mismatches);
    legacy_report(w.driver);
    assert_int_equal(w.mismatches, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(proc_table),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-proc-table");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
