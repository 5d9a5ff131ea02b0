/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's module reader: PTX as nvcc and NVRTC emit it, the
 * fake's own lines (.fake_kernel, .fake_global, .fake_entry), and fatbins
 * that carry PTX, zstd-compressed or not, and nvcc's wrappers of them. The
 * containers are read here; the PTX only by the interpreter's decoder
 * (ptx/ptx.h), whose entries with their parameter layouts and whose .global
 * and .const variables with their initial bytes become the module's
 * functions and globals. Nothing is compiled.
 *
 * A container is read within the size its caller gives (a file's, a link
 * input's) or, where the API gives none, within what its own header
 * declares; a wrapper's pointer is followed only in the caller's memory
 * (FAKE_IMAGE_CALLER), never in a file's bytes; and the PTX taken out of a
 * container is read as PTX only, never as another container.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_builtin.h"
#include "fake_context.h"
#include "fake_core.h"
#include "fake_image.h"
#include "fake_memory.h"
#include "fake_module.h"
#include "ptx/ptx.h"

enum {
    FATBIN_KIND_PTX = 1,
    FATBIN_COMPRESSED = 0x8000, /* in an entry's flags: zstd, nvcc's default */
    FATBIN_COMPRESSED_OTHER = 0x2000, /* nvcc --compress-mode=speed: a format not published */
};

struct reader {
    struct fake_module *m;
    const struct fake_image_sink *sink; /* what the module does with what is read */
    char *log;
    size_t log_size;
    cuabi_result rc; /* the first error; the log says why */
    struct ptx_module *ptx; /* the text as the interpreter's decoder read it */
    unsigned max_regs; /* .fake_max_registers's, or 0 */
};

/* Records the first error: the log says where and what. Returns false, for `return fail(...)`. */
static bool fail(struct reader *r, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(struct reader *r, unsigned line, const char *fmt, ...)
{
    char detail[160];
    va_list ap;

    if (r->rc == CUABI_SUCCESS) {
        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
        snprintf(r->log, r->log_size, "fake ptxas: line %u: %s", line, detail);
        r->rc = CUABI_ERROR_INVALID_PTX;
    }
    return false;
}

/* ---- Entries ---- */

void fake_layout_free(struct fake_layout *l)
{
    if (!l)
        return;
    free(l->name);
    free(l->size);
    free(l->align);
    free(l->offset);
    ptx_module_release(l->ptx);
    free(l);
}

static struct fake_layout *layout_new(const char *name, size_t len)
{
    struct fake_layout *l = calloc(1, sizeof(*l));

    if (l && !(l->name = strndup(name, len))) {
        free(l);
        l = NULL;
    }
    return l;
}

/* Appends a parameter of `size` bytes aligned to `align`; false past FAKE_PARAM_BYTES_MAX or out of memory. */
static bool layout_add(struct fake_layout *l, size_t size, size_t align, bool *too_big)
{
    size_t offset = (l->bytes + align - 1) / align * align;
    size_t *s, *a, *o;

    *too_big = offset > FAKE_PARAM_BYTES_MAX || size > FAKE_PARAM_BYTES_MAX - offset;
    if (*too_big)
        return false;
    s = realloc(l->size, (l->count + 1) * sizeof(*s));
    if (s)
        l->size = s;
    a = s ? realloc(l->align, (l->count + 1) * sizeof(*a)) : NULL;
    if (a)
        l->align = a;
    o = a ? realloc(l->offset, (l->count + 1) * sizeof(*o)) : NULL;
    if (!o)
        return false;
    l->offset = o;
    l->size[l->count] = size;
    l->align[l->count] = align;
    l->offset[l->count] = offset;
    l->count++;
    l->bytes = offset + size;
    return true;
}

static bool add_param(struct reader *r, struct fake_layout *l, size_t size, size_t align, unsigned line)
{
    bool too_big = false;

    if (layout_add(l, size, align, &too_big))
        return true;
    if (too_big)
        return fail(r, line, "more than 4096 bytes of parameters in \"%.*s\"", (int)strlen(l->name), l->name);
    r->rc = CUABI_ERROR_OUT_OF_MEMORY;
    return false;
}

static bool add_entry(struct reader *r, struct fake_layout *l, unsigned line)
{
    cuabi_result rc;

    ptx_module_retain(l->ptx = r->ptx);
    rc = r->sink->add_entry(r->m, l, line, r->log, r->log_size);

    if (rc != CUABI_SUCCESS && r->rc == CUABI_SUCCESS)
        r->rc = rc;
    return rc == CUABI_SUCCESS;
}

/*
 * Entry `e` as the interpreter's decoder read it, into a layout: its
 * parameters and bounds are the decoder's, so that what a launch copies is
 * what the kernel reads.
 */
static struct fake_layout *entry_layout(struct reader *r, const struct ptx_entry_info *e)
{
    struct fake_layout *l = layout_new(e->name, strlen(e->name));

    if (l) {
        l->count = e->nparams;
        l->bytes = e->param_bytes;
        l->max_threads = e->max_threads;
    }
    if (l && e->nparams &&
        (!(l->size = calloc(e->nparams, sizeof(*l->size))) || !(l->align = calloc(e->nparams, sizeof(*l->align))) ||
         !(l->offset = calloc(e->nparams, sizeof(*l->offset))))) {
        fake_layout_free(l);
        l = NULL;
    }
    if (!l) {
        r->rc = CUABI_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    for (unsigned k = 0; k < e->nparams; k++)
        ptx_entry_param(r->ptx, e, k, &l->offset[k], &l->size[k], &l->align[k]);
    return l;
}

/* Entry `e` of the decoder's: a function of the module, or the reason its header could not be read. */
static bool read_entry(struct reader *r, const struct ptx_entry_info *e)
{
    struct fake_layout *l;

    if (e->error) {
        snprintf(r->log, r->log_size, "fake ptxas: %s", e->error);
        r->rc = CUABI_ERROR_INVALID_PTX;
        return false;
    }
    return (l = entry_layout(r, e)) && add_entry(r, l, e->line);
}

/* `.fake_entry NAME SIZE[:ALIGN]...`: an entry with parameters of those sizes, for tests. */
static bool read_fake_entry(struct reader *r, const char *text, size_t len, unsigned line)
{
    size_t i = 0, name_len;
    struct fake_layout *l;

    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    text += i;
    len -= i;
    for (name_len = 0; name_len < len && text[name_len] != ' ' && text[name_len] != '\t'; name_len++)
        ;
    if (name_len == 0)
        return fail(r, line, ".fake_entry wants a name and parameter sizes");
    if (!(l = layout_new(text, name_len))) {
        r->rc = CUABI_ERROR_OUT_OF_MEMORY;
        return false;
    }
    for (i = name_len; i < len;) {
        size_t size = 0, align = 0, digits = 0;

        if (text[i] == ' ' || text[i] == '\t') {
            i++;
            continue;
        }
        for (; i < len && text[i] >= '0' && text[i] <= '9' && size <= FAKE_PARAM_BYTES_MAX; i++, digits++)
            size = size * 10 + (size_t)(text[i] - '0');
        if (i < len && text[i] == ':')
            for (i++; i < len && text[i] >= '0' && text[i] <= '9' && align <= 4096; i++)
                align = align * 10 + (size_t)(text[i] - '0');
        else
            for (align = 8; size % align; align /= 2) /* the largest power of two dividing the size, up to 8 */
                ;
        if (digits == 0 || size == 0 || align == 0 || (align & (align - 1)) ||
            (i < len && text[i] != ' ' && text[i] != '\t')) {
            fake_layout_free(l);
            return fail(r, line, ".fake_entry: bad parameter size in \"%.*s\"", (int)len, text);
        }
        if (!add_param(r, l, size, align, line)) {
            fake_layout_free(l);
            return false;
        }
    }
    return add_entry(r, l, line);
}

/* ---- Variables ---- */

/* Allocates variable `g` of the module, with its initial bytes; false with the reason. */
static bool declare_global(struct reader *r, const struct ptx_global_info *g)
{
    size_t len = strlen(g->name), size = len + 24;
    struct fake_alloc *a = NULL;
    cuabi_result rc;
    char *text;

    if (len > PTX_NAME_MAX)
        return fail(r, g->line, "a global's name is longer than %u characters: \"%.64s...\"", PTX_NAME_MAX, g->name);
    if (!(text = malloc(size))) {
        r->rc = CUABI_ERROR_OUT_OF_MEMORY;
        return false;
    }
    snprintf(text, size, "%s %zu", g->name, g->size);
    rc = r->sink->declare_global(r->m, text, strlen(text), r->log, r->log_size, &a);
    free(text);
    if (rc != CUABI_SUCCESS) {
        r->rc = rc;
        return false;
    }
    if (a) {
        ptx_module_bind_global(r->ptx, g->name, len, a->addr);
        if (g->init)
            memcpy(a->data, g->init, g->init_len < a->size ? g->init_len : a->size);
    }
    if (g->constant)
        r->m->const_bytes += g->size;
    return true;
}

/* ---- The module ---- */

/* Whether the line's directive, its first `dlen` bytes, is `word`. */
static bool directive_is(const char *text, size_t dlen, const char *word)
{
    return dlen == strlen(word) && memcmp(text, word, dlen) == 0;
}

/* A `.fake_*` line: the directive, then its text to the end of the line. */
static bool read_fake_line(struct reader *r, const struct ptx_fake_line *f)
{
    size_t dlen = strcspn(f->text, " \t"), len;
    const char *text = f->text + dlen;
    cuabi_result rc = CUABI_SUCCESS;

    len = strlen(text);
    while (len && (text[len - 1] == ' ' || text[len - 1] == '\t' || text[len - 1] == '\r'))
        len--;
    if (directive_is(f->text, dlen, ".fake_entry"))
        return read_fake_entry(r, text, len, f->line);
    if (directive_is(f->text, dlen, ".fake_max_registers")) {
        /* What a link's CU_JIT_MAX_REGISTERS leaves in its image: at most 255 registers a thread. */
        char *end;
        unsigned long n = strtoul(text, &end, 10);

        if (end == text || end > text + len || n == 0 || n > 255)
            return fail(r, f->line, ".fake_max_registers wants 1 to 255");
        r->max_regs = (unsigned)n;
        return true;
    }
    while (len && (*text == ' ' || *text == '\t')) {
        text++;
        len--;
    }
    if (directive_is(f->text, dlen, ".fake_kernel"))
        rc = r->sink->add_builtin(r->m, text, len, f->line, r->log, r->log_size);
    else if (directive_is(f->text, dlen, ".fake_global"))
        rc = r->sink->declare_global(r->m, text, len, r->log, r->log_size, NULL);
    else
        return fail(r, f->line, "unexpected \"%.*s\"", (int)(dlen < 80 ? dlen : 80), f->text);
    if (rc != CUABI_SUCCESS)
        r->rc = rc;
    return rc == CUABI_SUCCESS;
}

/*
 * The module as the decoder read its text: its `.fake_*` lines, variables
 * and entries, each kind in text order and the three merged by line, so
 * that a name defined twice is reported where it is defined again.
 */
static cuabi_result read_text(const char *text, struct fake_module *m, const struct fake_image_sink *sink, char *log,
                              size_t log_size)
{
    struct reader r = {m, sink, log, log_size, CUABI_SUCCESS, ptx_module_decode(text), 0};
    struct ptx_entry_info e;
    struct ptx_global_info g;
    const struct ptx_fake_line *f;
    size_t ei = 0, gi = 0, fi = 0;
    bool has_e, has_g;

    if (!r.ptx)
        return CUABI_ERROR_OUT_OF_MEMORY;
    /* What the interpreter's decoder refuses, the module refuses: nothing half read can run. */
    if (ptx_module_error(r.ptx)) {
        snprintf(log, log_size, "fake ptxas: %s", ptx_module_error(r.ptx));
        ptx_module_release(r.ptx);
        return CUABI_ERROR_INVALID_PTX;
    }
    has_e = ptx_module_entry_next(r.ptx, &ei, &e);
    has_g = ptx_module_global(r.ptx, &gi, &g);
    f = ptx_module_fake_line(r.ptx, fi);
    while (r.rc == CUABI_SUCCESS && (has_e || has_g || f)) {
        unsigned le = has_e ? e.line : UINT_MAX, lg = has_g ? g.line : UINT_MAX, lf = f ? f->line : UINT_MAX;

        if (f && lf <= le && lf <= lg) {
            read_fake_line(&r, f);
            f = ptx_module_fake_line(r.ptx, ++fi);
        } else if (has_g && lg <= le) {
            if (g.defined && g.size > 0)
                declare_global(&r, &g);
            gi++;
            has_g = ptx_module_global(r.ptx, &gi, &g);
        } else {
            read_entry(&r, &e);
            ei++;
            has_e = ptx_module_entry_next(r.ptx, &ei, &e);
        }
    }
    if (r.rc == CUABI_SUCCESS) {
        m->ptx_version = ptx_module_arch(r.ptx);
        sink->max_registers(m, r.max_regs);
    }
    ptx_module_release(r.ptx);
    return r.rc;
}

/* ---- Images ---- */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
    return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static cuabi_result not_supported(char *log, size_t log_size, const char *what)
{
    snprintf(log, log_size, "not supported by the fake: %s", what);
    return CUABI_ERROR_NOT_SUPPORTED;
}

/* What to do about machine code: the fake runs kernels from their PTX only. */
#define PTX_FLAGS \
    "; the fake runs kernels from PTX: embed it with nvcc -gencode arch=compute_XX,code=compute_XX (e.g. " \
    "arch=compute_90,code=compute_90, beside your code=sm_XX), or load the PTX (nvcc -ptx)"

static cuabi_result invalid_image(char *log, size_t log_size, const char *what)
{
    snprintf(log, log_size, "an invalid fatbin: %s", what);
    return CUABI_ERROR_INVALID_IMAGE;
}

/* The device whose PTX a load picks: the current context's, else the first. */
static int device_arch(void)
{
    struct fake_ctx *c = fake_current();
    int d = c ? c->device : 0;

    if (d < 0 || d >= fake.device_count)
        return 0;
    return fake.devices[d].desc.compute_major * 10 + fake.devices[d].desc.compute_minor;
}

typedef size_t (*zstd_decompress_fn)(void *, size_t, const void *, size_t);
typedef unsigned (*zstd_is_error_fn)(size_t);
typedef unsigned long long (*zstd_content_size_fn)(const void *, size_t);

enum { ZSTD_SIZE_UNKNOWN = -1 }; /* ZSTD_getFrameContentSize's answer for a frame that does not say */

/*
 * A compressed entry's payload is a zstd frame (RFC 8878) of `packed`
 * bytes that holds `size` bytes of PTX. libzstd is loaded here, at the
 * first need, so that nothing else depends on it.
 */
static cuabi_result unzstd(const unsigned char *src, uint64_t packed, uint64_t size, char **out, char *log,
                           size_t log_size)
{
    void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    zstd_decompress_fn decompress;
    zstd_is_error_fn is_error;
    zstd_content_size_fn content_size;
    unsigned long long said;
    cuabi_result rc = CUABI_SUCCESS;
    char *text;
    size_t got;

    if (!lib)
        return not_supported(log, log_size,
                             "this fatbin's PTX is compressed with zstd and libzstd.so.1 is not installed; install "
                             "it, or build with nvcc --no-compress (-compress-mode=none)");
    *(void **)&decompress = dlsym(lib, "ZSTD_decompress");
    *(void **)&is_error = dlsym(lib, "ZSTD_isError");
    if (!decompress || !is_error) {
        dlclose(lib);
        return not_supported(log, log_size, "libzstd.so.1 lacks ZSTD_decompress");
    }
    /* A frame that says its size is held to the header's before the memory for it is taken. */
    *(void **)&content_size = dlsym(lib, "ZSTD_getFrameContentSize");
    if (content_size && (said = content_size(src, (size_t)packed)) != (unsigned long long)ZSTD_SIZE_UNKNOWN &&
        said != size) {
        dlclose(lib);
        return invalid_image(log, log_size, "its compressed PTX does not decompress to the size its header says");
    }
    if (!(text = malloc((size_t)size + 1))) {
        dlclose(lib);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    got = decompress(text, (size_t)size, src, (size_t)packed);
    if (is_error(got) || got != size) {
        free(text);
        rc = invalid_image(log, log_size, "its compressed PTX does not decompress to the size its header says");
    } else {
        text[size] = '\0';
        *out = text;
    }
    dlclose(lib);
    return rc;
}

/* A fatbin's or an entry's bytes whose size the caller does not know: what its own headers say bounds it. */
#define UNSIZED FAKE_IMAGE_UNSIZED

/*
 * A fatbin of `size` bytes (UNSIZED: as many as its header says): a 16-byte
 * header (magic, version, header size, then the bytes of entries that
 * follow), then entries, each a header (kind at 0, its size at 4, the
 * payload's size at 8, the compressed bytes at 16, the arch at 28, flags at
 * 40, the uncompressed size at 56) followed by its payload. Copies into *out
 * the PTX of the highest compute_XX the device runs; else says why there is
 * none. Every offset stays inside both the size the header declares and
 * `size`; nothing in it is followed as a pointer.
 */
static cuabi_result fatbin_ptx(const unsigned char *fb, size_t size, char **out, char *log, size_t log_size)
{
    uint64_t total, at, end;
    const unsigned char *best = NULL;
    uint32_t best_arch = 0, above = 0;
    int arch = device_arch();

    if (size < 16) {
        snprintf(log, log_size, "a fatbin of %zu bytes, shorter than its 16-byte header", size);
        return CUABI_ERROR_INVALID_IMAGE;
    }
    total = le64(fb + 8);
    at = le32(fb + 4) >> 16;
    if (at < 16 || total > (1ull << 32))
        return not_supported(log, log_size, "this fatbin's header is not one the fake reads; load PTX");
    end = 16 + total;
    if (size != UNSIZED && end > size) {
        snprintf(log, log_size, "a fatbin of %zu bytes whose header says it has %llu", size, (unsigned long long)end);
        return CUABI_ERROR_INVALID_IMAGE;
    }
    while (at + 48 <= end) {
        const unsigned char *e = fb + at;
        uint32_t header = le32(e + 4);
        uint64_t bytes = le64(e + 8);

        if (header < 48 || bytes > total || at + header + bytes > end)
            return invalid_image(log, log_size, "an entry's sizes point past the fatbin's end");
        if ((le32(e) & 0xffff) == FATBIN_KIND_PTX) {
            uint32_t a = le32(e + 28);

            if (a > (uint32_t)arch)
                above = a;
            else if (!best || a > best_arch) {
                best = e;
                best_arch = a;
            }
        }
        at += header + bytes;
    }
    if (best) {
        uint32_t header = le32(best + 4);
        uint64_t bytes = le64(best + 8);
        const unsigned char *data = best + header;

        if (le64(best + 40) & FATBIN_COMPRESSED_OTHER)
            return not_supported(log, log_size,
                                 "this fatbin's PTX is compressed in a format that is not published (nvcc "
                                 "--compress-mode=speed); build it with nvcc --compress-mode=default or --no-compress");
        if (!(le64(best + 40) & FATBIN_COMPRESSED)) {
            *out = strndup((const char *)data, (size_t)bytes);
            return *out ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
        }
        if (header < 64 || !le32(best + 16) || le32(best + 16) > bytes || le64(best + 56) > (1ull << 30))
            return invalid_image(log, log_size, "a compressed entry's sizes are out of range");
        return unzstd(data, le32(best + 16), le64(best + 56), out, log, log_size);
    }
    if (above) {
        snprintf(log, log_size,
                 "this fatbin's PTX is for compute_%u, above the device's compute capability %d.%d; embed PTX for "
                 "it with nvcc -gencode arch=compute_XX,code=compute_XX",
                 above, arch / 10, arch % 10);
        return CUABI_ERROR_NO_BINARY_FOR_GPU;
    }
    snprintf(log, log_size, "a fatbin without PTX has only machine code" PTX_FLAGS);
    return CUABI_ERROR_NO_BINARY_FOR_GPU;
}

/*
 * Whether the image's first four bytes are `magic`, read one by one while
 * they match: a text shorter than four bytes ends (its NUL, or `size`)
 * before a byte that would lie past it is read.
 */
static bool magic_is(const unsigned char *b, size_t size, const unsigned char magic[4])
{
    for (size_t i = 0; i < 4; i++)
        if (i >= size || b[i] != magic[i])
            return false;
    return true;
}

static const unsigned char elf_magic[4] = {0x7f, 'E', 'L', 'F'};
static const unsigned char fatbin_magic[4] = {0x50, 0xed, 0x55, 0xba};
/* nvcc's __fatBinC_Wrapper_t (0x466243b1, little-endian): a 32-bit magic, a version, then a pointer to the fatbin. */
static const unsigned char wrapper_magic[4] = {0xb1, 0x43, 0x62, 0x46};

cuabi_result fake_image_ptx(const void *image, size_t size, enum fake_image_source from, char **out, char *log,
                            size_t log_size)
{
    const unsigned char *b = image, *fb;

    if (magic_is(b, size, elf_magic))
        return not_supported(log, log_size, "a cubin has no PTX, only machine code" PTX_FLAGS);
    if (magic_is(b, size, wrapper_magic)) {
        /* A pointer is followed only where the caller passes its own memory, which the wrapper points into. */
        if (from != FAKE_IMAGE_CALLER)
            return invalid_image(log, log_size,
                                 "a fatbin wrapper (__fatBinC_Wrapper_t) holds a pointer into the memory of the "
                                 "process that made it, not a fatbin; pass the fatbin itself (nvcc -fatbin)");
        if (size < 16)
            return invalid_image(log, log_size, "a fatbin wrapper (__fatBinC_Wrapper_t) shorter than 16 bytes");
        memcpy(&fb, b + 8, sizeof(fb));
        if (!fb || !magic_is(fb, UNSIZED, fatbin_magic))
            return invalid_image(log, log_size, "a fatbin wrapper (__fatBinC_Wrapper_t) whose data is not a fatbin");
        return fatbin_ptx(fb, UNSIZED, out, log, log_size);
    }
    if (magic_is(b, size, fatbin_magic))
        return fatbin_ptx(b, size, out, log, log_size);
    /* PTX: to its NUL, or its size. */
    *out = strndup((const char *)b, size);
    return *out ? CUABI_SUCCESS : CUABI_ERROR_OUT_OF_MEMORY;
}

cuabi_result fake_image_load(const char *ptx, struct fake_module *m, const struct fake_image_sink *sink, char *log,
                             size_t log_size)
{
    return read_text(ptx, m, sink, log, log_size);
}
