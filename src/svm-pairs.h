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
 * shrinking.  Where budget (bytes) holds each class's float kernel with
 * itself and a pair block per thread, those are computed once and every
 * pair's block copied from its two classes' (svm-pairs.c); else each pair
 * computes its own block, as many at once as the budget holds (one at
 * least).  Returns 1 where the classes' kernels were shared. */
int kc_svm_pairs(const kc_kernel *k, const kc_points *x, kc_svm_pair *pairs, int npairs,
                 const kc_smo_options *opt, double budget, int nthreads);

#endif
