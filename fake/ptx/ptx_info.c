/* SPDX-License-Identifier: MIT */
/*
 * What the rest of the fake asks about a decoded module besides running it:
 * its entries with their parameter layouts, its variables with their initial
 * bytes and its `.fake_*` lines, for the module loader (fake_image.c); its
 * functions by name (the decoder's map of them too), for the JIT linker
 * (fake_link.c); and what an entry uses, for cuFuncGetAttribute.
 */
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

size_t ptx_name_hash(const char *s, size_t len)
{
    uint64_t h = 14695981039346656037ull;

    while (len--)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return (size_t)(h ^ h >> 29);
}

/* The slot of NAME in the function map: the one holding it, else the empty one where it would go. */
size_t ptx_fmap_slot(const struct ptx_module *m, const char *s, size_t len)
{
    size_t mask = m->fmap_cap - 1, i = ptx_name_hash(s, len) & mask;

    for (; m->fmap[i]; i = (i + 1) & mask) {
        const char *n = m->funcs[m->fmap[i] - 1].name;

        if (n && strlen(n) == len && memcmp(n, s, len) == 0)
            break;
    }
    return i;
}

int32_t ptx_func_index(const struct ptx_module *m, const char *name, size_t len)
{
    size_t i;

    if (!m || !m->fmap_cap)
        return -1;
    i = ptx_fmap_slot(m, name, len);
    return m->fmap[i] ? (int32_t)(m->fmap[i] - 1) : -1;
}

/* Functions the driver gives every program: a declaration of one needs no definition. */
static bool provided(const char *name)
{
    static const char *const names[] = {"vprintf", "malloc", "free", "__assertfail"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

bool ptx_module_function(const struct ptx_module *m, size_t i, struct ptx_function_info *out)
{
    const struct ptx_function *f;

    if (!m || i >= m->nfuncs)
        return false;
    f = &m->funcs[i];
    out->name = f->name;
    out->entry = f->entry;
    out->defined = f->defined;
    out->provided = f->name && !f->defined && provided(f->name);
    return true;
}

static int entry_index(const struct ptx_module *m, const char *name)
{
    int32_t i = ptx_func_index(m, name, strlen(name));

    return i >= 0 && m->funcs[i].entry && m->funcs[i].defined ? (int)i : -1;
}

/* Whether function `i` is an entry the module defines, or keeps with the reason its header could not be read. */
static bool entry_read(const struct ptx_module *m, size_t i, struct ptx_entry_info *out)
{
    const struct ptx_function *f = &m->funcs[i];

    if (!f->entry || !f->name || !(f->defined || f->bad_header))
        return false;
    *out = (struct ptx_entry_info){f->name, f->line, f->bad_header ? 0 : f->nkparams, f->kparam_bytes,
                                   f->max_threads, f->bad_header ? f->error : NULL, i};
    return true;
}

bool ptx_module_entry_next(const struct ptx_module *m, size_t *i, struct ptx_entry_info *out)
{
    for (; m && *i < m->nfuncs; ++*i)
        if (entry_read(m, *i, out))
            return true;
    return false;
}

const struct ptx_fake_line *ptx_module_fake_line(const struct ptx_module *m, size_t i)
{
    return m && i < m->nfake_lines ? &m->fake_lines[i] : NULL;
}

void ptx_entry_param(const struct ptx_module *m, const struct ptx_entry_info *e, unsigned k, size_t *offset,
                     size_t *size, size_t *align)
{
    const struct ptx_symbol *p = &m->syms[m->funcs[e->index].kparams + k];

    *offset = (size_t)p->value;
    *size = p->size;
    *align = p->align;
}

bool ptx_module_global(const struct ptx_module *m, size_t *i, struct ptx_global_info *out)
{
    for (; m && *i < m->nsyms; ++*i) {
        const struct ptx_symbol *g = &m->syms[*i];

        if (g->space == S_GLOBAL) {
            *out = (struct ptx_global_info){g->name, g->line, g->size, g->align, g->constant, g->defined, g->init,
                                            g->init_len};
            return true;
        }
    }
    return false;
}

int ptx_module_arch(const struct ptx_module *m)
{
    return m ? m->arch : 0;
}

uint32_t *ptx_reach(const struct ptx_module *m, size_t fi, size_t *n)
{
    /* The walk's stack: a function and the next of its instructions to look at. */
    struct frame {
        uint32_t fi, pc;
    } *stack = malloc(m->nfuncs * sizeof(*stack));
    unsigned char *seen = calloc(m->nfuncs, 1);
    uint32_t *out = malloc(m->nfuncs * sizeof(*out));
    size_t depth = 0;

    *n = 0;
    if (!stack || !seen || !out) {
        free(out);
        out = NULL;
        goto done;
    }
    seen[fi] = 1;
    out[(*n)++] = (uint32_t)fi;
    stack[depth++] = (struct frame){(uint32_t)fi, m->funcs[fi].defined ? m->funcs[fi].start : 0};
    while (depth) {
        struct frame *top = &stack[depth - 1];
        const struct ptx_function *f = &m->funcs[top->fi];
        int32_t t = -1;

        while (f->defined && top->pc < f->end && t < 0) {
            const struct ptx_inst *in = &m->code[top->pc++];

            if (in->op == X_CALL && in->target >= 0 && !seen[in->target])
                t = in->target;
        }
        if (t < 0) {
            depth--;
            continue;
        }
        /* Each function is pushed once, so the stack never holds more than nfuncs. */
        seen[t] = 1;
        out[(*n)++] = (uint32_t)t;
        stack[depth++] = (struct frame){(uint32_t)t, m->funcs[t].defined ? m->funcs[t].start : 0};
    }
done:
    free(stack);
    free(seen);
    return out;
}

/* Adds what function `fi` uses to `u`; `seen` marks the shared symbols counted. */
static void usage_add(const struct ptx_module *m, size_t fi, unsigned char *seen, struct ptx_entry_usage *u)
{
    const struct ptx_function *f = &m->funcs[fi];

    if (!f->defined)
        return;
    u->regs += f->nregs;
    if (!f->entry)
        u->local += f->frame_size;
    for (uint32_t i = f->start; i < f->end; i++) {
        const struct ptx_inst *in = &m->code[i];

        for (unsigned o = 0; o < in->nopd; o++) {
            int32_t s = in->o[o].sym;

            if ((in->o[o].kind == O_ADDR || in->o[o].kind == O_SYM) && s >= 0 && !seen[s] &&
                m->syms[s].space == S_SHARED && m->syms[s].size > 0) {
                seen[s] = 1;
                u->shared_static += m->syms[s].size;
            }
        }
    }
}

cuabi_result ptx_entry_usage(const struct ptx_module *m, const char *name, struct ptx_entry_usage *out)
{
    int e = entry_index(m, name);
    unsigned char *seen;
    uint32_t *all;
    size_t n;

    memset(out, 0, sizeof(*out));
    if (e < 0)
        return CUABI_ERROR_NOT_FOUND;
    seen = calloc(m->nsyms + 1, 1);
    all = seen ? ptx_reach(m, (size_t)e, &n) : NULL;
    if (!all) {
        free(seen);
        return CUABI_ERROR_OUT_OF_MEMORY;
    }
    out->local = m->funcs[e].frame_size;
    for (size_t k = 0; k < n; k++)
        usage_add(m, all[k], seen, out);
    free(all);
    free(seen);
    return CUABI_SUCCESS;
}
