/* SPDX-License-Identifier: MIT */
/*
 * The PTX interpreter's insides: the decoded form of a module (a compact
 * array of instructions with resolved operands, ptx_parse.c writes it), the
 * state of a running block and its warps (ptx_exec.c), and the memory model
 * (ptx_memory.c): how an address of each state space reaches host memory,
 * bounds-checked, and the race check's shadow of shared memory.
 */
#ifndef PTX_INTERNAL_H
#define PTX_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx.h"

enum { PTX_WARP = 32, PTX_MAX_OPDS = 6 };

/*
 * What a module may declare, checked where the decoder reads it and named in
 * its refusal. No compiler comes near them; they keep every count and offset
 * far from wrapping and every launch's allocations bounded.
 */
#define PTX_REGS_MAX (1u << 24)         /* registers of the whole module */
#define PTX_FRAME_MAX (512u * 1024)     /* a function's frame (.local, .param): a thread's local memory on the device */
#define PTX_SHARED_MAX (48u * 1024)     /* static shared memory an entry reaches, as ptxas allows */
#define PTX_MODULE_SHARED_MAX (1u << 20) /* static shared variables of the whole module */
#define PTX_KPARAM_MAX 4096u            /* an entry's parameters, as the fake's launch takes them */
#define PTX_GLOBAL_MAX (1u << 20)       /* a .global or .const variable (1 MiB), as the module loader allocates it */
#define PTX_ITEMS_MAX (1u << 28)        /* instructions, functions, variables, calls: far from int32_t indices' end */

/* Generic addresses of the windows shared, local and param memory take, as cvta makes them. */
#define PTX_SHARED_WINDOW 0x7f0000000000ull
#define PTX_LOCAL_WINDOW 0x7e0000000000ull
#define PTX_PARAM_WINDOW 0x7d0000000000ull
#define PTX_WINDOW_SIZE (1ull << 32)
/* A cooperative launch's grid workspace (what %envreg1:%envreg2 give cooperative groups): global memory. */
#define PTX_GRID_WINDOW 0x7c0000000000ull
enum { PTX_GRID_WORKSPACE = 16 };
/* A shared address another block of the cluster owns (mapa): 1 + its rank in these bits, the offset below. */
enum { PTX_RANK_SHIFT = 24 };

/* Types: the size in bytes and the kind. */
enum ptx_kind { K_BITS, K_UNSIGNED, K_SIGNED, K_FLOAT, K_PRED };
enum ptx_type {
    T_NONE, T_B8, T_B16, T_B32, T_B64, T_B128, T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64,
    T_F16, T_F16X2, T_BF16, T_BF16X2, T_F32, T_F64, T_PRED, T_COUNT
};
extern const struct ptx_type_info {
    const char *name;
    unsigned char size, kind;
} ptx_types[T_COUNT];

/* State spaces. */
enum ptx_space { S_GENERIC, S_GLOBAL, S_SHARED, S_LOCAL, S_PARAM, S_CONST, S_FRAME };

/* Operands. */
enum ptx_opd_kind {
    O_NONE,
    O_REG,    /* reg */
    O_IMM,    /* imm: the value's bits */
    O_SREG,   /* a special register: imm is its enum ptx_sreg */
    O_ADDR,   /* [base + imm]: base is a register (reg >= 0) or a symbol (sym >= 0); tex/suld/sust:
                 [handle, {coordinates}], the handle's register, the coordinates the next operand */
    O_SYM,    /* a symbol's address as a value: sym */
    O_VEC,    /* {v[0], ..., v[n-1]}: registers, or ~index of a constant in imm (one only) */
    O_LABEL,  /* imm: instruction index */
};

enum ptx_sreg {
    R_TID_X, R_TID_Y, R_TID_Z, R_NTID_X, R_NTID_Y, R_NTID_Z, R_CTAID_X, R_CTAID_Y, R_CTAID_Z,
    R_NCTAID_X, R_NCTAID_Y, R_NCTAID_Z, R_LANEID, R_WARPID, R_NWARPID, R_SMID, R_NSMID, R_GRIDID,
    R_CLOCK, R_CLOCK64, R_GLOBALTIMER, R_LANEMASK_EQ, R_LANEMASK_LT, R_LANEMASK_LE, R_LANEMASK_GT,
    R_LANEMASK_GE, R_DYNAMIC_SMEM, R_TOTAL_SMEM, R_CLUSTER_NCTARANK, R_CLUSTER_CTARANK, R_CLUSTERID_X,
    R_CLUSTERID_Y, R_CLUSTERID_Z, R_NCLUSTERID_X, R_NCLUSTERID_Y, R_NCLUSTERID_Z, R_CLUSTER_CTAID_X,
    R_CLUSTER_CTAID_Y, R_CLUSTER_CTAID_Z, R_CLUSTER_NCTAID_X, R_CLUSTER_NCTAID_Y, R_CLUSTER_NCTAID_Z,
    R_IS_EXPLICIT_CLUSTER, R_ENVREG1, R_ENVREG2, R_COUNT
};

/* A module-scope declaration's linking directive, weakest to strongest claim on its name's meaning. */
enum ptx_linkage { L_INTERNAL, L_VISIBLE, L_WEAK, L_COMMON, L_EXTERN };

/* A symbol: a variable's place, by space. */
struct ptx_symbol {
    char *name;
    unsigned char space; /* S_GLOBAL (and .const): `value` is its device address once bound;
                            S_SHARED: its offset; S_FRAME: its offset in its function's frame;
                            S_PARAM: an entry's parameter, its offset in the buffer */
    bool bound;
    uint64_t value;
    size_t size;
    uint32_t align;      /* S_PARAM: its alignment in the buffer; S_GLOBAL: the variable's */
    /* S_GLOBAL: a module-scope .global or .const, as ptx_module_global tells it. */
    bool constant, defined;
    unsigned char linkage; /* S_GLOBAL: enum ptx_linkage */
    unsigned input;        /* S_GLOBAL: the link input it is in (each begins at its .version), from 1 */
    unsigned line;
    unsigned char *init; /* the initialiser's values, `init_len` bytes (at most `size`), or NULL: zeros */
    size_t init_len;
};

struct ptx_opd {
    unsigned char kind;
    unsigned char rsize; /* O_REG destination: the register's size in bytes */
    unsigned char n;     /* O_VEC: elements */
    unsigned char neg;   /* a predicate operand written !%p */
    int32_t reg;         /* O_REG, O_ADDR (-1: none); a second register (setp's %p|%q) in v[0] */
    int32_t sym;         /* O_ADDR, O_SYM; -1: none */
    int64_t imm;
    int32_t v[4];        /* O_VEC: registers (-1: the sink `_`); O_REG: v[0] a second destination or -1 */
};

/* What an instruction does: one of ptx_ops.def's rows. */
enum ptx_op {
#define PTX_OP(op, name, shape, handler, dst, types, modes, hook, iform, fform) X_##op,
#include "ptx_ops.def"
    X_COUNT
};

/* Each operation's name, as ptx_ops.def gives it (for messages). */
extern const char *const ptx_op_names[X_COUNT];

/*
 * ptx_ops.def's operand shapes: below OPD_ANY, the count of operands when
 * they are a destination register then values; else the named shape.
 */
enum {
    OPD_ANY = 16, /* whatever the decoder read: ret, exit, membar, trap, call (read_call), the no-ops */
    OPD_NONE,     /* no operand */
    OPD_VALUE,    /* one value */
    OPD_LABEL,    /* a label */
    OPD_MOV,      /* d, a; d, {a, b}; {d, e}, a */
    OPD_LD,       /* d or {d...} (the instruction's vector), [address] */
    OPD_ST,       /* [address], a or {a...} */
    OPD_ATOM,     /* d, [address], a (, b for cas) */
    OPD_RED,      /* [address], a */
    OPD_BAR,      /* (barrier (, count)) */
    OPD_BAR_RED,  /* d, barrier, (count,) predicate */
    OPD_VOTE,     /* d, (a,) membermask */
    OPD_SETP,     /* d, a, b (, c with a combiner) */
    OPD_CVT,      /* d, a (, b packing two) */
    OPD_TEX,      /* {d x4}, [handle, {coordinates}] (, level or gradients) */
    OPD_SULD,     /* {d...}, [handle, {coordinates}] */
    OPD_SUST,     /* [handle, {coordinates}], {a...} */
};
extern const unsigned char ptx_op_shape[X_COUNT];

/* ptx_ops.def's destinations: o[0] a register written; nothing written; a register or a vector. */
enum { DST = 1, NODST, VDST };
extern const unsigned char ptx_op_dst[X_COUNT];

/* The commonest forms, which the executor runs without looking at types per thread. */
enum { F_NONE, F_IADD, F_ISUB, F_IMUL, F_IAND, F_IOR, F_IXOR, F_ISHL, F_FADD, F_FSUB, F_FMUL, F_FFMA, F_MOV, F_IMAD };

/* Modifier bits. */
enum {
    M_HI = 1 << 0, M_WIDE = 1 << 1, M_SAT = 1 << 2, M_FTZ = 1 << 3, M_APPROX = 1 << 4,
    M_LO = 1 << 5, M_CC = 1 << 6, M_NC = 1 << 7, M_RELU = 1 << 8, M_SHIFTAMT = 1 << 9, M_ACQUIRE = 1 << 10,
    M_RELEASE = 1 << 11,
    M_CI = 1 << 12, /* addc, subc, madc: the carry flag is an input */
};

/* Rounding: none given, to nearest even, toward zero, down, up; the integral forms for cvt. */
enum { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI, RND_RNA };

/* setp's comparisons; its boolean combiner. */
enum { C_EQ, C_NE, C_LT, C_LE, C_GT, C_GE, C_LO, C_LS, C_HI, C_HS, C_EQU, C_NEU, C_LTU, C_LEU, C_GTU, C_GEU,
       C_NUM, C_NAN };
enum { B_NONE, B_AND, B_OR, B_XOR };

/* atom/red/redux operations; shfl modes; vote modes. */
enum { A_ADD, A_MIN, A_MAX, A_INC, A_DEC, A_AND, A_OR, A_XOR, A_EXCH, A_CAS };
enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };
enum { V_ALL, V_ANY, V_UNI, V_BALLOT };
/* bar.red's operations. */
enum { BR_POPC, BR_AND, BR_OR };

/*
 * Texture and surface instructions: the geometry; tex's form (a level of
 * detail given, or gradients); suld/sust's boundary mode, numbered as
 * gpu_fake_boundary numbers it.
 */
enum { G_NONE, G_1D, G_2D, G_3D, G_A1D, G_A2D, G_CUBE, G_ACUBE };
enum { TX_PLAIN, TX_LEVEL, TX_GRAD };
enum { SU_ZERO, SU_CLAMP, SU_TRAP };

struct ptx_inst {
    unsigned char op;       /* enum ptx_op */
    unsigned char type;     /* the instruction's type (cvt: the destination's) */
    unsigned char type2;    /* cvt: the source's type; setp: unused */
    unsigned char space;    /* ld/st/atom/cvta: enum ptx_space */
    unsigned char rnd;      /* rounding */
    unsigned char cmp;      /* setp: C_*; atom: A_*; shfl: SH_*; vote: V_*; tex: TX_*; suld/sust: SU_* */
    unsigned char boolop;   /* setp: B_*; bfe/bfi none */
    unsigned char vec;      /* ld/st: elements (1, 2, 4) */
    unsigned char nopd;
    unsigned char guard_neg;
    unsigned char fast;     /* F_*: a form the executor runs on whole registers */
    unsigned char geom;     /* tex/suld/sust: G_* */
    uint16_t mods;
    int32_t guard;          /* a predicate register, or -1 */
    int32_t target;         /* bra: an instruction; call: a function index */
    uint32_t line;          /* in the PTX text */
    struct ptx_opd o[PTX_MAX_OPDS];
};

/* A call site's arguments and results: the caller's param symbols, `nrets` then `nargs` of the module's call_syms. */
struct ptx_call {
    unsigned nargs, nrets;
    uint32_t syms; /* the first in call_syms */
};

/* A .func's parameter: its offset and size in the function's frame. */
struct ptx_param {
    uint32_t off, size;
};

/* A function: an entry or a .func, its code a range of the module's instructions. */
struct ptx_function {
    char *name;
    bool entry, defined;
    bool weak;                /* .weak: a definition that is not, where there is one, gives way to it */
    bool builtin_vprintf;     /* the `vprintf` the CUDA runtime provides */
    bool builtin_assertfail;  /* the `__assertfail` a device-side assert calls */
    char *error;              /* why it cannot run (the first instruction not understood), or NULL */
    uint32_t start, end;      /* [start, end) of the module's instructions */
    uint32_t reg_base, nregs; /* its registers in the register file */
    uint32_t frame_size;      /* a .func's frame: parameters, locals, call parameters, saved registers */
    uint32_t saved_at;        /* where the saved registers start in it */
    size_t shared_static;     /* an entry: the static shared memory it uses (every shared variable of the module) */
    unsigned nparams;         /* a .func's parameters: `nparams` of the module's params, from `params` */
    uint32_t params;
    uint32_t ret_off, ret_size;  /* a .func's result (size 0: none) */
    size_t kparam_bytes;     /* an entry's parameter buffer */
    bool uses_calls;
    unsigned cluster[3];     /* an entry's .reqnctapercluster, or 0s */
    uint32_t kparams, nkparams; /* an entry's parameters: `nkparams` S_PARAM symbols from `kparams` */
    unsigned max_threads;    /* an entry's .maxntid or .reqntid product, or 0 */
    unsigned line;           /* of its name */
    bool bad_header;         /* its name, parameters or directives could not be read: `error` says why */
};

struct ptx_module {
    atomic_uint refs;
    struct ptx_inst *code;
    size_t ncode;
    struct ptx_function *funcs;
    size_t nfuncs;
    struct ptx_symbol *syms;
    size_t nsyms;
    struct ptx_call *calls;   /* a call instruction's o[0].imm indexes this */
    size_t ncalls;
    int32_t *call_syms;       /* every call's arguments and results */
    size_t ncall_syms;
    struct ptx_param *params; /* every .func's parameters */
    size_t nparams;
    uint64_t *consts;         /* vector elements that are immediates */
    size_t nconsts;
    uint32_t nregs;           /* the register file: every function's registers */
    size_t shared_static;     /* every static shared variable of the module */
    uint32_t *fmap;           /* functions by name: open addressing, 1 + an index into funcs, 0 empty */
    size_t fmap_cap;          /* a power of two, or 0 */
    char *error;              /* why the module is refused (ptx_module_error), or NULL */
    uint32_t *gmap;           /* global (.global, .const) symbols by name, as fmap: the newest of each name */
    size_t gmap_cap;
    uint32_t *gnext;          /* [nsyms]: 1 + the next older global symbol of the same name, or 0 */
    int arch;                 /* ptx_module_arch's */
    struct ptx_fake_line *fake_lines; /* the `.fake_*` lines, in text order */
    size_t nfake_lines;
};

/* Argument i of call c, a symbol of the module. */
static inline int32_t ptx_call_arg(const struct ptx_module *m, const struct ptx_call *c, unsigned i)
{
    return m->call_syms[c->syms + c->nrets + i];
}

/* Result i of call c, a symbol of the module. */
static inline int32_t ptx_call_ret(const struct ptx_module *m, const struct ptx_call *c, unsigned i)
{
    return m->call_syms[c->syms + i];
}

/* ---- ptx_info.c ---- */

/* The function named NAME (LEN bytes) that the module looks up by that name, or -1. */
int32_t ptx_func_index(const struct ptx_module *m, const char *name, size_t len);

/* The slot of NAME in the module's function map: the one holding it, else the empty one where it would go. */
size_t ptx_fmap_slot(const struct ptx_module *m, const char *s, size_t len);

/*
 * The functions `fi` reaches through its calls, itself first, each once, in
 * the order a depth-first walk meets them (no recursion: a call chain may be
 * as deep as the module is long): a malloc'd array of *n indices, or NULL
 * when out of memory.
 */
uint32_t *ptx_reach(const struct ptx_module *m, size_t fi, size_t *n);

/* ---- ptx_memory.c ---- */

/* An allocation a block found: [lo, hi), or hi == 0 for none. */
struct ptx_mem_range {
    uint64_t lo, hi;
    unsigned char *data;       /* host memory at lo */
    unsigned char *written;    /* its init check shadow (a bit a byte), or NULL */
};

enum { PTX_MEM_RECENT = 3 };

/*
 * A block's cache of the last allocation found (the fields of ptx_mem_range, first, for the inline
 * test), the few found before it (a kernel that reads two buffers and writes a third goes round
 * them), and the launch's context.
 */
struct ptx_mem {
    uint64_t lo, hi;
    unsigned char *data;
    unsigned char *written;
    struct ptx_mem_range recent[PTX_MEM_RECENT];
    const struct fake_ctx *ctx;
};

/* Host memory for [addr, addr + bytes) of global memory the context may reach, or NULL. */
unsigned char *ptx_mem_lookup(struct ptx_mem *m, uint64_t addr, size_t bytes);

static inline unsigned char *ptx_mem_global(struct ptx_mem *m, uint64_t addr, size_t bytes)
{
    if (addr >= m->lo && addr < m->hi && bytes <= m->hi - addr)
        return m->data + (addr - m->lo);
    return ptx_mem_lookup(m, addr, bytes);
}

/* The race check's shadow of a block's shared memory (GPUSHIM_FAKE_CHECK=race). */
struct ptx_shadow {
    uint32_t epoch;   /* the barrier interval of the last access */
    uint16_t writer;  /* 1 + the thread that wrote it in that interval, or 0 */
    uint16_t reader;  /* 1 + a thread that read it in that interval, or 0 */
};


/* GPUSHIM_FAKE_WATCHDOG: seconds with no block ended before a launch is stopped; 0: never. */
unsigned ptx_watchdog_seconds(void);

/* ---- ptx_exec.c ---- */

/* A block's run: what the host thread that runs it needs. */
struct ptx_run;
struct ptx_block;

/* The shared state of one launch across the pool. */
struct ptx_run {
    const struct ptx_launch *l;
    const struct ptx_module *m;
    const struct ptx_function *f;
    uint64_t nblocks;
    atomic_ullong next_block;
    atomic_int fault;          /* the first cuabi_result, 0 while none */
    atomic_ullong executed;    /* thread instructions run, for the benchmark */
    size_t shared_bytes;       /* static + dynamic */
    uint32_t reg_lo, reg_hi;   /* the registers of the functions the entry reaches */
    bool race;
    bool init, init_strict;    /* the init check; strict: a report fails the launch */
    atomic_int init_reported;  /* the init check reports once a launch */
    /* Clusters: their shape, how many, and whether the launch asked for them. */
    unsigned cdim[3], csize;
    uint64_t nclusters;
    bool explicit_cluster;
    /* A cooperative launch: every cluster is resident at once, host thread t running those of index t mod nthreads. */
    bool cooperative;
    unsigned nthreads;
    atomic_uint next_thread;
    unsigned char workspace[PTX_GRID_WORKSPACE] __attribute__((aligned(16)));
    /* The watchdog: the blocks that ended, which every host thread counts, and the seconds it waits for one. */
    atomic_ullong progress;
    double watchdog;           /* seconds; 0: off */
};

/*
 * Whether the code of `entry` and of every function it calls keeps the
 * executor's program counter inside each function and its accesses inside
 * each function's registers and the module's symbols and constants, whatever
 * the decoder made of the text; CUDA_ERROR_INVALID_PTX, and why in `why`, if
 * not. The span of registers of those functions in [*reg_lo, *reg_hi).
 */
cuabi_result ptx_code_check(const struct ptx_module *m, const struct ptx_function *entry, uint32_t *reg_lo,
                            uint32_t *reg_hi, char *why, size_t size);

/* Runs blocks of the launch until none is left or one faulted; the worker's share. */
void ptx_run_blocks(struct ptx_run *r);

/*
 * printf from a kernel (ptx_printf.c): the format at a global address, the
 * arguments packed in `args` (up to `args_max` bytes) as nvcc lays them out.
 * The characters written, or -2 when the format is not in global memory.
 */
int ptx_vprintf(struct ptx_mem *mem, uint64_t fmt, const unsigned char *args, size_t args_max);

/*
 * A failed device-side assert (ptx_printf.c): the line a GPU prints on stderr, from the message, file and
 * function strings at global addresses, the line, and the thread's block and thread indices.
 */
void ptx_assertfail(struct ptx_mem *mem, uint64_t message, uint64_t file, uint32_t line, uint64_t function,
                    const unsigned block[3], const unsigned thread[3]);

/* Whether `f` is a declaration of a function the driver provides, which the interpreter runs itself. */
static inline bool ptx_builtin(const struct ptx_function *f)
{
    return (f->builtin_vprintf || f->builtin_assertfail) && !f->defined;
}

#endif
