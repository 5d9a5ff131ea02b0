#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the .expect files of tests/ptx/ whose results are computed: the
PTX ISA's semantics in exact arithmetic (integers, and floats as fractions
rounded to each format and rounding mode), never an interpreter's output.

    gen-ptx-expect.py DIR           writes DIR/FAMILY.expect for each computed family
    gen-ptx-expect.py --check DIR   fails if one of them differs from what it would write

The other families' .expect files are written by hand; the format is in
tests/ptx/run_ptx.c. Each family below lists its cases in the order of the
outputs its .ptx entry stores (the .ptx says which instruction each is).
"""
import math
import struct
import sys
from fractions import Fraction as Q

M32, M64 = (1 << 32) - 1, (1 << 64) - 1
NAN = float('nan')
INF = float('inf')


def s32(x):
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def s64(x):
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def w32(x):
    return '0x%08x' % (x & M32)


def w64(x):
    return 'q:0x%016x' % (x & M64)


def w16(x):
    return 'h:0x%04x' % (x & 0xffff)


# ---- Floats: formats, exact rounding ----

class Fmt:
    def __init__(self, p, emin, emax, bits):
        self.p, self.emin, self.emax, self.bits = p, emin, emax, bits


F16, BF16, F32, F64 = Fmt(11, -14, 15, 16), Fmt(8, -126, 127, 16), Fmt(24, -126, 127, 32), Fmt(53, -1022, 1023, 64)


def maxfin(fmt):
    return (2 - Q(1, 2 ** (fmt.p - 1))) * Q(2) ** fmt.emax


def rnd(q, fmt, mode='rn'):
    """The float of `fmt` that `mode` rounds the exact nonzero rational q to, as a Python float."""
    neg = q < 0
    a = -q if neg else q
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Q(2) ** e > a:
        e -= 1
    e = max(e, fmt.emin)
    quantum = Q(2) ** (e - fmt.p + 1)
    n = a / quantum
    lo = n.numerator // n.denominator
    rest = n - lo
    up = {'rn': rest > Q(1, 2) or (rest == Q(1, 2) and lo % 2 == 1),
          'rz': False,
          'rm': neg and rest > 0,
          'rp': (not neg) and rest > 0,
          'rna': rest >= Q(1, 2)}[mode]
    r = (lo + (1 if up else 0)) * quantum
    if r > maxfin(fmt):
        toward_inf = mode in ('rn', 'rna') or (mode == 'rp' and not neg) or (mode == 'rm' and neg)
        r = INF if toward_inf else float(maxfin(fmt))
        return -r if neg else r
    return -float(r) if neg else float(r)


def flt(x, fmt=F32):
    """x (a Python float) as the value of format fmt, rounded to nearest."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    return rnd(Q(x), fmt)


def bits(x, fmt):
    """The encoding of x, a value of fmt; NaN as the canonical NaN."""
    if fmt is F64:
        return struct.unpack('<Q', struct.pack('<d', x))[0]
    if fmt is F32:
        return struct.unpack('<I', struct.pack('<f', x))[0]
    if math.isnan(x):
        return 0x7fff if fmt is F16 else 0x7fff
    f = struct.unpack('<I', struct.pack('<f', x))[0]
    if fmt is BF16:
        return f >> 16
    return struct.unpack('<H', struct.pack('<e', x))[0]


def ftok(x, fmt=F32, ulps=0):
    """An expected-value token for x of fmt (f: or d:, or h: bits for 16-bit formats)."""
    if fmt.bits == 16:
        return w16(bits(x, fmt))
    p = 'f' if fmt is F32 else 'd'
    if math.isnan(x):
        return p + ':nan'
    s = short(x, fmt) if not math.isinf(x) else ('inf' if x > 0 else '-inf')
    if x == 0:
        s = '-0' if math.copysign(1, x) < 0 else '0'
    return '%s:%s%s' % (p, s, '~%d' % ulps if ulps else '')


def short(x, fmt):
    """The shortest decimal that reads back as x in fmt (read once, rounded to nearest)."""
    if fmt is F64:
        return repr(x)
    for n in range(1, 10):
        t = '%.*g' % (n, x)
        if Q(t) != 0 and rnd(Q(t), F32) == x:
            return t
    return repr(x)


def zero_sum_sign(a_neg, b_neg, mode):
    """The sign of an exact zero sum: -0 only from two -0 terms, or from opposite terms under rm."""
    return a_neg and b_neg or (mode == 'rm' and a_neg != b_neg)


def neg0(x):
    return math.copysign(1, x) < 0


def fadd(a, b, fmt, mode='rn'):
    if math.isnan(a) or math.isnan(b):
        return NAN
    if math.isinf(a) or math.isinf(b):
        if math.isinf(a) and math.isinf(b) and a != b:
            return NAN
        return a if math.isinf(a) else b
    q = Q(a) + Q(b)
    if q == 0:
        if a == 0 and b == 0:
            return -0.0 if zero_sum_sign(neg0(a), neg0(b), 'rn') or (mode == 'rm' and (neg0(a) or neg0(b))) else 0.0
        return -0.0 if mode == 'rm' else 0.0
    return rnd(q, fmt, mode)


def fmul(a, b, fmt, mode='rn'):
    if math.isnan(a) or math.isnan(b):
        return NAN
    sign = neg0(a) != neg0(b)
    if math.isinf(a) or math.isinf(b):
        if a == 0 or b == 0:
            return NAN
        return -INF if sign else INF
    if a == 0 or b == 0:
        return -0.0 if sign else 0.0
    return rnd(Q(a) * Q(b), fmt, mode)


def ffma(a, b, c, fmt, mode='rn'):
    if math.isnan(a) or math.isnan(b) or math.isnan(c):
        return NAN
    if math.isinf(a) or math.isinf(b):
        p = fmul(a, b, fmt)
        if math.isnan(p):
            return NAN
        return fadd(p, c, fmt)
    if math.isinf(c):
        return c
    q = Q(a) * Q(b) + Q(c)
    if q == 0:
        pneg = neg0(a) != neg0(b)
        if Q(a) * Q(b) == 0 and c == 0:
            both = pneg and neg0(c)
            return -0.0 if both or (mode == 'rm' and (pneg or neg0(c))) else 0.0
        return -0.0 if mode == 'rm' else 0.0
    return rnd(q, fmt, mode)


def fdiv(a, b, fmt, mode='rn'):
    if math.isnan(a) or math.isnan(b) or (a == 0 and b == 0) or (math.isinf(a) and math.isinf(b)):
        return NAN
    sign = neg0(a) != neg0(b)
    if math.isinf(a) or b == 0:
        return -INF if sign else INF
    if math.isinf(b) or a == 0:
        return -0.0 if sign else 0.0
    return rnd(Q(a) / Q(b), fmt, mode)


def fsqrt(a, fmt, mode='rn'):
    if math.isnan(a) or a < 0:
        return NAN
    if a == 0 or math.isinf(a):
        return a
    q = Q(a)
    k = 2 * fmt.p + 8 + max(0, q.denominator.bit_length())
    scaled = q * Q(4) ** k
    n = scaled.numerator // scaled.denominator
    s = math.isqrt(n)
    exact = s * s == n and scaled.denominator == 1
    return rnd(Q(2 * s + (0 if exact else 1), 2 ** (k + 1)), fmt, mode)


def either_zero(x, fmt):
    """The token of x, where a zero may be either zero: the ISA does not say which zero min and max
    of two zeros give, nor which .sat gives for a zero."""
    return ftok(0.0, fmt, 1) if x == 0 else ftok(x, fmt)


def fminmax(a, b, is_max):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return max(a, b) if is_max else min(a, b)


def ftz(x, fmt=F32):
    """x with a subnormal flushed to zero of its sign."""
    if not math.isnan(x) and x != 0 and abs(x) < 2.0 ** fmt.emin:
        return math.copysign(0.0, x)
    return x


def fsat(x):
    if math.isnan(x):
        return 0.0
    return min(max(x, 0.0), 1.0) if x != 0 else 0.0


# ---- Integer families ----

def family_int_arith():
    cases = []
    triples = [(1, 2, 3), (7, -3, 100), (0x7fffffff, 1, 0), (-0x80000000, -1, 5), (0x12345678, 0x9abcdef0, 0x0fedcba9),
               (-1, -1, -1), (0, 0x80000000, 1), (1000, 1000, -1000000), (0xffff, 0x10001, 0x7fffffff),
               (-123456, 789, 42)]
    for a, b, c in triples:
        ua, ub, uc = a & M32, b & M32, c & M32
        sa, sb = s32(a), s32(b)
        out = [ua + ub, ua - ub, ua * ub, (sa * sb) >> 32, (ua * ub) >> 32, ua * ub + uc,
               ((sa * sb) >> 32) + uc, min(sa, sb), max(sa, sb), min(ua, ub), max(ua, ub),
               abs(sa) if sa != -0x80000000 else sa, -sa,
               max(-0x80000000, min(0x7fffffff, sa + sb)), max(-0x80000000, min(0x7fffffff, sa - sb))]
        cases.append(('i32', 1, 1, [w32(a), w32(b), w32(c)], [w32(x) for x in out]))
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0x80000000, 3), (100, 7), (-100, 7), (0xffffffff, 0x10), (5, 9),
             (-0x7fffffff, 0x7fffffff)]
    for a, b in pairs:
        ua, ub, sa, sb = a & M32, b & M32, s32(a), s32(b)
        q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
        out = [q, sa - q * sb, ua // ub, ua % ub]
        cases.append(('div32', 1, 1, [w32(a), w32(b)], [w32(x) for x in out]))
    triples64 = [(1, 2, 3), (0x123456789abcdef0, 0xfedcba9876543210, 0x1111111111111111), (-1, -1, -1),
                 (0x7fffffffffffffff, 2, 1), (-0x8000000000000000, 3, 0), (1 << 40, 1 << 30, -5),
                 (-123456789012, 987654321, 42)]
    for a, b, c in triples64:
        ua, ub, uc, sa, sb = a & M64, b & M64, c & M64, s64(a), s64(b)
        out = [ua + ub, ua - ub, ua * ub, (sa * sb) >> 64, (ua * ub) >> 64, ua * ub + uc, min(sa, sb), max(sa, sb),
               min(ua, ub), max(ua, ub), abs(sa) if sa != -(1 << 63) else sa, -sa]
        d = []
        if sb != 0:
            q = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
            d = [q, sa - q * sb, ua // ub, ua % ub]
        cases.append(('i64', 1, 1, [w64(a), w64(b), w64(c)], [w64(x) for x in out + d]))
    for a, b, c in triples:
        ua, ub, uc, sa, sb = a & M32, b & M32, c & M32, s32(a), s32(b)
        out = [w64(sa * sb), w64(ua * ub), w64(sa * sb + s64(s32(c) & M64)), w64(ua * ub + uc)]
        ha, hb = a & 0xffff, b & 0xffff
        sha, shb = ha - 0x10000 if ha >> 15 else ha, hb - 0x10000 if hb >> 15 else hb
        out += [w32(sha * shb), w32(ha * hb)]
        out += [w16(ha + hb), w16(ha * hb), w16((sha * shb) >> 16), w16((ha * hb) >> 16), w16(min(sha, shb)),
                w16(max(ha, hb))]
        cases.append(('wide', 1, 1, [w32(a), w32(b), w32(c)], out))
    return cases


def bfe(a, pos, ln, width, signed):
    pos, ln = pos & 0xff, ln & 0xff
    msb = min(pos + ln - 1, width - 1)
    sbit = (a >> msb) & 1 if signed and ln else 0
    d = 0
    for i in range(width):
        bit = (a >> (pos + i)) & 1 if i < ln and pos + i < width else sbit
        d |= bit << i
    return d


def bfi(a, b, pos, ln, width):
    pos, ln = pos & 0xff, ln & 0xff
    f = b
    for i in range(ln):
        if pos + i < width:
            f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return f


def prmt(a, b, c):
    tmp = ((b & M32) << 32) | (a & M32)
    d = 0
    for i in range(4):
        sel = (c >> (4 * i)) & 0xf
        byte = (tmp >> (8 * (sel & 7))) & 0xff
        if sel & 8:
            byte = 0xff if byte & 0x80 else 0
        d |= byte << (8 * i)
    return d


def bfind(a, width, signed):
    if signed and a >> (width - 1):
        a = ~a & ((1 << width) - 1)
    return a.bit_length() - 1 if a else M32


def bmsk(a, b, clamp):
    if clamp and a >= 32:
        return 0
    a, b = (min(a, 32), min(b, 32)) if clamp else (a & 31, b & 31)
    return ((1 << min(a + b, 32)) - 1) & ~((1 << a) - 1) & M32


def family_bits():
    cases = []
    triples = [(0x12345678, 4, 8), (0xf0f0f0f0, 0x0f0f0f0f, 0x3210), (0x80000000, 31, 1), (0, 0, 0),
               (0xffffffff, 32, 33), (0x00ff00ff, 40, 0x7654), (0xdeadbeef, 12, 20), (0x8000001, 28, 8),
               (0x13579bdf, 0x108, 0x4567), (0x7fffffff, 1, 0xba98)]
    for a, b, c in triples:
        sa = s32(a)
        sh = min(b, 32)
        shf_wrap, shf_clamp = b & 31, min(b, 32)
        pair = (c << 32) | a
        out = [a & b, a | b, a ^ b, ~a, 1 if a == 0 else 0,
               (a << sh) if sh < 32 else 0, a >> sh if sh < 32 else 0, sa >> min(b, 31),
               bin(a).count('1'), 32 - a.bit_length(), int('{:032b}'.format(a)[::-1], 2),
               bfe(a, b, c, 32, False), bfe(a, b, c, 32, True), bfi(c, a, b, 8, 32), prmt(a, b, c),
               bfind(a, 32, False), bfind(a, 32, True),
               31 - bfind(a, 32, False) if a else M32,
               (pair << shf_wrap) >> 32, (pair >> shf_wrap) & M32,
               (pair << shf_clamp) >> 32, ((pair >> shf_clamp) & M32) if shf_clamp < 32 else c]
        cases.append(('b32', 1, 1, [w32(a), w32(b), w32(c)], [w32(x & M32) for x in out]))
    for a, b in [(0, 0), (0, 1), (4, 8), (0, 32), (31, 1), (31, 2), (24, 16), (32, 4), (33, 3), (5, 32),
                 (5, 40), (0x100, 0x104), (3, 0xffffffff)]:
        cases.append(('bmsk', 1, 1, [w32(a), w32(b)], [w32(bmsk(a, b, True)), w32(bmsk(a, b, False))]))
    for a, b in [(0x0123456789abcdef, 4), (0x8000000000000000, 63), (0xffffffffffffffff, 64), (1, 70),
                 (0x00000000ffff0000, 20)]:
        sa = s64(a)
        out = [a & ~(1 << 5), ~a, (a << b) if b < 64 else 0, a >> b if b < 64 else 0, sa >> min(b, 63)]
        out = [w64(x) for x in out]
        out += [w32(bin(a).count('1')), w32(64 - a.bit_length()), w64(int('{:064b}'.format(a)[::-1], 2)),
                w64(bfe(a, b, 12, 64, False)), w64(bfe(a, b, 12, 64, True)), w32(bfind(a, 64, False))]
        cases.append(('b64', 1, 1, [w64(a), w32(b)], out))
    return cases


CMPS_S = ['eq', 'ne', 'lt', 'le', 'gt', 'ge']
CMPS_U = ['lo', 'ls', 'hi', 'hs']
CMPS_F = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']


def fcmp(op, a, b):
    un = math.isnan(a) or math.isnan(b)
    base = op[:2] if op not in ('num', 'nan') else op
    if op == 'num':
        return not un
    if op == 'nan':
        return un
    if un:
        return op.endswith('u')
    return {'eq': a == b, 'ne': a != b, 'lt': a < b, 'le': a <= b, 'gt': a > b, 'ge': a >= b}[base]


def icmp(op, a, b):
    return {'eq': a == b, 'ne': a != b, 'lt': a < b, 'le': a <= b, 'gt': a > b, 'ge': a >= b,
            'lo': a < b, 'ls': a <= b, 'hi': a > b, 'hs': a >= b}[op]


def family_cmp():
    cases = []
    for a, b in [(1, 2), (2, 1), (5, 5), (-1, 1), (0x80000000, 0x7fffffff), (0, 0xffffffff)]:
        sa, sb, ua, ub = s32(a), s32(b), a & M32, b & M32
        out = [int(icmp(op, sa, sb)) for op in CMPS_S]
        out += [M32 if sa < sb else 0, ua if sa < sb else ub,
                int(sa < sb and ua != 7), int(sa < sb or ua == 5), int(sa < sb) ^ 1]
        cases.append(('s32', 1, 1, [w32(a), w32(b)], [w32(x) for x in out]))
        cases.append(('u32', 1, 1, [w32(a), w32(b)], [w32(int(icmp(op, ua, ub))) for op in CMPS_U]))
    cases += family_cmp_testp()
    fpairs = [(1.0, 2.0), (2.0, 1.0), (1.5, 1.5), (-0.0, 0.0), (NAN, 1.0), (1.0, NAN), (NAN, NAN), (-INF, INF),
              (INF, INF), (1e-45, 0.0), (-3.0, -2.0)]
    for fmt, name in [(F32, 'f32'), (F64, 'f64')]:
        for a, b in fpairs:
            out = [w32(int(fcmp(op, a, b))) for op in CMPS_F]
            lt = fcmp('lt', a, b)
            out += [ftok(1.0 if lt else 0.0, F32), w32(M32 if fcmp('geu', a, b) else 0), ftok(a if lt else b, fmt)]
            cases.append((name, 1, 1, [ftok(a, fmt), ftok(b, fmt)], out))
    return cases


# ---- Floating point ----

F_TRIPLES = [(1.5, 2.25, -0.5), (0.1, 0.2, 0.3), (1.0, 2.0 ** -24, 0.0), (-1.0, 2.0 ** -24, 1.0),
             (1.0, 3.0, -1.0), (-7.0, 3.0, 0.25), (3e38, 3e38, -3e38), (-3e38, 3e38, 1.0),
             (1e-38, 1e-7, 1e-45), (2.0 ** -126, -0.5, 2.0 ** -149), (-0.0, 0.0, -0.0), (0.0, -0.0, 0.0),
             (INF, -INF, 1.0), (INF, 2.0, -INF), (NAN, 1.0, 2.0), (1.0, 1.0, -1.0), (-2.0, 0.0, 0.0),
             (1.0 + 2 ** -23, 1.0 - 2 ** -24, -1.0), (123456.789, 0.001, -123.0), (16777216.0, 1.0, 1.0)]

MODES = ['rn', 'rz', 'rm', 'rp']


def float_family(fmt, triples):
    """Entries rn, rz, rm, rp: add sub mul fma div sqrt rcp in that rounding mode; misc: the rest."""
    cases = []
    for a, b, c in triples:
        a, b, c = flt(a, fmt), flt(b, fmt), flt(c, fmt)
        ins = [ftok(a, fmt), ftok(b, fmt), ftok(c, fmt)]
        for m in MODES:
            out = [fadd(a, b, fmt, m), fadd(a, -b, fmt, m), fmul(a, b, fmt, m), ffma(a, b, c, fmt, m), fdiv(a, b, fmt, m),
                   fsqrt(abs(a), fmt, m), fdiv(1.0, b, fmt, m)]
            cases.append((m, 1, 1, ins, [ftok(x, fmt) for x in out]))
        out = [either_zero(fminmax(a, b, False), fmt), either_zero(fminmax(a, b, True), fmt), ftok(abs(a), fmt),
               ftok(-a, fmt), ftok(math.copysign(b, a) if not math.isnan(b) else NAN, fmt), ftok(ffma(a, b, c, fmt), fmt)]
        if fmt is F32:
            out += [either_zero(fsat(x), fmt) for x in [fadd(a, b, fmt), fmul(a, b, fmt), ffma(a, b, c, fmt)]]
            fa, fb, fc = ftz(a), ftz(b), ftz(c)
            out += [ftok(ftz(fadd(fa, fb, fmt)), fmt), ftok(ftz(fmul(fa, fb, fmt)), fmt),
                    ftok(ftz(ffma(fa, fb, fc, fmt)), fmt)]
            # div.full: within 2 units in the last place for |b| in [2^-126, 2^126]; any value outside.
            q = fdiv(a, b, fmt)
            full_ok = 2.0 ** -126 <= abs(b) <= 2.0 ** 126 and not math.isinf(q) and q != 0 and abs(q) >= 2.0 ** -126
            out.append(ftok(q, fmt, 2) if full_ok else ftok(q, fmt) if math.isnan(q) else '*')
        cases.append(('misc', 1, 1, ins, out))
    return cases


def family_f32():
    cases = float_family(F32, F_TRIPLES)
    # Approximate functions: the reference in double, rounded once; the tolerance in units in the last place
    # covers the ISA's bound (a relative error of 2^-23 is up to 2 ulps, tanh's 2^-11 up to 2^13).
    for x in [2.0, 0.5, 4.0, 0.25, 3.0, 10.0, -2.0, 1.75]:
        out = [ftok(flt(1 / x), F32, 3), ftok(flt(math.sqrt(abs(x))), F32, 3), ftok(flt(1 / math.sqrt(abs(x))), F32, 4),
               ftok(flt(math.log2(abs(x))), F32, 4), ftok(flt(2.0 ** x), F32, 4), ftok(flt(x / 3.0), F32, 3),
               ftok(flt(math.tanh(x)), F32, 16384)]
        cases.append(('approx', 1, 1, [ftok(x)], out))
    # sin and cos: an absolute error of 2^-20.9 at most, as units in the last place of the result.
    for x in [0.5, 1.0, -1.0, 2.0, 3.0, 1.5]:
        toks = []
        for y in [math.sin(x), math.cos(x)]:
            y = flt(y)
            ulp = 2.0 ** (math.frexp(y)[1] - 24)
            toks.append(ftok(y, F32, math.ceil(2.0 ** -20.9 / ulp) + 1))
        cases.append(('trig', 1, 1, [ftok(x)], toks))
    return cases


def family_f64():
    triples = [(1.5, 2.25, -0.5), (0.1, 0.2, 0.3), (1.0, 2.0 ** -53, 0.0), (-1.0, 2.0 ** -53, 1.0), (1.0, 3.0, -1.0),
               (-7.0, 3.0, 0.25), (1e308, 1e308, -1e308), (2.0 ** -1022, -0.5, 2.0 ** -1074), (-0.0, 0.0, -0.0),
               (INF, -INF, 1.0), (NAN, 1.0, 2.0), (1.0, 1.0, -1.0), (1.0 + 2 ** -52, 1.0 - 2 ** -53, -1.0),
               (123456.789, 0.001, -123.0), (9007199254740992.0, 1.0, 1.0)]
    return float_family(F64, triples)


def family_f16():
    cases, extra = [], []
    for fmt, name in [(F16, 'f16'), (BF16, 'bf16')]:
        for a, b, c in [(1.5, 2.25, -0.5), (0.1, 0.2, 0.3), (1.0, 2.0 ** -11, 0.0), (60000.0, 2.0, 1.0),
                        (-0.0, 0.0, -0.0), (2.0 ** -14, 0.5, 2.0 ** -24), (NAN, 1.0, 1.0), (INF, 1.0, -INF),
                        (3.0, 7.0, 0.001)]:
            if fmt is BF16 and a == 60000.0:
                a = 3e38
            a, b, c = flt(a, fmt), flt(b, fmt), flt(c, fmt)
            out = [ffma(a, b, c, fmt), fadd(a, b, fmt), fmul(a, b, fmt)]
            toks = [w16(bits(x, fmt)) for x in out]
            # Min and max of two zeros: either zero (as either_zero).
            for is_max in (False, True):
                toks.append('h:*' if a == 0 and b == 0 else w16(bits(fminmax(a, b, is_max), fmt)))
            # neg and abs of a NaN give an unspecified NaN.
            toks += ['h:*', 'h:*'] if math.isnan(a) else [w16(bits(a, fmt) ^ 0x8000), w16(bits(a, fmt) & 0x7fff)]
            toks.append('h:0')
            toks.append(w32(bits(ffma(a, b, c, fmt), fmt) | (bits(ffma(b, c, a, fmt), fmt) << 16)))
            toks += [ftok(a, F32), w16(bits(flt(ffma(a, b, c, F32), fmt), fmt))]
            x2 = [(a, b), (b, c)]

            def pack(lo, hi):
                return w32(bits(lo, fmt) | bits(hi, fmt) << 16)

            def lanes(fn):
                return pack(*[fn(*pair) for pair in zip(*x2)])

            def minmax(is_max):
                if any(p == 0 and q == 0 for p, q in zip(*x2)):
                    return '*'
                return lanes(lambda p, q: fminmax(p, q, is_max))

            sign = [bits(a, fmt) | bits(b, fmt) << 16]
            x2toks = [lanes(lambda p, q: fadd(p, q, fmt)), lanes(lambda p, q: fmul(p, q, fmt)), minmax(False),
                      minmax(True)]
            x2toks += ['*', '*'] if math.isnan(a) or math.isnan(b) else [w32(sign[0] ^ 0x80008000),
                                                                         w32(sign[0] & 0x7fff7fff)]
            extra.append((name + 'x2', 1, 1, [w16(bits(a, fmt)), w16(bits(b, fmt)), w16(bits(c, fmt)), 'h:0'], x2toks))
            cases.append((name, 1, 1, [w16(bits(a, fmt)), w16(bits(b, fmt)), w16(bits(c, fmt)), 'h:0'], toks))
    return cases + extra


# ---- Conversions ----

def f2i(x, mode, lo, hi, src=None):
    """x rounded to an integer in [lo, hi], saturating. NaN gives 0 from an f16 or f32 to 32 bits or fewer;
    from an f64, or to 64 bits, the destination's sign bit alone (its lowest value when signed), as sm_90 does."""
    if math.isnan(x):
        wide = src is F64 or hi >= 2 ** 63 - 1
        return (lo if lo < 0 else (hi + 1) // 2) if wide and src is not None else 0
    if math.isinf(x):
        return hi if x > 0 else lo
    q = Q(x)
    fl = math.floor(q)
    if mode == 'rzi':
        n = math.trunc(q)
    elif mode == 'rmi':
        n = fl
    elif mode == 'rpi':
        n = math.ceil(q)
    else:
        rest = q - fl
        n = fl + (1 if rest > Q(1, 2) or (rest == Q(1, 2) and fl % 2) else 0)
    return max(lo, min(hi, n))


INT_RANGES = {'s8': (-128, 127), 'u8': (0, 255), 's16': (-32768, 32767), 'u16': (0, 65535),
              's32': (-2 ** 31, 2 ** 31 - 1), 'u32': (0, 2 ** 32 - 1), 's64': (-2 ** 63, 2 ** 63 - 1),
              'u64': (0, 2 ** 64 - 1)}


def i2f(n, fmt, mode):
    return 0.0 if n == 0 else rnd(Q(n), fmt, mode)


def round_integral(x, mode, fmt):
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    n = f2i(x, mode, -10 ** 400, 10 ** 400)
    return math.copysign(float(n), x) if n == 0 else float(n)


def family_cvt():
    cases = []
    fvals = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.7, -2.7, 127.5, 128.0, 255.5, -129.0, 65535.5, 1e10, -1e10,
             3e9, 2147483520.0, 1e19, -1e19, 2e19, INF, -INF, NAN]
    for fmt, name in [(F32, 'f32'), (F64, 'f64')]:
        for x in fvals:
            x = flt(x, fmt)
            out = []
            for mode in ['rni', 'rzi', 'rmi', 'rpi']:
                out.append(w32(f2i(x, mode, *INT_RANGES['s32'], fmt)))
                out.append(w32(f2i(x, mode, *INT_RANGES['u32'], fmt)))
            out += [w32(f2i(x, 'rzi', *INT_RANGES[t], fmt) & M32) for t in ['s8', 'u8', 's16', 'u16']]
            out += [w64(f2i(x, 'rzi', *INT_RANGES['s64'], fmt) & M64), w64(f2i(x, 'rni', *INT_RANGES['u64'], fmt))]
            out += [ftok(round_integral(x, m, fmt), fmt) for m in ['rni', 'rzi', 'rmi', 'rpi']]
            if fmt is F32:
                out += [ftok(x, F64), either_zero(fsat(x), F32), w16(bits(flt(x, F16), F16)) if not math.isnan(x) else 'h:0x7fff']
            else:
                out += [ftok(x if math.isnan(x) or math.isinf(x) or x == 0 else rnd(Q(x), F32, m), F32) for m in MODES]
            cases.append((name, 1, 1, [ftok(x, fmt)], out))
    for n in [0, 1, -1, 16777217, -16777217, 0x7fffffff, -0x80000000, 0x12345678, 100, -300, 0x8000, 0xffff]:
        out = [ftok(i2f(s32(n), F32, m)) for m in MODES] + [ftok(i2f(n & M32, F32, m)) for m in MODES]
        out += [ftok(i2f(s32(n), F64, 'rn'), F64), ftok(i2f(n & M32, F64, 'rn'), F64)]
        sn = s32(n)
        out += [w32(s32(sn & 0xff if not (sn & 0x80) else (sn & 0xff) - 256)), w32(max(-128, min(127, sn))),
                w32(max(0, min(255, sn))), w32(max(0, min(65535, sn))), w32(max(-32768, min(32767, sn))), '0',
                w64(sn), w64(n & M32), w32(max(0, sn))]
        cases.append(('i32', 1, 1, [w32(n)], out))
    for n in [0, 1, -1, (1 << 53) + 1, -(1 << 53) - 1, (1 << 63) - 1, -(1 << 63), 0x123456789abcdef, 1 << 40]:
        out = [ftok(i2f(s64(n), F64, m), F64) for m in MODES] + [ftok(i2f(n & M64, F64, 'rn'), F64),
                                                                 ftok(i2f(s64(n), F32, 'rn'))]
        out += [w32(n & M32), w32(max(-2 ** 31, min(2 ** 31 - 1, s64(n)))), w32(min(M32, n & M64))]
        cases.append(('i64', 1, 1, [w64(n)], out))
    for n in [0xff, 0x7fff, 0x3c00, 0xfbff, 0x7e00, 0x3f800001, 0x477fe000, 0x477ff000, 0xc77ff000, 0x33800000,
              0x33000000, 0x80000001, 0x12345678, 0xfc00, 0xbe00]:
        b8, h = n & 0xff, n & 0xffff
        sh = h - 0x10000 if h >> 15 else h
        hv = struct.unpack('<e', h.to_bytes(2, 'little'))[0]
        x = struct.unpack('<f', n.to_bytes(4, 'little'))[0]
        out = [ftok(float(b8 - 256 if b8 >> 7 else b8)), ftok(float(b8)), ftok(float(sh)), ftok(float(h)),
               ftok(float(sh), F64), w16(bits(i2f(s32(n), F16, 'rn'), F16)), w16(bits(i2f(n, F16, 'rn'), F16)),
               ftok(hv), w32(f2i(hv, 'rni', *INT_RANGES['s32'])), w32(f2i(hv, 'rzi', *INT_RANGES['u32'])),
               ftok(hv, F64)]
        cases.append(('small', 1, 1, [w32(n)], out))
        out = [w16(bits(x if math.isnan(x) or math.isinf(x) or x == 0 else rnd(Q(x), F16, m), F16)) for m in MODES]
        cases.append(('f16round', 1, 1, [w32(n)], out))
    # Just past a midpoint of f16 values, by less than an f32 can hold: a rounding through f32 lands on it.
    for x in [1 + 2 ** -11 + 2 ** -40, -(1 + 2 ** -11 + 2 ** -40), 65520 - 2 ** -30, 65520.0, 2 ** -25 + 2 ** -60,
              -2 ** -25, 1e-30, 1e6, -1e6, 3.141592653589793, -0.0, INF, NAN]:
        # An f64 NaN keeps its payload's top bits, quiet: 0x7e00 for the canonical one (sm_90).
        out = [w16(0x7e00) if math.isnan(x) else w16(bits(x if math.isinf(x) or x == 0 else rnd(Q(x), F16, m), F16))
               for m in MODES]
        cases.append(('f16of64', 1, 1, [ftok(x, F64)], out))
    return cases


# ---- testp (in the cmp family) ----

def family_cmp_testp():
    cases = []
    for x in [1.0, 0.0, -0.0, 1e-40, -1e-45, INF, -INF, NAN, 3.4e38, -1.17549435e-38]:
        x = flt(x)
        fin = not math.isinf(x) and not math.isnan(x)
        sub = fin and x != 0 and abs(x) < 2.0 ** -126
        # .normal: finite and not subnormal, zeros included, as sm_90 answers.
        out = [fin, math.isinf(x), not math.isnan(x), math.isnan(x), fin and not sub, sub]
        cases.append(('testp', 1, 1, [ftok(x)], [w32(int(v)) for v in out]))
    return cases


# ---- Memory ----

def words(bs):
    """Little-endian 32-bit tokens of a byte string."""
    return [w32(int.from_bytes(bs[k:k + 4], 'little')) for k in range(0, len(bs), 4)]


def family_memory():
    cases = []
    lo, hi = 0x8899aabbccddeeff, 0x0011223344556677
    b = lo.to_bytes(8, 'little') + hi.to_bytes(8, 'little')
    u16 = lambda k: int.from_bytes(b[k:k + 2], 'little')
    u32 = lambda k: int.from_bytes(b[k:k + 4], 'little')
    f32 = struct.unpack('<f', b[4:8])[0]
    out = [w32(b[0]), w32(s32(b[0] - 256 if b[0] & 0x80 else b[0])), w32(u16(2)),
           w32(u16(2) - 0x10000 if u16(2) & 0x8000 else u16(2)), w32(u32(4)), '0', w64(hi),
           w32(u32(0)), w32(u32(4)), '0', '0'] + [w32(u32(k)) for k in range(0, 16, 4)]
    out += [w32(u16(k)) for k in range(8, 16, 2)] + [w64(lo), w64(hi), ftok(f32, F64), w64(hi)] + words(b)
    cases.append(('global', 1, 1, [w64(lo), w64(hi)], out))
    sh = [(63 - t) * 3 + 1 for t in range(64)]
    cases.append(('shared', 1, 64, [], [w32(x) for x in sh + sh + [t * 3 + 1 for t in range(8)]]))
    word = [t * 0x9e3779b9 & M32 for t in range(32)]
    cases.append(('rows', 1, 32, [], [w64(s32(word[31 - t]) & M64) for t in range(32)] +
                  [w64(word[31 - t]) for t in range(32)] + [ftok((t * 8192 + t * t) * 2.0 ** -24) for t in range(32)]))
    for k in range(8):
        l = [i * i + k for i in range(8)]
        cases.append(('local', 1, 1, [w32(k)], [w32(l[7 - n]) for n in range(8)] + [w32(l[k]), '0', w32(k), w32(~k)]))
    for k in [0, 1, 3]:
        near = [(t - k + 3) * 5 + 3 if 0 <= t - k + 3 < 64 else 0 for t in range(64)]
        out = near + [t * 5 + 3 for t in range(64)] + near + near + [t * 7 + 1 for t in range(64)]
        out += [(63 - t) * 7 + 1 + 256 for t in range(64)]
        cases.append(('wrap', 1, 64, [w32(k)], [w32(x) for x in out]))
    for k in [0, 5, 7]:
        cases.append(('lwrap', 1, 32, [w32(k)], [w32(k * 9 + t) for t in range(32)] * 2 + [w32(1000 + t) for t in range(32)]))
    table = [10, 20, 30, 40, 0xfffffff0, 0x80000000, 7, 8]
    for k in [0, 3, 5, 7]:
        out = [w32(table[k]), '0', w32(table[4]), w32(table[5]), w32(table[k]), '0', w64(0x0123456789abcdef)]
        out += [w32(s32(0xffff8001)), w32(2), w32(M32), w32(4), w32(1), w32(1)]
        cases.append(('consts', 1, 1, [w32(k)], out))
    for v in [0x0123456789abcdef, 0x8899aabbccddeeff]:
        cases.append(('managed', 1, 1, [w64(v)], [w64(v)]))
        cases.append(('hints', 1, 1, [w64(v)] + 15 * [w64(0)], [w64(v)]))
        cases.append(('quiet', 1, 1, [w64(v)], [w64(v)]))
    # isspacep: each address is in its own space and in no other asked about.
    asked = [(0, ['global', 'shared', 'local', 'const', 'param']), (1, ['global', 'shared', 'local', 'const', 'param']),
             (2, ['global', 'shared', 'local', 'const', 'param']), (3, ['const', 'shared', 'local']),
             (4, ['param', 'shared', 'local'])]
    own = ['global', 'shared', 'local', 'const', 'param']
    cases.append(('isspacep', 1, 1, [], [w32(int(sp == own[a])) for a, spaces in asked for sp in spaces]))
    return cases


# ---- Atomics ----

def atom_op(op, old, b, c, width):
    m = (1 << width) - 1
    sg = s32 if width == 32 else s64
    return {'add': old + b, 'min.u': min(old, b), 'max.u': max(old, b), 'min.s': min(sg(old), sg(b)),
            'max.s': max(sg(old), sg(b)), 'inc': 0 if old >= b else old + 1,
            'dec': b if old == 0 or old > b else old - 1, 'and': old & b, 'or': old | b, 'xor': old ^ b,
            'exch': b, 'cas': c if old == b else old}[op] & m


def family_atomics():
    cases = []
    ops32 = ['add', 'min.u', 'max.u', 'min.s', 'max.s', 'inc', 'dec', 'and', 'or', 'xor', 'exch', 'cas']
    for a, b, c in [(5, 3, 9), (3, 5, 9), (0xfffffffe, 0xfffffffe, 1), (0, 7, 0x1234), (0x80000000, 1, 0xffffffff),
                    (100, 100, 42), (0xf0f0f0f0, 0x0ff00ff0, 0)]:
        cases.append(('atom32', 1, 1, [w32(a), w32(b), w32(c)],
                      [w32(atom_op(op, a, b, c, 32)) for op in ops32] + [w32(a)] * len(ops32)))
    ops64 = ['add', 'min.u', 'max.u', 'min.s', 'max.s', 'and', 'or', 'xor', 'exch', 'cas']
    for a, b, c in [(5, 3, 9), (0xffffffffffffffff, 1, 2), (0x8000000000000000, 0x7fffffffffffffff, 0),
                    (0x123456789, 0x123456789, 0xabcdef)]:
        cases.append(('atom64', 1, 1, [w64(a), w64(b), w64(c)],
                      [w64(atom_op(op, a, b, c, 64)) for op in ops64] + [w64(a)] * len(ops64)))
    for a, b, x, y in [(1.5, 2.25, 1e300, 1e300), (-0.5, 0.5, 0.1, 0.2), (3e38, 3e38, -1.0, 1.0)]:
        cases.append(('atomf', 1, 1, [ftok(a), ftok(b), ftok(x, F64), ftok(y, F64)],
                      [ftok(fadd(a, b, F32)), '0', ftok(fadd(x, y, F64), F64), ftok(a), '0', ftok(x, F64)]))
    for grid, block in [(1, 1), (1, 64), (2, 64), (4, 96)]:
        n = grid * block
        xor = 0
        orv = 0
        for t in range(n):
            xor ^= t + 1
            orv |= 1 << (t % block % 20)
        dec = 0
        for _ in range(n):
            dec = 1000 if dec == 0 or dec > 1000 else dec - 1
        out = [w32(n), w32(n * (n - 1) // 2), w32((grid - 1) * 1000 + block - 1), w32(-((grid - 1) * 100 + block - 1)),
               w32(orv), w32(xor), w32(n % 1001), w32(dec), w64(n << 33), ftok(n * 0.5), w32(n),
               w32(n * (n - 1) // 2), '0', ftok(n * 0.25, F64)]
        cases.append(('contend', grid, block, [], out))
    for block in [1, 32, 100, 256]:
        orv = 0
        for t in range(block):
            orv |= 1 << (t % 20)
        out = [block, block * (block - 1) // 2, block - 1, -(block - 1), orv, block % 1001, 1, 1]
        cases.append(('shared', 1, block, [], [w32(x) for x in out] + [ftok(block * 0.5), w32(1)]))
    return cases


# ---- Warp operations ----

def shfl(mode, vals, b_of, c):
    d, p = [], []
    for lane in range(32):
        b = b_of(lane) & 0x1f
        cval, mask = c & 0x1f, (c >> 8) & 0x1f
        max_lane = (lane & mask) | (cval & ~mask)
        min_lane = lane & mask
        if mode == 'up':
            j = lane - b
            ok = j >= max_lane
        elif mode == 'down':
            j = lane + b
            ok = j <= max_lane
        elif mode == 'bfly':
            j = lane ^ b
            ok = j <= max_lane
        else:
            j = min_lane | (b & ~mask)
            ok = j <= max_lane
        d.append(vals[j] if ok else vals[lane])
        p.append(int(ok))
    return d + p


def family_warp():
    cases = []
    configs = [('idx', lambda l: (l * 7 + 3) & 31, 0x1f), ('up', lambda l: 3, 0), ('down', lambda l: 5, 0x1f),
               ('bfly', lambda l: 6, 0x1f), ('idx', lambda l: l + 1, 0x181f), ('up', lambda l: 2, 0x1800),
               ('down', lambda l: 3, 0x181f), ('bfly', lambda l: 5, 0x1c1f), ('idx', lambda l: 40, 0x1f),
               ('down', lambda l: 1, 0x0f)]
    for vals in [[0x100 + l for l in range(32)], [(l * 2654435761) & M32 for l in range(32)]]:
        out = []
        for mode, b_of, c in configs:
            out += shfl(mode, vals, b_of, c)
        cases.append(('shfl', 1, 32, [w32(v) for v in vals], [w32(x) for x in out]))
    for xs in [[1] * 32, [2] * 32, list(range(32)), [l % 3 for l in range(32)], [0xffffffff - l % 2 for l in range(32)],
               [0x80000000 if l == 7 else 5 for l in range(32)]]:
        ps = [x & 1 for x in xs]
        ballot = sum(p << l for l, p in enumerate(ps))
        out = [int(all(ps)), int(any(ps)), int(all(ps) or not any(ps)), ballot, M32]
        out += [sum(1 << k for k in range(32) if xs[k] == xs[l]) for l in range(32)]
        same = all(x == xs[0] for x in xs)
        out += [M32 if same else 0] * 32 + [int(same)] * 32
        sx = [s32(x) for x in xs]
        andv, orv, xorv = M32, 0, 0
        for x in xs:
            andv, orv, xorv = andv & x, orv | x, xorv ^ x
        out += [sum(xs), min(xs), max(xs), min(sx), max(sx), andv, orv, xorv]
        cases.append(('vote', 1, 32, [w32(x) for x in xs], [w32(x) for x in out]))
    out, red = [], []
    for tid in range(40):
        warp_n = 32 if tid < 32 else 8
        m = (1 << warp_n) - 1
        out += [m, 0xaaaaaaaa & m]
        red.append(sum(range(warp_n)))
    cases.append(('partial', 1, 40, [], [w32(x) for x in out + red]))
    # A shfl whose source lane does not execute it reads 0 (the H200's answer, see warp.ptx).
    cases.append(('shfl_inactive', 1, 32, [], [w32(0)] * 8))
    return cases


# ---- Barriers ----

def family_barrier():
    cases = [('sync', 1, 128, [], [w32((127 - t) ** 2 + (t + 32) % 128 + 1000) for t in range(128)]),
             ('arrive', 1, 128, [], [w32(t * 5 + 1) for t in range(64)] + [w32(t) for t in range(64)])]
    for k in [1, 2, 3, 7, 96, 200]:
        ps = [t % k == 0 for t in range(96)]
        cases.append(('red', 1, 96, [w32(k)], [w32(sum(ps)), w32(int(all(ps))), w32(int(any(ps))), w32(96 - sum(ps))]))
    for k in [1, 2, 97]:
        ps = [t % k == 0 for t in range(96)]
        cases.append(('red_count', 1, 96, [w32(k)], [w32(96 - sum(ps)), w32(int(not any(ps)))] * 96))
    return cases


# ---- Control flow ----

def family_control():
    cases = []
    out = []
    for t in range(64):
        v = t * 3 if t % 2 else t + 100
        out.append(v + sum(i * i for i in range(t)) + (7 if t < 10 else 1))
    cases.append(('diverge', 1, 64, [], [w32(x) for x in out]))
    for k in [0, 1, 31, 33, 64]:
        cases.append(('early_exit', 1, 64, [w32(k)], [w32(t + 1 if t < k else 0) for t in range(64)]))
    for a, b, c, v in [(3, 4, 5, 0x0807060504030201), (20, 19, 0xffffffff, 0xff000000ff0000ff), (41, 25, 7, 0),
                       (0, 1, 2, 0x1122334455667788)]:
        bs = v.to_bytes(8, 'little')
        cases.append(('calls', 1, 1, [w32(a), w32(b), w32(c), '0', w64(v)],
                      [w32(a * b + c), w32(c * a + b), w64(bs[0] + bs[3] + bs[7]), w64(math.factorial(a % 21)),
                       w32(fib(b % 20))]))
    return cases


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def family_sreg():
    cases = []
    for grid, block in [(1, 32), (3, 40), (2, 100)]:
        out = []
        for cta in range(grid):
            for tid in range(block):
                lane = tid % 32
                out += [tid, block, cta, grid, lane, 1 << lane, (1 << lane) - 1, (2 << lane) - 1,
                        M32 & ~((2 << lane) - 1), M32 & ~((1 << lane) - 1), 1, 0, 1, 1]
        cases.append(('sreg', grid, block, [], [w32(x) for x in out]))
    cases.append(('warp_sz', 1, 1, [], [w32(32)]))
    return cases


def family_extended():
    cases = []
    for x, y in [(1, 2), ((1 << 128) - 1, 1), (0xffffffff, 0xffffffff), (0x123456789abcdef0fedcba9876543210, 0x0f0f0f0f),
                 (0, 1), (1 << 96, 1 << 64)]:
        xs = [(x >> (32 * k)) & M32 for k in range(4)]
        ys = [(y >> (32 * k)) & M32 for k in range(4)]
        s, d = x + y, x - y
        p = xs[0] * ys[0]
        m0 = (p & M32) + xs[1]
        m1 = (p >> 32) + ys[1] + (m0 >> 32)
        out = [(s >> (32 * k)) & M32 for k in range(4)] + [s >> 128, 0, 0, 0]
        out += [(d >> (32 * k)) & M32 for k in range(4)] + [M32 if d < 0 else 0, 0, 0, 0]
        out += [m0 & M32, m1 & M32, m0 & M32, m1 & M32, m1 >> 32]
        cases.append(('carry', 1, 1, [w32(v) for v in xs + ys], [w32(v) for v in out]))
    for a, b, c in [(7, 3, 1), (3, 7, 1), (0xffffffff, 1, 0), (0x00fffffe, 0x00800001, 5), (0x12345678, 0x9abcdef0, 0)]:
        a24, b24 = a & 0xffffff, b & 0xffffff
        sa24 = a24 - (1 << 24) if a24 >> 23 else a24
        sb24 = b24 - (1 << 24) if b24 >> 23 else b24
        cases.append(('sad', 1, 1, [w32(a), w32(b), w32(c)], [w32(c + abs(a - b)), w32(c + abs(s32(a) - s32(b)))]))
        out = [a24 * b24, (a24 * b24) >> 16, sa24 * sb24, a24 * b24 + c]
        cases.append(('int24', 1, 1, [w32(a), w32(b), w32(c)], [w32(v) for v in out]))
    for x, y in [(3, 5), (M64, M64), (0x123456789abcdef0, 0xfedcba9876543210), (1 << 63, 1 << 63), (0, 1),
                 (0xffffffff, 0x100000001)]:
        p, s, d = x * y, x + y, x - y
        a24, b24 = x & 0xffffff, y & 0xffffff
        sa24 = a24 - (1 << 24) if a24 >> 23 else a24
        sb24 = b24 - (1 << 24) if b24 >> 23 else b24
        out = [w32(p >> (32 * k)) for k in range(4)] + [w64(s), w64(s >> 64), w64(d), w64(M64 if d < 0 else 0)]
        out += [w32((sa24 * sb24) >> 16), w32(((a24 * b24) >> 16) + (x >> 32)), w64(y + abs(x - y))]
        cases.append(('wide', 1, 1, [w64(x), w64(y)], out))
    return cases


FAMILIES = {'int_arith': family_int_arith, 'bits': family_bits, 'cmp': family_cmp, 'f32': family_f32,
            'f64': family_f64, 'f16': family_f16, 'cvt': family_cvt, 'memory': family_memory,
            'atomics': family_atomics, 'warp': family_warp, 'barrier': family_barrier, 'control': family_control,
            'sreg': family_sreg, 'extended': family_extended}


def render(name, cases):
    lines = ['# SPDX-License-Identifier: MIT',
             '# Written by tools/gen-ptx-expect.py from the PTX ISA\'s semantics; change the cases there.',
             '# ENTRY GRID BLOCK : INPUT... -> OUTPUT... (the format: tests/ptx/run_ptx.c)']
    for entry, grid, block, ins, outs in cases:
        lines.append('%s %d %d : %s -> %s' % (entry, grid, block, ' '.join(ins), ' '.join(outs)))
    return '\n'.join(lines) + '\n'


def main(argv):
    check = len(argv) == 3 and argv[1] == '--check'
    if len(argv) != (3 if check else 2):
        print(__doc__, file=sys.stderr)
        return 2
    d = argv[-1]
    stale = []
    for name, fn in FAMILIES.items():
        text = render(name, fn())
        path = '%s/%s.expect' % (d, name)
        if check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        stale.append(path)
            except OSError:
                stale.append(path)
        else:
            with open(path, 'w') as f:
                f.write(text)
    for p in stale:
        print('%s differs from what tools/gen-ptx-expect.py writes' % p, file=sys.stderr)
    return 1 if stale else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
