/* The costs of kernel settings over the folds of a cross-validation
 * (svm-path.c). */
#ifndef KERNCLASS_SVM_PATH_H
#define KERNCLASS_SVM_PATH_H

#include "kernel.h"
#include "smo.h"
#include "units.h"

/* A fit's status on the path: the solver's (kc_smo_status), or one of
 * these, which the caller refits the ordinary way (that reports them); R
 * reads the codes (ffi_enums, R/engine-c-enums.R). */
typedef enum {
    KC_PATH_NOT_FINITE = KC_SMO_STATUS_COUNT,  /* a solution that is not finite numbers */
    KC_PATH_EMPTY      /* a class of the pair without a row of weight > 0 */
} kc_path_status;

/* A job is one kernel setting: x[0..nx) all n points (dense; nx = 1, or
 * nrun: as fold run[r]'s training rows scale them), y their classes
 * 0..nclass-1; the folds run[0..nrun) (of the n points' fold) are each
 * held out in turn, every class pair fitted on the other folds' rows for
 * the costs cost[0..ncost) (increasing), with bounds
 * cw[class + nclass r] * (cost * w[t]).  Out: decision (n x pairs x ncost:
 * the held-out rows' decision values, NA elsewhere), and per fit
 * (nrun x pairs x ncost) rho, iterations and status (kc_smo_status or
 * kc_path_status). */
typedef struct {
    const kc_kernel *k;
    const kc_points *x;
    int nx;
    const int *y;
    int nclass, ncost;
    const double *cost, *w, *cw;
    double eps;
    long max_iter;
    int shrinking;
    int fold_kernel;  /* where nx > 1 or one fold runs: 1, the held-out rows'
                       * kernel with the training rows once per fold run, for
                       * every pair; 2, and the training rows' with themselves */
    double *decision, *rho, *iterations;
    int *status;
} kc_svm_path_job;
/* The path's large buffers (the pairs' blocks, the held-out and training
 * kernels) kept from one call to the next: a race calls once per fold on
 * the same data, and buffers fresh at each call cost their pages' faults
 * again (each zeroed by the kernel).  malloc'd, grown as a call needs;
 * kc_svm_path_kept_free frees them and leaves the set empty. */
typedef struct {
    int n;
    void **p;
    size_t *bytes;
} kc_svm_path_kept;
void kc_svm_path_kept_free(kc_svm_path_kept *kept);

/* The jobs' class pairs on each fold run side by side on up to nthreads
 * threads (each pair's costs are one chain of warm starts); the large
 * buffers from kept, or (NULL) R_alloc'd for this call; each finished
 * pair told to progress (NULL: none; units.h). */
void kc_svm_path(const kc_svm_path_job *jobs, int njobs, const int *fold, const int *run,
                 int nrun, int nthreads, kc_svm_path_kept *kept, kc_units_progress *progress);

/* The warm start of the next cost of a path (a, m values) from the last
 * solution prev in its box Cprev, for the box C and classes y (+1 / -1):
 * within [0, C], with y'a = 0. */
void kc_svm_warm_start(const double *prev, const double *Cprev, const double *C,
                       const int *y, int m, double *a);

/* Bytes of the solver's kept row store for n points (n x n floats, n
 * flags); of the shared path for n points, with nx input matrices for nrun
 * folds: kept once (the kernel of all n points where one serves every
 * fold), and per thread fitting, whose largest pair block has m rows and
 * largest fold t. */
double kc_svm_store_bytes(double n);
double kc_svm_path_bytes_once(double n, int nx, int nrun);
double kc_svm_path_bytes_thread(double m, double t);
/* Bytes of a job's results (kc_svm_path_job's decision, rho, iterations
 * and status) for n points of nclass classes, ncost costs, nrun folds: the
 * call holds every job's at once. */
double kc_svm_path_bytes_results(double n, int nclass, double ncost, int nrun);

#endif
