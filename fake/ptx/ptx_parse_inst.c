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
