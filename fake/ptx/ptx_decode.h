/* SPDX-License-Identifier: MIT */
/*
 * The PTX decoder's own declarations, shared by its files, one a section:
 * ptx_parse_text.c (words, statements, errors), ptx_parse_scope.c (names in
 * scope), ptx_parse_decl.c (declarations: registers, variables, parameters),
 * ptx_parse_inst.c (an instruction's opcode and operands) and ptx_parse.c
 * (function bodies and the module). Nothing outside the decoder includes it.
 */
#ifndef PTX_DECODE_H
#define PTX_DECODE_H

#include <stdarg.h>
#include <string.h>

#include "ptx_internal.h"

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

/* ptx_ops.def's type rules (types_fit() in ptx_parse_inst.c) and mode tables (mode_tables there). */
enum { TY_ONE, TY_TWO, TY_ANY, TY_NONE, TY_CMP, TY_SET, TY_W32, TY_B32, TY_INT, TY_INT32, TY_INT_WIDE, TY_TEX, TY_SURFACE,
       TY_BAR_RED };
enum { MD_NONE, MD_CMP, MD_CLASS, MD_ATOM, MD_SHFL, MD_VOTE, MD_MATCH, MD_SHF, MD_BMSK, MD_TEX, MD_BOUNDARY,
       MD_BAR_RED };

#define GROW(d, arr, cap, need) (grow((void **)&(arr), &(cap), (need), sizeof(*(arr))) || ((d)->oom = true, false))

/* ---- Text: the small readers every section calls, inline ---- */

static inline bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
           c == '%' || c == '.';
}

static inline void skip_space(struct decoder *d)
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

static inline void skip_line(struct decoder *d)
{
    d->p += strcspn(d->p, "\n");
}

/* A word at p (letters, digits, _ $ % .), its length; 0 if none. */
static inline size_t word(struct decoder *d, const char **s)
{
    const char *q;

    skip_space(d);
    *s = d->p;
    for (q = d->p; word_char(*q); q++)
        ;
    d->p = q;
    return (size_t)(q - *s);
}

static inline bool is(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(s, w, len) == 0;
}

static inline bool accept(struct decoder *d, char c)
{
    skip_space(d);
    if (*d->p != c)
        return false;
    d->p++;
    return true;
}

/* ---- Text (ptx_parse_text.c) ---- */

bool grow(void **p, size_t *cap, size_t need, size_t elem);
bool errf(struct decoder *d, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool fatalf(struct decoder *d, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool skip_statement(struct decoder *d, bool body);
bool skip_block(struct decoder *d, bool open);
bool parse_uint(const char *s, size_t len, unsigned long long *out);
enum ptx_type type_of(const char *s, size_t len);

/* ---- Scopes (ptx_parse_scope.c) ---- */

bool name_add(struct decoder *d, bool module, struct name n);
void scope_pop(struct scope *sc, size_t mark);
void scope_free(struct scope *sc);
const struct name *name_find(const struct decoder *d, const char *s, size_t len, uint32_t *index);
int32_t sym_add(struct decoder *d, const char *s, size_t len, unsigned char space, uint64_t value, size_t size);

/* ---- Declarations (ptx_parse_decl.c) ---- */

uint32_t align_up32(uint32_t v, uint32_t a);
int32_t func_find(const struct decoder *d, const char *s, size_t len);
bool fmap_add(struct decoder *d, size_t fi);
bool read_params(struct decoder *d, struct ptx_function *f, bool entry, bool result);
bool read_local_decl(struct decoder *d, const char *dir, size_t dlen);
bool read_variable(struct decoder *d, const char *dir, size_t dlen, unsigned char linkage);

/* ---- Instructions (ptx_parse_inst.c) ---- */

bool read_instruction(struct decoder *d, int32_t guard, bool guard_neg, unsigned line);

#endif
