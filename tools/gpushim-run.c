/* SPDX-License-Identifier: MIT */
/*
 * gpushim-run: runs a program, of any kind, on gpushim's fake driver
 * (--fake) or on the machine's driver: libgpushim-cuda goes first on
 * LD_LIBRARY_PATH as libcuda.so.1 (a program linked with -lcuda, or one that
 * opens libcuda.so.1 itself, gets it), libgpushim-cudart as libcudart.so.13
 * (a program built with nvcc -cudart=shared gets it), and GPUSHIM_LIBCUDA
 * names the fake. It says once, on stderr, which driver and runtime the
 * program gets, warns of NVIDIA's static runtime inside the program, then
 * becomes the program (exec): the exit status is the program's own.
 * --print-env prints the same settings for a CI file. See gpushim-run(1).
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpushim/driver.h"
#include "program_kind.h"
#include "tool_layout.h"

enum {
    EXIT_USAGE = 2,
    EXIT_OWN_ERROR = 125, /* this command failed, not the program (as env(1)) */
    EXIT_CANNOT_RUN = 126,
    EXIT_NOT_FOUND = 127,
};

enum env_format { ENV_NONE, ENV_SH, ENV_DOTENV };

struct options {
    bool fake, quiet, help;
    const char *profile;
    enum env_format print_env;
    char **program;
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gpushim-run [--fake[=PROFILE]] [-q] [--] PROGRAM [ARGS...]\n"
                 "       gpushim-run [--fake[=PROFILE]] --print-env[=sh|dotenv]\n"
                 "Runs PROGRAM with gpushim's libcuda.so.1 and libcudart.so.13 first on LD_LIBRARY_PATH:\n"
                 "on the machine's CUDA driver, or on gpushim's fake driver.\n"
                 "  --fake           the fake driver (GPUSHIM_LIBCUDA), a GPU simulated in host memory\n"
                 "  --fake=PROFILE   and its devices' profile: h200, a100, l4, rtx4090, or a list (GPUSHIM_FAKE_DEVICE)\n"
                 "  -q, --quiet      no line saying which driver and runtime the program gets\n"
                 "  --print-env      print the settings instead, as shell export lines (sh, the default) or\n"
                 "                   NAME=value lines (dotenv: $GITHUB_ENV, GitLab's dotenv reports)\n");
}

static int usage_error(void)
{
    usage(stderr);
    return EXIT_USAGE;
}

/* A profile list as GPUSHIM_FAKE_DEVICE takes one: names of [a-z0-9], comma-separated; the fake judges the names. */
static bool profile_ok(const char *p)
{
    bool name = false;

    for (; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
            name = true;
        else if (*p == ',' && name)
            name = false;
        else
            return false;
    }
    return name;
}

static bool parse_args(int argc, char **argv, struct options *o)
{
    static const struct option long_options[] = {
        {"fake", optional_argument, NULL, 'f'},
        {"print-env", optional_argument, NULL, 'e'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    int c;

    *o = (struct options){0};
    opterr = 0;
    /* '+': the options end at the program's name, so that its own options stay its own. */
    while ((c = getopt_long(argc, argv, "+qh", long_options, NULL)) != -1) {
        switch (c) {
        case 'f':
            o->fake = true;
            o->profile = optarg;
            if (optarg && !profile_ok(optarg))
                return fprintf(stderr, "gpushim-run: --fake=%s: a profile is a name such as h200, a100, l4 or "
                                       "rtx4090, or a comma-separated list of them\n", optarg), false;
            break;
        case 'e':
            o->print_env = !optarg || strcmp(optarg, "sh") == 0 ? ENV_SH
                           : strcmp(optarg, "dotenv") == 0      ? ENV_DOTENV
                                                                : ENV_NONE;
            if (!o->print_env)
                return fprintf(stderr, "gpushim-run: --print-env=%s: the formats are sh and dotenv\n", optarg),
                       false;
            break;
        case 'q': o->quiet = true; break;
        case 'h': o->help = true; break;
        default:
            return fprintf(stderr, "gpushim-run: unknown option %s\n", argv[optind - 1]), false;
        }
    }
    o->program = optind < argc ? argv + optind : NULL;
    if (o->help)
        return true;
    if (o->print_env && o->program)
        return fprintf(stderr, "gpushim-run: --print-env runs nothing: no PROGRAM with it\n"), false;
    if (!o->print_env && !o->program)
        return fprintf(stderr, "gpushim-run: no PROGRAM to run\n"), false;
    return true;
}

/*
 * Each name of the profile list is one the fake has: asked of the fake itself
 * (gpu_fake_device_profile() on device 0), before GPUSHIM_FAKE_DEVICE is set,
 * so that a name it does not know is a usage error here rather than a stop at
 * its first call. Where the caller's settings leave the fake no device 0,
 * the fake judges the names when the program runs.
 */
static bool profile_known(const char *fake, const char *list)
{
    void *lib;
    int (*set)(int, const char *);
    const char *(*name_of)(int);
    bool ok = true;

    if (unsetenv("GPUSHIM_FAKE_DEVICE") != 0 || !(lib = dlopen(fake, RTLD_NOW | RTLD_LOCAL)))
        return true;
    *(void **)&set = dlsym(lib, "gpu_fake_device_profile");
    *(void **)&name_of = dlsym(lib, "gpu_fake_device_profile_name");
    if (!set || !name_of || !name_of(0))
        return true;
    for (const char *p = list; ok && *p;) {
        size_t n = strcspn(p, ",");
        char name[64];

        snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), p);
        if (n >= sizeof(name) || set(0, name) != 0) {
            fprintf(stderr, "gpushim-run: --fake=%s: the fake driver has no profile %.*s\n", list, (int)n, p);
            ok = false;
        }
        p += n + (p[n] == ',');
    }
    return ok;
}

/*
 * The settings, in the program's environment. For a program whose DT_RPATH
 * would choose its libcudart.so.13 before LD_LIBRARY_PATH, libgpushim-cudart
 * is preloaded too, after the sanitizer runtimes the program names (which
 * must come first).
 */
static bool set_environment(const struct options *o, const struct tool_layout *l, const struct program_kind *k)
{
    char front[2 * PATH_MAX + 2], runtime[PATH_MAX + 300];
    bool preload = k->rpath_first && l->cudart_dir[0] && !strpbrk(l->cudart_dir, " :") &&
                   strcmp(k->cudart, "libcudart.so.13") == 0;

    snprintf(front, sizeof(front), "%s%s%s", l->cuda_dir, l->cudart_dir[0] ? ":" : "", l->cudart_dir);
    snprintf(runtime, sizeof(runtime), "%s%s%s/libcudart.so.13", k->sanitizers, k->sanitizers[0] ? " " : "",
             l->cudart_dir);
    return tool_env_prepend("LD_LIBRARY_PATH", front) &&
           (!o->fake || setenv("GPUSHIM_LIBCUDA", l->fake, 1) == 0) &&
           (!o->profile || setenv("GPUSHIM_FAKE_DEVICE", o->profile, 1) == 0) &&
           (!preload || tool_env_prepend("LD_PRELOAD", runtime));
}

/* One line NAME=value as the format wants it; false for a value it cannot hold. */
static bool print_variable(enum env_format format, const char *name)
{
    const char *v = getenv(name);

    if (!v)
        return true;
    if (format == ENV_DOTENV) {
        if (strchr(v, '\n'))
            return fprintf(stderr, "gpushim-run: %s holds a newline, which a dotenv line cannot\n", name), false;
        printf("%s=%s\n", name, v);
        return true;
    }
    printf("export %s='", name);
    for (; *v; v++)
        if (*v == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*v);
    fputs("'\n", stdout);
    return true;
}

static int print_env(const struct options *o)
{
    bool ok = print_variable(o->print_env, "LD_LIBRARY_PATH");

    if (o->fake)
        ok = ok && print_variable(o->print_env, "GPUSHIM_LIBCUDA");
    if (o->profile)
        ok = ok && print_variable(o->print_env, "GPUSHIM_FAKE_DEVICE");
    if (fflush(stdout) != 0 || ferror(stdout))
        return fprintf(stderr, "gpushim-run: standard output: %s\n", strerror(errno)), EXIT_OWN_ERROR;
    return ok ? 0 : EXIT_OWN_ERROR;
}

/* The driver the program gets: loaded here the way libgpushim-cuda loads it there. */
static void describe_driver(char *out, size_t size)
{
    gpu_status rc = gpu_driver_load();
    const gpu_load_report *r = gpu_driver_get_report();
    char version[32] = "";

    if (r->driver_version > 0)
        snprintf(version, sizeof(version), ", CUDA %d.%d", r->driver_version / 1000, r->driver_version % 1000 / 10);
    if (rc == GPU_OK && r->fake)
        snprintf(out, size, "gpushim's fake driver (%s, %s%s)", r->fake, r->file ? r->file : "?", version);
    else if (rc == GPU_OK)
        snprintf(out, size, "%s%s, through libgpushim-cuda", r->file ? r->file : "?", version);
    else if (r->stage == GPU_LOAD_OPEN)
        snprintf(out, size, "none: no CUDA driver was found on this machine (gpushim-info says where it looked; "
                            "--fake runs the program on gpushim's fake): its CUDA calls fail, saying so");
    else
        snprintf(out, size, "none usable (%s), so the program's CUDA calls fail", r->message);
    for (char *p = out; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

/* The runtime the program gets, from its file. */
static void describe_runtime(const struct program_kind *k, const struct tool_layout *l, char *out, size_t size)
{
    if (k->static_cudart)
        snprintf(out, size, "NVIDIA's, linked into the program (-cudart=static)");
    else if (k->cudart[0] && strcmp(k->cudart, "libcudart.so.13") != 0)
        snprintf(out, size, "%s, as the system finds it (gpushim's is libcudart.so.13)", k->cudart);
    else if (!l->cudart_dir[0])
        snprintf(out, size, "%s (this gpushim is built without libgpushim-cudart)",
                 k->cudart[0] ? "NVIDIA's libcudart.so.13, where the system has one" : "none of gpushim's");
    else if (k->cudart[0])
        snprintf(out, size, "libgpushim-cudart (%s/libcudart.so.13)", l->cudart_dir);
    else if (k->elf)
        snprintf(out, size, "none in the program (libgpushim-cudart, %s/libcudart.so.13, should it open one)", l->cudart_dir);
    else
        snprintf(out, size, "libgpushim-cudart (%s/libcudart.so.13) for what loads libcudart.so.13", l->cudart_dir);
}

int main(int argc, char **argv)
{
    static struct tool_layout layout;
    static char file[PATH_MAX], driver[8192], runtime[PATH_MAX + 256];
    struct program_kind kind = {0};
    struct options o;
    bool found = false;

    if (!parse_args(argc, argv, &o))
        return usage_error();
    if (o.help)
        return usage(stdout), 0;
    if (!tool_layout_find(&layout)) {
        fprintf(stderr, "gpushim-run: libgpushim-cuda (as <libdir>/gpushim/cuda/libcuda.so.1) was not found "
                        "beside this program\n");
        return EXIT_OWN_ERROR;
    }
    if (o.fake && !layout.fake[0]) {
        fprintf(stderr, "gpushim-run: the fake driver, libgpushim-fakecuda.so, was not found beside this program\n");
        return EXIT_OWN_ERROR;
    }
    if (o.profile && !profile_known(layout.fake, o.profile))
        return usage_error();
    if (o.program && (found = program_kind_find(o.program[0], file, sizeof(file))))
        program_kind_read(file, &kind);
    if (!set_environment(&o, &layout, &kind)) {
        fprintf(stderr, "gpushim-run: the program's environment: %s\n", strerror(errno));
        return EXIT_OWN_ERROR;
    }
    if (o.print_env)
        return print_env(&o);
    if (kind.static_cudart)
        fprintf(stderr, "gpushim-run: warning: %s has NVIDIA's static CUDA runtime linked in (nvcc's default, "
                        "-cudart=static), which runs on NVIDIA's driver only, never on the fake: rebuild it with "
                        "nvcc -cudart=shared (CMake: CUDA_RUNTIME_LIBRARY Shared), or link it with "
                        "libgpushim-cudart (pkg-config gpushim-cudart)\n", o.program[0]);
    if (!o.quiet && found) {
        describe_driver(driver, sizeof(driver));
        describe_runtime(&kind, &layout, runtime, sizeof(runtime));
        fprintf(stderr, "gpushim-run: driver: %s; runtime: %s\n", driver, runtime);
    }
    fflush(stderr);
    execvp(o.program[0], o.program);
    fprintf(stderr, "gpushim-run: %s: %s\n", o.program[0], strerror(errno));
    return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
