/* The instruction-set kernels (isa.c), as the kernel engine (kernel.c) calls
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
    const char *name;  /* "c", "avx2" or "avx512" */
} kc_isa_kernels;

extern kc_isa_kernels kc_isa;

#endif
