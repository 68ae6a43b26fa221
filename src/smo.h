/* The SMO solver of the SVM dual (smo.c: the solver; smo-select.c: its
 * working-set selection; smo-cache.c: its kernel rows). */
#ifndef KERNCLASS_SMO_H
#define KERNCLASS_SMO_H

#include <stddef.h>
#include "kernel.h"

/* How a solve ended; R reads the codes (ffi_enums, R/engine-c-enums.R). */
typedef enum {
    KC_SMO_CONVERGED = 0,  /* the largest KKT violation below eps */
    KC_SMO_MAX_ITER = 1,   /* max_iter reached first: an approximate solution */
    KC_SMO_UNBOUNDED = 2,  /* cost = Inf and the data not separable (the dual unbounded) */
    KC_SMO_STATUS_COUNT    /* keep it last */
} kc_smo_status;

/* How to solve: everything but the problem's data (kernel, points, y, C). */
typedef struct {
    /* the problem: the linear term p (-1 for C-SVC, 0 for the nu
     * problems); a feasible start alpha0 (the nu problems' own, or a warm
     * start), or NULL for 0; nsets 1, or 2 for nu-SVC (pairs chosen within
     * a class) */
    double linear;
    const double *alpha0;
    int nsets;
    /* stopping: the KKT tolerance, the most iterations */
    double eps;
    long max_iter;
    int shrinking;
    int nthreads;
    /* the kernel rows: store and filled, n x n floats and n flags kept by
     * the caller across solves on the same points and kernel (rows computed
     * once for a path of costs), or NULL for an LRU cache of cache_mb;
     * whole: fill the store with every row first.  A store holding every
     * row is read directly (no cache bookkeeping); the iterates are the
     * same in every mode. */
    double cache_mb;
    float *store;
    unsigned char *filled;
    int whole;
    /* or, with a store, its rows copied from a larger kernel the caller
     * holds (floats, src_ld apart) as the solver asks for them: row i is
     * src[src_at[i] src_ld + src_at[j]] over j; NULL: computed */
    const float *src;
    const int *src_at;
    ptrdiff_t src_ld;
} kc_smo_options;

typedef struct {
    double *alpha;        /* n, filled by the solver */
    double objective, rho, gap;
    double r;             /* with two sets: the margin r of nu-SVC (else 1) */
    long iterations, rows_computed;
    kc_smo_status status;
} kc_smo_result;

/* Minimises 1/2 a'Qa + p sum(a), Q_ij = y_i y_j k(x_i, x_j), over
 * 0 <= a_i <= C_i, y'a = 0 (y +1 / -1; C_i > 0, may be +Inf). */
void kc_smo(const kc_kernel *k, const kc_points *x, const int *y, const double *C,
            const kc_smo_options *opt, kc_smo_result *res);

/* Asks the kernel for huge pages on a large buffer that is written once
 * and read often (smo-cache.c). */
void kc_advise_huge_pages(void *p, size_t bytes);

#endif
