/* SPDX-License-Identifier: MIT */
/*
 * The PTX executor's arithmetic, logic, comparisons and conversions: the
 * COLD handlers of the ALU rows of ptx_ops.def, lane by lane, and the
 * per-lane arithmetic, comparison and conversion the HOT ones
 * (ptx_exec_alu.h) call for the forms no whole-row path takes.
 */

#include <fenv.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_sample.h"
#include "ptx_exec.h"

/* IEEE half and bfloat16, to and from float, rounding to nearest even. */
static float half_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023, bits;

    if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        float f = (float)man * 0x1p-24f;

        return sign ? -f : f;
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    return f32_of(bits);
}

static uint16_t f32_to_half(float f)
{
    uint32_t x = (uint32_t)bits_f32(f), sign = (x >> 16) & 0x8000;
    float a = fabsf(f);

    if (a != a)
        return 0x7fff; /* the canonical NaN */
    if (a >= 65520.0f)
        return (uint16_t)(sign | 0x7c00);
    if (a < 0x1p-14f) {
        /* Subnormal: a multiple of 2^-24, rounded to nearest even by the FPU. */
        return (uint16_t)(sign | (uint32_t)nearbyintf(a * 0x1p24f));
    }
    {
        uint32_t e = ((x >> 23) & 255) - 112, man = x & 0x7fffff;
        uint32_t h = (e << 10) | (man >> 13), rest = man & 0x1fff;

        if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
}

static float bf16_to_f32(uint16_t h)
{
    return f32_of((uint32_t)h << 16);
}

static uint16_t f32_to_bf16(float f)
{
    uint32_t x = (uint32_t)bits_f32(f);

    if (f != f)
        return 0x7fff; /* the canonical NaN */
    x += 0x7fff + ((x >> 16) & 1);
    return (uint16_t)(x >> 16);
}

/* A float result rounded to f32 in a directed mode (from an exact or double result). */
static float round_f32(double v, unsigned rnd)
{
    float f = (float)v;

    if (rnd == RND_RZ || rnd == RND_RZI) {
        if (fabs((double)f) > fabs(v))
            f = nextafterf(f, 0.0f);
    } else if (rnd == RND_RM || rnd == RND_RMI) {
        if ((double)f > v)
            f = nextafterf(f, -INFINITY);
    } else if (rnd == RND_RP || rnd == RND_RPI) {
        if ((double)f < v)
            f = nextafterf(f, INFINITY);
    }
    return f;
}

/* A half's or bfloat16's value; infinity as the power of two past the largest finite value, where rounding puts it. */
static double half_grid(uint16_t h, bool bf)
{
    if ((h & 0x7fff) == (bf ? 0x7f80 : 0x7c00))
        return copysign(ldexp(1.0, bf ? 128 : 16), h >> 15 ? -1.0 : 1.0);
    return bf ? bf16_to_f32(h) : half_to_f32(h);
}

/*
 * v as a half or bfloat16 rounded once in mode rnd (to nearest even unless
 * directed), from h, v rounded through f32: one of the two values around v.
 */
static uint16_t round_half(uint16_t h, double v, unsigned rnd, bool bf)
{
    double g = bf ? bf16_to_f32(h) : half_to_f32(h), m;
    bool neg = h >> 15;
    uint16_t n;

    if (v != v || g == v)
        return h;
    /* n: the value on v's other side. */
    n = (uint16_t)(g < v ? (!neg ? h + 1 : h == 0x8000 ? 0x0001 : h - 1) : (neg ? h + 1 : h == 0 ? 0x8001 : h - 1));
    if (rnd == RND_RZ)
        return fabs(g) > fabs(v) ? n : h;
    if (rnd == RND_RM)
        return g > v ? n : h;
    if (rnd == RND_RP)
        return g < v ? n : h;
    /* To nearest: past the midpoint (exact in a double), or on it with an even n. */
    if (fabs(v) >= ldexp(1.0, bf ? 128 : 16))
        return h;
    g = half_grid(h, bf);
    m = (g + half_grid(n, bf)) / 2;
    return (g < v ? v > m : v < m) || (v == m && !(n & 1)) ? n : h;
}

/*
 * The host's rounding mode for a directed PTX rounding. An operation rounded
 * so runs with the host's mode set around it, on volatile operands and
 * result, so that it rounds once, as the device does, and stays between the
 * mode's changes.
 */
static int host_rounding(unsigned rnd)
{
    return rnd == RND_RZ ? FE_TOWARDZERO : rnd == RND_RM ? FE_DOWNWARD : FE_UPWARD;
}

/*
 * op in the directed rounding rnd, in f64, or in f32 when f32 is set: computed
 * as a double in that mode and then converted to float in it, which rounds as
 * once, since the f32 values are doubles too and rounding toward zero, down or
 * up to a coarser set of values after a finer one gives what rounding to the
 * coarser does.
 */
static double directed(unsigned op, unsigned rnd, bool f32, double x, double y, double z)
{
    volatile double vx = x, vy = y, vz = z, vr;
    volatile float vf = 0;
    int keep = fegetround();

    fesetround(host_rounding(rnd));
    switch (op) {
    case X_ADD: vr = vx + vy; break;
    case X_SUB: vr = vx - vy; break;
    case X_MUL: vr = vx * vy; break;
    case X_DIV: vr = vx / vy; break;
    case X_SQRT: vr = sqrt(vx); break;
    case X_RCP: vr = 1.0 / vx; break;
    default: vr = fma(vx, vy, vz); break;
    }
    if (f32)
        vf = (float)vr;
    fesetround(keep);
    return f32 ? vf : vr;
}

/* Whether op rounds its result as a directed rounding mode asks (the rest are exact or approximate). */
static bool rounds(unsigned op, unsigned rnd)
{
    return (rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP) &&
           (op == X_ADD || op == X_SUB || op == X_MUL || op == X_DIV || op == X_MAD || op == X_FMA ||
            op == X_SQRT || op == X_RCP);
}

/* ---- Arithmetic ---- */

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static uint64_t mul_hi(uint64_t a, uint64_t b, unsigned size, bool sign)
{
    if (size == 8) {
        if (sign)
            return (uint64_t)(((i128)(int64_t)a * (i128)(int64_t)b) >> 64);
        return (uint64_t)(((u128)a * b) >> 64);
    }
    if (sign)
        return (uint64_t)((sext(a, size) * sext(b, size)) >> (size * 8));
    return ((a & mask_of(size)) * (b & mask_of(size))) >> (size * 8);
}

uint64_t ptx_int_binary(unsigned op, unsigned t, uint16_t mods, uint64_t a, uint64_t b)
{
    unsigned size = ptx_types[t].size;
    bool sign = ptx_types[t].kind == K_SIGNED;
    uint64_t m = mask_of(size);
    int64_t sa = sext(a, size), sb = sext(b, size);
    uint64_t ua = a & m, ub = b & m;

    switch (op) {
    case X_ADD:
        if ((mods & M_SAT) && size == 4) {
            int64_t s = sa + sb;
            return (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
        }
        return a + b;
    case X_SUB:
        if ((mods & M_SAT) && size == 4) {
            int64_t s = sa - sb;
            return (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
        }
        return a - b;
    case X_MUL:
        if (mods & M_HI)
            return mul_hi(a, b, size, sign);
        if (mods & M_WIDE)
            return sign ? (uint64_t)(sa * sb) : ua * ub;
        return a * b;
    case X_DIV:
        if (sign) {
            if (sb == 0)
                return m;
            if (sb == -1)
                return (uint64_t)(0 - (uint64_t)sa);
            return (uint64_t)(sa / sb);
        }
        return ub ? ua / ub : m;
    case X_REM:
        if (sign) {
            if (sb == 0)
                return a;
            if (sb == -1)
                return 0;
            return (uint64_t)(sa % sb);
        }
        return ub ? ua % ub : a;
    case X_MIN: return sign ? (uint64_t)(sa < sb ? sa : sb) : (ua < ub ? ua : ub);
    case X_MAX: return sign ? (uint64_t)(sa > sb ? sa : sb) : (ua > ub ? ua : ub);
    case X_AND: return a & b;
    case X_OR: return a | b;
    case X_XOR: return a ^ b;
    case X_SHL: {
        uint32_t s = (uint32_t)b;
        return s >= size * 8 ? 0 : a << s;
    }
    case X_SHR: {
        uint32_t s = (uint32_t)b;
        if (sign)
            return (uint64_t)(sa >> (s >= size * 8 ? size * 8 - 1 : s));
        return s >= size * 8 ? 0 : ua >> s;
    }
    default: return 0;
    }
}

/* A float operation in f32 or f64, with its rounding mode. */
uint64_t ptx_float_op(unsigned op, unsigned t, unsigned rnd, uint16_t mods, uint64_t a, uint64_t b, uint64_t c)
{
    if (t == T_F16X2 || t == T_BF16X2) {
        /* Two halves, each on its own. */
        unsigned h = t == T_F16X2 ? T_F16 : T_BF16;

        return ptx_float_op(op, h, rnd, mods, a & 0xffff, b & 0xffff, c & 0xffff) |
               ptx_float_op(op, h, rnd, mods, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff) << 16;
    }
    if (t == T_F64) {
        double x = f64_of(a), y = f64_of(b), z = f64_of(c), r;

        if (rounds(op, rnd))
            return bits_f64(directed(op, rnd, false, x, y, z));
        switch (op) {
        case X_ADD: r = x + y; break;
        case X_SUB: r = x - y; break;
        case X_MUL: r = x * y; break;
        case X_DIV: r = x / y; break;
        case X_MAD:
        case X_FMA: r = fma(x, y, z); break;
        case X_MIN: r = fmin(x, y); break;
        case X_MAX: r = fmax(x, y); break;
        case X_ABS: r = fabs(x); break;
        case X_NEG: r = -x; break;
        case X_SQRT: r = sqrt(x); break;
        case X_RSQRT: r = 1.0 / sqrt(x); break;
        case X_RCP: r = 1.0 / x; break;
        case X_COPYSIGN: r = copysign(y, x); break;
        default: r = 0; break;
        }
        return bits_f64(r);
    }
    {
        float x, y, z, r;

        if (t == T_F16) {
            x = half_to_f32((uint16_t)a);
            y = half_to_f32((uint16_t)b);
            z = half_to_f32((uint16_t)c);
        } else if (t == T_BF16) {
            x = bf16_to_f32((uint16_t)a);
            y = bf16_to_f32((uint16_t)b);
            z = bf16_to_f32((uint16_t)c);
        } else {
            x = f32_of(a);
            y = f32_of(b);
            z = f32_of(c);
        }
        /* X_COUNT stands for any operation rounded in a directed mode. */
        switch (rounds(op, rnd) ? X_COUNT : op) {
        case X_COUNT: r = (float)directed(op, rnd, true, x, y, z); break;
        case X_ADD: r = x + y; break;
        case X_SUB: r = x - y; break;
        case X_MUL: r = x * y; break;
        case X_DIV: r = x / y; break;
        case X_MAD:
        case X_FMA: r = fmaf(x, y, z); break;
        case X_MIN: r = fminf(x, y); break;
        case X_MAX: r = fmaxf(x, y); break;
        case X_ABS: r = fabsf(x); break;
        case X_NEG: r = -x; break;
        case X_SQRT: r = sqrtf(x); break;
        case X_RSQRT: r = 1.0f / sqrtf(x); break;
        case X_RCP: r = 1.0f / x; break;
        case X_SIN: r = sinf(x); break;
        case X_COS: r = cosf(x); break;
        case X_LG2: r = log2f(x); break;
        case X_EX2: r = exp2f(x); break;
        case X_TANH: r = tanhf(x); break;
        case X_COPYSIGN: r = copysignf(y, x); break;
        default: r = 0; break;
        }
        if ((mods & M_FTZ) && fabsf(r) < 0x1p-126f)
            r = copysignf(0.0f, r);
        if (mods & M_SAT)
            r = r != r ? 0.0f : r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
        if ((mods & M_RELU) && (r < 0.0f || r != r))
            r = 0.0f;
        if (t == T_F16)
            return f32_to_half(r);
        if (t == T_BF16)
            return f32_to_bf16(r);
        return bits_f32(r);
    }
}

bool ptx_compare(unsigned cmp, unsigned t, uint64_t a, uint64_t b)
{
    unsigned size = ptx_types[t].size;

    if (ptx_types[t].kind == K_FLOAT) {
        double x, y;
        bool unordered;

        if (t == T_F64) {
            x = f64_of(a);
            y = f64_of(b);
        } else if (t == T_F16) {
            x = half_to_f32((uint16_t)a);
            y = half_to_f32((uint16_t)b);
        } else if (t == T_BF16) {
            x = bf16_to_f32((uint16_t)a);
            y = bf16_to_f32((uint16_t)b);
        } else {
            x = f32_of(a);
            y = f32_of(b);
        }
        unordered = x != x || y != y;
        switch (cmp) {
        case C_EQ: return !unordered && x == y;
        case C_NE: return !unordered && x != y;
        case C_LT: return !unordered && x < y;
        case C_LE: return !unordered && x <= y;
        case C_GT: return !unordered && x > y;
        case C_GE: return !unordered && x >= y;
        case C_EQU: return unordered || x == y;
        case C_NEU: return unordered || x != y;
        case C_LTU: return unordered || x < y;
        case C_LEU: return unordered || x <= y;
        case C_GTU: return unordered || x > y;
        case C_GEU: return unordered || x >= y;
        case C_NUM: return !unordered;
        case C_NAN: return unordered;
        default: return false;
        }
    }
    if (ptx_types[t].kind == K_SIGNED && cmp >= C_LT && cmp <= C_GE) {
        int64_t x = sext(a, size), y = sext(b, size);

        switch (cmp) {
        case C_LT: return x < y;
        case C_LE: return x <= y;
        case C_GT: return x > y;
        default: return x >= y;
        }
    }
    a &= mask_of(size);
    b &= mask_of(size);
    switch (cmp) {
    case C_EQ: return a == b;
    case C_NE: return a != b;
    case C_LT:
    case C_LO: return a < b;
    case C_LE:
    case C_LS: return a <= b;
    case C_GT:
    case C_HI: return a > b;
    case C_GE:
    case C_HS: return a >= b;
    default: return false;
    }
}

/* A float's value as a double, from its bits in type t. */
static double float_value(unsigned t, uint64_t v)
{
    switch (t) {
    case T_F64: return f64_of(v);
    case T_F16: return half_to_f32((uint16_t)v);
    case T_BF16: return bf16_to_f32((uint16_t)v);
    default: return f32_of(v);
    }
}

static double round_integral(double v, unsigned rnd)
{
    switch (rnd) {
    case RND_RZI: return trunc(v);
    case RND_RMI: return floor(v);
    case RND_RPI: return ceil(v);
    case RND_RNA: return round(v);
    default: return nearbyint(v);
    }
}

/* A 64-bit integer's bits as f32 or f64, rounded once in the mode asked (to nearest even when unsaid). */
static uint64_t int64_to_float(uint64_t a, bool sign, bool f32, unsigned rnd)
{
    volatile int64_t vs = (int64_t)a;
    volatile uint64_t vu = a;
    volatile double vd;
    volatile float vf;
    int keep = fegetround();
    bool directed = rnd == RND_RZ || rnd == RND_RM || rnd == RND_RP;

    if (directed)
        fesetround(host_rounding(rnd));
    if (f32)
        vf = sign ? (float)vs : (float)vu;
    else
        vd = sign ? (double)vs : (double)vu;
    if (directed)
        fesetround(keep);
    return f32 ? bits_f32(vf) : bits_f64(vd);
}

/* cvt: every pair of types nvcc emits, with saturation and rounding. */
uint64_t ptx_convert(const struct ptx_inst *in, uint64_t a)
{
    unsigned dt = in->type, st = in->type2;
    unsigned dk = ptx_types[dt].kind, sk = ptx_types[st].kind, ds = ptx_types[dt].size, ss = ptx_types[st].size;

    if (sk == K_FLOAT) {
        double v = float_value(st, a);

        if (dk == K_FLOAT) {
            if (in->rnd >= RND_RNI)
                v = round_integral(v, in->rnd);
            if ((in->mods & M_SAT) && !(v != v))
                v = v < 0 ? 0 : v > 1 ? 1 : v;
            else if ((in->mods & M_SAT))
                v = 0;
            if ((in->mods & M_FTZ) && fabs(v) < 0x1p-126 && dt == T_F32)
                v = copysign(0.0, v);
            /* An f64 NaN to f16 keeps its sign and payload's top bits, quiet (0x7e00 for the canonical one). */
            if (dt == T_F16 && st == T_F64 && v != v)
                return (a >> 48 & 0x8000) | 0x7e00 | (a >> 42 & 0x3ff);
            switch (dt) {
            case T_F64: return bits_f64(v);
            case T_F16: return round_half(f32_to_half((float)v), v, in->rnd, false);
            case T_BF16: return round_half(f32_to_bf16((float)v), v, in->rnd, true);
            default: return bits_f32(st == T_F64 && in->rnd >= RND_RZ && in->rnd <= RND_RP ? round_f32(v, in->rnd)
                                                                                          : (float)v);
            }
        }
        /*
         * Float to integer: rounded as asked (to nearest even when unsaid), saturating. NaN gives 0 from
         * an f16 or f32 to 32 bits or fewer; from an f64, or to 64 bits, the destination's sign bit alone,
         * as sm_90 answers (tests/ptx/cvt.expect).
         */
        if (v != v)
            return st == T_F64 || ds == 8 ? (mask_of(ds) >> 1) + 1 : 0;
        v = round_integral(v, in->rnd == RND_NONE || in->rnd == RND_RN ? RND_RNI : in->rnd);
        if (dk == K_SIGNED) {
            /* 2^(bits - 1) is exact as a double, where the largest value (2^63 - 1 for s64) is not. */
            double lim = ldexp(1.0, (int)ds * 8 - 1);

            if (v >= lim)
                return mask_of(ds) >> 1;
            if (v < -lim)
                return (mask_of(ds) >> 1) + 1;
            return (uint64_t)(int64_t)v & mask_of(ds);
        }
        {
            double hi = ds == 8 ? 18446744073709551615.0 : ldexp(1.0, (int)ds * 8) - 1;

            if (v < 0)
                v = 0;
            if (v >= hi)
                return mask_of(ds);
            return (uint64_t)v;
        }
    }
    if (dk == K_FLOAT) {
        /* Integer to float. */
        double v = sk == K_SIGNED ? (double)sext(a, ss) : (double)(a & mask_of(ss));
        float f;

        if (ss == 8) {
            /* A 64-bit integer rounds once, straight to the target type, in the rounding mode asked. */
            if (dt == T_F32 || dt == T_F64)
                return int64_to_float(a, sk == K_SIGNED, dt == T_F32, in->rnd);
            v = sk == K_SIGNED ? (double)(int64_t)a : (double)a;
        }
        switch (dt) {
        case T_F64: return bits_f64(v);
        case T_F16: return round_half(f32_to_half((float)v), v, in->rnd, false);
        case T_BF16: return round_half(f32_to_bf16((float)v), v, in->rnd, true);
        default:
            f = in->rnd >= RND_RZ && in->rnd <= RND_RP ? round_f32(v, in->rnd) : (float)v;
            return bits_f32(f);
        }
    }
    /* Integer to integer: extend by the source's type, then saturate to the destination's if asked. */
    {
        uint64_t v = sk == K_SIGNED ? (uint64_t)sext(a, ss) : a & mask_of(ss);

        if (in->mods & M_SAT) {
            if (dk == K_SIGNED) {
                int64_t lo = ds == 8 ? INT64_MIN : -(1ll << (ds * 8 - 1)), hi = ds == 8 ? INT64_MAX : (1ll << (ds * 8 - 1)) - 1;

                if (sk == K_SIGNED) {
                    int64_t s = (int64_t)v;
                    v = (uint64_t)(s < lo ? lo : s > hi ? hi : s);
                } else if (v > (uint64_t)hi) {
                    v = (uint64_t)hi;
                }
            } else {
                if (sk == K_SIGNED && (int64_t)v < 0)
                    v = 0;
                else if (v > mask_of(ds))
                    v = mask_of(ds);
            }
        }
        if (dk == K_SIGNED)
            return (uint64_t)sext(v, ds);
        return v & mask_of(ds);
    }
}

static uint64_t bfe(unsigned t, uint64_t a, uint32_t pos, uint32_t len)
{
    unsigned bits = ptx_types[t].size * 8;
    bool sign = ptx_types[t].kind == K_SIGNED;
    uint64_t d;
    bool sbit;
    unsigned have;

    pos &= 0xff;
    len &= 0xff;
    if (len == 0)
        return 0;
    sbit = sign && ((pos + len - 1 >= bits) ? (a >> (bits - 1)) & 1 : (a >> (pos + len - 1)) & 1);
    /* The field's bits that lie in the source; a signed field's bits past them take its sign bit. */
    have = pos >= bits ? 0 : bits - pos < len ? bits - pos : len;
    d = have == 0 ? 0 : (a & mask_of(bits / 8)) >> pos;
    if (have < 64)
        d &= (1ull << have) - 1;
    if (sbit && have < 64)
        d |= ~0ull << have;
    return d & mask_of(bits / 8);
}

/* addc, subc, madc and their .cc forms: d and the carry out (for subtraction, a borrow), at the type's size. */
static uint64_t carry_op(const struct ptx_inst *in, uint64_t a, uint64_t b, uint64_t c, bool cin, bool *cout)
{
    uint64_t m = mask_of(ptx_types[in->type].size), d, t;

    a &= m;
    b &= m;
    if (in->op == X_SUBC) {
        t = (a - b) & m;
        d = (t - cin) & m;
        *cout = a < b || t < (uint64_t)cin;
        return d;
    }
    if (in->op == X_MADC) {
        a = ptx_int_binary(X_MUL, in->type, in->mods & (M_HI | M_LO), a, b) & m;
        b = c & m;
    }
    t = (a + b) & m;
    d = (t + cin) & m;
    *cout = t < a || d < t;
    return d;
}

/* sad, mul24, mad24: 32-bit (sad: any size) integer forms. */
static uint64_t int24_op(const struct ptx_inst *in, uint64_t a, uint64_t b, uint64_t c)
{
    unsigned size = ptx_types[in->type].size;
    bool sign = ptx_types[in->type].kind == K_SIGNED;
    int64_t p;

    if (in->op == X_SAD) {
        int64_t sa = sext(a, size), sb = sext(b, size);
        uint64_t ua = a & mask_of(size), ub = b & mask_of(size);

        return c + (sign ? (sa > sb ? (uint64_t)sa - (uint64_t)sb : (uint64_t)sb - (uint64_t)sa)
                         : (ua > ub ? ua - ub : ub - ua));
    }
    /* The 48-bit product of the operands' low 24 bits; .hi is its bits 47..16. */
    p = sign ? sext(a, 3) * sext(b, 3) : (int64_t)((a & 0xffffff) * (b & 0xffffff));
    p = (in->mods & M_HI) ? (int64_t)((uint64_t)p >> 16) : p;
    return (uint64_t)p + (in->op == X_MAD24 ? c : 0);
}

static uint64_t bfi(unsigned t, uint64_t a, uint64_t b, uint32_t pos, uint32_t len)
{
    unsigned bits = ptx_types[t].size * 8;
    uint64_t m;

    pos &= 0xff;
    len &= 0xff;
    if (len == 0 || pos >= bits)
        return b;
    if (pos + len > bits)
        len = bits - pos;
    m = (len >= 64 ? ~0ull : (1ull << len) - 1) << pos;
    return ((b & ~m) | ((a << pos) & m)) & mask_of(bits / 8);
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t x = ((uint64_t)b << 32) | a;
    uint32_t d = 0;

    for (int i = 0; i < 4; i++) {
        unsigned sel = (c >> (4 * i)) & 15;
        uint8_t byte = (uint8_t)(x >> (8 * (sel & 7)));

        if (sel & 8)
            byte = (byte & 0x80) ? 0xff : 0;
        d |= (uint32_t)byte << (8 * i);
    }
    return d;
}

static uint64_t brev(uint64_t a, unsigned bytes)
{
    uint64_t r = 0;

    for (unsigned i = 0; i < bytes * 8; i++)
        r |= ((a >> i) & 1) << (bytes * 8 - 1 - i);
    return r;
}

/* addc, subc, madc */
enum flow ptx_exec_carry(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) {
        bool cout;
        uint64_t d = carry_op(in, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l),
                              in->op == X_MADC ? val(b, w, &in->o[3], l) : 0,
                              (in->mods & M_CI) && (w->carry >> l & 1), &cout);

        put(w, &in->o[0], l, d);
        if (in->mods & M_CC)
            w->carry = (w->carry & ~(1u << l)) | (uint32_t)cout << l;
    }
    return GO;
}

/* sad, mul24, mad24 */
enum flow ptx_exec_int24(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) put(w, &in->o[0], l,
                   int24_op(in, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l),
                            in->op == X_MUL24 ? 0 : val(b, w, &in->o[3], l)));
    return GO;
}

/* abs, neg, sqrt, rsqrt, rcp, sin, cos, lg2, ex2, tanh */
enum flow ptx_exec_unary(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (ptx_types[in->type].kind == K_FLOAT) {
        EACH(g, l) put(w, &in->o[0], l, ptx_float_op(in->op, in->type, in->rnd, in->mods, val(b, w, &in->o[1], l), 0, 0));
    } else {
        unsigned size = ptx_types[in->type].size;

        EACH(g, l) {
            int64_t v = sext(val(b, w, &in->o[1], l), size);

            put(w, &in->o[0], l, in->op == X_NEG ? (uint64_t)0 - (uint64_t)v : (uint64_t)(v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v));
        }
    }
    return GO;
}

/* not */
enum flow ptx_exec_not(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (in->type == T_PRED) {
        EACH(g, l) put(w, &in->o[0], l, !pred(b, w, &in->o[1], l));
    } else {
        EACH(g, l) put(w, &in->o[0], l, ~val(b, w, &in->o[1], l));
    }
    return GO;
}

/* cnot */
enum flow ptx_exec_cnot(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) put(w, &in->o[0], l, (val(b, w, &in->o[1], l) & mask_of(ptx_types[in->type].size)) == 0);
    return GO;
}

/* popc */
enum flow ptx_exec_popc(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) put(w, &in->o[0], l,
                   (uint64_t)popcount64(val(b, w, &in->o[1], l) & mask_of(ptx_types[in->type].size)));
    return GO;
}

/* clz */
enum flow ptx_exec_clz(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    unsigned size = ptx_types[in->type].size;

    EACH(g, l) {
        uint64_t v = val(b, w, &in->o[1], l) & mask_of(size);

        put(w, &in->o[0], l, v ? (uint64_t)(__builtin_clzll(v) - (64 - size * 8)) : size * 8);
    }
    return GO;
}

/* bfind */
enum flow ptx_exec_bfind(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    unsigned size = ptx_types[in->type].size;
    bool sign = ptx_types[in->type].kind == K_SIGNED;

    EACH(g, l) {
        uint64_t v = val(b, w, &in->o[1], l) & mask_of(size), r;

        if (sign && (v >> (size * 8 - 1)) & 1)
            v = ~v & mask_of(size);
        r = v ? (uint64_t)(63 - __builtin_clzll(v)) : 0xffffffffu;
        if (v && (in->mods & M_SHIFTAMT))
            r = size * 8 - 1 - r;
        put(w, &in->o[0], l, r);
    }
    return GO;
}

/* shf */
enum flow ptx_exec_shf(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    /* A funnel shift of the 64 bits b:a, by c modulo 32 (.wrap) or at most 32 (.clamp). */
    EACH(g, l) {
        uint64_t ab = (val(b, w, &in->o[2], l) & 0xffffffffu) << 32 | (val(b, w, &in->o[1], l) & 0xffffffffu);
        uint32_t n = (uint32_t)val(b, w, &in->o[3], l);

        n = in->boolop ? n & 31 : n > 32 ? 32 : n;
        put(w, &in->o[0], l, in->cmp == 0 ? (uint32_t)((ab << n) >> 32) : (uint32_t)(ab >> n));
    }
    return GO;
}

/* bmsk: a mask of b bits from bit a; .clamp: a of 32 or more gives 0, b of 32 or more reaches bit 31;
   .wrap: both modulo 32 */
enum flow ptx_exec_bmsk(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) {
        uint32_t a = (uint32_t)val(b, w, &in->o[1], l), n = (uint32_t)val(b, w, &in->o[2], l);
        uint32_t a1 = a & 31, n1 = n & 31, lo = ~0u << a1, hi;
        bool wide = a1 + n1 >= 32 || (in->cmp == 0 && (a >= 32 || n >= 32));

        if (in->cmp == 0 && a >= 32)
            lo = 0;
        hi = wide ? 0 : n1 == 0 ? ~0u : ~0u << (a1 + n1);
        put(w, &in->o[0], l, lo & ~hi);
    }
    return GO;
}

/* brev */
enum flow ptx_exec_brev(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) put(w, &in->o[0], l, brev(val(b, w, &in->o[1], l), ptx_types[in->type].size));
    return GO;
}

/* bfe */
enum flow ptx_exec_bfe(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) put(w, &in->o[0], l,
                   bfe(in->type, val(b, w, &in->o[1], l), (uint32_t)val(b, w, &in->o[2], l),
                       (uint32_t)val(b, w, &in->o[3], l)));
    return GO;
}

/* bfi */
enum flow ptx_exec_bfi(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) put(w, &in->o[0], l,
                   bfi(in->type, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l), (uint32_t)val(b, w, &in->o[3], l),
                       (uint32_t)val(b, w, &in->o[4], l)));
    return GO;
}

/* prmt */
enum flow ptx_exec_prmt(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) put(w, &in->o[0], l,
                   prmt((uint32_t)val(b, w, &in->o[1], l), (uint32_t)val(b, w, &in->o[2], l),
                        (uint32_t)val(b, w, &in->o[3], l)));
    return GO;
}

/* set */
enum flow ptx_exec_set(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    /* All ones, or 1.0 in a float type, where the comparison holds; else 0. */
    uint64_t yes = in->type == T_F32 ? 0x3f800000u : in->type == T_F16 ? 0x3c00u : in->type == T_BF16 ? 0x3f80u
                 : in->type == T_F64 ? 0x3ff0000000000000ull : mask_of(ptx_types[in->type].size);

    EACH(g, l) {
        bool t = ptx_compare(in->cmp, in->type2, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l));

        if (in->boolop != B_NONE) {
            bool c = pred(b, w, &in->o[3], l);

            t = in->boolop == B_AND ? (t && c) : in->boolop == B_OR ? (t || c) : (t != c);
        }
        put(w, &in->o[0], l, t ? yes : 0);
    }
    return GO;
}

/* testp */
enum flow ptx_exec_testp(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) {
        uint64_t x = val(b, w, &in->o[1], l);
        double v = float_value(in->type, x);
        /* An f32 subnormal is a normal double: classify it as the f32 it is. .normal takes zeros in, as sm_90 does. */
        int c = in->type == T_F32 ? fpclassify(f32_of(x)) : fpclassify(v);
        bool r = in->cmp == 0 ? isfinite(v) : in->cmp == 1 ? isinf(v) : in->cmp == 2 ? !isnan(v)
                 : in->cmp == 3 ? isnan(v) : in->cmp == 4 ? c == FP_NORMAL || c == FP_ZERO
                                                            : c == FP_SUBNORMAL;

        put(w, &in->o[0], l, r);
    }
    return GO;
}

/*
 * isspacep: whether a generic address is in the space named. The shared,
 * local and kernel-parameter windows are the generic address's own; global is
 * every address outside them; const, an address inside a .const variable of
 * the module.
 */
enum flow ptx_exec_isspacep(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    EACH(g, l) {
        uint64_t a = val(b, w, &in->o[1], l);
        bool shared = a - PTX_SHARED_WINDOW < PTX_WINDOW_SIZE, local = a - PTX_LOCAL_WINDOW < PTX_WINDOW_SIZE;
        bool param = a - PTX_PARAM_WINDOW < PTX_WINDOW_SIZE, r = false;

        switch (in->space) {
        case S_SHARED: r = shared; break;
        case S_LOCAL: r = local; break;
        case S_PARAM: r = param; break;
        case S_GLOBAL: r = !shared && !local && !param; break;
        default: /* S_CONST */
            for (size_t i = 0; i < b->m->nsyms && !r; i++) {
                const struct ptx_symbol *s = &b->m->syms[i];

                r = s->space == S_GLOBAL && s->constant && s->bound && a - s->value < s->size;
            }
            break;
        }
        put(w, &in->o[0], l, r);
    }
    return GO;
}
