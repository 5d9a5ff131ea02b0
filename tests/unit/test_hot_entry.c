/* SPDX-License-Identifier: MIT */
/*
 * The hot calls' public wrappers start a cache line (GPU__HOT_ENTRY in
 * src/hints.h), in the shared library as users load it: each is looked up
 * with dlsym in the library named by argv[1], opened on its own.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    static const char *const hot[] = {
        "gpu_stream_launch_function", "gpu_stream_launch_kernel", "gpu_stream_record_event",
        "gpu_stream_wait_event", "gpu_stream_is_complete", "gpu_event_is_complete",
        "gpu_buffer_copy_from_host_async", "gpu_buffer_copy_to_host_async",
    };
    void *lib = argc == 2 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    int bad = 0;

    if (!lib) {
        fprintf(stderr, "usage: test-hot-entry LIBGPUSHIM (%s)\n", argc == 2 ? dlerror() : "no library named");
        return 1;
    }
    for (size_t i = 0; i < sizeof(hot) / sizeof(hot[0]); i++) {
        void *sym = dlsym(lib, hot[i]);
        uintptr_t at = (uintptr_t)sym;

        if (!sym || at % 64 != 0) {
            fprintf(stderr, "%s: %p, not at the start of a 64-byte line\n", hot[i], sym);
            bad++;
        } else {
            printf("%s: %p\n", hot[i], sym);
        }
    }
    dlclose(lib);
    return bad != 0;
}
