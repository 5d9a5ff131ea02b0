/* SPDX-License-Identifier: MIT */
/*
 * Runs one family of checked-in PTX instruction tests: FAMILY.ptx and its
 * cases, FAMILY.expect, through gpushim's public API, so the same program
 * checks the fake driver's interpreter and a real GPU.
 *
 *   run-ptx FAMILY.ptx FAMILY.expect [KNOWN_FAILURES]
 *
 * Every entry of the module takes (.param .u64 in, .param .u64 out), and one
 * that reads a texture a third parameter, .param .u64 tex. A case is one line
 * of the .expect file:
 *
 *   ENTRY GRID BLOCK : INPUT... -> OUTPUT...
 *
 * The input buffer holds the input values one after another, the output
 * buffer is as long as the expected values and zeroed before the launch
 * (GRID blocks of BLOCK threads, one dimension); after it, the output is
 * compared value by value with the expected one. A value is
 *
 *   123 -5 0xdeadbeef   32 bits          b:0xff  8 bits   h:0x3c00  16 bits
 *   q:-1 q:0x1234...    64 bits          f:1.5 f:-inf f:0x1p-149    f32
 *   d:1e300 d:nan       f64              N*VALUE                    N times VALUE
 *
 * In an expected value, f:nan and d:nan match any NaN, a float followed by ~N
 * (f:0.5~2) matches within N units in the last place (the two zeros are 0
 * apart), and * (h:*, q:*) matches anything. '#' starts a comment.
 *
 * A line "texture cube W : VALUES..." or "texture acube W N : VALUES..."
 * makes the texture the cases after it read, as their tex parameter: a
 * cubemap (or an array of N) of W x W float texels a face, the VALUES (f32)
 * face after face, in point filtering with normalized coordinates.
 *
 * KNOWN_FAILURES (given against the fake driver only) lists cases the
 * interpreter gets wrong, one a line: "FAMILY ENTRY INPUT..." as written in
 * the .expect file, "FAMILY ENTRY *" for all of an entry's, "FAMILY *" for all
 * of a family's; '#' starts a comment line. Such a case failing is reported
 * and tolerated; a case named by itself that passes fails the run, so the
 * list stays true.
 * Exits 0 when every case passes, 1 otherwise, 77 without a device.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpushim/gpushim.h>

#include "cuda_abi.h"

#define SKIP 77
#define MAX_BYTES 65536
#define MAX_VALUES 4096

enum kind { V_INT, V_F32, V_F64 };

/* One value of a case: its bytes at offset `at`, and how to compare it. */
struct value {
    size_t at, size;
    enum kind kind;
    bool any_nan, any;
    unsigned ulps;
};

struct side {
    unsigned char bytes[MAX_BYTES];
    struct value v[MAX_VALUES];
    size_t n, size;
};

static const char *family, *where; /* the family's name; the .expect file's */
static char **known; /* the known-failure list's lines */
static size_t known_count;
static gpu_stream *stream;
static gpu_module *module;
static gpu_context *context;
static cuabi_tex_object texture; /* the texture object the cases read, or 0 */
static cuabi_array texture_array;
static int passed, failed, known_failed;

/* The lines of the known-failure list, without their newlines. */
static char **read_lines(const char *path, size_t *count)
{
    FILE *f = fopen(path, "r");
    char **lines = NULL, *line = NULL;
    size_t cap = 0, n = 0;
    ssize_t len;

    if (!f)
        return NULL;
    while ((len = getline(&line, &cap, f)) >= 0) {
        char **grown = realloc(lines, (n + 1) * sizeof(*lines));

        if (!grown)
            break;
        lines = grown;
        if (len > 0 && line[len - 1] == '\n')
            line[len - 1] = '\0';
        lines[n++] = line;
        line = NULL;
        cap = 0;
    }
    free(line);
    fclose(f);
    *count = n;
    return lines ? lines : calloc(1, sizeof(*lines));
}

/* Appends the value `tok` to `s`; false (with a message) if it is not one. */
static bool parse_value(struct side *s, const char *tok, int line)
{
    unsigned long repeat = 1;
    const char *star = strchr(tok, '*');
    struct value v = {0};
    unsigned char b[8];
    char text[128], *end, *tilde;

    if (star && star > tok && strspn(tok, "0123456789") == (size_t)(star - tok)) {
        repeat = strtoul(tok, &end, 10);
        if (end != star || repeat == 0 || repeat > MAX_VALUES) {
            fprintf(stderr, "%s:%d: bad repeat \"%s\"\n", where, line, tok);
            return false;
        }
        tok = star + 1;
    }
    snprintf(text, sizeof(text), "%s", tok);
    if ((tilde = strchr(text, '~'))) {
        *tilde = '\0';
        v.ulps = (unsigned)strtoul(tilde + 1, &end, 10);
        if (*end || text[0] == '\0' || text[1] != ':' || (text[0] != 'f' && text[0] != 'd'))
            goto bad;
    }
    errno = 0;
    if (text[0] && text[1] == ':' && (text[0] == 'f' || text[0] == 'd')) {
        double d = strtod(text + 2, &end);

        if (*end || end == text + 2)
            goto bad;
        v.any_nan = isnan(d);
        if (text[0] == 'f') {
            float f = strtof(text + 2, NULL); /* rounded once, from the text */

            v.kind = V_F32;
            v.size = 4;
            memcpy(b, &f, 4);
        } else {
            v.kind = V_F64;
            v.size = 8;
            memcpy(b, &d, 8);
        }
    } else {
        const char *num = text;
        uint64_t u;

        v.size = 4;
        if (text[0] && text[1] == ':') {
            v.size = text[0] == 'b' ? 1 : text[0] == 'h' ? 2 : text[0] == 'q' ? 8 : 0;
            num = text + 2;
        }
        if (v.size == 0 || !*num)
            goto bad;
        v.any = strcmp(num, "*") == 0;
        u = v.any ? 0 : num[0] == '-' ? (uint64_t)strtoll(num, &end, 0) : strtoull(num, &end, 0);
        if ((!v.any && *end) || errno)
            goto bad;
        if (v.size < 8 && num[0] != '-' && (u >> (8 * v.size)) != 0)
            goto bad;
        for (size_t i = 0; i < 8; i++)
            b[i] = (unsigned char)(u >> (8 * i));
    }
    for (unsigned long r = 0; r < repeat; r++) {
        if (s->n == MAX_VALUES || s->size + v.size > MAX_BYTES) {
            fprintf(stderr, "%s:%d: too many values\n", where, line);
            return false;
        }
        v.at = s->size;
        memcpy(s->bytes + s->size, b, v.size);
        s->v[s->n++] = v;
        s->size += v.size;
    }
    return true;
bad:
    fprintf(stderr, "%s:%d: bad value \"%s\"\n", where, line, tok);
    return false;
}

/* A float's bits as an integer that orders as the values do, both zeros 0 (so 0 apart); sets *nan. */
static int64_t ordered(const struct value *v, const unsigned char *p, bool *nan)
{
    if (v->kind == V_F32) {
        float f;
        int32_t i;

        memcpy(&f, p, 4);
        memcpy(&i, p, 4);
        *nan = isnan(f);
        return i < 0 ? INT32_MIN - (int64_t)i : i;
    } else {
        double d;
        int64_t i;

        memcpy(&d, p, 8);
        memcpy(&i, p, 8);
        *nan = isnan(d);
        return i < 0 ? INT64_MIN - i : i;
    }
}

static bool value_matches(const struct value *v, const unsigned char *got, const unsigned char *want)
{
    int64_t g, w;
    bool got_nan, want_nan;

    if (v->any)
        return true;
    if (v->kind == V_INT)
        return memcmp(got, want, v->size) == 0;
    g = ordered(v, got, &got_nan);
    w = ordered(v, want, &want_nan);
    if (v->any_nan || got_nan)
        return v->any_nan && got_nan;
    /* The same bits, or within the tolerance (of one sign, so the difference cannot overflow). */
    return memcmp(got, want, v->size) == 0 ||
           (v->ulps && (g < 0) == (w < 0) && (uint64_t)(g > w ? g - w : w - g) <= v->ulps);
}

static void print_value(const struct value *v, const unsigned char *p)
{
    uint64_t u = 0;

    for (size_t i = 0; i < v->size; i++)
        u |= (uint64_t)p[i] << (8 * i);
    fprintf(stderr, "0x%0*" PRIx64, (int)(2 * v->size), u);
    if (v->kind == V_F32) {
        float f;

        memcpy(&f, p, 4);
        fprintf(stderr, " (%a = %.9g)", (double)f, (double)f);
    } else if (v->kind == V_F64) {
        double d;

        memcpy(&d, p, 8);
        fprintf(stderr, " (%a = %.17g)", d, d);
    }
}

/* Whether the known-failure list names the case ENTRY INPUTS: 1 by itself, 2 by a line ending in " *",
 * which names every case it starts; 0 if it does not. */
static int is_known(const char *entry, const char *inputs)
{
    char key[1200];

    snprintf(key, sizeof(key), "%s %s %s", family, entry, inputs);
    for (size_t k = 0; k < known_count; k++) {
        const char *p = known[k];
        size_t len = strlen(p);

        if (strcmp(p, key) == 0)
            return 1;
        if (len >= 2 && strcmp(p + len - 2, " *") == 0 && strncmp(key, p, len - 1) == 0)
            return 2;
    }
    return 0;
}

/* ---- The texture ---- */

/* The driver's functions the texture takes: its own exports (gpu_driver_get_symbol()). */
static struct {
    cuabi_result (*array_create)(cuabi_array *, const cuabi_array3d_descriptor *);
    cuabi_result (*array_destroy)(cuabi_array);
    cuabi_result (*copy)(const cuabi_memcpy3d *);
    cuabi_result (*tex_create)(cuabi_tex_object *, const cuabi_resource_desc *, const cuabi_texture_desc *,
                               const cuabi_resource_view_desc *);
    cuabi_result (*tex_destroy)(cuabi_tex_object);
    cuabi_result (*push)(cuabi_context);
    cuabi_result (*pop)(cuabi_context *);
} drv;

/* Fills drv and makes the context current on this thread; false when the driver lacks a function or refuses. */
static bool driver_enter(void)
{
    static const char *const names[] = {"cuArray3DCreate_v2", "cuArrayDestroy",      "cuMemcpy3D_v2",
                                        "cuTexObjectCreate",  "cuTexObjectDestroy", "cuCtxPushCurrent_v2",
                                        "cuCtxPopCurrent_v2"};
    void *f[sizeof(names) / sizeof(names[0])];

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (gpu_driver_get_symbol(names[i], &f[i]) != GPU_OK)
            return false;
    /* ISO C converts no object pointer to a function pointer: the addresses are copied. */
    memcpy(&drv.array_create, &f[0], sizeof(f[0]));
    memcpy(&drv.array_destroy, &f[1], sizeof(f[1]));
    memcpy(&drv.copy, &f[2], sizeof(f[2]));
    memcpy(&drv.tex_create, &f[3], sizeof(f[3]));
    memcpy(&drv.tex_destroy, &f[4], sizeof(f[4]));
    memcpy(&drv.push, &f[5], sizeof(f[5]));
    memcpy(&drv.pop, &f[6], sizeof(f[6]));
    return drv.push((cuabi_context)gpu_context_get_raw(context)) == 0;
}

/* Makes the context current as it was before driver_enter(); false when the driver refuses. */
static bool driver_leave(void)
{
    cuabi_context popped = NULL;

    return drv.pop(&popped) == 0;
}

/* Destroys the texture and its array, if any; false when the driver refuses. */
static bool texture_destroy(void)
{
    bool ok;

    if (!texture && !texture_array)
        return true;
    ok = driver_enter();
    if (ok && texture)
        ok = drv.tex_destroy(texture) == 0;
    if (ok && texture_array)
        ok = drv.array_destroy(texture_array) == 0;
    ok = driver_leave() && ok;
    texture = 0;
    texture_array = NULL;
    return ok;
}

/* Makes the texture of `texels` (f32 each) a "texture" line describes from `spec` on; false with a message. */
static bool texture_make(int line, const char *spec, const struct side *texels)
{
    cuabi_array3d_descriptor d = {.format = CUABI_AD_FORMAT_FLOAT, .channels = 1, .flags = CUABI_ARRAY3D_CUBEMAP};
    cuabi_memcpy3d c = {.src_type = CUABI_MEMORYTYPE_HOST, .dst_type = CUABI_MEMORYTYPE_ARRAY};
    cuabi_resource_desc r = {.type = CUABI_RESOURCE_TYPE_ARRAY};
    cuabi_texture_desc t = {.address_mode = {CUABI_TR_ADDRESS_MODE_CLAMP, CUABI_TR_ADDRESS_MODE_CLAMP,
                                             CUABI_TR_ADDRESS_MODE_CLAMP},
                            .flags = CUABI_TRSF_NORMALIZED_COORDINATES};
    unsigned width = 0, cubes = 1;
    int used = 0;
    bool ok;

    if (sscanf(spec, "acube %u %u :%n", &width, &cubes, &used) == 2 && used)
        d.flags |= CUABI_ARRAY3D_LAYERED;
    else
        (void)sscanf(spec, "cube %u :%n", &width, &used);
    if (!used || width == 0 || cubes == 0 || texels->n != (size_t)width * width * 6 * cubes ||
        texels->size != texels->n * 4) {
        fprintf(stderr, "%s:%d: not \"texture cube W : VALUES\" or \"texture acube W N : VALUES\" with W*W*6*N f32 values\n",
                where, line);
        return false;
    }
    if (!texture_destroy() || !driver_enter()) {
        fprintf(stderr, "%s:%d: the driver cannot make a texture\n", where, line);
        return false;
    }
    d.width = d.height = width;
    d.depth = (size_t)6 * cubes;
    c.src_host = texels->bytes;
    c.src_pitch = (size_t)width * 4;
    c.src_height = width;
    c.width = (size_t)width * 4;
    c.height = width;
    c.depth = d.depth;
    ok = drv.array_create(&texture_array, &d) == 0;
    c.dst_array = r.res.array.array = texture_array;
    ok = ok && drv.copy(&c) == 0 && drv.tex_create(&texture, &r, &t, NULL) == 0;
    ok = driver_leave() && ok;
    if (!ok)
        fprintf(stderr, "%s:%d: the driver refused the texture\n", where, line);
    return ok;
}

/* Runs one case; a mismatch or a failed launch is printed. Returns whether it passed. */
static bool run_case(int line, const char *entry, unsigned grid, unsigned block, const struct side *in,
                     const struct side *want, const char *inputs)
{
    static unsigned char got[MAX_BYTES];
    gpu_context *ctx = context;
    gpu_buffer *bin = NULL, *bout = NULL;
    gpu_launch_config c = gpu_launch_config_1d(grid, block);
    gpu_status st = GPU_ERR_MODULE_LOAD;
    bool ok = false;

    if (module && (st = gpu_buffer_create(ctx, in->size ? in->size : 4, &bin)) == GPU_OK &&
        (st = gpu_buffer_create(ctx, want->size, &bout)) == GPU_OK &&
        (in->size == 0 || (st = gpu_buffer_copy_from_host(bin, in->bytes, in->size)) == GPU_OK) &&
        (st = gpu_buffer_memset_async(bout, 0, want->size, 1, 0, stream)) == GPU_OK) {
        uint64_t pin = gpu_buffer_get_device_ptr(bin), pout = gpu_buffer_get_device_ptr(bout);
        void *args[] = {&pin, &pout, &texture};

        st = gpu_stream_launch_kernel(stream, module, entry, &c, args);
        if (st == GPU_OK)
            st = gpu_stream_synchronize(stream);
        if (st == GPU_OK)
            st = gpu_buffer_copy_to_host(bout, got, want->size);
    }
    if (st != GPU_OK) {
        fprintf(stderr, "%s:%d: %s (%s): %s: %s\n", where, line, entry, inputs, gpu_status_get_name(st),
                module ? gpu_last_error_get_message() : "the module did not load");
    } else {
        ok = true;
        for (size_t i = 0; i < want->n; i++) {
            const struct value *v = &want->v[i];

            if (value_matches(v, got + v->at, want->bytes + v->at))
                continue;
            fprintf(stderr, "%s:%d: %s (%s): output %zu (byte %zu): got ", where, line, entry, inputs, i, v->at);
            print_value(v, got + v->at);
            fprintf(stderr, ", want ");
            print_value(v, want->bytes + v->at);
            fputc('\n', stderr);
            ok = false;
        }
    }
    /* The fill may still be queued when the launch fails: the buffers outlive it. */
    (void)gpu_stream_synchronize(stream);
    gpu_buffer_destroy(bin);
    gpu_buffer_destroy(bout);
    return ok;
}

/* Splits line `text` into a case and runs it; false on a malformed line. */
static bool run_line(int line, char *text)
{
    static struct side in, want;
    char entry[128], inputs[1024] = "", *colon, *arrow, *tok, *save = NULL;
    unsigned grid, block;
    int used = 0;
    bool ok;
    int listed;

    colon = strchr(text, ':');
    while (colon && colon > text && colon[-1] != ' ')
        colon = strchr(colon + 1, ':');
    if (strncmp(text, "texture ", 8) == 0 && colon) {
        in.n = in.size = 0;
        for (tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
            if (!parse_value(&in, tok, line))
                return false;
        return texture_make(line, text + 8, &in);
    }
    arrow = strstr(text, "->");
    if (!colon || !arrow || arrow < colon || sscanf(text, "%127s %u %u %n", entry, &grid, &block, &used) != 3 ||
        text + used != colon) {
        fprintf(stderr, "%s:%d: not ENTRY GRID BLOCK : INPUT... -> OUTPUT...\n", where, line);
        return false;
    }
    *arrow = '\0';
    in.n = in.size = want.n = want.size = 0;
    for (tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (!parse_value(&in, tok, line))
            return false;
        if (inputs[0])
            strncat(inputs, " ", sizeof(inputs) - strlen(inputs) - 1);
        strncat(inputs, tok, sizeof(inputs) - strlen(inputs) - 1);
    }
    for (tok = strtok_r(arrow + 2, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
        if (!parse_value(&want, tok, line))
            return false;
    if (want.n == 0) {
        fprintf(stderr, "%s:%d: no expected value\n", where, line);
        return false;
    }
    ok = run_case(line, entry, grid, block, &in, &want, inputs);
    listed = is_known(entry, inputs);
    if (ok && listed != 1) {
        passed++;
    } else if (!ok && listed) {
        known_failed++;
        fprintf(stderr, "  (a known failure)\n");
    } else if (ok) {
        fprintf(stderr, "%s:%d: passes: remove \"%s %s %s\" from the known failures\n", where, line, family,
                entry, inputs);
        failed++;
    } else {
        fprintf(stderr, "  (its known-failures line: %s %s %s)\n", family, entry, inputs);
        failed++;
    }
    return true;
}

int main(int argc, char **argv)
{
    char *line = NULL;
    const char *slash, *dot;
    static char name[256];
    gpu_context *ctx = NULL;
    size_t cap = 0;
    ssize_t len;
    int count = 0, lineno = 0;
    bool bad = false;
    FILE *expect;

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s FAMILY.ptx FAMILY.expect [KNOWN_FAILURES]\n", argv[0]);
        return 2;
    }
    slash = strrchr(argv[1], '/');
    snprintf(name, sizeof(name), "%s", slash ? slash + 1 : argv[1]);
    if ((dot = strrchr(name, '.')))
        name[dot - name] = '\0';
    family = name;
    where = (slash = strrchr(argv[2], '/')) ? slash + 1 : argv[2];
    if (argc == 4 && !(known = read_lines(argv[3], &known_count))) {
        fprintf(stderr, "cannot read %s\n", argv[3]);
        return 1;
    }
    if (!(expect = fopen(argv[2], "r"))) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 1;
    }
    if (gpu_device_get_count(&count) != GPU_OK || count < 1 || gpu_context_retain_primary(0, &ctx) != GPU_OK) {
        printf("SKIP: no device: %s\n", gpu_last_error_get_message());
        return SKIP;
    }
    context = ctx;
    if (gpu_stream_create(ctx, &stream) != GPU_OK) {
        fprintf(stderr, "%s: no stream: %s\n", family, gpu_last_error_get_message());
        gpu_context_destroy(ctx);
        return 1;
    }
    if (gpu_module_load_file(ctx, argv[1], &module) != GPU_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], gpu_last_error_get_message());
        module = NULL;
    }
    while ((len = getline(&line, &cap, expect)) >= 0) {
        char *text = line, *hash;

        lineno++;
        if ((hash = strchr(text, '#')))
            *hash = '\0';
        text[strcspn(text, "\n")] = '\0';
        while (*text && isspace((unsigned char)*text))
            text++;
        if (*text && !run_line(lineno, text))
            bad = true;
    }
    if (!texture_destroy()) {
        fprintf(stderr, "%s: the driver did not destroy the texture\n", family);
        bad = true;
    }
    printf("%s: %d passed, %d failed, %d known failures\n", family, passed, failed, known_failed);
    gpu_module_destroy(module);
    gpu_stream_destroy(stream);
    gpu_context_destroy(ctx);
    free(line);
    fclose(expect);
    for (size_t k = 0; k < known_count; k++)
        free(known[k]);
    free(known);
    return bad || failed || passed + known_failed == 0 ? 1 : 0;
}
