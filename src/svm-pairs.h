/* The class pairs of one multi-class C-SVC fit, side by side, on one
 * kernel store shared by all of them (svm-pairs.c). */
#ifndef KERNCLASS_SVM_PAIRS_H
#define KERNCLASS_SVM_PAIRS_H

#include "kernel.h"
#include "smo.h"

/* One class pair's problem: its m rows (0-based, increasing, into the
 * points of the fit), their y (+1 / -1) and bounds C; alpha (m) and res
 * are filled.  With fold (m, in 1..nfolds; else NULL), Platt's
 * cross-validation too: each fold's rows get the decision values (dec, m)
 * of the SVM fitted on the other rows (+1 or -1 where those are of one
 * class, as LIBSVM), and fold_bad is 1 where a fold's solution was not
 * finite or unbounded (cost = Inf, not separable). */
typedef struct {
    int m;
    const int *rows, *y;
    const double *C;
    double *alpha;
    kc_smo_result res;
    const int *fold;
    int nfolds;
    double *dec;
    int fold_bad;
} kc_svm_pair;

/* Solves the pairs on up to nthreads threads, each as the solver solves it
 * alone with every row of its kernel kept (the planner's "whole" store): the
 * same iterates, support vectors and rho.  opt gives eps, max_iter and
 * shrinking.  Where budget (bytes) holds each class's float kernel with
 * itself and a pair block per thread, those are computed once and every
 * pair's block copied from its two classes' (svm-pairs.c); past it the
 * classes' blocks go through a cache (batches of pairs, least recently
 * used blocks evicted) where that holds the largest pair's two; else each
 * pair computes its own block, as many at once as the budget holds (one at
 * least).  Returns the number of batches of pairs on shared class blocks
 * (1: all at once), 0 where each pair computed its own. */
/* Platt's folds are solved by the same solver on the sub-block of their
 * rows of the pair's block, and their decision values summed in double
 * from the block's float values (so no kernel value is computed again;
 * they differ from double kernel values by float rounding, about 1e-7 of
 * the sum of |coefficients|). */
int kc_svm_pairs(const kc_kernel *k, const kc_points *x, kc_svm_pair *pairs, int npairs,
                 const kc_smo_options *opt, double budget, int nthreads);

#endif
