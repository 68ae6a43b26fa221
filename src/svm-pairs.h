/* The class pairs of one multi-class C-SVC fit, side by side, on one
 * kernel store shared by all of them (svm-pairs.c). */
#ifndef KERNCLASS_SVM_PAIRS_H
#define KERNCLASS_SVM_PAIRS_H

#include "kernel.h"
#include "smo.h"

/* One class pair's problem: its m rows (0-based, increasing, into the
 * points of the fit), their y (+1 / -1) and bounds C; alpha (m) and res
 * are filled. */
typedef struct {
    int m;
    const int *rows, *y;
    const double *C;
    double *alpha;
    kc_smo_result res;
} kc_svm_pair;

/* Solves the pairs on up to nthreads threads, each as the solver solves it
 * alone with every row of its kernel kept (ffi_smo's store = "whole"): the
 * same iterates, support vectors and rho.  opt gives eps, max_iter and
 * shrinking.  Where budget (bytes) holds the float kernel of all n points
 * and a pair block per thread, that kernel is computed once and every
 * pair's block copied out of it; else each pair computes its own block, as
 * many at once as the budget holds (one at least).  Returns 1 where the
 * kernel was shared. */
int kc_svm_pairs(const kc_kernel *k, const kc_points *x, kc_svm_pair *pairs, int npairs,
                 const kc_smo_options *opt, double budget, int nthreads);

/* The bytes kc_svm_pairs holds for n points, pair blocks of at most mmax
 * rows of p features, nthreads pairs at once: shared (the kernel of all
 * n points) or not. */
double kc_svm_pairs_bytes(double n, int p, double mmax, int nthreads, int shared);

#endif
