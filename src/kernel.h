/* The kernel engine (kernel.c: the kernel table and the tiles; kernel-sums.c
 * and kernel-groups.c: the workers built on them): kernels, the sets of
 * points they join, and the Gram matrices, expansions and sums of kernel
 * values. */
#ifndef KERNCLASS_KERNEL_H
#define KERNCLASS_KERNEL_H

#include <stddef.h>
#include "kernclass.h"

/* The kernels, in the order of the rows of R's kernel table
 * (R/table-kernels.R), whose code is this value + 1.  A new kernel is one
 * line here, before KC_KERNEL_COUNT, and one case in kernel_def_of()
 * (kernel.c); tests/testthat/test-kernel-table.R pins the two sides. */
typedef enum {
    KC_LINEAR,          /* x'y                           */
    KC_POLYNOMIAL,      /* (gamma x'y + coef0)^degree    */
    KC_RBF,             /* exp(-gamma ||x - y||^2)       */
    KC_LAPLACE,         /* exp(-gamma ||x - y||)         */
    KC_SIGMOID,         /* tanh(gamma x'y + coef0)       */
    KC_KERNEL_COUNT     /* the number of kernels: keep it last */
} kc_kernel_type;

typedef struct {
    kc_kernel_type type;
    double gamma, coef0;
    int degree;
    /* values stored as floats (the SVM's) may be computed in single
     * precision where that is accurate (kernel-float.c); the option
     * kernclass.svm.precision, read where the kernel is parsed (ffi.c) */
    int single;
} kc_kernel;

/* Where a set of points comes from: the tiles of kernel values are computed
 * from each source by its own function (kernel.c), so that the workers and
 * the SMO's row cache take any of them. */
typedef enum {
    KC_SRC_DENSE = 0,    /* x: n x p column-major, as R stores a matrix */
    KC_SRC_SPARSE,       /* rows in compressed sparse row form */
    KC_SRC_PRECOMPUTED,  /* kernel values given: x an ld x m matrix of them */
    KC_SRC_CALLBACK      /* kernel values computed by R, on the main thread */
} kc_source;

/* A callback source's tile: kernel values of the data rows ra[0..na) of
 * ctx_a against rows rb[0..nb) of ctx_b (0-based), na x nb row-major into
 * out.  Returns 0, or 1 after a failure it has recorded (kc_callback_raise
 * signals it later, outside any parallel region). */
typedef int (*kc_tile_fn)(const void *ctx_a, const int *ra, int na,
                          const void *ctx_b, const int *rb, int nb, double *out);

/* A set of points.  Dense: an n x p column-major matrix as R stores it.
 * Sparse: point i is row map(i) of a CSR matrix with p columns, its values
 * val[rowptr[r] .. rowptr[r + 1]) at the increasing 0-based columns col[].
 * Precomputed: point i's kernel value with a point j of another set is
 * x[colmap_j + map(i) * ld], colmap_j the training point that j is (NULL
 * for points that are never the columns of a tile: new data): x holds one
 * column per point of its source, the training points down each column, so
 * that a row of kernel values is read contiguously.  Callback: point
 * i is data row map(i) of ctx, its tiles computed by tile_fn.  map(i) is
 * rowmap[i], or i where rowmap is NULL.  sqnorm: the squared norms the
 * distance kernels need (for the precomputed and callback sources k(x, x)),
 * NULL until kc_prepare_points computes them.  Initialisers that stop after
 * the dense fields get a dense source. */
typedef struct {
    const double *x;
    ptrdiff_t n;
    int p;
    const double *sqnorm;
    const double *packed;  /* dense: the rows as tile panels (kc_prepare_points), or NULL */
    kc_source src;
    const int *rowmap;
    const int *rowptr, *col;   /* sparse */
    const double *val;
    ptrdiff_t ld;              /* precomputed */
    const int *colmap;
    kc_tile_fn tile_fn;        /* callback */
    const void *ctx;
    /* dense, for single-precision tiles (kernel-float.c; kc_prepare_points
     * sets them where its kernel allows it, else NULL): the column means the
     * floats are taken from, and, packed, the rows as float panels with the
     * squared norms of those floats */
    const double *centre;
    const float *packed_f;
    const double *sqnorm_f;
} kc_points;

/* The kernel table (kernel.c): a kernel's name, as in R's table (NULL for a
 * code without a case), and whether it is computed from squared distances
 * (then kc_points need their squared norms) rather than inner products. */
const char *kc_kernel_name(kc_kernel_type type);
int kc_kernel_uses_distance(kc_kernel_type type);
int kc_kernel_is_plain(kc_kernel_type type);    /* k(x, y) = x'y */
int kc_kernel_is_bounded(kc_kernel_type type);  /* |k(x, y)| <= 1 */
/* The option kernclass.svm.precision as kc_kernel's single (kernel-float.c):
 * read on the main thread. */
int kc_single_precision_option(void);
/* The table's plain kernel (k(x, y) = x'y), for products of matrices. */
kc_kernel kc_plain_kernel(void);
/* k(x, x) from ||x||^2 alone (every supported kernel allows it). */
double kc_self_kernel(const kc_kernel *k, double sqnorm);

/* Squared row norms; for the precomputed and callback sources k(x, x). */
void kc_row_sqnorms(const kc_points *a, double *out);
/* A copy of *a ready for the tiles: with the squared norms a distance
 * kernel needs, and packed into tile panels when pack is set (points that
 * serve as the columns of many tiles are packed once, not once per tile).
 * Buffers R_alloc'd.  The workers call it on the points they are given. */
kc_points kc_prepare_points(const kc_kernel *k, const kc_points *a, int pack);
/* The points map[0..m) of a (indices of its points), as a set of their own
 * (dense rows copied, other sources re-indexed); R_alloc'd. */
kc_points kc_points_subset(const kc_points *a, const int *map, int m);

/* The workers (kernel-sums.c; the group sums kernel-groups.c).  Each
 * returns normally; interrupts are checked between parallel chunks on the
 * calling thread.  nthreads >= 1. */

/* Rows of the kernel matrix of b with itself, as floats: out[r][t] =
 * k(b[rows[r]], b[t]) on nthreads threads (the caller's choice); work holds
 * kc_rows_work_size(b, nthreads) doubles (b as prepared). */
size_t kc_rows_work_size(const kc_points *b, int nthreads);
void kc_rows(const kc_kernel *k, const kc_points *b, const int *rows, int nr,
             float *const *out, int nthreads, double *work);

void kc_gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
             int symmetric, double *out, int nthreads);
/* The same rounded to floats: the values the solver's rows hold (kc_rows'),
 * each the double value rounded; K(a, a) where symmetric (b unused). */
void kc_gram_float(const kc_kernel *k, const kc_points *a, const kc_points *b,
                   int symmetric, float *out, int nthreads);

/* Dense points by group, for the kernel blocks between groups (the class
 * pairs of an SVM, svm-pairs.c): group[i] in 0..ngroups-1 (< 0: left
 * out); x the points of each group together, group g's at at[g] ..
 * at[g] + size[g] in their order, rank[i] point i's place in its group
 * (-1: none).  kc_alloc'd. */
typedef struct {
    kc_points x;
    int ngroups;
    const ptrdiff_t *at, *size;
    const int *rank;
} kc_grouped;
kc_grouped kc_group_points(const kc_kernel *k, const kc_points *b, const int *group, int ngroups);
/* K(group g[q], group h[q]) rounded to floats into out[q] (size[g[q]] x
 * size[h[q]], row-major), q < nblk, and where g[q] != h[q] and outt is not
 * NULL its transpose into outt[q], on nthreads threads; work holds
 * kc_group_work_size(gp, nthreads) doubles. */
size_t kc_group_work_size(const kc_grouped *gp, int nthreads);
void kc_group_blocks_float(const kc_kernel *k, const kc_grouped *gp, int nblk, const int *g,
                           const int *h, float *const *out, float *const *outt, int nthreads,
                           double *work);

/* out = K(a, b) w: w is b->n x ncols, out a->n x ncols, both column-major;
 * for a set of nk kernels of one type (k[0..nk)), their results one after
 * another, each from the same tiles of inner products or distances. */
void kc_expansion(const kc_kernel *k, int nk, const kc_points *a, const kc_points *b,
                  const double *w, int ncols, double *out, int nthreads);

/* out[g + kk ngroups] = sums of k[kk](x_i, x_j) over the pairs of rows of
 * each group. */
void kc_within_group_sums(const kc_kernel *k, int nk, const kc_points *b,
                          const int *group, int ngroups, double *out,
                          int nthreads);

/* out (n x ngroups) = sums of k(x_i, x_j) over the rows j != i of each group. */
void kc_loo_group_sums(const kc_kernel *k, const kc_points *b, const int *group,
                       int ngroups, double *out, int nthreads);

#endif
