/* SPDX-License-Identifier: MIT */
/*
 * The resolved table: every entry point found through cuGetProcAddress at the
 * pinned ABI version, and for each symbol the driver exports, the pointer
 * resolved is that exported, versioned symbol (matches_export).
 *
 * The loader's own answer is checked against an independent one: this test
 * opens the same driver file, asks cuGetProcAddress_v2 for each name at
 * GPU_CUDA_ABI_VERSION and compares with dlsym of the versioned symbol.
 * Prints one RESOLVED row per entry point.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* cuGetProcAddress_v2's prototype, as of CUDA 12.0. */
typedef int (*get_proc_address_fn)(const char *symbol, void **pfn, int cuda_version, uint64_t flags,
                                   int *symbol_status);
#define GET_PROC_ADDRESS_LEGACY_STREAM 1u

static void *open_driver(const gpu_load_report *report)
{
    void *handle = dlopen(report->file, RTLD_NOW | RTLD_NOLOAD);

    return handle ? handle : dlopen(report->file, RTLD_NOW);
}

static void table_resolved(void **state)
{
    const gpu_load_report *r = gpu_driver_get_report();
    void *handle;
    void *sym;
    get_proc_address_fn gpa;
    size_t via_gpa = 0, exported = 0, matching = 0, disagree = 0;

    (void)state;
    assert_int_equal(r->stage, GPU_LOAD_READY);
    assert_non_null(r->file);
    printf("RESOLVED file=%s driver=%d abi=%d used_get_proc_address=%s entries=%zu missing_required=%zu "
           "missing_optional=%zu open_ns=%llu init_ns=%llu resolve_ns=%llu\n",
           r->file, r->driver_version, r->abi_version, r->used_get_proc_address ? "yes" : "no", r->entry_count,
           r->missing_required, r->missing_optional, (unsigned long long)r->open_ns,
           (unsigned long long)r->init_ns, (unsigned long long)r->resolve_ns);
    /* A tool that intercepts the driver (compute-sanitizer, a profiler) may hand out its own pointers. */
    if (getenv("CUDA_INJECTION64_PATH") || getenv("LD_PRELOAD"))
        printf("RESOLVED note: CUDA_INJECTION64_PATH=%s LD_PRELOAD=%s: a tool may be intercepting the driver\n",
               getenv("CUDA_INJECTION64_PATH") ? getenv("CUDA_INJECTION64_PATH") : "",
               getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
    handle = open_driver(r);
    assert_non_null(handle);
    sym = dlsym(handle, "cuGetProcAddress_v2");
    assert_non_null(sym);
    memcpy(&gpa, &sym, sizeof(sym));

    printf("RESOLVED %-28s %-30s %-17s %-8s %-7s %s\n", "entry", "symbol", "via", "exported", "matches", "check");
    for (size_t i = 0; i < r->entry_count; i++) {
        const gpu_entry_point *e = &r->entries[i];
        void *mine = NULL;
        void *exported_sym = dlsym(handle, e->symbol);
        int status = -1;
        int rc = gpa(e->name, &mine, GPU_CUDA_ABI_VERSION, GET_PROC_ADDRESS_LEGACY_STREAM, &status);
        bool my_match = rc == 0 && status == 0 && exported_sym && mine == exported_sym;
        bool agree = my_match == e->matches_export && (exported_sym != NULL) == e->exported;

        printf("RESOLVED %-28s %-30s %-17s %-8s %-7s %s%s\n", e->name, e->symbol, e->via ? e->via : "-",
               e->exported ? "yes" : "no", e->matches_export ? "yes" : "no", agree ? "agrees" : "DISAGREES",
               e->found ? "" : e->missing ? e->missing : " (not found)");
        via_gpa += e->found && e->via && strcmp(e->via, "cuGetProcAddress") == 0;
        exported += e->exported;
        matching += e->exported && e->matches_export;
        disagree += !agree;
    }
    printf("RESOLVED summary: %zu entries, %zu via cuGetProcAddress, %zu exported, %zu of those match, "
           "%zu disagree with the independent check\n",
           r->entry_count, via_gpa, exported, matching, disagree);

    assert_true(r->used_get_proc_address);
    assert_int_equal(r->missing_required, 0);
    assert_int_equal(via_gpa, r->entry_count);
    assert_int_equal(matching, exported);
    assert_int_equal(disagree, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_resolved),
    };
    int rc = gpu_test_start(argc > 0 ? argv[0] : "gpu-resolved");

    if (rc != 0)
        return rc;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
