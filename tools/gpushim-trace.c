/* SPDX-License-Identifier: MIT */
/*
 * gpushim-trace: runs a program with libgpushim-cuda in front of the CUDA
 * driver and GPUSHIM_TRACE on, waits for it, then summarizes the trace it
 * wrote (per function: calls, errors, time, the first error) and keeps the
 * trace for Perfetto. The program's exit status is this command's. See
 * gpushim-trace(1).
 *
 * The trace files are read as untrusted input: a line at a time into a
 * bounded buffer, each event's fields looked up by key; a line that is not
 * an event as gpushim writes it is counted and skipped, and a file without
 * its closing record (a process that ended by a signal, _exit() or exec()
 * before its exit handlers wrote it) is summarized as
 * far as it goes and said to be incomplete.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpushim/status.h"
#include "tool_layout.h"

enum {
    EXIT_OWN_ERROR = 125, /* this command failed, not the program (as env(1) and timeout(1)) */
    EXIT_CANNOT_RUN = 126,
    EXIT_NOT_FOUND = 127,
    LINE_MAX_BYTES = 64 * 1024, /* gpushim's longest event line is a few hundred bytes */
    NAME_MAX_BYTES = 128,
    TEXT_MAX_BYTES = 256,
    FUNCTIONS_MAX = 4096,        /* distinct names kept; calls of further ones are counted apart */
    FUNCTION_SLOTS = 8192,       /* the hash table: twice FUNCTIONS_MAX */
};

struct function {
    char name[NAME_MAX_BYTES];
    unsigned long long calls, errors;
    double total_us;
    bool failed;
    double first_error_ts;
    long long first_error_rc;
    char first_error_result[NAME_MAX_BYTES];
    char first_error_message[TEXT_MAX_BYTES];
};

struct summary {
    struct function *functions[FUNCTION_SLOTS];
    size_t function_count;
    unsigned long long calls, errors, calls_unnamed, gpu_spans, bad_lines, dropped_events;
    unsigned files, files_incomplete;
};

/* ---- Reading a trace ---- */

/* The text after `"key":` in [line, end), or NULL. */
static const char *field(const char *line, const char *end, const char *key)
{
    char pattern[64];
    size_t n = (size_t)snprintf(pattern, sizeof(pattern), "\"%s\":", key);
    const char *p;

    if (n >= sizeof(pattern))
        return NULL;
    p = memmem(line, (size_t)(end - line), pattern, n);
    return p ? p + n : NULL;
}

/* A JSON string at `p` (escapes decoded; other than ASCII as '?'), cut to fit `out`; false if it is not one. */
static bool read_string(const char *p, const char *end, char *out, size_t size)
{
    size_t n = 0;

    if (!p || p >= end || *p++ != '"')
        return false;
    for (; p < end && *p != '"'; p++) {
        char c = *p;

        if (c == '\\') {
            if (++p >= end)
                return false;
            switch (*p) {
            case 'n': c = ' '; break;
            case 't': c = ' '; break;
            case 'u':
                if (end - p < 5)
                    return false;
                p += 4;
                c = '?';
                break;
            default: c = *p; break;
            }
        } else if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x80) {
            c = '?';
        }
        if (n + 1 < size)
            out[n++] = c;
    }
    if (p >= end || !size)
        return false;
    out[n] = '\0';
    return true;
}

/* A JSON number at `p`; false if there is none. */
static bool read_number(const char *p, const char *end, double *out)
{
    char buf[64];
    size_t n = 0;
    char *stop;

    if (!p)
        return false;
    while (p + n < end && n + 1 < sizeof(buf) && strchr("+-.0123456789eE", p[n]))
        n++;
    memcpy(buf, p, n);
    buf[n] = '\0';
    errno = 0;
    *out = strtod(buf, &stop);
    return n > 0 && stop == buf + n && errno == 0;
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            return false;
    return true;
}

static struct function *function_get(struct summary *s, const char *name)
{
    size_t h = 5381;

    for (const char *p = name; *p; p++)
        h = h * 33 + (unsigned char)*p;
    for (size_t i = 0; i < FUNCTION_SLOTS; i++) {
        struct function **slot = &s->functions[(h + i) % FUNCTION_SLOTS];

        if (*slot && strcmp((*slot)->name, name) == 0)
            return *slot;
        if (!*slot) {
            if (s->function_count == FUNCTIONS_MAX || !(*slot = calloc(1, sizeof(**slot))))
                return NULL;
            snprintf((*slot)->name, sizeof((*slot)->name), "%s", name);
            s->function_count++;
            return *slot;
        }
    }
    return NULL;
}

/* One complete event ("ph":"X"): a driver call (categories "cuda" and "driver") or a GPU span. */
static void read_event(struct summary *s, const char *line, const char *end)
{
    const char *args = field(line, end, "args");
    const char *top_end = args ? args : end;
    char name[NAME_MAX_BYTES], cat[32], result[NAME_MAX_BYTES] = "", message[TEXT_MAX_BYTES] = "";
    double ts, dur, rc = 0;
    struct function *f;

    if (!read_string(field(line, top_end, "cat"), top_end, cat, sizeof(cat))) {
        s->bad_lines++;
        return;
    }
    if (strcmp(cat, "gpu") == 0) {
        s->gpu_spans++;
        return;
    }
    if (strcmp(cat, "cuda") != 0 && strcmp(cat, "driver") != 0)
        return; /* the load's stages */
    if (!read_string(field(line, top_end, "name"), top_end, name, sizeof(name)) || !valid_name(name) ||
        !read_number(field(line, top_end, "ts"), top_end, &ts) ||
        !read_number(field(line, top_end, "dur"), top_end, &dur) || !(dur >= 0) || !args ||
        !read_number(field(args, end, "rc"), end, &rc) || !(rc >= 0 && rc <= INT_MAX)) {
        s->bad_lines++;
        return;
    }
    read_string(field(args, end, "result"), end, result, sizeof(result));
    read_string(field(args, end, "message"), end, message, sizeof(message));
    s->calls++;
    s->errors += rc != 0;
    f = function_get(s, name);
    if (!f) {
        s->calls_unnamed++;
        return;
    }
    f->calls++;
    f->total_us += dur;
    if (rc != 0) {
        f->errors++;
        if (!f->failed || ts < f->first_error_ts) {
            f->failed = true;
            f->first_error_ts = ts;
            f->first_error_rc = (long long)rc;
            snprintf(f->first_error_result, sizeof(f->first_error_result), "%s", result);
            snprintf(f->first_error_message, sizeof(f->first_error_message), "%s", message);
        }
    }
}

/* The closing record: how many events the process could not keep. */
static void read_other_data(struct summary *s, const char *line, const char *end)
{
    double dropped = 0;

    if (read_number(field(line, end, "dropped_events"), end, &dropped) && dropped > 0 && dropped < 1e18)
        s->dropped_events += (unsigned long long)dropped;
}

enum line_end { LINE_NONE, LINE_PARTIAL, LINE_WHOLE };

/*
 * The next line of `f` into `buf` (`*len` bytes kept, at most size - 1, NUL
 * bytes among them; `*overlong` when more were dropped). LINE_WHOLE for one
 * that ends in a newline, LINE_PARTIAL for the end of the file inside one,
 * LINE_NONE at the end.
 */
static enum line_end read_line(FILE *f, char *buf, size_t size, size_t *len, bool *overlong)
{
    int c;

    *len = 0;
    *overlong = false;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (*len + 1 < size)
            buf[(*len)++] = (char)c;
        else
            *overlong = true;
    }
    buf[*len] = '\0';
    if (c == '\n')
        return LINE_WHOLE;
    return *len || *overlong ? LINE_PARTIAL : LINE_NONE;
}

/* Adds one trace file to the summary; false if it cannot be opened. */
static bool read_trace(struct summary *s, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = malloc(LINE_MAX_BYTES);
    bool complete = false, overlong;
    enum line_end end;
    size_t n;

    if (!f || !line) {
        if (f)
            fclose(f);
        free(line);
        return false;
    }
    /* A line cut by the end of the file is where a killed writer stopped: not read. */
    while ((end = read_line(f, line, LINE_MAX_BYTES, &n, &overlong)) == LINE_WHOLE) {
        if (overlong)
            s->bad_lines++; /* not gpushim's: its events are a few hundred bytes */
        else if (n >= 8 && memcmp(line, "{\"name\":", 8) == 0 && memmem(line, n, "\"ph\":\"X\"", 8))
            read_event(s, line, line + n);
        else if (n >= 12 && memcmp(line, "\"otherData\":", 12) == 0)
            read_other_data(s, line, line + n), complete = true;
    }
    s->files++;
    s->files_incomplete += !complete;
    fclose(f);
    free(line);
    return true;
}

/* ---- The summary ---- */

static int by_total(const void *a, const void *b)
{
    const struct function *x = *(struct function *const *)a, *y = *(struct function *const *)b;

    if (x->total_us != y->total_us)
        return x->total_us < y->total_us ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The functions seen, by total time, longest first; NULL when there is no memory. */
static struct function **sorted(const struct summary *s)
{
    struct function **list = calloc(s->function_count + 1, sizeof(*list));
    size_t n = 0;

    if (!list)
        return NULL;
    for (size_t i = 0; i < FUNCTION_SLOTS; i++)
        if (s->functions[i])
            list[n++] = s->functions[i];
    qsort(list, n, sizeof(*list), by_total);
    return list;
}

/* The result's name as the trace gave it, else gpushim's. */
static const char *result_name(const struct function *f)
{
    const char *own = gpu_cuda_result_get_name((int)f->first_error_rc);

    return f->first_error_result[0] ? f->first_error_result : own ? own : "CUDA_ERROR_UNRECOGNIZED";
}

static void print_text(FILE *out, const struct summary *s, const char *trace, int status)
{
    struct function **list = sorted(s);

    fprintf(out, "gpushim-trace: %llu driver calls, %llu failed, in %u traced process%s", s->calls, s->errors,
            s->files, s->files == 1 ? "" : "es");
    if (s->files_incomplete)
        fprintf(out, " (%u trace%s incomplete: the process ended by a signal, _exit or exec, with no closing record)", s->files_incomplete,
                s->files_incomplete == 1 ? "" : "s");
    fprintf(out, "; exit status %d\n", status);
    if (s->dropped_events)
        fprintf(out, "gpushim-trace: %llu calls were not kept (GPUSHIM_TRACE_MAX_EVENTS)\n", s->dropped_events);
    if (s->bad_lines)
        fprintf(out, "gpushim-trace: %llu lines of the trace were not events gpushim writes; skipped\n", s->bad_lines);
    if (s->gpu_spans)
        fprintf(out, "gpushim-trace: %llu GPU spans\n", s->gpu_spans);
    if (s->calls_unnamed)
        fprintf(out, "gpushim-trace: %llu calls of functions past the first %d are counted, not listed\n",
                s->calls_unnamed, FUNCTIONS_MAX);
    if (list && s->function_count) {
        fprintf(out, "%10s %8s %14s %12s  %-36s %s\n", "Calls", "Errors", "Total (us)", "Mean (us)", "Function",
                "First error");
        for (size_t i = 0; i < s->function_count; i++) {
            const struct function *f = list[i];

            fprintf(out, "%10llu %8llu %14.3f %12.3f  ", f->calls, f->errors, f->total_us,
                    f->total_us / (double)f->calls);
            if (f->failed)
                fprintf(out, "%-36s %s (%lld)%s%s\n", f->name, result_name(f), f->first_error_rc,
                        f->first_error_message[0] ? ": " : "", f->first_error_message);
            else
                fprintf(out, "%s\n", f->name);
        }
    }
    if (trace)
        fprintf(out, "gpushim-trace: the trace is in %s (open it in https://ui.perfetto.dev or chrome://tracing)\n",
                trace);
    free(list);
}

static void print_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void print_json(FILE *out, const struct summary *s, const char *trace, int status)
{
    struct function **list = sorted(s);

    fprintf(out, "{\"exit_status\":%d,\"trace\":", status);
    if (trace)
        print_json_string(out, trace);
    else
        fputs("null", out);
    fprintf(out,
            ",\"processes\":%u,\"incomplete\":%u,\"calls\":%llu,\"errors\":%llu,\"dropped_events\":%llu,"
            "\"bad_lines\":%llu,\"gpu_spans\":%llu,\"functions\":[",
            s->files, s->files_incomplete, s->calls, s->errors, s->dropped_events, s->bad_lines, s->gpu_spans);
    for (size_t i = 0; list && i < s->function_count; i++) {
        const struct function *f = list[i];

        fprintf(out, "%s{\"name\":", i ? "," : "");
        print_json_string(out, f->name);
        fprintf(out, ",\"calls\":%llu,\"errors\":%llu,\"total_us\":%.3f,\"mean_us\":%.3f", f->calls, f->errors,
                f->total_us, f->total_us / (double)f->calls);
        if (f->failed) {
            fprintf(out, ",\"first_error\":{\"rc\":%lld,\"result\":", f->first_error_rc);
            print_json_string(out, result_name(f));
            fputs(",\"message\":", out);
            print_json_string(out, f->first_error_message);
            fputc('}', out);
        }
        fputc('}', out);
    }
    fputs("]}\n", out);
    fflush(out);
    free(list);
}

static void summary_free(struct summary *s)
{
    for (size_t i = 0; i < FUNCTION_SLOTS; i++)
        free(s->functions[i]);
}

/* ---- Running the program ---- */

struct options {
    const char *output;
    const char *read;
    bool json, fake, gpu, help;
    char **program;
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gpushim-trace [-o TRACE.json] [--json] [--fake] [--gpu] -- PROGRAM [ARGS...]\n"
                 "       gpushim-trace [--json] --read TRACE.json\n"
                 "Runs PROGRAM with gpushim-cuda in front of the CUDA driver, prints a summary of every driver\n"
                 "call it made, and writes the trace for Perfetto (default gpushim-trace.json).\n"
                 "  -o FILE      where the trace goes\n"
                 "  --json       the summary as one line of JSON on stdout (else a table on stderr)\n"
                 "  --fake       the program runs on gpushim's fake driver (GPUSHIM_LIBCUDA)\n"
                 "  --gpu        each launch's and copy's GPU time too (GPUSHIM_TRACE_GPU=1)\n"
                 "  --read FILE  summarize a trace written before; runs nothing\n");
}

static bool parse_args(int argc, char **argv, struct options *o)
{
    int i = 1;

    *o = (struct options){.output = "gpushim-trace.json"};
    for (; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-')
            break;
        if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && i + 1 < argc)
            o->output = argv[++i];
        else if (strcmp(a, "--read") == 0 && i + 1 < argc)
            o->read = argv[++i];
        else if (strcmp(a, "--json") == 0)
            o->json = true;
        else if (strcmp(a, "--fake") == 0)
            o->fake = true;
        else if (strcmp(a, "--gpu") == 0)
            o->gpu = true;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            o->help = true;
        else
            return fprintf(stderr, "gpushim-trace: unknown option %s\n", a), false;
    }
    o->program = i < argc ? argv + i : NULL;
    return o->help || (o->program != NULL) != (o->read != NULL);
}

/* The program's environment: gpushim-cuda first on LD_LIBRARY_PATH, the trace on. */
static bool set_environment(const struct options *o, const char *work, const struct tool_layout *l)
{
    char trace[PATH_MAX + 32];

    snprintf(trace, sizeof(trace), "%s/trace.%%p.json", work);
    return tool_env_prepend("LD_LIBRARY_PATH", l->cuda_dir) && setenv("GPUSHIM_TRACE", trace, 1) == 0 &&
           (!o->fake || (l->fake[0] && setenv("GPUSHIM_LIBCUDA", l->fake, 1) == 0)) &&
           (!o->gpu || setenv("GPUSHIM_TRACE_GPU", "1", 1) == 0);
}

/* Runs the program and waits: its exit status, or 128 + the signal that ended it. */
static int run_program(char **program, pid_t *child)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old_int, old_quit;
    int status = 0;
    pid_t pid;

    /* As time(1): a ^C goes to the program, and this command stays to summarize. */
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        execvp(program[0], program);
        fprintf(stderr, "gpushim-trace: %s: %s\n", program[0], strerror(errno));
        _exit(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN);
    }
    if (pid < 0) {
        fprintf(stderr, "gpushim-trace: fork: %s\n", strerror(errno));
        return EXIT_OWN_ERROR;
    }
    *child = pid;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* What a file of mode `mode` is, in words, for a refusal. */
static const char *file_kind(mode_t mode)
{
    return S_ISLNK(mode) ? "a symbolic link" : S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISDIR(mode) ? "a folder" : S_ISSOCK(mode) ? "a socket"
         : "not a regular file";
}

/* Whether the trace may go to `path`: nothing there, or a regular file (replaced, never written through). */
static bool replaceable(const char *path)
{
    struct stat st;

    if (lstat(path, &st) != 0)
        return errno == ENOENT;
    if (S_ISREG(st.st_mode))
        return true;
    fprintf(stderr, "gpushim-trace: %s is %s: the trace is not written there (only a regular file is replaced)\n",
            path, file_kind(st.st_mode));
    errno = EEXIST;
    return false;
}

/*
 * Copies `from` to `to`: into a new file beside it (mkostemp: O_CREAT | O_EXCL, never through a link; 0600, as a
 * trace holds addresses), renamed over `to` where that is a regular file or nothing. `*refused` when `to` is
 * anything else (said so on stderr), which stays as it is.
 */
static bool copy_file(const char *from, const char *to, bool *refused)
{
    char buf[65536], tmp[PATH_MAX + 16];
    int in = -1, out = -1;
    ssize_t n = 0;
    bool ok;

    *refused = !replaceable(to) && errno == EEXIST;
    if (*refused)
        return false;
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", to) >= sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return false;
    }
    in = open(from, O_RDONLY | O_CLOEXEC);
    if (in >= 0)
        out = mkostemp(tmp, O_CLOEXEC);
    ok = in >= 0 && out >= 0;
    while (ok && (n = read(in, buf, sizeof(buf))) > 0)
        ok = write(out, buf, (size_t)n) == n;
    ok = ok && n == 0;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        ok = false;
    /* Looked at again just before: what was planted there meanwhile is refused too. */
    if (ok && !replaceable(to)) {
        *refused = errno == EEXIST;
        ok = false;
    }
    ok = ok && rename(tmp, to) == 0;
    if (!ok && out >= 0)
        unlink(tmp);
    return ok;
}

/*
 * Every trace in `work` into the summary (one per process that loaded
 * gpushim); the program's own, else the first, is copied to `output`.
 * Removes them and `work`. Whether `output` was written.
 */
static bool collect(struct summary *s, const char *work, pid_t first, const char *output)
{
    DIR *d = opendir(work);
    struct dirent *e;
    char path[PATH_MAX + 300], chosen[PATH_MAX + 300] = "", own[64];
    bool written = false, refused = false;

    snprintf(own, sizeof(own), "trace.%d.json", (int)first);
    while (d && (e = readdir(d))) {
        struct stat st;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", work, e->d_name);
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (read_trace(s, path) && (!chosen[0] || strcmp(e->d_name, own) == 0))
            snprintf(chosen, sizeof(chosen), "%s", path);
    }
    if (chosen[0]) {
        written = copy_file(chosen, output, &refused);
        if (!written && !refused)
            fprintf(stderr, "gpushim-trace: could not write %s: %s\n", output, strerror(errno));
    }
    if (d) {
        rewinddir(d);
        while ((e = readdir(d)))
            if (e->d_name[0] != '.' && snprintf(path, sizeof(path), "%s/%s", work, e->d_name) > 0)
                unlink(path);
        closedir(d);
    }
    snprintf(path, sizeof(path), "%s/cuda/libcuda.so.1", work);
    unlink(path);
    snprintf(path, sizeof(path), "%s/cuda", work);
    rmdir(path);
    rmdir(work);
    return written;
}

static int report(const struct options *o, struct summary *s, const char *trace, int status)
{
    if (o->json)
        print_json(stdout, s, trace, status);
    else
        print_text(stderr, s, trace, status);
    summary_free(s);
    return status;
}

int main(int argc, char **argv)
{
    static struct summary s;
    struct options o;
    static struct tool_layout layout;
    char work[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    int status;

    if (!parse_args(argc, argv, &o)) {
        usage(stderr);
        return EXIT_OWN_ERROR;
    }
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (o.read) {
        if (!read_trace(&s, o.read)) {
            fprintf(stderr, "gpushim-trace: %s: %s\n", o.read, strerror(errno));
            return EXIT_OWN_ERROR;
        }
        return report(&o, &s, o.read, 0);
    }
    snprintf(work, sizeof(work), "%s/gpushim-trace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(work)) {
        fprintf(stderr, "gpushim-trace: %s: %s\n", work, strerror(errno));
        return EXIT_OWN_ERROR;
    }
    if (!tool_layout_find(&layout) || !set_environment(&o, work, &layout)) {
        fprintf(stderr, "gpushim-trace: libgpushim-cuda (as <libdir>/gpushim/cuda/libcuda.so.1) was not found "
                        "beside this program\n");
        collect(&s, work, 0, o.output);
        return EXIT_OWN_ERROR;
    }
    {
        pid_t child = 0;
        bool written;

        status = run_program(o.program, &child);
        written = collect(&s, work, child, o.output);
        if (!s.files)
            fprintf(stderr, "gpushim-trace: no trace was written: %s did not load gpushim-cuda (a program linked "
                            "with libcuda.so.1 does)\n", o.program[0]);
        return report(&o, &s, written ? o.output : NULL, status);
    }
}
