/* SPDX-License-Identifier: MIT */
/* The PTX decoder's declarations: registers, variables and their initialisers, a function's parameters and its name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_decode.h"

uint32_t align_up32(uint32_t v, uint32_t a)
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

int32_t func_find(const struct decoder *d, const char *s, size_t len)
{
    return ptx_func_index(d->m, s, len);
}

/*
 * Maps function `fi`'s name to it: a name already mapped keeps its function
 * (the first one of that name). The map is rebuilt twice as large at half
 * full; a function whose name was taken away stays out.
 */
bool fmap_add(struct decoder *d, size_t fi)
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
bool read_params(struct decoder *d, struct ptx_function *f, bool entry, bool result)
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

/* A .reg/.local/.shared/.param declaration inside a function. */
bool read_local_decl(struct decoder *d, const char *dir, size_t dlen)
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
bool read_variable(struct decoder *d, const char *dir, size_t dlen, unsigned char linkage)
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
