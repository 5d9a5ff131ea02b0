/* SPDX-License-Identifier: MIT */
/*
 * What the rest of the fake asks about a decoded module besides running it:
 * its functions, for the JIT linker (fake_link.c), and what an entry uses,
 * for cuFuncGetAttribute.
 */
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

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
    for (size_t i = 0; m && i < m->nfuncs; i++)
        if (m->funcs[i].entry && m->funcs[i].defined && m->funcs[i].name && strcmp(m->funcs[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Adds what function `fi` and those it calls use to `u`; `seen` marks functions and shared symbols counted. */
static void usage_add(const struct ptx_module *m, size_t fi, unsigned char *seen, struct ptx_entry_usage *u)
{
    const struct ptx_function *f = &m->funcs[fi];

    if (seen[fi] || !f->defined)
        return;
    seen[fi] = 1;
    u->regs += f->nregs;
    if (!f->entry)
        u->local += f->frame_size;
    for (uint32_t i = f->start; i < f->end; i++) {
        const struct ptx_inst *in = &m->code[i];

        if (in->op == X_CALL && in->target >= 0)
            usage_add(m, (size_t)in->target, seen, u);
        for (unsigned o = 0; o < in->nopd; o++) {
            int32_t s = in->o[o].sym;
            unsigned char *mark = s >= 0 ? &seen[m->nfuncs + (size_t)s] : NULL;

            if ((in->o[o].kind == O_ADDR || in->o[o].kind == O_SYM) && mark && !*mark &&
                m->syms[s].space == S_SHARED && m->syms[s].size > 0) {
                *mark = 1;
                u->shared_static += m->syms[s].size;
            }
        }
    }
}

cuabi_result ptx_entry_usage(const struct ptx_module *m, const char *name, struct ptx_entry_usage *out)
{
    int e = entry_index(m, name);
    unsigned char *seen;

    memset(out, 0, sizeof(*out));
    if (e < 0)
        return CUABI_ERROR_NOT_FOUND;
    if (!(seen = calloc(m->nfuncs + m->nsyms, 1)))
        return CUABI_ERROR_OUT_OF_MEMORY;
    out->local = m->funcs[e].frame_size;
    usage_add(m, (size_t)e, seen, out);
    free(seen);
    return CUABI_SUCCESS;
}
