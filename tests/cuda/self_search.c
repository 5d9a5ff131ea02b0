/* SPDX-License-Identifier: MIT */
/*
 * A CUDA program that finds the driver as the CUDA runtime does, by
 * dlopen("libcuda.so.1"), run with a folder holding libcuda.so.1 ->
 * libgpushim-cuda first on LD_LIBRARY_PATH (tests/cuda/check-self-search.sh
 * sets it up). gpushim-cuda is what it opens; the check is where its calls
 * land.
 *
 *   driver FAKE WORDS...  the calls reach FAKE (found in GPUSHIM_LIBCUDA_DIRS),
 *                         and the load report names it, says why, and has each
 *                         WORDS in an attempt's reason
 *   system WORDS...       the machine's driver (the gpu suite): calls succeed,
 *                         and the report names a file that is no gpushim's,
 *                         found by full path past gpushim
 *   none WORDS...         no driver but gpushim's own: calls return
 *                         CUDA_ERROR_STUB_LIBRARY, and cuGetErrorString says
 *                         only gpushim was found, with each WORDS
 *
 * It links neither libgpushim nor the fake: the report is read through the
 * opened library's dependencies (libgpushim-cuda needs libgpushim).
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/driver.h>

enum { SUCCESS = 0, STUB_LIBRARY = 34 };

static int failures;

#define CHECK(cond, ...)                                               \
    do {                                                               \
        if (!(cond)) {                                                 \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                              \
            fputc('\n', stderr);                                       \
            failures++;                                                \
        }                                                              \
    } while (0)

static void *cuda;

static void *symbol(const char *name)
{
    void *p = dlsym(cuda, name);

    if (!p) {
        fprintf(stderr, "libcuda.so.1 has no %s\n", name);
        exit(1);
    }
    return p;
}

#define CALL_AS(type, name) ((type)(uintptr_t)symbol(name))

static bool same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];

    return a && b && realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

/* Whether some attempt's reason holds `words`. */
static bool attempts_say(const gpu_load_report *r, const char *words)
{
    for (size_t i = 0; i < r->attempt_count; i++)
        if (r->attempts[i].error && strstr(r->attempts[i].error, words))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    const gpu_load_report *(*report)(void);
    const gpu_load_report *r;
    const char *text = NULL;
    int count = -1;
    unsigned rc;
    bool driver, machine;

    if (argc < 2 || (strcmp(argv[1], "driver") != 0 && strcmp(argv[1], "none") != 0 && strcmp(argv[1], "system") != 0) ||
        (strcmp(argv[1], "driver") == 0 && argc < 3)) {
        fprintf(stderr, "usage: %s driver FAKE [WORDS...] | system [WORDS...] | none [WORDS...]\n", argv[0]);
        return 2;
    }
    driver = strcmp(argv[1], "driver") == 0;
    machine = strcmp(argv[1], "system") == 0;
    cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!cuda) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    /* The library opened is gpushim-cuda: what was asked to be first. */
    CHECK(dlsym(cuda, "gpu_cuda_forwarder") != NULL, "libcuda.so.1 is not libgpushim-cuda");
    rc = CALL_AS(unsigned (*)(unsigned), "cuInit")(0);
    report = CALL_AS(const gpu_load_report *(*)(void), "gpu_driver_get_report");
    r = report();
    CALL_AS(unsigned (*)(unsigned, const char **), "cuGetErrorString")(STUB_LIBRARY, &text);
    for (size_t i = 0; i < r->attempt_count; i++)
        printf("attempt: %s: %s\n", r->attempts[i].path, r->attempts[i].error ? r->attempts[i].error : "opened");
    printf("file: %s\nchoice: %s\nmessage: %s\n", r->file ? r->file : "(none)", r->choice ? r->choice : "(none)",
           r->message);
    if (driver) {
        void *fake = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
        long (*calls)(const char *) = NULL;

        CHECK(rc == SUCCESS, "cuInit returned %u: %s", rc, r->message);
        CHECK(CALL_AS(unsigned (*)(int *), "cuDeviceGetCount")(&count) == SUCCESS && count >= 1, "count %d", count);
        CHECK(r->stage == GPU_LOAD_READY, "stage %d", (int)r->stage);
        CHECK(same_file(r->file, argv[2]), "the report's file %s is not %s", r->file ? r->file : "(none)", argv[2]);
        CHECK(r->fake != NULL, "the report does not say it is the fake");
        CHECK(r->choice && strstr(r->choice, "GPUSHIM_LIBCUDA_DIRS"), "choice: %s", r->choice ? r->choice : "(none)");
        CHECK(r->choice && strstr(r->choice, "skipped"), "choice: %s", r->choice ? r->choice : "(none)");
        CHECK(!r->only_gpushim, "only_gpushim is set");
        /* The call was the fake's: it counted it. */
        CHECK(fake != NULL, "the fake %s is not loaded", argv[2]);
        if (fake) {
            memcpy(&calls, &(void *){dlsym(fake, "gpu_fake_calls")}, sizeof(calls));
            CHECK(calls && calls("cuDeviceGetCount") == 1, "the fake did not count the call");
        }
    } else if (machine) {
        void *own = dlopen(r->file ? r->file : "/", RTLD_NOW | RTLD_NOLOAD);

        CHECK(rc == SUCCESS, "cuInit returned %u: %s", rc, r->message);
        CHECK(CALL_AS(unsigned (*)(int *), "cuDeviceGetCount")(&count) == SUCCESS && count >= 1, "count %d", count);
        CHECK(r->stage == GPU_LOAD_READY, "stage %d", (int)r->stage);
        CHECK(r->fake == NULL, "the machine's driver is the fake");
        CHECK(own && !dlsym(own, "gpu_cuda_forwarder"), "the report's file %s is gpushim's", r->file ? r->file : "");
        CHECK(r->choice && (strstr(r->choice, "/etc/ld.so.cache") || strstr(r->choice, "usual driver folders")),
              "choice: %s", r->choice ? r->choice : "(none)");
    } else {
        CHECK(rc == STUB_LIBRARY, "cuInit returned %u", rc);
        CHECK(r->stage == GPU_LOAD_OPEN, "stage %d", (int)r->stage);
        CHECK(r->only_gpushim, "only_gpushim is not set");
        CHECK(r->file == NULL && r->choice == NULL, "a file is named");
        CHECK(text && strstr(text, "only gpushim's own libcuda.so.1"), "cuGetErrorString(34): %s", text ? text : "");
    }
    CHECK(attempts_say(r, "is gpushim's own forwarder (libgpushim-cuda)"), "no attempt was refused as gpushim's own");
    for (int i = driver ? 3 : 2; i < argc; i++)
        CHECK(attempts_say(r, argv[i]), "no attempt says \"%s\"", argv[i]);
    return failures ? 1 : 0;
}
