/* SPDX-License-Identifier: MIT */
/*
 * The ALU rows' handlers the scheduler runs inline (HOT in ptx_ops.def):
 * moves, conversions, the arithmetic kernels' loops run, comparisons. Whole
 * register rows where the form allows (run_rows), else lane by lane through
 * ptx_exec_alu.c's arithmetic.
 */
#ifndef PTX_EXEC_ALU_H
#define PTX_EXEC_ALU_H

#include "ptx_exec.h"

/*
 * Forms the F_* set leaves out but kernels run in their loops, on whole rows: 64-bit add and sub,
 * mul.wide of 32 bits, setp of a 32-bit integer or f32 without a combiner. False for any other
 * form, which the per-lane executor then runs.
 */
static bool run_rows(const struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    uint64_t ta[PTX_WARP], tb[PTX_WARP];
    const uint64_t *A, *B;
    uint64_t *D;
    unsigned kind = ptx_types[in->type].kind, size = ptx_types[in->type].size;
    bool integer = kind == K_BITS || kind == K_SIGNED || kind == K_UNSIGNED;

    if (in->o[0].kind != O_REG || (!integer && in->type != T_F32))
        return false;
    D = &w->regs[(size_t)in->o[0].reg * PTX_WARP];
    switch (in->op) {
    case X_CVT: {
        /* Integer to integer, no saturation: extended by the source's type, then cut or extended to the destination's. */
        unsigned sk = ptx_types[in->type2].kind, ss = ptx_types[in->type2].size;
        uint64_t rm = mask_of(in->o[0].rsize ? in->o[0].rsize : 8), sm = mask_of(ss), dm = mask_of(size);
        bool ssx = sk == K_SIGNED, dsx = kind == K_SIGNED;

        if (in->nopd != 2 || (in->mods & M_SAT) || !(sk == K_BITS || sk == K_SIGNED || sk == K_UNSIGNED) || !integer)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        LANES(g, l, uint64_t v = ssx ? (uint64_t)sext(A[l], ss) : A[l] & sm;
              D[l] = (dsx ? (uint64_t)sext(v, size) : v & dm) & rm);
        return true;
    }
    case X_CVTA:
    case X_CVTA_TO: {
        uint64_t window = in->space == S_SHARED ? PTX_SHARED_WINDOW : in->space == S_LOCAL ? PTX_LOCAL_WINDOW : 0;
        uint64_t m = mask_of(in->o[0].rsize ? in->o[0].rsize : 8);

        A = row(b, w, &in->o[1], g, ta);
        if (in->op == X_CVTA && window)
            LANES(g, l, D[l] = ((A[l] & 0xffffffffu) + window) & m);
        else
            LANES(g, l, D[l] = (A[l] - window) & m);
        return true;
    }
    case X_ADD:
    case X_SUB:
        if (!integer || size != 8 || in->mods || in->o[0].rsize != 8)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        if (in->op == X_ADD)
            LANES(g, l, D[l] = A[l] + B[l]);
        else
            LANES(g, l, D[l] = A[l] - B[l]);
        return true;
    case X_AND:
    case X_OR:
    case X_XOR:
    case X_SHL:
    case X_SHR:
    case X_MIN:
    case X_MAX: {
        /* 64-bit bitwise and shifts into 64-bit registers; 32-bit right shifts, min and max into 32-bit ones. */
        bool sign = kind == K_SIGNED;

        if (!integer || in->mods || in->o[0].rsize != size || (size != 8 && size != 4) ||
            (size == 4 && in->op != X_SHR && in->op != X_MIN && in->op != X_MAX) ||
            (size == 8 && (in->op == X_MIN || in->op == X_MAX)))
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        if (size == 4) {
            if (in->op == X_SHR && sign)
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = (uint32_t)((int32_t)A[l] >> (n > 31 ? 31 : n)));
            else if (in->op == X_SHR)
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = n >= 32 ? 0 : (uint32_t)A[l] >> n);
            else if (sign)
                LANES(g, l, int32_t x = (int32_t)A[l], y = (int32_t)B[l];
                      D[l] = (uint32_t)(in->op == X_MIN ? (x < y ? x : y) : (x > y ? x : y)));
            else
                LANES(g, l, uint32_t x = (uint32_t)A[l], y = (uint32_t)B[l];
                      D[l] = in->op == X_MIN ? (x < y ? x : y) : (x > y ? x : y));
            return true;
        }
        switch (in->op) {
        case X_AND: LANES(g, l, D[l] = A[l] & B[l]); break;
        case X_OR: LANES(g, l, D[l] = A[l] | B[l]); break;
        case X_XOR: LANES(g, l, D[l] = A[l] ^ B[l]); break;
        case X_SHL: LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = n >= 64 ? 0 : A[l] << n); break;
        default:
            if (sign)
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = (uint64_t)((int64_t)A[l] >> (n > 63 ? 63 : n)));
            else
                LANES(g, l, uint32_t n = (uint32_t)B[l]; D[l] = n >= 64 ? 0 : A[l] >> n);
            break;
        }
        return true;
    }
    case X_SELP: {
        uint64_t tp[PTX_WARP], m = mask_of(in->o[0].rsize ? in->o[0].rsize : 8);
        const uint64_t *P = row(b, w, &in->o[3], g, tp);
        bool neg = in->o[3].neg;

        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        LANES(g, l, D[l] = ((P[l] != 0) != neg ? A[l] : B[l]) & m);
        return true;
    }
    case X_MUL:
        if (!integer || size != 4 || in->mods != M_WIDE || in->o[0].rsize != 8)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        if (kind == K_SIGNED)
            LANES(g, l, D[l] = (uint64_t)((int64_t)(int32_t)A[l] * (int32_t)B[l]));
        else
            LANES(g, l, D[l] = (uint64_t)(uint32_t)A[l] * (uint32_t)B[l]);
        return true;
    case X_SETP:
        if (size != 4 || in->boolop != B_NONE)
            return false;
        A = row(b, w, &in->o[1], g, ta);
        B = row(b, w, &in->o[2], g, tb);
        {
            uint64_t r[PTX_WARP];
            int32_t q = in->o[0].v[0];

            if (in->type == T_F32) {
                switch (in->cmp) {
                case C_LT: LANES(g, l, r[l] = f32_of(A[l]) < f32_of(B[l])); break;
                case C_LE: LANES(g, l, r[l] = f32_of(A[l]) <= f32_of(B[l])); break;
                case C_GT: LANES(g, l, r[l] = f32_of(A[l]) > f32_of(B[l])); break;
                case C_GE: LANES(g, l, r[l] = f32_of(A[l]) >= f32_of(B[l])); break;
                default: return false;
                }
            } else if (kind == K_SIGNED && in->cmp >= C_LT && in->cmp <= C_GE) {
                switch (in->cmp) {
                case C_LT: LANES(g, l, r[l] = (int32_t)A[l] < (int32_t)B[l]); break;
                case C_LE: LANES(g, l, r[l] = (int32_t)A[l] <= (int32_t)B[l]); break;
                case C_GT: LANES(g, l, r[l] = (int32_t)A[l] > (int32_t)B[l]); break;
                default: LANES(g, l, r[l] = (int32_t)A[l] >= (int32_t)B[l]); break;
                }
            } else {
                switch (in->cmp) {
                case C_EQ: LANES(g, l, r[l] = (uint32_t)A[l] == (uint32_t)B[l]); break;
                case C_NE: LANES(g, l, r[l] = (uint32_t)A[l] != (uint32_t)B[l]); break;
                case C_LT:
                case C_LO: LANES(g, l, r[l] = (uint32_t)A[l] < (uint32_t)B[l]); break;
                case C_LE:
                case C_LS: LANES(g, l, r[l] = (uint32_t)A[l] <= (uint32_t)B[l]); break;
                case C_GT:
                case C_HI: LANES(g, l, r[l] = (uint32_t)A[l] > (uint32_t)B[l]); break;
                case C_GE:
                case C_HS: LANES(g, l, r[l] = (uint32_t)A[l] >= (uint32_t)B[l]); break;
                default: return false;
                }
            }
            LANES(g, l, D[l] = r[l]);
            if (q >= 0) {
                uint64_t *Q = &w->regs[(size_t)q * PTX_WARP];

                LANES(g, l, Q[l] = !r[l]);
            }
        }
        return true;
    default:
        return false;
    }
}

/* mov */
PTX_HOT enum flow ptx_exec_mov(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (in->o[1].kind == O_VEC) {
        unsigned es = ptx_types[in->type].size / in->o[1].n;

        EACH(g, l) {
            uint64_t v = 0;

            for (unsigned i = 0; i < in->o[1].n; i++)
                v |= (ptx_vec_elem(b, w, &in->o[1], i, l) & mask_of(es)) << (i * es * 8);
            put(w, &in->o[0], l, v);
        }
    } else if (in->o[0].kind == O_VEC) {
        unsigned es = ptx_types[in->type].size / in->o[0].n;

        EACH(g, l) {
            uint64_t v = val(b, w, &in->o[1], l);

            for (unsigned i = 0; i < in->o[0].n; i++)
                put_reg(w, in->o[0].v[i], l, (v >> (i * es * 8)) & mask_of(es));
        }
    } else {
        EACH(g, l) put(w, &in->o[0], l, val(b, w, &in->o[1], l));
    }
    return GO;
}

/* cvta, cvta.to */
PTX_HOT enum flow ptx_exec_cvta(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (run_rows(b, w, in, g))
        return GO;
    uint64_t window = in->space == S_SHARED ? PTX_SHARED_WINDOW : in->space == S_LOCAL ? PTX_LOCAL_WINDOW : 0;

    EACH(g, l) {
        uint64_t v = val(b, w, &in->o[1], l);

        if (in->op == X_CVTA)
            v = (in->space == S_SHARED || in->space == S_LOCAL) ? (v & 0xffffffffu) + window : v;
        else
            v = window ? v - window : v;
        put(w, &in->o[0], l, v);
    }
    return GO;
}

/* add, sub, mul, div, rem, min, max, and, or, xor, shl, shr, copysign */
PTX_HOT enum flow ptx_exec_binary(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (in->op != X_DIV && in->op != X_REM && in->op != X_COPYSIGN && run_rows(b, w, in, g))
        return GO;
    if (ptx_types[in->type].kind == K_FLOAT) {
        EACH(g, l) put(w, &in->o[0], l,
                       ptx_float_op(in->op, in->type, in->rnd, in->mods, val(b, w, &in->o[1], l),
                                val(b, w, &in->o[2], l), 0));
    } else if (in->type == T_PRED) {
        EACH(g, l) {
            bool x = pred(b, w, &in->o[1], l), y = pred(b, w, &in->o[2], l);

            put(w, &in->o[0], l, in->op == X_AND ? (x && y) : in->op == X_OR ? (x || y) : (x != y));
        }
    } else if (in->op == X_ADD && in->type == T_S32 && !(in->mods & M_SAT)) {
        EACH(g, l) put(w, &in->o[0], l, val(b, w, &in->o[1], l) + val(b, w, &in->o[2], l));
    } else {
        EACH(g, l) put(w, &in->o[0], l,
                       ptx_int_binary(in->op, in->type, in->mods, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l)));
    }
    return GO;
}

/* mad, fma */
PTX_HOT enum flow ptx_exec_mad(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (ptx_types[in->type].kind == K_FLOAT) {
        EACH(g, l) put(w, &in->o[0], l,
                       ptx_float_op(X_FMA, in->type, in->rnd, in->mods, val(b, w, &in->o[1], l),
                                val(b, w, &in->o[2], l), val(b, w, &in->o[3], l)));
    } else {
        EACH(g, l) {
            uint64_t p = ptx_int_binary(X_MUL, in->type, in->mods, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l));
            uint64_t c = val(b, w, &in->o[3], l);

            if ((in->mods & M_SAT) && in->type == T_S32) {
                int64_t s = (int64_t)(int32_t)p + (int64_t)(int32_t)c;
                p = (uint64_t)(s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s);
                c = 0;
            }
            put(w, &in->o[0], l, p + c);
        }
    }
    return GO;
}

/* setp */
PTX_HOT enum flow ptx_exec_setp(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (run_rows(b, w, in, g))
        return GO;
    EACH(g, l) {
        bool t = ptx_compare(in->cmp, in->type, val(b, w, &in->o[1], l), val(b, w, &in->o[2], l)), f = !t;

        if (in->boolop != B_NONE) {
            bool c = pred(b, w, &in->o[3], l);

            t = in->boolop == B_AND ? (t && c) : in->boolop == B_OR ? (t || c) : (t != c);
            f = in->boolop == B_AND ? (f && c) : in->boolop == B_OR ? (f || c) : (f != c);
        }
        put(w, &in->o[0], l, t);
        put_reg(w, in->o[0].v[0], l, f);
    }
    return GO;
}

/* selp */
PTX_HOT enum flow ptx_exec_selp(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (run_rows(b, w, in, g))
        return GO;
    EACH(g, l) put(w, &in->o[0], l, pred(b, w, &in->o[3], l) ? val(b, w, &in->o[1], l) : val(b, w, &in->o[2], l));
    return GO;
}

/* cvt */
PTX_HOT enum flow ptx_exec_cvt(struct ptx_block *b, struct warp *w, const struct ptx_inst *in, uint32_t g)
{
    if (run_rows(b, w, in, g))
        return GO;
    if (in->nopd == 3) {
        /* Two floats packed into a pair of halves, the first operand in the upper one. */
        struct ptx_inst h = *in;

        h.type = in->type == T_F16X2 ? T_F16 : T_BF16;
        EACH(g, l) put(w, &in->o[0], l,
                       ptx_convert(&h, val(b, w, &in->o[1], l)) << 16 | ptx_convert(&h, val(b, w, &in->o[2], l)));
        return GO;
    }
    EACH(g, l) put(w, &in->o[0], l, ptx_convert(in, val(b, w, &in->o[1], l)));
    return GO;
}


#endif
