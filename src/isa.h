/* The instruction-set kernels (isa.c), as the kernel engine (kernel*.c) calls
 * them: one function pointer each, set at load time to the fastest version
 * this CPU runs (kc_choose_kernels). */
#ifndef KERNCLASS_ISA_H
#define KERNCLASS_ISA_H

#include <float.h>
#include <stddef.h>

/* Tile panels: MR rows of a and NR rows of b, interleaved feature by
 * feature, so that the innermost loop is an MR x NR outer product. */
#define MR 6
#define NR 8
/* The single-precision tiles' panels of b (kernel-float.c): 16 floats, one
 * zmm register, a feature. */
#define NF 16
/* Squared distances below this fraction of ||x||^2 + ||y||^2 have lost
 * digits to cancellation in ||x||^2 + ||y||^2 - 2 x'y: recompute directly. */
#define KC_REFINE 1e-5
/* Whether d2 = scale - 2 x'y (scale = ||x||^2 + ||y||^2) is recomputed
 * directly: digits lost to cancellation, or a sum of norms that overflowed
 * (d2 Inf or NaN, which the engines' exp() took differently).  For finite
 * values the same test as d2 < KC_REFINE * scale. */
#define KC_NEEDS_REFINE(d2, scale) (!((d2) >= KC_REFINE * (scale)) || !((scale) <= DBL_MAX))

typedef struct {
    /* A-panel' B-panel over p features: MR x NR inner products into out,
     * row r at out + r * ld */
    void (*micro)(const double *ap, const double *bp, int p, double *out, int ld);
    /* the same against two adjacent panels of b (MR x 2 NR), or NULL */
    void (*wide)(const double *ap, const double *bp, int p, double *out, int ld);
    /* one row of a against four panels of b: out[0 .. 4 NR), or NULL */
    void (*row)(const double *ap, const double *bp, int p, double *out);
    /* four rows of a against four panels of b, or NULL */
    void (*rows4)(const double *ap, const double *bp, int p, double *out, int ld);
    /* v[i] = exp(-g v[i]), or exp(-g sqrt(v[i])) when root */
    void (*exp_bulk)(double *v, size_t n, double g, int root);
    /* inner products row[0 .. nb) into squared distances; whether any
     * lost digits to cancellation (KC_REFINE) */
    int (*sqdist_row)(double *row, double asq, const double *bsq, int nb);
    /* acc[i] += sum_j tile[i, j] w[j] over an na x nb row-major tile */
    void (*tile_times_weights)(const double *tile, int na, int nb, const double *w, double *acc);
    /* g[t] += a ys[t] k[t] over n: a kernel row's share of the SMO
     * solver's gradient (smo.c) */
    void (*row_update)(double *g, const double *ys, const float *k, double a, int n);
    /* The SMO solver's two passes over its variables t0..t1 (smo-select.c),
     * for one set, every variable active and no runner-up list; t1 - t0 a
     * multiple of 8 (smo-select.c's loop goes on from their result with the
     * rest); NULL where that loop does all.  They compute what it computes,
     * operation for operation (no fused multiply-adds), and keep its ties. */
    /* j: of the t that can move down (moves & KC_MOVES_DOWN) with
     * gd = gm + ys G > 0, the one of least -gd^2 / (QDi + QD - 2 Ki, or
     * KC_TAU where not > 0), the last on ties (-1: none); best that value
     * (Inf: none); gmax2 the largest ys G of those that can move down */
    void (*smo_scan_j)(const double *G, const double *ys, const double *QD,
                       const unsigned char *moves, int t0, int t1, double gm, double QDi,
                       const float *Ki, double *best, int *j, double *gmax2);
    /* G += ys (ci Ki + cj Kj), then i: of the t that can move up, the one
     * of largest -ys G, the last on ties (-1: none), gmax that value */
    void (*smo_update_scan_i)(double *G, const double *ys, const unsigned char *moves, int t0,
                              int t1, double ci, const float *Ki, double cj, const float *Kj,
                              double *gmax, int *i);
    /* the kernel matrix's copies out of a row-major tile (kc_gram): an
     * 8 x 8 block (row r at src + r lds) into the columns of out (column c
     * at out + c ldo), or of outf as floats; and dst[i] = src[i] as floats
     * over n; transpose8 NULL where kc_gram's own loops do it.  Floats rounded as
     * a cast rounds them: the same values. */
    void (*transpose8)(const double *src, int lds, double *out, float *outf, ptrdiff_t ldo);
    void (*to_float)(const double *src, float *dst, int n);
    /* The single-precision tiles' products (kernel-float.c), float panels
     * (a: MR rows, b: NF rows), summed in float, stored as doubles: an
     * MR x NF block; MR x 2 NF from two adjacent panels of b, or NULL; one
     * and four rows of a against four panels of b, or NULL. */
    void (*fmicro)(const float *ap, const float *bp, int p, double *out, int ld);
    void (*fwide)(const float *ap, const float *bp, int p, double *out, int ld);
    void (*frow)(const float *ap, const float *bp, int p, double *out);
    void (*frows4)(const float *ap, const float *bp, int p, double *out, int ld);
    const char *name;  /* "c", "avx2" or "avx512" */
} kc_isa_kernels;

/* The solver's flags per variable (smo-internal.h). */
enum { KC_MOVES_UP = 1, KC_MOVES_DOWN = 2 };
/* The curvature taken where the pair's is not positive (LIBSVM's TAU). */
#define KC_TAU 1e-12

extern kc_isa_kernels kc_isa;

/* Picks the fastest micro-kernel and exp for this CPU; called at load time. */
void kc_choose_kernels(void);
/* The single-precision kernels for the instruction sets allowed (kernel-float.c). */
void kc_choose_float_kernels(int avx2, int avx512);
/* "avx512", "avx2" or "c": the instruction set the engine chose. */
const char *kc_engine_name(void);

#endif
