/* The linear SVM by dual coordinate descent (linear.c). */
#ifndef KERNCLASS_LINEAR_H
#define KERNCLASS_LINEAR_H

#include <stdint.h>

/* How a solve ended; R reads the codes (ffi_enums, R/engine-c-enums.R). */
typedef enum {
    KC_LINEAR_CONVERGED = 0,  /* the projected gradients within eps */
    KC_LINEAR_MAX_PASS = 1    /* max_pass passes reached first */
} kc_linear_status;

typedef struct {
    double bias;     /* the constant feature appended to each row */
    double eps;      /* the tolerance on the projected gradients */
    long max_pass;
    int shrinking;
} kc_linear_options;

typedef struct { double objective; long passes; kc_linear_status status; } kc_linear_result;

/* The rows the solver reads: row i is scale[i] h[i r .. i r + r), h in
 * IEEE half precision (linear.c says why), sq[i] the sum of squares of
 * those halves. */
typedef struct { const uint16_t *h; const double *scale, *sq; int r; } kc_linear_store;

/* The rows rows[0..n) of a float store z (row-major, r wide) as n rows of
 * halves h (n r), their scales and sums of squares; 0 where a value is not
 * finite. */
int kc_linear_halves(const float *z, int r, const int *rows, int n, uint16_t *h, double *scale,
                     double *sq);

/* A private generator (splitmix64) for solves run in parallel. */
typedef struct { unsigned long long state; } kc_linear_rng;

/* On rows[0..n) of a store of halves st with y +1 / -1 and
 * bounds C: w gets r + 1 weights (the last the constant's), alpha the n
 * dual variables.  rng NULL: draws with unif_rand() (on R's thread, the
 * caller holding GetRNGstate); else from rng, and then it may run inside a
 * unit of kc_units (units.h: its scratch and interrupt checks). */
void kc_linear_svm(const kc_linear_store *st, const int *rows, int n, const int *y,
                   const double *C, const kc_linear_options *opt, kc_linear_rng *rng,
                   double *w, double *alpha, kc_linear_result *res);

/* One problem of kc_linear_many: its rows, labels, bounds and results (as
 * kc_linear_svm's), and its generator. */
typedef struct {
    const int *rows, *y;
    const double *C;
    int n;
    double *w, *alpha;
    kc_linear_rng rng;
    kc_linear_result res;
} kc_linear_problem;

/* Solves np problems on the same store side by side (kc_units: each with
 * its own generator, so that the results do not depend on nthreads;
 * interrupts as the units take them). */
void kc_linear_many(const kc_linear_store *st, kc_linear_problem *p, int np,
                    const kc_linear_options *opt, int nthreads);

#endif
