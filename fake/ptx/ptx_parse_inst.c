/* SPDX-License-Identifier: MIT */
/* The PTX decoder's instructions: an opcode and its modifiers, its operands, and whether they fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_decode.h"

static const char *const sreg_names[R_COUNT] = {
    "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z",
    "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
    "%clock", "%clock64", "%globaltimer", "%lanemask_eq", "%lanemask_lt", "%lanemask_le", "%lanemask_gt",
    "%lanemask_ge", "%dynamic_smem_size", "%total_smem_size", "%cluster_nctarank", "%cluster_ctarank",
    "%clusterid.x", "%clusterid.y", "%clusterid.z", "%nclusterid.x", "%nclusterid.y", "%nclusterid.z",
    "%cluster_ctaid.x", "%cluster_ctaid.y", "%cluster_ctaid.z", "%cluster_nctaid.x", "%cluster_nctaid.y",
    "%cluster_nctaid.z", "%is_explicit_cluster", "%envreg1", "%envreg2",
};

/* ---- Instructions ---- */

const char *const ptx_op_names[X_COUNT] = {
#define PTX_OP(op, name, shape, handler, dst, types, modes, hook, iform, fform) [X_##op] = name,
#include "ptx_ops.def"
};

/* The mnemonics the decoder looks up: every operation's name and its other spellings (a dotted name never matches). */
static const struct {
    const char *name;
    unsigned char op;
} op_names[] = {
#define PTX_OP(op, name, shape, handler, dst, types, modes, hook, iform, fform) {name, X_##op},
#define PTX_ALIAS(name, op) {name, X_##op},
#include "ptx_ops.def"
};

static const char *const rnd_names[] = {"", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna"};
static const char *const geom_names[] = {"", "1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};

/* Modifiers every instruction may carry: a state space, a vector, a modifier bit. */
static const struct {
    const char *name;
    unsigned char space, vec;
    uint16_t mods;
} modifiers[] = {
    {"global", S_GLOBAL, 0, 0},     {"shared", S_SHARED, 0, 0},  {"shared::cta", S_SHARED, 0, 0},
    {"shared::cluster", S_SHARED, 0, 0}, {"local", S_LOCAL, 0, 0}, {"param", S_PARAM, 0, 0},
    {"const", S_CONST, 0, 0},       {"v2", 0, 2, 0},             {"v4", 0, 4, 0},
    {"hi", 0, 0, M_HI},             {"lo", 0, 0, M_LO},          {"wide", 0, 0, M_WIDE},
    {"sat", 0, 0, M_SAT},           {"satfinite", 0, 0, M_SAT},  {"ftz", 0, 0, M_FTZ},
    {"approx", 0, 0, M_APPROX},     {"nc", 0, 0, M_NC},          {"cc", 0, 0, M_CC},
    {"shiftamt", 0, 0, M_SHIFTAMT}, {"relu", 0, 0, M_RELU},
    /* Ordering: loads that acquire and stores that release fence the host's memory too. */
    {"acquire", 0, 0, M_ACQUIRE},   {"release", 0, 0, M_RELEASE}, {"acq_rel", 0, 0, M_ACQUIRE | M_RELEASE},
};

/* The mode words of ptx_ops.def's MD_* column: a word's index goes in ptx_inst.cmp; 0xff as default: required. */
static const char *const cmp_words[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                        "hs",  "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
static const char *const class_words[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
static const char *const atom_words[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"};
static const char *const shfl_words[] = {"up", "down", "bfly", "idx"};
static const char *const vote_words[] = {"all", "any", "uni", "ballot"};
static const char *const match_words[] = {"any", "all"};
static const char *const shf_words[] = {"l", "r"};
static const char *const bmsk_words[] = {"clamp", "wrap"};
static const char *const tex_words[] = {"", "level", "grad"};
static const char *const boundary_words[] = {"zero", "clamp", "trap"};
static const char *const bar_red_words[] = {"popc", "and", "or"};
#define MODE_TABLE(words, dflt) {words, sizeof(words) / sizeof(words[0]), dflt}
static const struct {
    const char *const *words;
    unsigned char n, dflt;
} mode_tables[] = {
    [MD_NONE] = {NULL, 0, 0xff},
    [MD_CMP] = MODE_TABLE(cmp_words, 0xff),
    [MD_CLASS] = MODE_TABLE(class_words, 0xff),
    [MD_ATOM] = MODE_TABLE(atom_words, 0xff),
    [MD_SHFL] = MODE_TABLE(shfl_words, 0xff),
    [MD_VOTE] = MODE_TABLE(vote_words, 0xff),
    [MD_MATCH] = MODE_TABLE(match_words, 0xff),
    [MD_SHF] = MODE_TABLE(shf_words, 0xff),
    [MD_BMSK] = MODE_TABLE(bmsk_words, 0xff),
    [MD_TEX] = MODE_TABLE(tex_words, TX_PLAIN),
    [MD_BOUNDARY] = MODE_TABLE(boundary_words, SU_TRAP), /* suld.b / sust.b trap, as PTX says, when none is given */
    [MD_BAR_RED] = MODE_TABLE(bar_red_words, 0xff),
};

/* What an opcode's modifiers said that the instruction does not keep. */
struct opcode {
    unsigned ntypes;
    bool cluster;   /* bar.cluster: arrive or wait must follow */
    bool surface_b; /* suld.b, sust.b */
};

/*
 * A row's decode hook: with a modifier m, whether it takes it (changing the
 * instruction, maybe into another row's); with m NULL, once every modifier
 * is read, whether the instruction stands.
 */
typedef bool decode_hook(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc);

/* prefetch, applypriority, discard: the cache level they name; the fake has no cache, they do nothing. */
static bool hook_cache_level(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    return !m || is(m, ml, "L1") || is(m, ml, "L2") || is(m, ml, "tensormap");
}

/* cvta.to: from the generic space into the one named. */
static bool hook_cvta(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    if (!m)
        return true;
    if (!is(m, ml, "to"))
        return false;
    in->op = X_CVTA_TO;
    return true;
}

/* Extended precision: add.cc, sub.cc and mad.cc write the carry flag, as addc, subc and madc do. */
static bool hook_carry_out(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    if (m)
        return false;
    if (in->mods & M_CC)
        in->op = in->op == X_ADD ? X_ADDC : in->op == X_SUB ? X_SUBC : X_MADC;
    return true;
}

/* addc, subc and madc read the carry flag. */
static bool hook_carry_in(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    if (m)
        return false;
    in->mods |= M_CI;
    return true;
}

/* setp and set: a boolean combiner after the comparison. */
static bool hook_combine(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    if (!m)
        return true;
    if (in->cmp == 0xff || !(is(m, ml, "and") || is(m, ml, "or") || is(m, ml, "xor")))
        return false;
    in->boolop = is(m, ml, "and") ? B_AND : is(m, ml, "or") ? B_OR : B_XOR;
    return true;
}

/* shf: .wrap or .clamp of the shift count. */
static bool hook_shf_mode(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    if (m && (is(m, ml, "wrap") || is(m, ml, "clamp")))
        in->boolop = is(m, ml, "wrap");
    return !m || is(m, ml, "wrap") || is(m, ml, "clamp");
}

/* The geometry a modifier names (G_*), or G_NONE. */
static unsigned geom_named(const char *m, size_t ml)
{
    for (unsigned g = G_1D; g <= G_ACUBE; g++)
        if (is(m, ml, geom_names[g]))
            return g;
    return G_NONE;
}

/* tex, suld, sust: the geometry (not 2dms, a2dms: refused as unknown modifiers); suld.b, sust.b. */
static bool hook_image(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    if (!m)
        return true;
    if (!in->geom && geom_named(m, ml)) {
        in->geom = (unsigned char)geom_named(m, ml);
        return true;
    }
    if (in->op != X_TEX && is(m, ml, "b"))
        return oc->surface_b = true;
    return false;
}

/* bar.warp.sync, bar.arrive, bar.red, barrier.cluster.arrive and .wait: other rows spelt from bar. */
static bool hook_bar(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    if (!m)
        return !oc->cluster; /* barrier.cluster says which half: arrive or wait */
    if (is(m, ml, "warp"))
        in->op = X_BAR_WARP;
    else if (is(m, ml, "cluster"))
        oc->cluster = true;
    else if (oc->cluster && (is(m, ml, "arrive") || is(m, ml, "wait")))
        in->op = m[0] == 'a' ? X_CLUSTER_ARRIVE : X_CLUSTER_WAIT;
    else if (is(m, ml, "arrive") || is(m, ml, "red"))
        in->op = m[0] == 'a' ? X_BAR_ARRIVE : X_BAR_RED;
    else
        return false;
    return true;
}

/* isspacep: the space it asks about is required. */
static bool hook_space(struct ptx_inst *in, const char *m, size_t ml, struct opcode *oc)
{
    return !m && in->space != S_GENERIC;
}

#define hook_none NULL
/* Each row's columns the decoder reads. */
static const struct {
    unsigned char types, modes, iform, fform;
    decode_hook *hook;
} rows[X_COUNT] = {
#define PTX_OP(op, name, shape, handler, dst, types, modes, hook, iform, fform)                                       \
    [X_##op] = {types, modes, iform, fform, hook_##hook},
#include "ptx_ops.def"
};
#undef hook_none

/* Whether the instruction's types fit its row's TY_* rule. */
static bool types_fit(const struct ptx_inst *in, const struct opcode *oc)
{
    const struct ptx_type_info *t = &ptx_types[in->type];
    bool integer = t->kind == K_SIGNED || t->kind == K_UNSIGNED;
    bool pair = in->type == T_F16X2 || in->type == T_BF16X2, pair2 = in->type2 == T_F16X2 || in->type2 == T_BF16X2;

    switch (rows[in->op].types) {
    case TY_ANY: return true;
    case TY_NONE: return oc->ntypes == 0;
    case TY_TWO: return oc->ntypes == 2;
    case TY_CMP: return oc->ntypes == 1 && !pair;
    /* set.cmp.dtype.stype: a result of all ones (1.0 for a float) or 0 */
    case TY_SET: return oc->ntypes == 2 && !pair && !pair2 && in->type2 != T_PRED;
    case TY_W32: return oc->ntypes == 1 && t->size == 4;
    case TY_B32: return oc->ntypes == 1 && in->type == T_B32;
    case TY_INT: return oc->ntypes == 1 && integer;
    case TY_INT32: return oc->ntypes == 1 && integer && t->size == 4;
    case TY_INT_WIDE: return oc->ntypes == 1 && integer && t->size >= 4;
    /* tex.geom.v4.dtype.ctype: the float and 32-bit integer forms nvcc and NVRTC write */
    case TY_TEX:
        return oc->ntypes == 2 && in->geom && in->vec == 4 &&
               (in->type == T_F32 || in->type == T_S32 || in->type == T_U32) &&
               (in->type2 == T_F32 || (in->type2 == T_S32 && in->geom < G_CUBE));
    case TY_SURFACE:
        return oc->ntypes == 1 && oc->surface_b && in->geom && in->geom < G_CUBE && t->kind == K_BITS && t->size <= 8;
    /* bar.red.popc.u32, bar.red.and.pred, bar.red.or.pred */
    case TY_BAR_RED: return oc->ntypes == 1 && (in->cmp == BR_POPC ? in->type == T_U32 : in->type == T_PRED);
    default: return oc->ntypes == 1; /* TY_ONE */
    }
}

/* Whether modifier m is a word of the row's mode table, its index then in in->cmp (a mode is given once). */
static bool mode_word(struct ptx_inst *in, const char *m, size_t ml)
{
    unsigned md = rows[in->op].modes;

    for (unsigned c = 0; md && in->cmp == 0xff && c < mode_tables[md].n; c++)
        if (mode_tables[md].words[c][0] && is(m, ml, mode_tables[md].words[c])) {
            in->cmp = (unsigned char)c;
            return true;
        }
    return false;
}

/* Whether m is one of the modifiers every instruction may carry, taken into `in`. */
static bool common_modifier(struct ptx_inst *in, const char *m, size_t ml)
{
    for (size_t i = 0; i < sizeof(modifiers) / sizeof(modifiers[0]); i++)
        if (is(m, ml, modifiers[i].name)) {
            if (modifiers[i].space)
                in->space = modifiers[i].space;
            if (modifiers[i].vec)
                in->vec = modifiers[i].vec;
            in->mods |= modifiers[i].mods;
            return true;
        }
    return false;
}

/* Modifiers that change nothing the interpreter models (caching, ordering, scope, alignment). */
static bool ignorable(const char *s, size_t len)
{
    static const char *const ok[] = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed", "weak", "mmio",
                                     "cta", "gpu", "sys", "cluster", "aligned", "uni", "sync", "full", "gl", "noftz",
                                     "proxy", "async", "shared::cta", "global::cta", "sc"};

    if ((len > 4 && (memcmp(s, "L1::", 4) == 0 || memcmp(s, "L2::", 4) == 0)) || (len > 2 && memcmp(s, "L2", 2) == 0))
        return true;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (is(s, len, ok[i]))
            return true;
    return false;
}

/*
 * The opcode's base and modifiers into `in`, from its row's columns: up to
 * two types, the row's mode words, the modifiers every instruction may
 * carry, the row's hook, a rounding, the ignorable ones; then the row's
 * last check and its type rule. False for one not understood.
 */
static bool decode_opcode(struct decoder *d, const char *s, size_t len, struct ptx_inst *in)
{
    const char *dot = memchr(s, '.', len);
    size_t blen = dot ? (size_t)(dot - s) : len;
    enum ptx_type types[2] = {T_NONE, T_NONE};
    struct opcode oc = {0, false, false};
    bool found = false;

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
            if (oc.ntypes == 2)
                return false;
            types[oc.ntypes++] = t;
            continue;
        }
        if (mode_word(in, m, ml) || common_modifier(in, m, ml) ||
            (rows[in->op].hook && rows[in->op].hook(in, m, ml, &oc)))
            continue;
        for (unsigned r = 1; r < sizeof(rnd_names) / sizeof(rnd_names[0]) && !known; r++)
            if (is(m, ml, rnd_names[r])) {
                in->rnd = (unsigned char)r;
                known = true;
            }
        if (!known && !ignorable(m, ml))
            return false;
    }
    in->type = (unsigned char)types[0];
    in->type2 = (unsigned char)types[1];
    if (in->type == T_B128 || in->type2 == T_B128)
        return false;
    if (rows[in->op].hook && !rows[in->op].hook(in, NULL, 0, &oc))
        return false;
    /* The hook may have made it another row's: that row's mode and types. */
    if (rows[in->op].modes && in->cmp == 0xff && (in->cmp = mode_tables[rows[in->op].modes].dflt) == 0xff)
        return false;
    return types_fit(in, &oc);
}

/* The coordinates a geometry reads: x, y, z, the layer counted with them. */
static unsigned geom_coords(unsigned geom)
{
    static const unsigned char n[] = {0, 1, 2, 3, 2, 3, 3, 4};

    return n[geom];
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

/* A call's results or arguments, `what`: param symbols of the frame, separated by commas, counted in *n. */
static bool read_call_syms(struct decoder *d, unsigned line, const char *what, unsigned *n)
{
    const char *s;
    size_t len;
    uint32_t index;
    const struct name *nm;

    do {
        len = word(d, &s);
        if (!(nm = name_find(d, s, len, &index)) || nm->kind != N_SYM || d->m->syms[index].space != S_FRAME)
            return errf(d, line, "bad call %s \"%.*s\"", what, (int)len, s);
        if (!call_sym_add(d, line, index))
            return false;
        (*n)++;
    } while (accept(d, ','));
    return true;
}

/* call[.uni] (rets), name, (args);  call name, (args);  call name; */
static bool read_call(struct decoder *d, struct ptx_inst *in, unsigned line)
{
    struct ptx_call c;
    const char *s;
    size_t len;

    memset(&c, 0, sizeof(c));
    c.syms = (uint32_t)d->m->ncall_syms;
    if (accept(d, '(')) {
        if (!read_call_syms(d, line, "result", &c.nrets))
            return false;
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
            if (!read_call_syms(d, line, "argument", &c.nargs))
                return false;
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

/* Each row's operand shape and destination, for the decoder's checks and the executor's. */
const unsigned char ptx_op_shape[X_COUNT] = {
#define PTX_OP(op, name, shape, handler, dst, types, modes, hook, iform, fform) [X_##op] = shape,
#include "ptx_ops.def"
};
const unsigned char ptx_op_dst[X_COUNT] = {
#define PTX_OP(op, name, shape, handler, dst, types, modes, hook, iform, fform) [X_##op] = dst,
#include "ptx_ops.def"
};

/* Whether the row's operands are a texture's or surface's [handle, {coordinates}]. */
static bool image_op(unsigned op)
{
    unsigned shape = ptx_op_shape[op];

    return shape == OPD_TEX || shape == OPD_SULD || shape == OPD_SUST;
}

/* A texture or surface operand read by read_image_address(), with the coordinates its geometry needs. */
static bool image_fits(const struct ptx_inst *in, const struct ptx_opd *handle, const struct ptx_opd *coords)
{
    return handle->kind == O_ADDR && handle->reg >= 0 && coords->kind == O_VEC && coords->n >= geom_coords(in->geom);
}

/* Whether the operands fit the instruction's shape (ptx_ops.def), so that the executor needs no checks. */
static bool operands_fit(const struct ptx_inst *in)
{
    unsigned n = in->nopd, shape = ptx_op_shape[in->op];
    const struct ptx_opd *o = in->o;
    bool srcs = true;

    for (unsigned i = 1; i < n; i++)
        srcs = srcs && is_value(&o[i]);
    if (shape < OPD_ANY)
        return n == shape && is_reg(&o[0]) && srcs;
    switch (shape) {
    case OPD_MOV:
        return n == 2 && ((is_reg(&o[0]) && (is_value(&o[1]) || o[1].kind == O_VEC)) ||
                          (o[0].kind == O_VEC && is_reg(&o[1])));
    case OPD_LD:
        return n == 2 && o[1].kind == O_ADDR &&
               (in->vec == 1 ? is_reg(&o[0]) : o[0].kind == O_VEC && o[0].n == in->vec);
    case OPD_ST:
        return n == 2 && o[0].kind == O_ADDR &&
               (in->vec == 1 ? is_value(&o[1]) : o[1].kind == O_VEC && o[1].n == in->vec);
    case OPD_ATOM:
        return (n == 3 || (n == 4 && in->cmp == A_CAS)) && is_reg(&o[0]) && o[1].kind == O_ADDR && is_value(&o[2]) &&
               (n == 3 || is_value(&o[3])) && ptx_types[in->type].size >= 2 && ptx_types[in->type].size <= 8;
    case OPD_RED:
        return n == 2 && o[0].kind == O_ADDR && is_value(&o[1]) && ptx_types[in->type].size >= 2 &&
               ptx_types[in->type].size <= 8;
    case OPD_LABEL:
        return n == 1 && o[0].kind == O_LABEL;
    case OPD_BAR:
        return n <= 2 && srcs && (n == 0 || is_value(&o[0]));
    case OPD_BAR_RED:
        return (n == 3 || n == 4) && is_reg(&o[0]) && srcs;
    case OPD_NONE:
        return n == 0;
    case OPD_VALUE:
        return n == 1 && is_value(&o[0]);
    case OPD_VOTE:
        return (n == 3 || n == 2) && is_reg(&o[0]) && srcs;
    case OPD_SETP:
        return (n == 3 || (n == 4 && in->boolop != B_NONE)) && is_reg(&o[0]) && srcs;
    case OPD_TEX:
        return o[0].kind == O_VEC && o[0].n == 4 && image_fits(in, &o[1], &o[2]) &&
               ((in->cmp == TX_PLAIN && n == 3) || (in->cmp == TX_LEVEL && n == 4 && is_value(&o[3])) ||
                (in->cmp == TX_GRAD && n == 5 && o[3].kind == O_VEC && o[4].kind == O_VEC &&
                 o[3].n >= geom_coords(in->geom) && o[4].n >= geom_coords(in->geom)));
    case OPD_SULD:
        return n == 3 && o[0].kind == O_VEC && o[0].n == in->vec && image_fits(in, &o[1], &o[2]);
    case OPD_SUST:
        return n == 3 && image_fits(in, &o[0], &o[1]) && o[2].kind == O_VEC && o[2].n == in->vec;
    case OPD_CVT:
        /* cvt.rn.f16x2.f32 d, a, b packs two: a in the upper half */
        return is_reg(&o[0]) && srcs &&
               (n == 2 || (n == 3 && (in->type == T_F16X2 || in->type == T_BF16X2) && in->type2 == T_F32));
    default: /* OPD_ANY */
        return true;
    }
}

/*
 * The F_* form of the instruction, chosen once here: its row's iform for
 * 32-bit integers in the default modes, fform for f32 in them, F_MOV for a
 * move of one register that is no predicate; else F_NONE.
 */
static unsigned char fast_form(const struct ptx_inst *in)
{
    unsigned k = ptx_types[in->type].kind, size = ptx_types[in->type].size;
    bool plain_int = (k == K_BITS || k == K_SIGNED || k == K_UNSIGNED) && size == 4 && !(in->mods & ~M_LO);
    bool plain_f32 = in->type == T_F32 && (in->rnd == RND_NONE || in->rnd == RND_RN) && !in->mods;

    if (in->o[0].kind != O_REG)
        return F_NONE;
    if (rows[in->op].iform == F_MOV)
        return in->o[1].kind != O_VEC && in->type != T_PRED ? F_MOV : F_NONE;
    if (plain_int)
        return rows[in->op].iform;
    if (plain_f32)
        return rows[in->op].fform;
    return F_NONE;
}

/* The opcode text for a message. */
static void inst_error(struct decoder *d, unsigned line, const char *op, size_t len, const char *why)
{
    errf(d, line, "%s \"%.*s\"", why, (int)len, op);
}

/* One instruction, its guard already read; the `;` included. */
bool read_instruction(struct decoder *d, int32_t guard, bool guard_neg, unsigned line)
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
