/* The SVM solve's planner (svm-plan.c): which store holds a problem's
 * kernel rows, chosen from the problem's size, the cache size and the
 * memory budget, for the one solve entry (ffi_svm_solve) and for R, which
 * reads the plan through ffi_svm_plan.  The sizes of each store:
 * kc_svm_store_bytes and kc_svm_path_bytes_* (svm-path.h). */
#ifndef KERNCLASS_SVM_PLAN_H
#define KERNCLASS_SVM_PLAN_H

#include "kernel.h"

/* The SVM types, as R names them (options$type): each sets the solver's
 * linear term and index sets. */
typedef enum { KC_SVM_C = 0, KC_SVM_NU, KC_SVM_ONE } kc_svm_type;

/* Where a problem's kernel rows live.  R reads the names (kc_svm_store_name). */
typedef enum {
    KC_STORE_CACHE = 0,  /* an LRU cache of cachesize MB */
    KC_STORE_WHOLE,      /* every row, computed first and read directly */
    KC_STORE_KEPT,       /* a store kept by the caller across a path's costs */
    KC_STORE_PAIRS,      /* the class pairs' blocks, shared (svm-pairs.c) */
    KC_STORE_APART       /* the class pairs each solved on their own (by R) */
} kc_svm_store;
const char *kc_svm_store_name(kc_svm_store store);

/* One binary problem of n points from source src: in_path says it is a
 * cost path's (kind "costs"), whose store, kept for all its costs, may
 * take budget bytes.  fresh: a new store is allocated (whole: all its rows
 * computed first). */
typedef struct {
    kc_svm_store store;
    int fresh, whole;
    double bytes;
} kc_svm_binary_plan;
kc_svm_binary_plan kc_svm_plan_binary(double n, kc_source src, kc_svm_type type,
                                      double cache_mb, int in_path, double budget);

/* Whether the problems are of the kind the class pairs solve side by side
 * (C-SVC on plain dense points with a distance kernel, which kc_svm_binary
 * neither centres nor moves): Platt's folds of such problems take their
 * decision values from float kernel values, as the pairs' do. */
int kc_svm_pairs_kind(kc_svm_type type, const kc_points *x, const kc_kernel *k);
/* The class pairs of one fit, the largest of m rows: KC_STORE_PAIRS where
 * they are of that kind and cachesize holds the largest pair's whole
 * kernel, else KC_STORE_APART. */
kc_svm_store kc_svm_plan_pairs(kc_svm_type type, const kc_points *x, const kc_kernel *k,
                               double mmax, double cache_mb);

/* The shared cost path for n points of nclass classes, the largest pair
 * block of m training rows, folds of at most t held-out rows and at least
 * n - trained, nx input matrices for nrun folds, inputs the bytes of
 * those, ncost costs (0: not counted yet): fits (0: past the budget, each
 * fold runs on its own), fold_kernel (svm-path.h's kc_svm_path_job) and
 * the bytes once, per thread, of the inputs and of the results
 * (kc_svm_path_bytes_results). */
typedef struct {
    int fits, fold_kernel;
    double once, thread, inputs, results;
} kc_svm_path_plan;
kc_svm_path_plan kc_svm_plan_path(double n, int nclass, double m, double t, double trained,
                                  int nx, int nrun, double inputs, double ncost, double budget);
/* The plans of one call as calls within the budget: each plan (in order)
 * joins the last call where that call's largest once, inputs and thread
 * bytes and all its plans' results stay within the budget, else starts
 * the next call (a plan alone is within it: kc_svm_plan_path).  call[j]:
 * plan j's call, 0-based; returns the number of calls. */
int kc_svm_plan_path_calls(const double *once, const double *thread, const double *inputs,
                           const double *results, int nplans, double budget, int *call);
/* The threads that run the path's plans of one call side by side: as many
 * (up to nthreads) as the budget holds a fit's memory for beside the
 * largest once and inputs bytes and all the plans' results; one at least. */
int kc_svm_plan_path_threads(const double *once, const double *thread, const double *inputs,
                             const double *results, int nplans, double budget, int nthreads);

#endif
