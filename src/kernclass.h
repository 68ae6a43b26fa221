/* kernclass: shared declarations of the C kernel engine.
 *
 * Layers: ffi.c holds the .Call entry points (SEXP in, SEXP out, all checks);
 * kernel.c holds the plain C workers, which see only const double * data.
 */
#ifndef KERNCLASS_H
#define KERNCLASS_H

#include <stddef.h>

/* Kernel codes, in the order of the R-side vector kernel_names(). */
typedef enum {
    KC_LINEAR = 1,      /* x'y                           */
    KC_POLYNOMIAL = 2,  /* (gamma x'y + coef0)^degree    */
    KC_RBF = 3,         /* exp(-gamma ||x - y||^2)       */
    KC_LAPLACE = 4,     /* exp(-gamma ||x - y||)         */
    KC_SIGMOID = 5      /* tanh(gamma x'y + coef0)       */
} kc_kernel_type;

typedef struct {
    kc_kernel_type type;
    double gamma, coef0;
    int degree;
} kc_kernel;

/* A set of points: an n x p column-major matrix as R stores it, plus the
 * squared row norms that the distance kernels need (NULL for the others). */
typedef struct {
    const double *x;
    ptrdiff_t n;
    int p;
    const double *sqnorm;
} kc_points;

/* Side of a square tile: rows and columns of kernel values computed at once. */
#define KC_TILE 128

int kc_kernel_uses_distance(const kc_kernel *k);
void kc_row_sqnorms(const kc_points *a, double *out);
size_t kc_tile_work_size(int p);

/* Kernel values between rows ai[0..na) of a and rows bi[0..nb) of b
 * (index arrays, or NULL for the ranges a0.. and b0..) into tile, na x nb,
 * column-major with leading dimension na. work holds kc_tile_work_size(p). */
void kc_tile(const kc_kernel *k,
             const kc_points *a, const int *ai, ptrdiff_t a0, int na,
             const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
             double *work, double *tile);

/* The workers.  Each returns normally; interrupts are checked between
 * parallel chunks on the calling thread.  nthreads >= 1. */
void kc_gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
             int symmetric, double *out, int nthreads);

/* out = K(a, b) w: w is b->n x ncols, out a->n x ncols, both column-major. */
void kc_expansion(const kc_kernel *k, const kc_points *a, const kc_points *b,
                  const double *w, int ncols, double *out, int nthreads);

void kc_within_group_sums(const kc_kernel *k, const kc_points *b,
                          const int *group, int ngroups, double *out,
                          int nthreads);

/* Seed 002's threshold search on n scores with labels +1 / -1: out gets
 * c(b, split, consistency).  work_* and scratch_* hold n values each. */
void kc_threshold_search(const double *score, const int *label, ptrdiff_t n,
                         double *work_x, int *work_y, double *scratch_x, int *scratch_y,
                         double *out);

#endif
