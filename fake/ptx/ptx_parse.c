/* SPDX-License-Identifier: MIT */
/*
 * The PTX decoder: turns a module's text into the interpreter's form once,
 * when the module loads. Every function becomes a range of one array of
 * instructions whose operands are resolved: registers to indices in a
 * register file, labels to instruction indices, variables to symbols with
 * their space and offset, immediates to bits of the instruction's type.
 * Nothing is parsed again while kernels run.
 *
 * A function with an instruction the decoder does not understand keeps the
 * reason (instruction, function, line); only a launch of it fails, with that
 * message. The rest of the module runs. What no function could be read past
 * (text that ends inside a body, blocks nested too deep), a call to an entry
 * and a size over its cap (ptx_internal.h) refuse the whole module instead:
 * every function the decoder keeps is either read to its end or kept with
 * its reason, never half read.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

const struct ptx_type_info ptx_types[T_COUNT] = {
    [T_NONE] = {"", 0, K_BITS},        [T_B8] = {"b8", 1, K_BITS},       [T_B16] = {"b16", 2, K_BITS},
    [T_B32] = {"b32", 4, K_BITS},      [T_B64] = {"b64", 8, K_BITS},     [T_B128] = {"b128", 16, K_BITS},
    [T_U8] = {"u8", 1, K_UNSIGNED},    [T_U16] = {"u16", 2, K_UNSIGNED}, [T_U32] = {"u32", 4, K_UNSIGNED},
    [T_U64] = {"u64", 8, K_UNSIGNED},  [T_S8] = {"s8", 1, K_SIGNED},     [T_S16] = {"s16", 2, K_SIGNED},
    [T_S32] = {"s32", 4, K_SIGNED},    [T_S64] = {"s64", 8, K_SIGNED},   [T_F16] = {"f16", 2, K_FLOAT},
    [T_F16X2] = {"f16x2", 4, K_FLOAT}, [T_BF16] = {"bf16", 2, K_FLOAT},  [T_BF16X2] = {"bf16x2", 4, K_FLOAT},
    [T_F32] = {"f32", 4, K_FLOAT},     [T_F64] = {"f64", 8, K_FLOAT},    [T_PRED] = {"pred", 1, K_PRED},
};

static const char *const sreg_names[R_COUNT] = {
    "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
    "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
    "%clock", "%clock64", "%globaltimer", "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt",
    "%lanemask_ge", "%dynamic_smem_size", "%total_smem_size", "%cluster_nctarank", "%cluster_ctarank",
    "%clusterid.x", "%clusterid.y", "%clusterid.z", "%nclusterid.x", "%nclusterid.y", "%nclusterid.z",
    "%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z", "%cluster_nctaid.x", "%cluster_nctaid.y",
    "%cluster_nctaid.z", "%is_explicit_cluster", "%envreg1", "%envreg2",
};

/* A name in scope: a register, a range of them (%r<10>), or a symbol. */
enum { N_REG, N_RANGE, N_SYM };
struct name {
    const char *s;
    size_t len;
    int kind;
    uint32_t index, count;
    unsigned char size;
    int32_t prev; /* the name it shadows: the scope's entry before it with the same key, or -1 */
};

/*
 * A scope's names, a stack (inner blocks push, their end pops), and a hash
 * map from each key (a name, or a range's prefix) to its newest entry.
 */
struct map_slot {
    const char *s;
    uint32_t len;
    bool range;
    int32_t top; /* the newest entry with this key, or -1: none now */
};
struct scope {
    struct name *v;
    size_t n, cap;
    struct map_slot *map;
    size_t map_cap, map_used;
};

struct label {
    const char *s;
    size_t len;
    int32_t at; /* instruction index, -1 until defined */
};

struct fixup {
    uint32_t inst;
    const char *s;
    size_t len;
    bool call;
};

struct decoder {
    const char *p;
    unsigned line;
    struct ptx_module *m;
    bool oom;
    size_t cap_code, cap_funcs, cap_syms, cap_calls, cap_consts, cap_call_syms, cap_params;
    /* Module scope: globals, shared variables, a function's parameters while it is read. */
    struct scope global;
    /* Function scope, with a stack of marks for { } blocks. */
    struct scope local;
    size_t marks[64];
    unsigned depth;
    struct label *labels;
    size_t nlabels, cap_labels;
    struct fixup *fixups;
    size_t nfixups, cap_fixups;
    struct ptx_function *f; /* being decoded */
    size_t fi;
    uint32_t frame;         /* the frame's size so far */
    int32_t sink;           /* the function's register for `_`, or -1 */
    unsigned open_comment;  /* the line of a comment the text ends inside, or 0 */
    unsigned open_string;   /* the line of a string that does not end on it, or 0 */
    size_t cap_fake_lines;
    unsigned input;         /* the .version directives read: a link's inputs each begin at theirs */
    char err[200];          /* the first error in the function */
    char fatal[256];        /* why the module is refused, or empty */
};

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap ? *cap : 16;
    void *q;

    if (need <= *cap)
        return true;
    while (n < need)
        n *= 2;
    if (!(q = realloc(*p, n * elem)))
        return false;
    *p = q;
    *cap = n;
    return true;
}
#define GROW(d, arr, cap, need) (grow((void **)&(arr), &(cap), (need), sizeof(*(arr))) || ((d)->oom = true, false))

/* "PTX line N: " and the formatted reason into `out`, unless it holds one already. */
static void reason(char *out, size_t size, unsigned line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void reason(char *out, size_t size, unsigned line, const char *fmt, va_list ap)
{
    char what[150];

    if (out[0])
        return;
    vsnprintf(what, sizeof(what), fmt, ap);
    snprintf(out, size, "PTX line %u: %s", line, what);
}

/* The function's error: the first reason is kept. Returns false. */
static bool errf(struct decoder *d, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool errf(struct decoder *d, unsigned line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    reason(d->err, sizeof(d->err), line, fmt, ap);
    va_end(ap);
    return false;
}

/* Refuses the module: the first reason is kept; decoding stops. Returns false. */
static bool fatalf(struct decoder *d, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fatalf(struct decoder *d, unsigned line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    reason(d->fatal, sizeof(d->fatal), line, fmt, ap);
    va_end(ap);
    return false;
}

/* ---- Text ---- */

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '%' || c == '.';
}

static void skip_space(struct decoder *d)
{
    for (;;) {
        char c = *d->p;

        if (c == '\n') {
            d->line++;
            d->p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            d->p++;
        } else if (c == '/' && d->p[1] == '/') {
            d->p += strcspn(d->p, "\n");
        } else if (c == '/' && d->p[1] == '*') {
            unsigned start = d->line;

            for (d->p += 2; *d->p && !(d->p[0] == '*' && d->p[1] == '/'); d->p++)
                d->line += *d->p == '\n';
            if (*d->p)
                d->p += 2;
            else if (!d->open_comment)
                d->open_comment = start;
        } else {
            return;
        }
    }
}

static void skip_line(struct decoder *d)
{
    d->p += strcspn(d->p, "\n");
}

/* A word at p (letters, digits, _ $ % .), its length; 0 if none. */
static size_t word(struct decoder *d, const char **s)
{
    const char *q;

    skip_space(d);
    *s = d->p;
    for (q = d->p; word_char(*q); q++)
        ;
    d->p = q;
    return (size_t)(q - *s);
}

static bool is(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(s, w, len) == 0;
}

static bool accept(struct decoder *d, char c)
{
    skip_space(d);
    if (*d->p != c)
        return false;
    d->p++;
    return true;
}

/* Skips a string whose `"` is next: to its closing `"` or the end of its line, `\"` passed over. */
static void skip_string(struct decoder *d)
{
    for (d->p++; *d->p && *d->p != '"' && *d->p != '\n'; d->p++)
        d->p += d->p[0] == '\\' && d->p[1] && d->p[1] != '\n';
    if (*d->p == '"')
        d->p++;
    else if (!d->open_string)
        d->open_string = d->line;
}

static bool skip_block(struct decoder *d, bool open);

/*
 * Skips to the `;` ending a statement, bracketed parts passed over; with
 * `body`, a function's header (one bracket it left open counts as closed)
 * ends at a `;` or through the { } body that follows it. False at the end
 * of the text.
 */
static bool skip_statement(struct decoder *d, bool body)
{
    int depth = 0;

    for (;;) {
        skip_space(d);
        if (!*d->p)
            return false;
        if (*d->p == '"') {
            skip_string(d);
            continue;
        }
        if (*d->p == ';' && depth <= 0) {
            d->p++;
            return true;
        }
        if (body && *d->p == '{' && depth <= 0) {
            d->p++;
            return skip_block(d, true);
        }
        depth += *d->p == '(' || *d->p == '[' || *d->p == '{';
        depth -= *d->p == ')' || *d->p == ']' || *d->p == '}';
        d->p++;
    }
}

/* Skips a { } block whose { is next (or already read when `open`); false when the text ends inside it. */
static bool skip_block(struct decoder *d, bool open)
{
    int depth = open ? 1 : 0;

    if (!open && !accept(d, '{'))
        return true;
    if (!open)
        depth = 1;
    while (depth > 0) {
        skip_space(d);
        if (!*d->p)
            return false;
        if (*d->p == '"') {
            skip_string(d);
            continue;
        }
        depth += *d->p == '{';
        depth -= *d->p == '}';
        d->p++;
    }
    return true;
}

static bool parse_uint(const char *s, size_t len, unsigned long long *out)
{
    char buf[40];
    char *end;

    if (len == 0 || len >= sizeof(buf) || s[0] < '0' || s[0] > '9')
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *out = strtoull(buf, &end, 0);
    return *end == '\0' || (end[0] == 'U' && end[1] == '\0');
}

static enum ptx_type type_of(const char *s, size_t len)
{
    for (int t = T_B8; t < T_COUNT; t++)
        if (is(s, len, ptx_types[t].name))
            return (enum ptx_type)t;
    return T_NONE;
}

/* ---- Names ---- */

/* The slot of a key in a scope's map: the one holding it, else the empty one where it would go. */
static struct map_slot *scope_slot(const struct scope *sc, const char *s, size_t len, bool range)
{
    size_t mask = sc->map_cap - 1, i = ptx_name_hash(s, len) & mask;

    for (; sc->map[i].s; i = (i + 1) & mask)
        if (sc->map[i].range == range && sc->map[i].len == len && memcmp(sc->map[i].s, s, len) == 0)
            break;
    return &sc->map[i];
}

/* The newest entry of a key, or -1. */
static int32_t scope_top(const struct scope *sc, const char *s, size_t len, bool range)
{
    const struct map_slot *slot = sc->map_cap ? scope_slot(sc, s, len, range) : NULL;

    return slot && slot->s ? slot->top : -1;
}

static bool name_add(struct decoder *d, bool module, struct name n)
{
    struct scope *sc = module ? &d->global : &d->local;
    struct map_slot *slot;

    if (sc->n >= PTX_ITEMS_MAX)
        return fatalf(d, d->line, "more than %u names in one scope", PTX_ITEMS_MAX);
    if (!GROW(d, sc->v, sc->cap, sc->n + 1))
        return false;
    /* The map twice as large at half full, keys no entry holds left behind. */
    if ((sc->map_used + 1) * 2 > sc->map_cap) {
        struct map_slot *old = sc->map;
        size_t old_cap = sc->map_cap, cap = sc->map_cap ? sc->map_cap * 2 : 64;

        if (!(sc->map = calloc(cap, sizeof(*sc->map)))) {
            sc->map = old;
            return d->oom = true, false;
        }
        sc->map_cap = cap;
        sc->map_used = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].s && old[i].top >= 0) {
                *scope_slot(sc, old[i].s, old[i].len, old[i].range) = old[i];
                sc->map_used++;
            }
        free(old);
    }
    slot = scope_slot(sc, n.s, n.len, n.kind == N_RANGE);
    if (!slot->s) {
        *slot = (struct map_slot){n.s, (uint32_t)n.len, n.kind == N_RANGE, -1};
        sc->map_used++;
    }
    n.prev = slot->top;
    slot->top = (int32_t)sc->n;
    sc->v[sc->n++] = n;
    return true;
}

/* Leaves the scope's first `mark` entries: each key taken away points at what it shadowed. */
static void scope_pop(struct scope *sc, size_t mark)
{
    while (sc->n > mark) {
        const struct name *n = &sc->v[--sc->n];

        scope_slot(sc, n->s, n->len, n->kind == N_RANGE)->top = n->prev;
    }
}

static void scope_free(struct scope *sc)
{
    free(sc->v);
    free(sc->map);
}

/*
 * The newest entry of a scope that names `s`: the name itself, or a range
 * whose prefix is `s` without some of its trailing digits and whose count
 * holds the number they make (written without leading zeros); -1 if none.
 */
static int32_t scope_find(const struct scope *sc, const char *s, size_t len, uint32_t *index)
{
    int32_t best = scope_top(sc, s, len, false);
    size_t digits = 0;

    if (best >= 0)
        *index = sc->v[best].index;
    while (digits < len && s[len - 1 - digits] >= '0' && s[len - 1 - digits] <= '9')
        digits++;
    for (size_t j = len - digits; j < len; j++) {
        unsigned long long k;

        if (j == 0 || (s[j] == '0' && len != j + 1) || !parse_uint(s + j, len - j, &k))
            continue;
        for (int32_t r = scope_top(sc, s, j, true); r > best; r = sc->v[r].prev)
            if (k < sc->v[r].count) {
                best = r;
                *index = sc->v[r].index + (uint32_t)k;
                break;
            }
    }
    return best;
}

/* Looks a name up, innermost scope first: its entry, and for a range the register's index. */
static const struct name *name_find(const struct decoder *d, const char *s, size_t len, uint32_t *index)
{
    int32_t i = scope_find(&d->local, s, len, index);

    if (i >= 0)
        return &d->local.v[i];
    i = scope_find(&d->global, s, len, index);
    return i >= 0 ? &d->global.v[i] : NULL;
}

static int32_t sym_add(struct decoder *d, const char *s, size_t len, unsigned char space, uint64_t value, size_t size)
{
    struct ptx_symbol *sym;

    if (d->m->nsyms >= PTX_ITEMS_MAX)
        return fatalf(d, d->line, "more than %u variables in the module", PTX_ITEMS_MAX), -1;
    if (!GROW(d, d->m->syms, d->cap_syms, d->m->nsyms + 1))
        return -1;
    sym = &d->m->syms[d->m->nsyms];
    memset(sym, 0, sizeof(*sym));
    if (!(sym->name = strndup(s, len))) {
        d->oom = true;
        return -1;
    }
    sym->space = space;
    sym->value = value;
    sym->size = size;
    sym->bound = space != S_GLOBAL;
    return (int32_t)d->m->nsyms++;
}

static uint32_t align_up32(uint32_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

/*
 * A declaration after its space: [.align N] [.ptr...] .type name[dims] or
 * name<count>. Reads through the name and its dimensions; `;`, `,`, `=` are
 * left for the caller.
 */
struct decl {
    enum ptx_type type;
    unsigned align, vec;
    const char *name;
    size_t len;
    size_t elems;     /* product of the dimensions (0 for name[]) */
    bool open, range;
    unsigned count;   /* name<count> */
};

static bool read_decl(struct decoder *d, struct decl *x, const struct decl *prev)
{
    const char *s;
    size_t len;
    bool ptr = false;

    memset(x, 0, sizeof(*x));
    x->vec = 1;
    x->elems = 1;
    /* `.reg .f16 a, b;`: a name after a comma has the type of the one before. */
    skip_space(d);
    if (prev && *d->p != '.') {
        x->type = prev->type;
        x->align = prev->align;
        x->vec = prev->vec;
    }
    for (;;) {
        skip_space(d);
        if (*d->p != '.')
            break;
        len = word(d, &s);
        if (is(s, len, ".align")) {
            unsigned long long a;
            const char *n;
            size_t nl = word(d, &n);

            if (!parse_uint(n, nl, &a) || a > 4096)
                return errf(d, d->line, "bad .align");
            /* After .ptr, .align is the pointee's: the parameter keeps its type's. */
            if (!ptr)
                x->align = (unsigned)a;
        } else if (is(s, len, ".v2") || is(s, len, ".v4") || is(s, len, ".v8")) {
            x->vec = (unsigned)(s[2] - '0');
        } else if (is(s, len, ".ptr")) {
            ptr = true;
        } else if (is(s, len, ".attribute")) {
            /* .attribute(.managed): the variable is laid out as any other */
            if (!accept(d, '('))
                return errf(d, d->line, "expected ( after .attribute");
            while (*d->p && *d->p != ')' && *d->p != ';' && *d->p != '\n')
                d->p++;
            if (!accept(d, ')'))
                return errf(d, d->line, "expected ) after .attribute(");
        } else if (is(s, len, ".global") || is(s, len, ".shared") || is(s, len, ".const") || is(s, len, ".local")) {
            /* .param's pointer attributes */
        } else if (type_of(s + 1, len - 1) != T_NONE) {
            x->type = type_of(s + 1, len - 1);
        } else if (is(s, len, ".texref") || is(s, len, ".samplerref") || is(s, len, ".surfref")) {
            x->type = T_B64; /* a reference: 8 bytes no instruction reads (read_image_address refuses it) */
        } else {
            return errf(d, d->line, "unexpected \"%.*s\" in a declaration", (int)len, s);
        }
    }
    if (x->type == T_NONE)
        return errf(d, d->line, "a declaration without a type");
    len = word(d, &s);
    if (len == 0)
        return errf(d, d->line, "a declaration without a name");
    x->name = s;
    x->len = len;
    if (accept(d, '<')) {
        unsigned long long n;
        const char *c;
        size_t cl = word(d, &c);

        if (!parse_uint(c, cl, &n) || n > (1u << 16) || !accept(d, '>'))
            return errf(d, d->line, "bad register count");
        x->range = true;
        x->count = (unsigned)n;
    }
    while (accept(d, '[')) {
        unsigned long long n = 0;
        const char *c;
        size_t cl = word(d, &c);

        if (cl == 0) {
            x->open = true;
            x->elems = 0;
        } else if (!parse_uint(c, cl, &n) || n > (1ull << 31) || (n && x->elems > (1ull << 31) / n)) {
            return errf(d, d->line, "bad dimension");
        }
        if (!accept(d, ']'))
            return errf(d, d->line, "expected ]");
        x->elems *= (size_t)n;
    }
    if (!x->align)
        x->align = ptx_types[x->type].size * x->vec;
    return true;
}

static size_t decl_bytes(const struct decl *x)
{
    return (size_t)ptx_types[x->type].size * x->vec * x->elems;
}

/* Whether a variable of `bytes` at `off` of the function's frame keeps it within PTX_FRAME_MAX; else refuses the module. */
static bool frame_fits(struct decoder *d, const struct decl *x, uint64_t off, size_t bytes)
{
    if (off + bytes <= PTX_FRAME_MAX)
        return true;
    return fatalf(d, d->line, "\"%.*s\" of %zu bytes makes the frame of function \"%s\" larger than %u bytes",
                  (int)x->len, x->name, bytes, d->f->name ? d->f->name : "?", PTX_FRAME_MAX);
}

/*
 * Whether a static shared variable of `bytes` at `off` fits: itself within
 * what an entry may use (PTX_SHARED_MAX), the module's within
 * PTX_MODULE_SHARED_MAX; else refuses the module.
 */
static bool shared_fits(struct decoder *d, const struct decl *x, uint64_t off, size_t bytes)
{
    if (bytes > PTX_SHARED_MAX)
        return fatalf(d, d->line, "shared variable \"%.*s\" of %zu bytes is larger than the device's %u", (int)x->len,
                      x->name, bytes, PTX_SHARED_MAX);
    if (off + bytes > PTX_MODULE_SHARED_MAX)
        return fatalf(d, d->line, "shared variable \"%.*s\" brings the module's static shared memory past %u bytes",
                      (int)x->len, x->name, PTX_MODULE_SHARED_MAX);
    return true;
}

/* ---- Functions ---- */

static int32_t func_find(const struct decoder *d, const char *s, size_t len)
{
    return ptx_func_index(d->m, s, len);
}

/*
 * Maps function `fi`'s name to it: a name already mapped keeps its function
 * (the first one of that name). The map is rebuilt twice as large at half
 * full; a function whose name was taken away stays out.
 */
static bool fmap_add(struct decoder *d, size_t fi)
{
    struct ptx_module *m = d->m;
    const char *name = m->funcs[fi].name;
    size_t slot;

    if (!name)
        return true;
    if ((m->nfuncs + 1) * 2 > m->fmap_cap) {
        size_t cap = m->fmap_cap ? m->fmap_cap * 2 : 64;
        uint32_t *old = m->fmap, *map = calloc(cap, sizeof(*map));
        size_t old_cap = m->fmap_cap;

        if (!map)
            return d->oom = true, false;
        m->fmap = map;
        m->fmap_cap = cap;
        for (size_t i = 0; i < old_cap; i++) {
            const char *n = old[i] ? m->funcs[old[i] - 1].name : NULL;

            if (n)
                m->fmap[ptx_fmap_slot(m, n, strlen(n))] = old[i];
        }
        free(old);
    }
    slot = ptx_fmap_slot(m, name, strlen(name));
    if (!m->fmap[slot])
        m->fmap[slot] = (uint32_t)fi + 1;
    return true;
}

/* A .param list: ( .param ... name, ... ); each becomes a frame or kernel-parameter symbol. */
static bool read_params(struct decoder *d, struct ptx_function *f, bool entry, bool result)
{
    uint32_t off = result ? 0 : f->kparam_bytes ? (uint32_t)f->kparam_bytes : d->frame;

    if (!accept(d, '('))
        return errf(d, d->line, "expected (");
    if (accept(d, ')'))
        return true;
    do {
        struct decl x;
        const char *s;
        size_t len = word(d, &s), bytes;
        int32_t sym;

        if (!is(s, len, ".param") && !is(s, len, ".reg"))
            return errf(d, d->line, "expected .param");
        if (!read_decl(d, &x, NULL))
            return false;
        if (entry && x.open)
            return errf(d, d->line, "parameter \"%.*s\" of kernel \"%s\" has no size", (int)x.len, x.name,
                        f->name ? f->name : "?");
        bytes = decl_bytes(&x);
        if (x.align > 16 && !entry)
            x.align = 16;
        off = entry ? (uint32_t)((f->kparam_bytes + x.align - 1) / x.align * x.align) : align_up32(d->frame, x.align);
        if (entry && (uint64_t)off + bytes > PTX_KPARAM_MAX)
            return fatalf(d, d->line, "more than %u bytes of parameters in kernel \"%s\"", PTX_KPARAM_MAX,
                          f->name ? f->name : "?");
        if (!entry && !frame_fits(d, &x, off, bytes))
            return false;
        sym = sym_add(d, x.name, x.len, entry ? S_PARAM : S_FRAME, off, bytes);
        if (sym < 0 || !name_add(d, true, (struct name){x.name, x.len, N_SYM, (uint32_t)sym, 0, 0, -1}))
            return false;
        if (entry) {
            d->m->syms[sym].align = x.align;
            if (f->nkparams++ == 0)
                f->kparams = (uint32_t)sym;
            f->kparam_bytes = off + bytes;
        } else {
            d->frame = off + (uint32_t)bytes;
            if (result) {
                f->ret_off = off;
                f->ret_size = (uint32_t)bytes;
            } else {
                if (d->m->nparams >= PTX_ITEMS_MAX)
                    return fatalf(d, d->line, "more than %u parameters of functions in the module", PTX_ITEMS_MAX);
                if (!GROW(d, d->m->params, d->cap_params, d->m->nparams + 1))
                    return false;
                if (f->nparams == 0)
                    f->params = (uint32_t)d->m->nparams;
                d->m->params[d->m->nparams++] = (struct ptx_param){off, (uint32_t)bytes};
                f->nparams++;
            }
        }
    } while (accept(d, ','));
    if (!accept(d, ')'))
        return errf(d, d->line, "expected , or )");
    return true;
}

/* ---- Instructions ---- */

const char *const ptx_op_names[X_COUNT] = {
#define PTX_OP(op, name, shape, handler) [X_##op] = name,
#include "ptx_ops.def"
};

/* The mnemonics the decoder looks up: every operation's name and its other spellings (a dotted name never matches). */
static const struct {
    const char *name;
    unsigned char op;
} op_names[] = {
#define PTX_OP(op, name, shape, handler) {name, X_##op},
#define PTX_ALIAS(name, op) {name, X_##op},
#include "ptx_ops.def"
};

static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                        "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
static const char *const atom_names[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"};
static const char *const rnd_names[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna"};
static const char *const geom_names[] = {"", "1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
static const char *const boundary_names[] = {"zero", "clamp", "trap"};

static bool image_op(unsigned op)
{
    return op == X_TEX || op == X_SULD || op == X_SUST;
}

/* The coordinates a geometry reads: x, y, z, the layer counted with them. */
static unsigned geom_coords(unsigned geom)
{
    static const unsigned char n[] = {0, 1, 2, 3, 2, 3, 3, 4};

    return n[geom];
}

/* The geometry a modifier names (G_*), or G_NONE. */
static unsigned geom_named(const char *m, size_t ml)
{
    for (unsigned g = G_1D; g <= G_ACUBE; g++)
        if (is(m, ml, geom_names[g]))
            return g;
    return G_NONE;
}

/* Modifiers that change nothing the interpreter models (caching, ordering, scope, alignment). */
static bool ignorable(const char *s, size_t len)
{
    static const char *const ok[] = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed", "acquire",
                                     "release", "acq_rel", "sc", "weak", "mmio", "cta", "gpu", "sys", "cluster",
                                     "aligned", "uni", "sync", "full", "gl", "noftz", "proxy", "async", "shared::cta",
                                     "global::cta"};

    if ((len > 4 && (memcmp(s, "L1::", 4) == 0 || memcmp(s, "L2::", 4) == 0)) || (len > 2 && memcmp(s, "L2", 2) == 0))
        return true;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (is(s, len, ok[i]))
            return true;
    return false;
}

/* The opcode's base and modifiers into `in`; false (and the error) for one not understood. */
static bool decode_opcode(struct decoder *d, const char *s, size_t len, struct ptx_inst *in)
{
    const char *dot = memchr(s, '.', len);
    size_t blen = dot ? (size_t)(dot - s) : len;
    unsigned ntypes = 0;
    enum ptx_type types[2] = {T_NONE, T_NONE};
    bool found = false, cluster = false, surface_b = false;

    for (size_t i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
        if (is(s, blen, op_names[i].name)) {
            in->op = op_names[i].op;
            found = true;
            break;
        }
    if (!found)
        return false;
    in->vec = 1;
    in->cmp = 0xff;
    while (dot) {
        const char *m = dot + 1;
        const char *next = memchr(m, '.', len - (size_t)(m - s));
        size_t ml;
        enum ptx_type t;
        bool known = false;

        /* `shared::cta` and L1::... hints hold no dots; `::` is kept in one modifier. */
        ml = next ? (size_t)(next - m) : len - (size_t)(m - s);
        dot = next;
        if ((t = type_of(m, ml)) != T_NONE) {
            if (ntypes == 2)
                return false;
            types[ntypes++] = t;
            continue;
        }
        if (is(m, ml, "global")) {
            in->space = S_GLOBAL;
        } else if (is(m, ml, "shared") || is(m, ml, "shared::cta") || is(m, ml, "shared::cluster")) {
            in->space = S_SHARED;
        } else if (is(m, ml, "local")) {
            in->space = S_LOCAL;
        } else if (is(m, ml, "param")) {
            in->space = S_PARAM;
        } else if (is(m, ml, "const")) {
            in->space = S_CONST;
        } else if (is(m, ml, "v2") || is(m, ml, "v4")) {
            in->vec = (unsigned char)(m[1] - '0');
        } else if (is(m, ml, "hi") && in->op != X_SETP && in->op != X_SET) {
            in->mods |= M_HI;
        } else if (is(m, ml, "lo") && in->op != X_SETP && in->op != X_SET) {
            in->mods |= M_LO;
        } else if (is(m, ml, "wide")) {
            in->mods |= M_WIDE;
        } else if (is(m, ml, "sat") || is(m, ml, "satfinite")) {
            in->mods |= M_SAT;
        } else if (is(m, ml, "ftz")) {
            in->mods |= M_FTZ;
        } else if (is(m, ml, "approx")) {
            in->mods |= M_APPROX;
        } else if (is(m, ml, "nc")) {
            in->mods |= M_NC;
        } else if (is(m, ml, "cc")) {
            in->mods |= M_CC;
        } else if (is(m, ml, "shiftamt")) {
            in->mods |= M_SHIFTAMT;
        } else if (is(m, ml, "relu")) {
            in->mods |= M_RELU;
        } else if (is(m, ml, "to") && in->op == X_CVTA) {
            in->op = X_CVTA_TO;
        } else if (in->op == X_SHFL && (is(m, ml, "up") || is(m, ml, "down") || is(m, ml, "bfly") || is(m, ml, "idx"))) {
            in->cmp = is(m, ml, "up") ? SH_UP : is(m, ml, "down") ? SH_DOWN : is(m, ml, "bfly") ? SH_BFLY : SH_IDX;
        } else if (in->op == X_VOTE && (is(m, ml, "all") || is(m, ml, "any") || is(m, ml, "uni") || is(m, ml, "ballot"))) {
            in->cmp = is(m, ml, "all") ? V_ALL : is(m, ml, "any") ? V_ANY : is(m, ml, "uni") ? V_UNI : V_BALLOT;
        } else if (in->op == X_MATCH && (is(m, ml, "any") || is(m, ml, "all"))) {
            in->cmp = is(m, ml, "any") ? 0 : 1;
        } else if (in->op == X_SHF && (is(m, ml, "l") || is(m, ml, "r"))) {
            in->cmp = is(m, ml, "l") ? 0 : 1;
        } else if (in->op == X_SHF && (is(m, ml, "wrap") || is(m, ml, "clamp"))) {
            in->boolop = is(m, ml, "wrap");
        } else if (in->op == X_BMSK && (is(m, ml, "wrap") || is(m, ml, "clamp"))) {
            in->cmp = is(m, ml, "wrap");
        } else if (image_op(in->op) && !in->geom && geom_named(m, ml)) {
            in->geom = (unsigned char)geom_named(m, ml); /* not 2dms, a2dms: refused as unknown modifiers */
        } else if (in->op == X_TEX && in->cmp == 0xff && (is(m, ml, "level") || is(m, ml, "grad"))) {
            in->cmp = is(m, ml, "level") ? TX_LEVEL : TX_GRAD;
        } else if ((in->op == X_SULD || in->op == X_SUST) && is(m, ml, "b")) {
            surface_b = true;
        } else if ((in->op == X_SULD || in->op == X_SUST) && in->cmp == 0xff &&
                   (is(m, ml, "zero") || is(m, ml, "clamp") || is(m, ml, "trap"))) {
            for (unsigned c = 0; c < 3; c++)
                if (is(m, ml, boundary_names[c]))
                    in->cmp = (unsigned char)c;
        } else if (in->op == X_BAR && (is(m, ml, "warp"))) {
            in->op = X_BAR_WARP;
        } else if (in->op == X_BAR && is(m, ml, "cluster")) {
            cluster = true;
        } else if (in->op == X_BAR && cluster && (is(m, ml, "arrive") || is(m, ml, "wait"))) {
            in->op = is(m, ml, "arrive") ? X_CLUSTER_ARRIVE : X_CLUSTER_WAIT;
        } else if (in->op == X_BAR && (is(m, ml, "arrive") || is(m, ml, "red"))) {
            in->op = m[0] == 'a' ? X_BAR_ARRIVE : X_BAR_RED;
        } else if (in->op == X_BAR_RED && in->cmp == 0xff && (is(m, ml, "popc") || is(m, ml, "and") || is(m, ml, "or"))) {
            in->cmp = m[0] == 'p' ? BR_POPC : m[0] == 'a' ? BR_AND : BR_OR;
        } else if (in->op == X_NOP && (is(m, ml, "L1") || is(m, ml, "L2") || is(m, ml, "tensormap"))) {
            /* The cache level a prefetch, applypriority or discard names: the fake has no cache, they do nothing. */
        } else if (is(m, ml, "acquire") || is(m, ml, "release") || is(m, ml, "acq_rel")) {
            /* Ordering: loads that acquire and stores that release fence the host's memory too. */
            in->mods |= (uint16_t)(m[1] == 'c' ? M_ACQUIRE | M_RELEASE : m[0] == 'a' ? M_ACQUIRE : M_RELEASE);
        } else {
            if (in->op == X_SETP || in->op == X_SET || in->op == X_TESTP) {
                for (unsigned c = 0; c < sizeof(cmp_names) / sizeof(cmp_names[0]) && !known; c++)
                    if (is(m, ml, cmp_names[c]) && in->cmp == 0xff) {
                        in->cmp = (unsigned char)c;
                        known = true;
                    }
                if (!known && (in->op == X_SETP || in->op == X_SET) && in->cmp != 0xff &&
                    (is(m, ml, "and") || is(m, ml, "or") || is(m, ml, "xor"))) {
                    in->boolop = is(m, ml, "and") ? B_AND : is(m, ml, "or") ? B_OR : B_XOR;
                    known = true;
                }
                if (!known && in->op == X_TESTP && (is(m, ml, "finite") || is(m, ml, "infinite") || is(m, ml, "number") ||
                                                    is(m, ml, "notanumber") || is(m, ml, "normal") || is(m, ml, "subnormal"))) {
                    in->cmp = (unsigned char)(m[0] == 'f' ? 0 : m[0] == 'i' ? 1 : m[0] == 'n' && m[1] == 'u' ? 2 :
                                              m[0] == 'n' && m[3] == 'a' ? 3 : m[0] == 'n' ? 4 : 5);
                    known = true;
                }
            }
            if (!known && (in->op == X_ATOM || in->op == X_RED || in->op == X_REDUX))
                for (unsigned c = 0; c < sizeof(atom_names) / sizeof(atom_names[0]) && !known; c++)
                    if (is(m, ml, atom_names[c])) {
                        in->cmp = (unsigned char)c;
                        known = true;
                    }
            for (unsigned r = 1; r < sizeof(rnd_names) / sizeof(rnd_names[0]) && !known; r++)
                if (is(m, ml, rnd_names[r])) {
                    in->rnd = (unsigned char)r;
                    known = true;
                }
            if (!known && !ignorable(m, ml))
                return false;
        }
    }
    in->type = (unsigned char)types[0];
    in->type2 = (unsigned char)types[1];
    if (in->type == T_B128 || in->type2 == T_B128)
        return false;
    /* barrier.cluster says which half: arrive or wait. */
    if (cluster && in->op == X_BAR)
        return false;
    /* Extended precision: add.cc, sub.cc and mad.cc write the carry flag; addc, subc and madc read it. */
    if (in->op == X_ADDC || in->op == X_SUBC || in->op == X_MADC)
        in->mods |= M_CI;
    if ((in->mods & M_CC) && (in->op == X_ADD || in->op == X_SUB || in->op == X_MAD))
        in->op = in->op == X_ADD ? X_ADDC : in->op == X_SUB ? X_SUBC : X_MADC;
    /* Which instructions need what: a type, a mode. */
    switch (in->op) {
    case X_CVT:
        return ntypes == 2;
    case X_SETP:
        return ntypes == 1 && in->cmp != 0xff && in->type != T_F16X2 && in->type != T_BF16X2;
    case X_SET:
        /* set.cmp.dtype.stype: a result of all ones (1.0 for a float) or 0 */
        return ntypes == 2 && in->cmp != 0xff && in->type != T_F16X2 && in->type != T_BF16X2 &&
               in->type2 != T_F16X2 && in->type2 != T_BF16X2 && in->type2 != T_PRED;
    case X_SHFL:
        return in->cmp != 0xff && ntypes == 1;
    case X_VOTE:
        return in->cmp != 0xff;
    case X_ATOM:
    case X_RED:
    case X_REDUX:
        return in->cmp != 0xff && ntypes == 1;
    case X_MATCH:
        return in->cmp != 0xff && ntypes == 1;
    case X_SHF:
        return in->cmp != 0xff && ntypes == 1 && ptx_types[in->type].size == 4;
    case X_BMSK:
        return in->cmp != 0xff && ntypes == 1 && in->type == T_B32;
    case X_TEX:
        /* tex.geom.v4.dtype.ctype: the float and 32-bit integer forms nvcc and NVRTC write */
        if (in->cmp == 0xff)
            in->cmp = TX_PLAIN;
        return ntypes == 2 && in->geom && in->vec == 4 &&
               (in->type == T_F32 || in->type == T_S32 || in->type == T_U32) &&
               (in->type2 == T_F32 || (in->type2 == T_S32 && in->geom < G_CUBE));
    case X_SULD:
    case X_SUST:
        /* suld.b / sust.b (unformatted): trap when no boundary mode is given, as PTX says */
        if (in->cmp == 0xff)
            in->cmp = SU_TRAP;
        return ntypes == 1 && surface_b && in->geom && in->geom < G_CUBE && ptx_types[in->type].kind == K_BITS &&
               ptx_types[in->type].size <= 8;
    case X_BRA:
    case X_CALL:
    case X_RET:
    case X_EXIT:
    case X_BAR:
    case X_BAR_WARP:
    case X_MEMBAR:
    case X_NOP:
    case X_TRAP:
    case X_ACTIVEMASK:
    case X_TESTP:
    case X_CLUSTER_ARRIVE:
    case X_CLUSTER_WAIT:
    case X_BAR_ARRIVE:
        return true;
    case X_BAR_RED:
        /* bar.red.popc.u32, bar.red.and.pred, bar.red.or.pred */
        return in->cmp != 0xff && ntypes == 1 && (in->cmp == BR_POPC ? in->type == T_U32 : in->type == T_PRED);
    case X_ADDC:
    case X_SUBC:
    case X_MADC:
        return ntypes == 1 && (ptx_types[in->type].kind == K_SIGNED || ptx_types[in->type].kind == K_UNSIGNED) &&
               ptx_types[in->type].size >= 4;
    case X_SAD:
    case X_MUL24:
    case X_MAD24:
        return ntypes == 1 && (ptx_types[in->type].kind == K_SIGNED || ptx_types[in->type].kind == K_UNSIGNED) &&
               (in->op == X_SAD || ptx_types[in->type].size == 4);
    default:
        return ntypes == 1 && (in->op != X_PRMT || in->type == T_B32);
    }
}

/* A float literal's bits in the instruction's type: 0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, or decimal. */
static bool float_bits(const char *s, size_t len, enum ptx_type t, bool negative, uint64_t *out)
{
    char buf[64];
    double v;
    char *end;

    if (len >= sizeof(buf))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (len == 10 && (buf[1] == 'f' || buf[1] == 'F') && buf[0] == '0') {
        uint32_t b = (uint32_t)strtoul(buf + 2, &end, 16);
        float f;

        if (*end)
            return false;
        memcpy(&f, &b, 4);
        v = f;
    } else if (len == 18 && (buf[1] == 'd' || buf[1] == 'D') && buf[0] == '0') {
        uint64_t b = strtoull(buf + 2, &end, 16);

        if (*end)
            return false;
        memcpy(&v, &b, 8);
    } else {
        v = strtod(buf, &end);
        if (*end)
            return false;
    }
    if (negative)
        v = -v;
    if (t == T_F64) {
        memcpy(out, &v, 8);
    } else {
        float f = (float)v;
        uint32_t b;

        memcpy(&b, &f, 4);
        *out = b;
    }
    return true;
}

/* One operand: a register, special register, immediate, [address], {vector}, symbol or label. */
static bool read_operand(struct decoder *d, struct ptx_inst *in, struct ptx_opd *o, unsigned line)
{
    const char *s;
    size_t len;
    bool negative = false;
    uint32_t index;
    const struct name *n;

    memset(o, 0, sizeof(*o));
    o->reg = -1;
    o->sym = -1;
    o->v[0] = -1;
    skip_space(d);
    if (*d->p == '[') {
        d->p++;
        o->kind = O_ADDR;
        skip_space(d);
        len = word(d, &s);
        if (len && s[0] >= '0' && s[0] <= '9') {
            unsigned long long v;

            if (!parse_uint(s, len, &v))
                return errf(d, line, "bad address \"%.*s\"", (int)len, s);
            o->imm = (int64_t)v;
        } else if (len) {
            if (!(n = name_find(d, s, len, &index)))
                return errf(d, line, "unknown name \"%.*s\"", (int)len, s);
            if (n->kind == N_SYM)
                o->sym = (int32_t)index;
            else
                o->reg = (int32_t)index;
            if (accept(d, '+')) {
                unsigned long long v;

                negative = accept(d, '-');
                len = word(d, &s);
                if (!parse_uint(s, len, &v))
                    return errf(d, line, "bad offset \"%.*s\"", (int)len, s);
                o->imm = (int64_t)(negative ? 0 - v : v); /* in unsigned arithmetic, which wraps */
            } else if (accept(d, '-')) {
                unsigned long long v;

                len = word(d, &s);
                if (!parse_uint(s, len, &v))
                    return errf(d, line, "bad offset \"%.*s\"", (int)len, s);
                o->imm = (int64_t)(0 - v);
            }
        } else {
            return errf(d, line, "bad address");
        }
        if (!accept(d, ']'))
            return errf(d, line, "expected ]");
        return true;
    }
    if (*d->p == '{') {
        d->p++;
        o->kind = O_VEC;
        do {
            struct ptx_opd e;

            if (o->n == 4)
                return errf(d, line, "a vector of more than 4");
            skip_space(d);
            if (*d->p == '{' || *d->p == '[')
                return errf(d, line, "a vector element must be a register or a number");
            if (!read_operand(d, in, &e, line))
                return false;
            if (e.kind == O_REG) {
                o->v[o->n++] = e.reg;
            } else if (e.kind == O_IMM) {
                if (d->m->nconsts >= PTX_ITEMS_MAX)
                    return fatalf(d, line, "more than %u vector constants in the module", PTX_ITEMS_MAX);
                if (!GROW(d, d->m->consts, d->cap_consts, d->m->nconsts + 1))
                    return false;
                d->m->consts[d->m->nconsts] = (uint64_t)e.imm;
                o->v[o->n++] = -2 - (int32_t)d->m->nconsts++;
            } else {
                return errf(d, line, "a vector element must be a register or a number");
            }
        } while (accept(d, ','));
        if (!accept(d, '}'))
            return errf(d, line, "expected }");
        return true;
    }
    if (*d->p == '!') {
        d->p++;
        o->neg = 1;
    }
    if (*d->p == '-') {
        d->p++;
        negative = true;
    }
    len = word(d, &s);
    if (len == 0)
        return errf(d, line, "expected an operand, found \"%.10s\"", d->p);
    if (s[0] >= '0' && s[0] <= '9') {
        unsigned long long v;
        uint64_t bits;
        enum ptx_type t = in->op == X_CVT || in->op == X_SET || in->op == X_TEX ? (enum ptx_type)in->type2
                                                                                 : (enum ptx_type)in->type;

        o->kind = O_IMM;
        if (ptx_types[t].kind == K_FLOAT && in->op != X_SHFL && in->op != X_PRMT) {
            if (!float_bits(s, len, t == T_F64 ? T_F64 : T_F32, negative, &bits))
                return errf(d, line, "bad number \"%.*s\"", (int)len, s);
            if (t == T_F16 || t == T_BF16) {
                /* nvcc writes 16-bit float constants as 0x bits of b16 moves; a decimal here is rare. */
                return errf(d, line, "a %s immediate", ptx_types[t].name);
            }
            o->imm = (int64_t)bits;
        } else if ((s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D') && s[0] == '0') {
            /* A float's bits in an integer-typed instruction (mov.b32 %r, 0f3F800000). */
            if (!float_bits(s, len, s[1] == 'd' || s[1] == 'D' ? T_F64 : T_F32, negative, &bits))
                return errf(d, line, "bad number \"%.*s\"", (int)len, s);
            o->imm = (int64_t)bits;
        } else if (parse_uint(s, len, &v)) {
            o->imm = (int64_t)(negative ? 0 - v : v); /* in unsigned arithmetic, which wraps */
        } else {
            char buf[64];
            double f;
            char *end;

            if (len >= sizeof(buf))
                return errf(d, line, "bad number");
            memcpy(buf, s, len);
            buf[len] = '\0';
            f = strtod(buf, &end);
            if (*end)
                return errf(d, line, "bad number \"%.*s\"", (int)len, s);
            /* A number beyond a 64-bit integer's range (NaN too): the conversion's result is undefined. */
            if (!(f > -0x1p63 && f < 0x1p63))
                return errf(d, line, "number \"%.*s\" out of a 64-bit integer's range", (int)len, s);
            o->imm = (int64_t)(negative ? -f : f);
        }
        return true;
    }
    if (negative)
        return errf(d, line, "unexpected -");
    if (is(s, len, "WARP_SZ")) {
        /* The warp's size, a constant. */
        o->kind = O_IMM;
        o->imm = PTX_WARP;
        return true;
    }
    if (is(s, len, "_")) {
        if (d->sink < 0)
            d->sink = (int32_t)(d->m->nregs++);
        o->kind = O_REG;
        o->reg = d->sink;
        o->rsize = 8;
        return true;
    }
    if ((n = name_find(d, s, len, &index))) {
        if (n->kind == N_SYM) {
            o->kind = O_SYM;
            o->sym = (int32_t)index;
        } else {
            o->kind = O_REG;
            o->reg = (int32_t)index;
            o->rsize = n->size;
            if (accept(d, '|')) {
                const char *s2;
                size_t l2 = word(d, &s2);
                uint32_t i2;
                const struct name *n2 = l2 ? name_find(d, s2, l2, &i2) : NULL;

                if (is(s2, l2, "_")) {
                    if (d->sink < 0)
                        d->sink = (int32_t)(d->m->nregs++);
                    i2 = (uint32_t)d->sink;
                } else if (!n2 || n2->kind == N_SYM) {
                    return errf(d, line, "expected a register after |");
                }
                o->v[0] = (int32_t)i2;
            }
        }
        return true;
    }
    if (s[0] == '%') {
        for (int r = 0; r < R_COUNT; r++)
            if (is(s, len, sreg_names[r])) {
                o->kind = O_SREG;
                o->imm = r;
                return true;
            }
        /* %tid alone: a vector of three; not used by compilers. */
        return errf(d, line, "unknown register \"%.*s\"", (int)len, s);
    }
    /* A label or a function: resolved when the function ends. */
    o->kind = O_LABEL;
    o->imm = -1;
    if (!GROW(d, d->fixups, d->cap_fixups, d->nfixups + 1))
        return false;
    d->fixups[d->nfixups++] = (struct fixup){(uint32_t)d->m->ncode, s, len, in->op == X_CALL};
    return true;
}

/* Appends symbol `index` to the module's call_syms, for the call being read; false when refused or out of memory. */
static bool call_sym_add(struct decoder *d, unsigned line, uint32_t index)
{
    if (d->m->ncall_syms >= PTX_ITEMS_MAX)
        return fatalf(d, line, "more than %u arguments and results of calls in the module", PTX_ITEMS_MAX);
    if (!GROW(d, d->m->call_syms, d->cap_call_syms, d->m->ncall_syms + 1))
        return false;
    d->m->call_syms[d->m->ncall_syms++] = (int32_t)index;
    return true;
}

/* call[.uni] (rets), name, (args);  call name, (args);  call name; */
static bool read_call(struct decoder *d, struct ptx_inst *in, unsigned line)
{
    struct ptx_call c;
    const char *s;
    size_t len;
    uint32_t index;
    const struct name *n;

    memset(&c, 0, sizeof(c));
    c.syms = (uint32_t)d->m->ncall_syms;
    if (accept(d, '(')) {
        do {
            len = word(d, &s);
            if (!(n = name_find(d, s, len, &index)) || n->kind != N_SYM || d->m->syms[index].space != S_FRAME)
                return errf(d, line, "bad call result \"%.*s\"", (int)len, s);
            if (!call_sym_add(d, line, index))
                return false;
            c.nrets++;
        } while (accept(d, ','));
        if (!accept(d, ')') || !accept(d, ','))
            return errf(d, line, "expected ), in a call");
    }
    len = word(d, &s);
    if (len == 0 || s[0] == '%')
        return errf(d, line, "an indirect call");
    memset(&in->o[0], 0, sizeof(in->o[0]));
    in->o[0].kind = O_LABEL;
    in->o[0].imm = (int64_t)d->m->ncalls;
    if (!GROW(d, d->fixups, d->cap_fixups, d->nfixups + 1))
        return false;
    d->fixups[d->nfixups++] = (struct fixup){(uint32_t)d->m->ncode, s, len, true};
    if (accept(d, ',')) {
        if (!accept(d, '('))
            return errf(d, line, "expected ( in a call");
        if (!accept(d, ')')) {
            do {
                len = word(d, &s);
                if (!(n = name_find(d, s, len, &index)) || n->kind != N_SYM || d->m->syms[index].space != S_FRAME)
                    return errf(d, line, "bad call argument \"%.*s\"", (int)len, s);
                if (!call_sym_add(d, line, index))
                    return false;
                c.nargs++;
            } while (accept(d, ','));
            if (!accept(d, ')'))
                return errf(d, line, "expected ) in a call");
        }
    }
    if (!accept(d, ';'))
        return errf(d, line, "expected ; after a call");
    if (d->m->ncalls >= PTX_ITEMS_MAX)
        return fatalf(d, line, "more than %u calls in the module", PTX_ITEMS_MAX);
    if (!GROW(d, d->m->calls, d->cap_calls, d->m->ncalls + 1))
        return false;
    d->m->calls[d->m->ncalls++] = c;
    in->nopd = 1;
    return true;
}

static bool is_reg(const struct ptx_opd *o)
{
    return o->kind == O_REG;
}

static bool is_value(const struct ptx_opd *o)
{
    return o->kind == O_REG || o->kind == O_IMM || o->kind == O_SREG || o->kind == O_SYM;
}

/*
 * A texture or surface operand, [handle, {coordinates}], into two operands:
 * the handle's register (an O_ADDR), then the coordinates (an O_VEC). A name
 * that is no register is a texture or surface reference, which CUDA 12 no
 * longer has; a separate sampler is the same references' form.
 */
static bool read_image_address(struct decoder *d, struct ptx_inst *in, const char *op, size_t oplen, unsigned line)
{
    struct ptx_opd *a = &in->o[in->nopd];
    const char *s;
    size_t len;
    uint32_t index;
    const struct name *n;

    if (in->nopd + 2 > PTX_MAX_OPDS)
        return errf(d, line, "too many operands");
    memset(a, 0, sizeof(*a));
    a->kind = O_ADDR;
    a->reg = a->sym = a->v[0] = -1;
    d->p++;
    len = word(d, &s);
    n = len ? name_find(d, s, len, &index) : NULL;
    if (!n || n->kind == N_SYM || is(s, len, "_"))
        return errf(d, line, "\"%.*s\" of texture or surface reference \"%.*s\": only texture and surface objects "
                    "(a .u64 handle) run", (int)oplen, op, (int)len, s);
    a->reg = (int32_t)index;
    if (!accept(d, ','))
        return errf(d, line, "expected , after the handle of \"%.*s\"", (int)oplen, op);
    skip_space(d);
    if (*d->p != '{')
        return errf(d, line, "\"%.*s\" with a separate sampler: only texture objects run", (int)oplen, op);
    if (!read_operand(d, in, &in->o[in->nopd + 1], line))
        return false;
    if (!accept(d, ']'))
        return errf(d, line, "expected ] after the coordinates of \"%.*s\"", (int)oplen, op);
    in->nopd += 2;
    return true;
}

/* Operand counts of the instructions whose operands are a register, then values (ptx_ops.def's shapes), else 0. */
static const unsigned char value_shape[X_COUNT] = {
#define PTX_OP(op, name, shape, handler) [X_##op] = shape,
#include "ptx_ops.def"
};

/* A texture or surface operand read by read_image_address(), with the coordinates its geometry needs. */
static bool image_fits(const struct ptx_inst *in, const struct ptx_opd *handle, const struct ptx_opd *coords)
{
    return handle->kind == O_ADDR && handle->reg >= 0 && coords->kind == O_VEC && coords->n >= geom_coords(in->geom);
}

/* Whether the operands fit the instruction, so that the executor needs no checks. */
static bool operands_fit(const struct ptx_inst *in)
{
    unsigned n = in->nopd;
    const struct ptx_opd *o = in->o;
    bool srcs = true;

    for (unsigned i = 1; i < n; i++)
        srcs = srcs && is_value(&o[i]);
    if (value_shape[in->op])
        return n == value_shape[in->op] && is_reg(&o[0]) && srcs;
    switch (in->op) {
    case X_MOV:
        return n == 2 && ((is_reg(&o[0]) && (is_value(&o[1]) || o[1].kind == O_VEC)) ||
                          (o[0].kind == O_VEC && is_reg(&o[1])));
    case X_LD:
        return n == 2 && o[1].kind == O_ADDR &&
               (in->vec == 1 ? is_reg(&o[0]) : o[0].kind == O_VEC && o[0].n == in->vec);
    case X_ST:
        return n == 2 && o[0].kind == O_ADDR &&
               (in->vec == 1 ? is_value(&o[1]) : o[1].kind == O_VEC && o[1].n == in->vec);
    case X_ATOM:
        return (n == 3 || (n == 4 && in->cmp == A_CAS)) && is_reg(&o[0]) && o[1].kind == O_ADDR && is_value(&o[2]) &&
               (n == 3 || is_value(&o[3])) && ptx_types[in->type].size >= 2 && ptx_types[in->type].size <= 8;
    case X_RED:
        return n == 2 && o[0].kind == O_ADDR && is_value(&o[1]) && ptx_types[in->type].size >= 2 &&
               ptx_types[in->type].size <= 8;
    case X_BRA:
        return n == 1 && o[0].kind == O_LABEL;
    case X_BAR:
    case X_BAR_WARP:
    case X_BAR_ARRIVE:
        return n <= 2 && srcs && (n == 0 || is_value(&o[0]));
    case X_BAR_RED:
        /* d, barrier, {count,} predicate */
        return (n == 3 || n == 4) && is_reg(&o[0]) && srcs;
    case X_CLUSTER_ARRIVE:
    case X_CLUSTER_WAIT:
        return n == 0;
    case X_NANOSLEEP:
        return n == 1 && is_value(&o[0]);
    case X_VOTE:
        return (n == 3 || n == 2) && is_reg(&o[0]) && srcs;
    case X_SETP:
    case X_SET:
        return (n == 3 || (n == 4 && in->boolop != B_NONE)) && is_reg(&o[0]) && srcs;
    case X_TEX:
        return o[0].kind == O_VEC && o[0].n == 4 && image_fits(in, &o[1], &o[2]) &&
               ((in->cmp == TX_PLAIN && n == 3) || (in->cmp == TX_LEVEL && n == 4 && is_value(&o[3])) ||
                (in->cmp == TX_GRAD && n == 5 && o[3].kind == O_VEC && o[4].kind == O_VEC &&
                 o[3].n >= geom_coords(in->geom) && o[4].n >= geom_coords(in->geom)));
    case X_SULD:
        return n == 3 && o[0].kind == O_VEC && o[0].n == in->vec && image_fits(in, &o[1], &o[2]);
    case X_SUST:
        return n == 3 && image_fits(in, &o[0], &o[1]) && o[2].kind == O_VEC && o[2].n == in->vec;
    case X_CVT:
        /* cvt.rn.f16x2.f32 d, a, b packs two: a in the upper half */
        return is_reg(&o[0]) && srcs &&
               (n == 2 || (n == 3 && (in->type == T_F16X2 || in->type == T_BF16X2) && in->type2 == T_F32));
    default: /* ret, exit, membar, trap, the no-ops */
        return true;
    }
}

/* Which F_* form the instruction is, if any: 32-bit integer and f32 arithmetic in the default modes, moves. */
static unsigned char fast_form(const struct ptx_inst *in)
{
    unsigned k = ptx_types[in->type].kind, size = ptx_types[in->type].size;
    bool plain_int = (k == K_BITS || k == K_SIGNED || k == K_UNSIGNED) && size == 4 && !(in->mods & ~M_LO);
    bool plain_f32 = in->type == T_F32 && (in->rnd == RND_NONE || in->rnd == RND_RN) && !in->mods;

    if (in->o[0].kind != O_REG)
        return F_NONE;
    if (plain_int) {
        switch (in->op) {
        case X_ADD: return F_IADD;
        case X_SUB: return F_ISUB;
        case X_MUL: return F_IMUL;
        case X_MAD: return F_IMAD;
        case X_AND: return F_IAND;
        case X_OR: return F_IOR;
        case X_XOR: return F_IXOR;
        case X_SHL: return F_ISHL;
        default: break;
        }
    }
    if (plain_f32) {
        switch (in->op) {
        case X_ADD: return F_FADD;
        case X_SUB: return F_FSUB;
        case X_MUL: return F_FMUL;
        case X_FMA:
        case X_MAD: return F_FFMA;
        default: break;
        }
    }
    if (in->op == X_MOV && in->o[1].kind != O_VEC && in->type != T_PRED)
        return F_MOV;
    return F_NONE;
}

/* The opcode text for a message. */
static void inst_error(struct decoder *d, unsigned line, const char *op, size_t len, const char *why)
{
    errf(d, line, "%s \"%.*s\"", why, (int)len, op);
}

/* One instruction, its guard already read; the `;` included. */
static bool read_instruction(struct decoder *d, int32_t guard, bool guard_neg, unsigned line)
{
    struct ptx_inst *in;
    const char *s;
    size_t len;

    skip_space(d);
    s = d->p;
    while (*d->p && *d->p != ' ' && *d->p != '\t' && *d->p != ';' && *d->p != '\n' && *d->p != '\r')
        d->p++;
    len = (size_t)(d->p - s);
    /* One more than the cap is left for the `ret` that ends each function. */
    if (d->m->ncode >= PTX_ITEMS_MAX)
        return fatalf(d, line, "more than %u instructions in the module", PTX_ITEMS_MAX);
    if (!GROW(d, d->m->code, d->cap_code, d->m->ncode + 1))
        return false;
    in = &d->m->code[d->m->ncode];
    memset(in, 0, sizeof(*in));
    in->guard = guard;
    in->guard_neg = guard_neg;
    in->line = line;
    in->target = -1;
    if (!decode_opcode(d, s, len, in)) {
        inst_error(d, line, s, len, "unsupported instruction");
        return false;
    }
    if (in->op == X_CALL) {
        if (!read_call(d, in, line))
            return false;
        d->f->uses_calls = true;
        d->m->ncode++;
        return true;
    }
    if (!accept(d, ';')) {
        do {
            if (in->nopd == PTX_MAX_OPDS)
                return errf(d, line, "too many operands");
            skip_space(d);
            if (image_op(in->op) && *d->p == '[') {
                if (!read_image_address(d, in, s, len, line))
                    return false;
                continue;
            }
            if (!read_operand(d, in, &in->o[in->nopd], line))
                return false;
            in->nopd++;
        } while (accept(d, ','));
        if (!accept(d, ';'))
            return errf(d, line, "expected ; after \"%.*s\"", (int)len, s);
    }
    if (!operands_fit(in)) {
        inst_error(d, line, s, len, "unsupported operands of");
        return false;
    }
    in->fast = fast_form(in);
    d->m->ncode++;
    return true;
}

/* A .reg/.local/.shared/.param declaration inside a function. */
static bool read_local_decl(struct decoder *d, const char *dir, size_t dlen)
{
    struct decl x, prev;
    bool first = true;

    for (;;) {
        if (!read_decl(d, &x, first ? NULL : &prev))
            return false;
        prev = x;
        first = false;
        if (is(dir, dlen, ".reg")) {
            unsigned char size = ptx_types[x.type].size * (unsigned char)x.vec;

            if ((uint64_t)d->m->nregs + (x.range ? x.count : 1) + 1 > PTX_REGS_MAX)
                return fatalf(d, d->line, "more than %u registers in the module", PTX_REGS_MAX);
            if (x.range) {
                if (!name_add(d, false, (struct name){x.name, x.len, N_RANGE, d->m->nregs, x.count, size, -1}))
                    return false;
                d->m->nregs += x.count;
            } else {
                if (!name_add(d, false, (struct name){x.name, x.len, N_REG, d->m->nregs, 1, size, -1}))
                    return false;
                d->m->nregs++;
            }
        } else {
            size_t bytes = decl_bytes(&x);
            int32_t sym;

            if (is(dir, dlen, ".shared")) {
                size_t off = (d->m->shared_static + x.align - 1) / x.align * x.align;

                if (x.open)
                    return errf(d, d->line, "an open .shared array inside a function");
                if (!shared_fits(d, &x, off, bytes))
                    return false;
                sym = sym_add(d, x.name, x.len, S_SHARED, off, bytes);
                d->m->shared_static = off + bytes;
            } else {
                uint32_t off = align_up32(d->frame, x.align > 16 ? 16 : x.align);

                if (!frame_fits(d, &x, off, bytes))
                    return false;
                sym = sym_add(d, x.name, x.len, S_FRAME, off, bytes);
                d->frame = off + (uint32_t)bytes;
            }
            if (sym < 0 || !name_add(d, false, (struct name){x.name, x.len, N_SYM, (uint32_t)sym, 0, 0, -1}))
                return false;
        }
        if (accept(d, '='))
            return errf(d, d->line, "an initialised variable inside a function");
        if (accept(d, ';'))
            return true;
        if (!accept(d, ','))
            return errf(d, d->line, "expected ; or , in a declaration");
    }
}

/* Resolves the function's labels; calls wait for the module's end. */
static bool resolve_labels(struct decoder *d)
{
    size_t keep = 0;

    for (size_t i = 0; i < d->nfixups; i++) {
        struct fixup *x = &d->fixups[i];
        bool found = false;

        if (x->call) {
            d->fixups[keep++] = *x;
            continue;
        }
        for (size_t k = 0; k < d->nlabels && !found; k++)
            if (d->labels[k].len == x->len && memcmp(d->labels[k].s, x->s, x->len) == 0 && d->labels[k].at >= 0) {
                struct ptx_inst *in = &d->m->code[x->inst];

                for (unsigned o = 0; o < in->nopd; o++)
                    if (in->o[o].kind == O_LABEL && in->o[o].imm == -1)
                        in->o[o].imm = d->labels[k].at;
                in->target = d->labels[k].at;
                found = true;
            }
        if (!found)
            return errf(d, d->m->code[x->inst].line, "unknown label \"%.*s\"", (int)x->len, x->s);
    }
    d->nfixups = keep;
    return true;
}

/* The body of a function: { ... }. On an error, the rest of the body is skipped and the function keeps the reason. */
static bool read_body(struct decoder *d)
{
    struct ptx_function *f;
    const char *stmt = d->p;
    unsigned stmt_line = d->line;
    bool stopped = false;

    d->depth = 0;
    scope_pop(&d->local, 0);
    d->nlabels = 0;
    d->sink = -1;
    if (!accept(d, '{')) {
        errf(d, d->line, "expected { opening the function's body");
        if (!(d->m->funcs[d->fi].error = strdup(d->err)))
            d->oom = true;
        d->err[0] = '\0';
        return !d->oom;
    }
    d->depth = 1;
    d->marks[0] = 0;
    while (d->depth > 0 && !d->oom) {
        const char *s;
        size_t len;
        unsigned line;

        skip_space(d);
        line = d->line;
        stmt = d->p;
        stmt_line = d->line;
        if (!*d->p)
            return fatalf(d, line, "the text ends inside the body of function \"%s\"", d->m->funcs[d->fi].name);
        if (*d->p == '{') {
            d->p++;
            if (d->depth == 64)
                return fatalf(d, line, "blocks nested deeper than 64 in function \"%s\"", d->m->funcs[d->fi].name);
            d->marks[d->depth++] = d->local.n;
            continue;
        }
        if (*d->p == '}') {
            d->p++;
            scope_pop(&d->local, d->marks[--d->depth]);
            continue;
        }
        if (*d->p == '@') {
            bool neg;
            uint32_t index;
            const struct name *n;

            d->p++;
            neg = accept(d, '!');
            len = word(d, &s);
            if (!(n = name_find(d, s, len, &index)) || n->kind == N_SYM) {
                errf(d, line, "unknown predicate \"%.*s\"", (int)len, s);
                break;
            }
            if (!read_instruction(d, (int32_t)index, neg, line))
                break;
            continue;
        }
        if (*d->p == '.') {
            len = word(d, &s);
            /* `.reg.b32 a;` as inline PTX writes it: the type is the declaration's. */
            if (len > 5 && memcmp(s, ".reg.", 5) == 0) {
                d->p = s + 4;
                len = 4;
            }
            if (is(s, len, ".reg") || is(s, len, ".local") || is(s, len, ".shared") || is(s, len, ".param")) {
                if (!read_local_decl(d, s, len))
                    break;
            } else if (is(s, len, ".loc") || is(s, len, ".file") || is(s, len, ".section")) {
                skip_line(d);
            } else if (is(s, len, ".pragma") || is(s, len, ".maxnreg") || is(s, len, ".maxntid") ||
                       is(s, len, ".reqntid") || is(s, len, ".minnctapersm") || is(s, len, ".maxnctapersm")) {
                skip_statement(d, false);
            } else {
                errf(d, line, "unsupported directive \"%.*s\" in a function", (int)len, s);
                break;
            }
            continue;
        }
        /* A label, or an instruction. */
        {
            const char *save = d->p;
            unsigned save_line = d->line;

            len = word(d, &s);
            skip_space(d);
            if (len && d->p[0] == ':' && d->p[1] != ':') {
                d->p++;
                if (!GROW(d, d->labels, d->cap_labels, d->nlabels + 1))
                    break;
                d->labels[d->nlabels++] = (struct label){s, len, (int32_t)d->m->ncode};
                continue;
            }
            d->p = save;
            d->line = save_line;
        }
        if (!read_instruction(d, -1, false, line))
            break;
    }
    if (d->oom || d->fatal[0])
        return false;
    /* The loop stopped at a statement in error (not at the body's end, where depth is 0). */
    stopped = d->depth > 0;
    f = &d->m->funcs[d->fi];
    if (!d->err[0])
        resolve_labels(d);
    if (!d->err[0] && GROW(d, d->m->code, d->cap_code, d->m->ncode + 1)) {
        /* A function that ends without ret returns there, rather than run into the next one's code. */
        struct ptx_inst *in = &d->m->code[d->m->ncode++];

        memset(in, 0, sizeof(*in));
        in->op = X_RET;
        in->guard = -1;
        in->target = -1;
        in->line = d->line;
    }
    if (d->err[0] && stopped) {
        /*
         * Skip the statement in error, read again from its start (its `;` may be read already),
         * then the blocks it is in, to the function's end.
         */
        d->p = stmt;
        d->line = stmt_line;
        skip_statement(d, false);
        for (; d->depth > 0; d->depth--)
            if (!skip_block(d, true))
                return fatalf(d, d->line, "the text ends inside the body of function \"%s\"", f->name);
    }
    if (d->err[0]) {
        /* Its calls are not resolved; those of the functions before it are. */
        while (d->nfixups && d->fixups[d->nfixups - 1].inst >= f->start)
            d->nfixups--;
        if (!(f->error = strdup(d->err)))
            d->oom = true;
        d->err[0] = '\0';
    }
    return true;
}

/* .entry or .func, after its linking directives (.extern: declared only; .weak: gives way to a strong definition). */
static bool read_function(struct decoder *d, bool entry, bool is_extern, bool weak)
{
    struct ptx_function fn, *f;
    const char *s;
    size_t len;
    int32_t existing;
    size_t gmark = d->global.n;
    bool has_result = false;

    memset(&fn, 0, sizeof(fn));
    d->frame = 0;
    d->err[0] = '\0';
    if (!entry) {
        skip_space(d);
        has_result = *d->p == '(';
    }
    if (d->m->nfuncs >= PTX_ITEMS_MAX)
        return fatalf(d, d->line, "more than %u functions in the module", PTX_ITEMS_MAX);
    if (!GROW(d, d->m->funcs, d->cap_funcs, d->m->nfuncs + 1))
        return false;
    d->fi = d->m->nfuncs;
    f = &d->m->funcs[d->fi];
    *f = fn;
    f->entry = entry;
    d->f = f;
    if (has_result && !read_params(d, f, false, true))
        goto bad_header;
    skip_space(d);
    f->line = d->line;
    len = word(d, &s);
    if (len == 0) {
        errf(d, d->line, "a function without a name");
        goto bad_header;
    }
    existing = func_find(d, s, len);
    if (!(f->name = strndup(s, len)))
        return d->oom = true, false;
    skip_space(d);
    if (*d->p == '(' && !read_params(d, f, entry, false))
        goto bad_header;
    f->builtin_vprintf = is(s, len, "vprintf");
    f->builtin_assertfail = is(s, len, "__assertfail");
    /* Performance directives and .noreturn, then a body or `;`. */
    for (;;) {
        skip_space(d);
        if (*d->p == '{' || *d->p == ';' || !*d->p)
            break;
        if (*d->p == '.') {
            const char *dir;
            size_t dl = word(d, &dir);
            unsigned nums = 0;
            unsigned long long threads = 1;

            for (;;) {
                while (*d->p == ' ' || *d->p == '\t' || *d->p == ',' || *d->p == '\n' || *d->p == '\r')
                    d->line += *d->p++ == '\n';
                if (*d->p < '0' || *d->p > '9')
                    break;
                {
                    unsigned long v = strtoul(d->p, (char **)&d->p, 10);

                    /* The cluster shape the entry was compiled for: each at most 32 (the driver's limit is lower). */
                    if (is(dir, dl, ".reqnctapercluster") && nums < 3)
                        f->cluster[nums] = v >= 1 && v <= 32 ? (unsigned)v : 0;
                    if (v <= 1024 && threads <= 1024)
                        threads *= v;
                    nums++;
                }
            }
            if (is(dir, dl, ".reqnctapercluster") && (nums < 1 || nums > 3 || !f->cluster[0] ||
                                                      (nums > 1 && !f->cluster[1]) || (nums > 2 && !f->cluster[2]))) {
                errf(d, d->line, "a bad .reqnctapercluster of function \"%s\"", f->name);
                goto bad_header;
            }
            if (is(dir, dl, ".reqnctapercluster"))
                for (unsigned i = nums; i < 3; i++)
                    f->cluster[i] = 1;
            /* .maxntid and .reqntid bound the threads of a block: the tightest product within 1024 holds. */
            if ((is(dir, dl, ".maxntid") || is(dir, dl, ".reqntid")) && threads <= 1024 &&
                (!f->max_threads || threads < f->max_threads))
                f->max_threads = (unsigned)threads;
            continue;
        }
        errf(d, d->line, "unexpected text after function \"%s\"", f->name);
        goto bad_header;
    }
    if (accept(d, ';') || is_extern) {
        /* A declaration: the definition (or the runtime's vprintf) comes elsewhere. */
        if (existing >= 0) {
            free(f->name);
            scope_pop(&d->global, gmark);
            return true;
        }
        d->m->nfuncs++;
        scope_pop(&d->global, gmark);
        return fmap_add(d, d->fi);
    }
    if (existing >= 0 && !d->m->funcs[existing].defined) {
        /* A definition after a declaration: this one replaces it. */
        free(d->m->funcs[existing].name);
        free(d->m->funcs[existing].error);
        d->m->funcs[existing].name = NULL;
        d->m->funcs[existing].error = strdup("declared again");
    }
    f->defined = true;
    f->weak = weak;
    f->start = (uint32_t)d->m->ncode;
    f->reg_base = d->m->nregs;
    d->m->nfuncs++;
    if (!fmap_add(d, d->fi))
        return false;
    /* A .weak definition gives way to a later one that is not: calls, resolved once all is read, reach that one. */
    if (existing >= 0 && d->m->funcs[existing].defined && d->m->funcs[existing].weak && !weak)
        d->m->fmap[ptx_fmap_slot(d->m, f->name, strlen(f->name))] = (uint32_t)d->fi + 1;
    if (!read_body(d))
        return false;
    f = &d->m->funcs[d->fi];
    f->end = (uint32_t)d->m->ncode;
    f->nregs = d->m->nregs - f->reg_base;
    if (entry) {
        f->frame_size = align_up32(d->frame, 16);
    } else {
        f->saved_at = align_up32(d->frame, 8);
        f->frame_size = align_up32(f->saved_at + f->nregs * 8, 16);
    }
    /* Parameters are in scope only inside the function. */
    scope_pop(&d->global, gmark);
    return true;

bad_header:
    if (d->oom)
        return false;
    f->bad_header = true;
    if (!(f->error = strdup(d->err)))
        return d->oom = true, false;
    d->err[0] = '\0';
    d->m->nfuncs++;
    scope_pop(&d->global, gmark);
    if (!fmap_add(d, d->fi))
        return false;
    /* Past the header in error, and past its body if one follows: a body never ending is the module's error. */
    if (!skip_statement(d, true))
        return fatalf(d, d->line, "the text ends inside function \"%s\"", f->name ? f->name : "?");
    return true;
}

/* One scalar of an initialiser: an integer, or 0f/0d followed by a float's bits in hex; false for another word. */
static bool init_scalar(const char *s, size_t len, bool negative, uint64_t *out)
{
    char buf[40];
    char *end;

    if (len >= sizeof(buf) || len == 0 || s[0] < '0' || s[0] > '9')
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (len > 2 && buf[0] == '0' && (buf[1] == 'f' || buf[1] == 'F' || buf[1] == 'd' || buf[1] == 'D'))
        *out = strtoull(buf + 2, &end, 16);
    else
        *out = strtoull(buf, &end, 0);
    end += *end == 'U';
    if (negative)
        *out = 0 - *out;
    return *end == '\0';
}

/*
 * `= value` or `= {v, {v, v}, ...}` after variable `sym` of `elem`-byte
 * elements: each scalar, little-endian, into its initial bytes; `*count` the
 * scalars. Values the decoder cannot compute (addresses of other symbols,
 * decimal floats) stay zero. False with the module's error.
 */
static bool read_init(struct decoder *d, struct ptx_symbol *sym, size_t elem, size_t *count)
{
    size_t cap = 0;
    int depth = 0;
    bool negative = false, seen = false;

    *count = 0;
    for (;;) {
        const char *s;
        size_t len;
        uint64_t v;

        skip_space(d);
        if (depth == 0 && seen && (*d->p == ';' || *d->p == ','))
            return true;
        if (!*d->p)
            return fatalf(d, d->line, "the text ends inside the initialiser of \"%s\"", sym->name);
        seen = true;
        if (*d->p == ';')
            return fatalf(d, d->line, "expected the initialiser's } in \"%s\"", sym->name);
        if (*d->p == '{' || *d->p == '}' || *d->p == '-' || *d->p == ',' || *d->p == '(' || *d->p == ')' ||
            *d->p == '+') {
            char c = *d->p++;

            if (c == '{')
                depth++;
            else if (c == '}' && --depth < 0)
                return fatalf(d, d->line, "an unmatched } in the initialiser of \"%s\"", sym->name);
            negative = c == '-';
            continue;
        }
        len = word(d, &s);
        if (len == 0)
            return fatalf(d, d->line, "unexpected \"%c\" in the initialiser of \"%s\"", *d->p, sym->name);
        skip_space(d);
        if (*d->p == '(') /* generic(sym): an address */
            continue;
        if (init_scalar(s, len, negative, &v) && (*count + 1) * elem <= sym->size) {
            if (!GROW(d, sym->init, cap, (*count + 1) * elem))
                return false;
            memset(sym->init + sym->init_len, 0, *count * elem - sym->init_len);
            for (size_t b = 0; b < elem; b++)
                sym->init[*count * elem + b] = b < 8 ? (unsigned char)(v >> (8 * b)) : 0;
            sym->init_len = (*count + 1) * elem;
        }
        (*count)++;
        negative = false;
    }
}

/*
 * A module-scope variable: .global/.const (bound to the fake's allocation
 * later) or .shared. A .global or .const the decoder cannot read refuses
 * the module: the module loader allocates them as the decoder read them.
 */
static bool read_variable(struct decoder *d, const char *dir, size_t dlen, unsigned char linkage)
{
    bool is_extern = linkage == L_EXTERN;
    bool shared = is(dir, dlen, ".shared"), first = true;
    unsigned line = d->line;
    struct decl x, prev;

    d->err[0] = '\0';

    for (;;) {
        int32_t sym;

        if (!read_decl(d, &x, first ? NULL : &prev))
            break;
        prev = x;
        first = false;
        if (shared) {
            size_t off = (d->m->shared_static + 15) / 16 * 16, bytes = decl_bytes(&x);

            if (x.open || is_extern) {
                /* Dynamic shared memory: it begins after every static variable, as the launch sizes it. */
                sym = sym_add(d, x.name, x.len, S_SHARED, UINT64_MAX, 0);
            } else {
                off = (d->m->shared_static + x.align - 1) / x.align * x.align;
                if (!shared_fits(d, &x, off, bytes))
                    return false;
                sym = sym_add(d, x.name, x.len, S_SHARED, off, bytes);
                d->m->shared_static = off + bytes;
            }
            if (sym < 0 || !name_add(d, true, (struct name){x.name, x.len, N_SYM, (uint32_t)sym, 0, 0, -1}))
                return false;
            /* One declarator per statement is what compilers write: the rest is passed over. */
            skip_statement(d, false);
            return true;
        }
        if (x.align & (x.align - 1)) {
            errf(d, d->line, "bad .align");
            break;
        }
        sym = sym_add(d, x.name, x.len, S_GLOBAL, 0, decl_bytes(&x));
        if (sym < 0 || !name_add(d, true, (struct name){x.name, x.len, N_SYM, (uint32_t)sym, 0, 0, -1}))
            return false;
        d->m->syms[sym].align = x.align;
        d->m->syms[sym].constant = is(dir, dlen, ".const");
        d->m->syms[sym].defined = !is_extern;
        d->m->syms[sym].linkage = linkage;
        d->m->syms[sym].input = d->input;
        d->m->syms[sym].line = line;
        if (accept(d, '=')) {
            size_t count, elem = ptx_types[x.type].size;

            if (x.open) /* an open dimension takes its size from the initialiser */
                d->m->syms[sym].size = PTX_GLOBAL_MAX;
            if (!read_init(d, &d->m->syms[sym], elem, &count))
                return false;
            if (x.open)
                d->m->syms[sym].size = count > PTX_GLOBAL_MAX ? SIZE_MAX : (count + x.vec - 1) / x.vec * x.vec * elem;
        }
        if (d->m->syms[sym].size > PTX_GLOBAL_MAX)
            return fatalf(d, d->line, "a global larger than 1 MiB: \"%s\"", d->m->syms[sym].name);
        if (accept(d, ';'))
            return true;
        if (!accept(d, ',')) {
            errf(d, d->line, "expected ; or , after \"%.*s\"", (int)x.len, x.name);
            break;
        }
    }
    /* Why the declaration could not be read refuses the module. */
    if (!d->fatal[0])
        memcpy(d->fatal, d->err, sizeof(d->err));
    return false;
}

/* Dynamic shared symbols take their offset now that the static size is known. */
static void place_dynamic_shared(struct ptx_module *m)
{
    size_t dyn = (m->shared_static + 15) / 16 * 16;

    for (size_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].space == S_SHARED && m->syms[i].value == UINT64_MAX)
            m->syms[i].value = dyn;
    for (size_t i = 0; i < m->nfuncs; i++)
        m->funcs[i].shared_static = dyn;
}

/*
 * Calls name their function by index; a call to one not defined makes its
 * function fail; a call to an entry refuses the module, as ptxas does.
 */
static bool resolve_calls(struct decoder *d)
{
    for (size_t i = 0; i < d->nfixups; i++) {
        struct fixup *x = &d->fixups[i];
        struct ptx_inst *in = &d->m->code[x->inst];
        int32_t t = func_find(d, x->s, x->len);

        if (t >= 0 && d->m->funcs[t].entry)
            return fatalf(d, in->line, "a call to entry \"%s\": only a .func can be called", d->m->funcs[t].name);
        if (t >= 0 && (d->m->funcs[t].defined || ptx_builtin(&d->m->funcs[t]))) {
            in->target = t;
        } else {
            /* Leave target -1: ptx_entry_check reports it for every entry that reaches it. */
            in->target = -1;
        }
    }
    d->nfixups = 0;
    return true;
}

/* Each entry's static shared memory, with that of the functions it calls, within what ptxas allows. */
static void check_entries(struct decoder *d)
{
    for (size_t i = 0; i < d->m->nfuncs && !d->fatal[0] && !d->oom; i++) {
        const struct ptx_function *f = &d->m->funcs[i];
        struct ptx_entry_usage u;

        if (!f->entry || !f->defined || !f->name || f->error)
            continue;
        if (ptx_entry_usage(d->m, f->name, &u) != CUABI_SUCCESS)
            d->oom = true;
        else if (u.shared_static > PTX_SHARED_MAX)
            fatalf(d, d->m->code[f->start].line,
                   "kernel \"%s\" uses %zu bytes of static shared memory, more than the device's %u", f->name,
                   u.shared_static, PTX_SHARED_MAX);
    }
}

static void module_free(struct ptx_module *m)
{
    for (size_t i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].error);
    }
    for (size_t i = 0; i < m->nsyms; i++) {
        free(m->syms[i].name);
        free(m->syms[i].init);
    }
    for (size_t i = 0; i < m->nfake_lines; i++)
        free(m->fake_lines[i].text);
    free(m->fake_lines);
    free(m->funcs);
    free(m->fmap);
    free(m->gmap);
    free(m->gnext);
    free(m->error);
    free(m->syms);
    free(m->code);
    free(m->calls);
    free(m->call_syms);
    free(m->params);
    free(m->consts);
    free(m);
}

/* The slot of NAME in the map of global symbols: the one holding it, else the empty one where it would go. */
static size_t gmap_slot(const struct ptx_module *m, const char *s, size_t len)
{
    size_t mask = m->gmap_cap - 1, i = ptx_name_hash(s, len) & mask;

    for (; m->gmap[i]; i = (i + 1) & mask) {
        const char *n = m->syms[m->gmap[i] - 1].name;

        if (strlen(n) == len && memcmp(n, s, len) == 0)
            break;
    }
    return i;
}

/* Maps the module's global symbols by name, for ptx_module_bind_global; false when out of memory. */
static bool index_globals(struct ptx_module *m)
{
    size_t cap = 16;

    while (cap < m->nsyms * 2)
        cap *= 2;
    if (!(m->gmap = calloc(cap, sizeof(*m->gmap))) || !(m->gnext = calloc(m->nsyms + 1, sizeof(*m->gnext))))
        return false;
    m->gmap_cap = cap;
    for (size_t i = 0; i < m->nsyms; i++)
        if (m->syms[i].space == S_GLOBAL) {
            size_t slot = gmap_slot(m, m->syms[i].name, strlen(m->syms[i].name));

            m->gnext[i] = m->gmap[slot];
            m->gmap[slot] = (uint32_t)i + 1;
        }
    return true;
}

/*
 * The definitions of one global in a link's inputs resolved as the PTX ISA
 * says, the one chosen left defined and every other made a reference to it
 * (ptx_module_bind_global gives all of them its address). A definition that
 * is neither .weak nor .common wins over .weak ones; more than one .visible
 * is refused. .common ones (globally visible, as .visible is, so not mixed
 * with another definition that is not .common) merge into one of the largest
 * size and alignment; only one may be initialised, and it must be of the
 * largest size. With only .weak ones, all of one size (as nvlink asks), the
 * first input's is chosen. Names
 * defined twice in one input, and ones several inputs define without a
 * linking directive, are left as they are: the module loader refuses them.
 */
static void merge_globals(struct decoder *d)
{
    struct ptx_module *m = d->m;

    for (size_t slot = 0; slot < m->gmap_cap && !d->fatal[0]; slot++) {
        struct ptx_symbol *strong = NULL, *common = NULL, *weak = NULL, *init = NULL;
        size_t defs = 0, nstrong = 0, nvisible = 0, ncommon = 0, ninit = 0, size = 0, align = 1, weak_sizes[2] = {0, 0};
        unsigned last_input = 0;
        bool same_input = false;
        const char *name;

        if (!m->gmap[slot] || !m->gnext[m->gmap[slot] - 1])
            continue;
        name = m->syms[m->gmap[slot] - 1].name;
        /* The chain runs from the last definition in the text to the first: an input's follow each other. */
        for (uint32_t i = m->gmap[slot]; i; i = m->gnext[i - 1]) {
            struct ptx_symbol *g = &m->syms[i - 1];

            if (!g->defined)
                continue;
            same_input = same_input || (defs && g->input == last_input);
            last_input = g->input;
            defs++;
            if (g->linkage == L_COMMON) {
                ncommon++;
                common = g;
                size = g->size > size ? g->size : size;
                align = g->align > align ? g->align : align;
                if (g->init_len) {
                    ninit++;
                    init = g;
                }
            } else if (g->linkage == L_WEAK) {
                if (weak && g->size != weak->size) { /* in text order: g's, then weak's */
                    weak_sizes[0] = g->size;
                    weak_sizes[1] = weak->size;
                }
                weak = g;
            } else {
                nstrong++;
                nvisible += g->linkage == L_VISIBLE;
                strong = g;
            }
        }
        if (defs < 2 || same_input || nstrong - nvisible > 0)
            continue;
        if (nvisible > 1)
            snprintf(d->fatal, sizeof(d->fatal), "global \"%s\" is defined in %zu inputs", name, nvisible);
        else if (nstrong && ncommon)
            snprintf(d->fatal, sizeof(d->fatal), "global \"%s\" is .common in %zu input(s), not .common in %zu",
                     name, ncommon, nstrong);
        else if (ninit > 1)
            snprintf(d->fatal, sizeof(d->fatal), "global \"%s\" is initialised by %zu .common definitions", name,
                     ninit);
        else if (init && init->size < size)
            snprintf(d->fatal, sizeof(d->fatal),
                     "global \"%s\": its initialised .common definition has %zu bytes, another %zu: the "
                     "initialised one must be the largest",
                     name, init->size, size);
        else if (weak_sizes[0] != weak_sizes[1])
            snprintf(d->fatal, sizeof(d->fatal), "global \"%s\" is .weak in inputs with %zu and %zu bytes", name,
                     weak_sizes[0], weak_sizes[1]);
        if (d->fatal[0])
            return;
        if (!strong && ncommon) {
            strong = init ? init : common;
            strong->size = size;
            strong->align = (uint32_t)align;
        }
        if (!strong)
            strong = weak;
        for (uint32_t i = m->gmap[slot]; i; i = m->gnext[i - 1])
            if (&m->syms[i - 1] != strong)
                m->syms[i - 1].defined = false;
    }
}

/*
 * Whether word S begins a declaration PTX allows at module scope (or a line
 * of the fake's own), `.version` first; else refuses the module.
 */
static bool module_directive(struct decoder *d, const char *s, size_t len, bool versioned)
{
    static const char *const names[] = {
        ".version", ".target", ".address_size", ".file", ".loc", ".section", ".visible", ".extern", ".weak",
        ".common", ".entry", ".func", ".global", ".const", ".shared", ".local", ".pragma", ".alias", ".tex",
        ".texref", ".samplerref", ".surfref",
    };
    bool known = len > 6 && memcmp(s, ".fake_", 6) == 0;

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !known; i++)
        known = is(s, len, names[i]);
    if (!known) {
        size_t line = strcspn(s, "\n");

        while (line && (s[line - 1] == ' ' || s[line - 1] == '\t' || s[line - 1] == '\r'))
            line--;
        return fatalf(d, d->line, "unexpected \"%.*s\"", (int)(line < 80 ? line : 80), s);
    }
    if (!versioned && !is(s, len, ".version"))
        return fatalf(d, d->line, ".version must come first");
    if (is(s, len, ".version")) {
        const char *p = d->p + strspn(d->p, " \t");

        if (*p < '0' || *p > '9')
            return fatalf(d, d->line, "expected a version number after .version");
    }
    return true;
}

/* Keeps a `.fake_*` line, from its directive S to the end of the line, for the module loader. */
static bool fake_line_add(struct decoder *d, const char *s)
{
    struct ptx_fake_line *l;

    if (!GROW(d, d->m->fake_lines, d->cap_fake_lines, d->m->nfake_lines + 1))
        return false;
    l = &d->m->fake_lines[d->m->nfake_lines];
    if (!(l->text = strndup(s, strcspn(s, "\n"))))
        return d->oom = true, false;
    l->line = d->line;
    d->m->nfake_lines++;
    return true;
}

/*
 * After .version or .target: the module's architecture number. The virtual
 * architecture a `.target sm_XX` names (sm_75: 75), else the version (8.5: 85).
 */
static void read_arch(struct decoder *d, bool target)
{
    const char *p = d->p + strspn(d->p, " \t");
    int n = 0;

    if (target) {
        if (strncmp(p, "sm_", 3) != 0 || p[3] < '0' || p[3] > '9')
            return;
        for (p += 3; *p >= '0' && *p <= '9' && n < 100000; p++)
            n = n * 10 + (*p - '0');
        d->m->arch = n;
        return;
    }
    for (; *p >= '0' && *p <= '9' && n < 1000; p++)
        n = n * 10 + (*p - '0');
    d->m->arch = n * 10 + (p[0] == '.' && p[1] >= '0' && p[1] <= '9' ? p[1] - '0' : 0);
}

struct ptx_module *ptx_module_decode(const char *text)
{
    struct decoder d;
    struct ptx_module *m = calloc(1, sizeof(*m));

    if (!m)
        return NULL;
    atomic_init(&m->refs, 1);
    memset(&d, 0, sizeof(d));
    d.p = text;
    d.line = 1;
    d.m = m;
    d.sink = -1;
    bool versioned = false;

    while (!d.oom && !d.fatal[0]) {
        const char *s;
        size_t len;
        unsigned char linkage = L_INTERNAL;

        skip_space(&d);
        if (!*d.p)
            break;
        len = word(&d, &s);
        if (len == 0) {
            fatalf(&d, d.line, "unexpected \"%c\" between declarations", *d.p);
            break;
        }
        if (!module_directive(&d, s, len, versioned))
            break;
        versioned = true;
        while (is(s, len, ".visible") || is(s, len, ".extern") || is(s, len, ".weak") || is(s, len, ".common")) {
            unsigned char l = is(s, len, ".extern") ? L_EXTERN
                              : is(s, len, ".common") ? L_COMMON
                              : is(s, len, ".weak")   ? L_WEAK
                                                      : L_VISIBLE;

            linkage = l > linkage ? l : linkage;
            len = word(&d, &s);
        }
        if (len == 0 || s[0] != '.') {
            fatalf(&d, d.line, "expected a declaration, found \"%.*s\"", len ? (int)len : 1, len ? s : d.p);
            break;
        }
        /* The PTX ISA: .common only on variables in .global. */
        if (linkage == L_COMMON && !is(s, len, ".global")) {
            fatalf(&d, d.line, ".common applies only to .global variables, not to %.*s", (int)len, s);
            break;
        }
        if (is(s, len, ".version"))
            d.input++;
        if (is(s, len, ".version") || is(s, len, ".target"))
            read_arch(&d, is(s, len, ".target"));
        if (len > 6 && memcmp(s, ".fake_", 6) == 0) {
            if (!fake_line_add(&d, s))
                break;
            skip_line(&d);
        } else if (is(s, len, ".version") || is(s, len, ".target") || is(s, len, ".address_size") ||
                   is(s, len, ".file") || is(s, len, ".loc")) {
            skip_line(&d);
        } else if (is(s, len, ".entry") || is(s, len, ".func")) {
            if (!read_function(&d, is(s, len, ".entry"), linkage == L_EXTERN, linkage == L_WEAK))
                break;
        } else if (is(s, len, ".global") || is(s, len, ".const") || is(s, len, ".shared")) {
            if (!read_variable(&d, s, len, linkage)) {
                d.err[0] = '\0';
                skip_statement(&d, false);
            }
        } else if (is(s, len, ".section")) {
            unsigned line = d.line;
            const char *name;
            size_t nlen = word(&d, &name);

            if (!accept(&d, '{')) {
                fatalf(&d, line, "expected { after .section %.*s", (int)nlen, name);
                break;
            }
            if (!skip_block(&d, true))
                fatalf(&d, d.line, "the text ends inside a .section");
        } else {
            if (!skip_statement(&d, false))
                break;
        }
    }
    if (!d.fatal[0] && d.open_comment)
        fatalf(&d, d.open_comment, "/* comment does not end");
    if (!d.fatal[0] && d.open_string)
        fatalf(&d, d.open_string, "a string does not end on its line");
    if (!d.fatal[0] && !versioned)
        fatalf(&d, d.line, "no .version directive: this is not PTX");
    scope_free(&d.global);
    scope_free(&d.local);
    free(d.labels);
    if (!d.oom && !d.fatal[0] && resolve_calls(&d))
        place_dynamic_shared(m);
    if (!d.oom && !d.fatal[0])
        check_entries(&d);
    if (!d.oom && !d.fatal[0] && !index_globals(m))
        d.oom = true;
    if (!d.oom && !d.fatal[0])
        merge_globals(&d);
    free(d.fixups);
    if (!d.oom && d.fatal[0] && !(m->error = strdup(d.fatal)))
        d.oom = true;
    if (d.oom) {
        module_free(m);
        return NULL;
    }
    return m;
}

const char *ptx_module_error(const struct ptx_module *m)
{
    return m ? m->error : NULL;
}

void ptx_module_retain(struct ptx_module *m)
{
    if (m)
        atomic_fetch_add(&m->refs, 1);
}

void ptx_module_release(struct ptx_module *m)
{
    if (m && atomic_fetch_sub(&m->refs, 1) == 1)
        module_free(m);
}

void ptx_module_bind_global(struct ptx_module *m, const char *name, size_t len, uint64_t addr)
{
    if (!m || !m->gmap_cap)
        return;
    for (uint32_t i = m->gmap[gmap_slot(m, name, len)]; i; i = m->gnext[i - 1]) {
        m->syms[i - 1].value = addr;
        m->syms[i - 1].bound = true;
    }
}

/* Whether function `fi` itself can run (its callees apart); the reason in `why` if not. */
static bool function_runs(const struct ptx_module *m, size_t fi, const char *entry, char *why, size_t why_size)
{
    const struct ptx_function *f = &m->funcs[fi];

    if (ptx_builtin(f))
        return true;
    if (f->error) {
        if (strcmp(f->name ? f->name : "", entry) == 0)
            snprintf(why, why_size, "%s (kernel \"%s\")", f->error, entry);
        else
            snprintf(why, why_size, "%s (in function \"%s\" of kernel \"%s\")", f->error, f->name ? f->name : "?",
                     entry);
        return false;
    }
    if (!f->defined) {
        snprintf(why, why_size, "function \"%s\" is declared but not defined in the module (kernel \"%s\")",
                 f->name ? f->name : "?", entry);
        return false;
    }
    for (uint32_t i = f->start; i < f->end; i++) {
        const struct ptx_inst *in = &m->code[i];

        if (in->op == X_CALL && in->target < 0) {
            snprintf(why, why_size, "PTX line %u: a call to a function the module does not define (kernel \"%s\")",
                     in->line, entry);
            return false;
        }
        for (unsigned o = 0; o < in->nopd; o++) {
            int32_t s = in->o[o].sym;

            if ((in->o[o].kind == O_ADDR || in->o[o].kind == O_SYM) && s >= 0 && !m->syms[s].bound) {
                snprintf(why, why_size, "PTX line %u: variable \"%s\" has no memory (kernel \"%s\")", in->line,
                         m->syms[s].name, entry);
                return false;
            }
        }
    }
    return true;
}

cuabi_result ptx_entry_check(const struct ptx_module *m, const char *name, char *why, size_t why_size)
{
    int32_t e = ptx_func_index(m, name, strlen(name));
    uint32_t *all;
    size_t n;
    bool ok = true;

    if (e < 0 || !m->funcs[e].entry) {
        snprintf(why, why_size, "kernel \"%s\": no PTX the interpreter read", name);
        return CUABI_ERROR_NOT_FOUND;
    }
    if (!(all = ptx_reach(m, (size_t)e, &n)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    for (size_t k = 0; k < n && ok; k++)
        ok = function_runs(m, all[k], name, why, why_size);
    free(all);
    return ok ? CUABI_SUCCESS : CUABI_ERROR_NOT_SUPPORTED;
}

bool ptx_entry_cluster(const struct ptx_module *m, const char *name, unsigned dims[3])
{
    int32_t i = ptx_func_index(m, name, strlen(name));

    dims[0] = dims[1] = dims[2] = 1;
    if (i < 0 || !m->funcs[i].entry || !m->funcs[i].defined || !m->funcs[i].cluster[0])
        return false;
    memcpy(dims, m->funcs[i].cluster, sizeof(m->funcs[i].cluster));
    return true;
}
