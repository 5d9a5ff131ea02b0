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
 *
 * This file reads function bodies and the module; the decoder's other
 * sections each have a file: ptx_parse_text.c, ptx_parse_scope.c,
 * ptx_parse_decl.c and ptx_parse_inst.c (their declarations in ptx_decode.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_decode.h"

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
