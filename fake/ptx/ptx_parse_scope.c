/* SPDX-License-Identifier: MIT */
/* The PTX decoder's scopes: the module's and a function's names (registers, ranges, symbols), and symbols added. */
#include <stdlib.h>
#include <string.h>

#include "ptx_decode.h"

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

bool name_add(struct decoder *d, bool module, struct name n)
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
void scope_pop(struct scope *sc, size_t mark)
{
    while (sc->n > mark) {
        const struct name *n = &sc->v[--sc->n];

        scope_slot(sc, n->s, n->len, n->kind == N_RANGE)->top = n->prev;
    }
}

void scope_free(struct scope *sc)
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
const struct name *name_find(const struct decoder *d, const char *s, size_t len, uint32_t *index)
{
    int32_t i = scope_find(&d->local, s, len, index);

    if (i >= 0)
        return &d->local.v[i];
    i = scope_find(&d->global, s, len, index);
    return i >= 0 ? &d->global.v[i] : NULL;
}

int32_t sym_add(struct decoder *d, const char *s, size_t len, unsigned char space, uint64_t value, size_t size)
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
