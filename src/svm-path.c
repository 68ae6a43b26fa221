/* The costs of one kernel setting over the folds of a cross-validation, in
 * one call (kernel_tune() and kernel_cv() for kernel_svm(), R/svm-path.R).
 *
 * Where several folds see the same inputs (scale = FALSE) the kernel of all
 * n points is computed once, in double, and every fold's class pairs are
 * sub-blocks of it.  Where each fold scales the inputs by its own training
 * rows (scale = TRUE, as each fold's kernel_svm() does), or one fold runs
 * (a race's step), a pair's training block and its held-out rows' kernel
 * are computed directly for that fold: less work and memory traffic than
 * the n x n kernel and the copies out of it (measured: a 5 x 5 grid at
 * n = 2,000, 12% of the search's time).  Either way the block is the floats
 * the solver's row store holds (the same values as the rows it would
 * compute: each is the double kernel value rounded to float), and the
 * costs are solved in increasing order, each
 * warm-started from the last solution moved into its box (the rule of
 * kc_svm_path_start and kc_svm_feasible_start in R/svm-path.R, which the
 * per-fold path uses).  The held-out rows' decision values come from the
 * double kernel of those rows and the block's rows, kept for all the costs.
 * The solver's passes run on the block's contiguous rows (indexing an
 * n x n kernel instead would add a gather to every pass).
 *
 * All memory is R_alloc'd on the calling thread, freed on return or by an
 * interrupt, which is checked between the fits (and inside them, by kc_smo).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <R_ext/Arith.h>
#include <R_ext/Memory.h>
#include <R_ext/Utils.h>
#include "kernclass.h"

/* The bytes of a kept row store of the solver for n points (n x n floats
 * and n flags): its one home; ffi_smo allocates it, R budgets it. */
double kc_svm_store_bytes(double n)
{
    return n * n * (double) sizeof(float) + n;
}

/* Whether one kernel of all the points serves every fold: where several
 * folds run on the same inputs (nx = 1 input matrix for nrun folds). */
static int one_kernel(int nx, int nrun)
{
    return nx == 1 && nrun > 1;
}

/* The bytes the shared path holds for n points whose largest training
 * block of a pair is m and largest fold t, with nx input matrices for nrun
 * folds: the block and its flags, the held-out rows' kernel (t x m
 * doubles), and the kernel of all n points where one serves every fold. */
double kc_svm_path_bytes(double n, double m, double t, int nx, int nrun)
{
    return (one_kernel(nx, nrun) ? n * n * (double) sizeof(double) : 0) +
           kc_svm_store_bytes(m) + t * m * (double) sizeof(double);
}

/* The warm start, as kc_svm_path_start() and kc_svm_feasible_start() in
 * R/svm-path.R: the last solution a (in its box Cprev) moved to the new box
 * C (at its bound: to the new bound, where that is finite; free: kept),
 * then clipped to the box and, where y'a != 0, the larger side's excess
 * taken off its free variables if they hold it, else off the whole side in
 * proportion.  Sums in double in index order, as R's Reduce there. */
static void warm_start(const double *prev, const double *Cprev, const double *C,
                       const int *y, int m, double *a)
{
    for (int t = 0; t < m; t++) {
        double v = prev[t];
        if (prev[t] >= Cprev[t] && R_FINITE(C[t])) v = C[t];
        if (!(v > 0)) v = 0;
        if (v > C[t]) v = C[t];
        a[t] = v;
    }
    double pos = 0, neg = 0;
    for (int t = 0; t < m; t++) if (y[t] == 1) pos += a[t];
    for (int t = 0; t < m; t++) if (y[t] == -1) neg += a[t];
    if (pos == neg) return;
    int side = pos > neg ? 1 : -1;
    double excess = fabs(pos - neg), held = 0;
    for (int t = 0; t < m; t++) if (y[t] == side && a[t] < C[t]) held += a[t];
    if (held > excess) {
        double f = (held - excess) / held;
        for (int t = 0; t < m; t++) if (y[t] == side && a[t] < C[t]) a[t] *= f;
    } else {
        double f = (pos < neg ? pos : neg) / (pos > neg ? pos : neg);
        for (int t = 0; t < m; t++) if (y[t] == side) a[t] *= f;
    }
}

/* See kernclass.h.  status per fit: the solver's (KC_SMO_*), or
 * KC_PATH_NOT_FINITE (a solution that is not finite numbers) or
 * KC_PATH_EMPTY (a class of the pair without a row of weight > 0); the
 * caller refits those the ordinary way, which reports them. */
void kc_svm_path(const kc_svm_path_job *job, double *decision, double *rho,
                 double *iterations, int *status)
{
    int n = (int) job->x[0].n, L = job->nclass, npairs = (int) ((double) L * (L - 1) / 2);
    if (n < 2) kc_internal("the shared path needs at least 2 points");
    int shared = one_kernel(job->nx, job->nrun);
    double *K = NULL;
    if (shared) {
        if ((double) n * n > (double) PTRDIFF_MAX / sizeof(double))
            kc_error("size", "kernclass: the shared kernel of %d points is too large", n);
        K = (double *) R_alloc((size_t) n * n, sizeof(double));
        kc_advise_huge_pages(K, (size_t) n * n * sizeof(double));
    }

    int *rows = (int *) R_alloc(n, sizeof(int)), *prev_rows = (int *) R_alloc(n, sizeof(int));
    int *yb = (int *) R_alloc(n, sizeof(int)), *test = (int *) R_alloc(n, sizeof(int));
    double *C = (double *) R_alloc(n, sizeof(double)), *Cprev = (double *) R_alloc(n, sizeof(double));
    double *alpha = (double *) R_alloc(n, sizeof(double)), *a0 = (double *) R_alloc(n, sizeof(double));
    double *prev = (double *) R_alloc(n, sizeof(double)), *acc = (double *) R_alloc(n, sizeof(double));
    kc_points xb = *job->x;
    /* the largest training block of a pair (every row of its two classes
     * outside the fold) and the largest fold: one block, its flags and one
     * held-out kernel serve every fit, the memory kc_svm_path_bytes() counts */
    int *count = (int *) R_alloc((size_t) L, sizeof(int));
    size_t mmax = 0, tmax = 0;
    for (int r = 0; r < job->nrun; r++) {
        memset(count, 0, (size_t) L * sizeof(int));
        size_t held = 0;
        for (int t = 0; t < n; t++) {
            if (job->fold[t] != job->run[r]) count[job->y[t]]++;
            else held++;
        }
        if (held > tmax) tmax = held;
        for (int a = 0; a < L; a++) for (int b = a + 1; b < L; b++)
            if ((size_t) (count[a] + count[b]) > mmax) mmax = (size_t) (count[a] + count[b]);
    }
    float *block = (float *) R_alloc(mmax * mmax, sizeof(float));
    kc_advise_huge_pages(block, mmax * mmax * sizeof(float));
    unsigned char *filled = (unsigned char *) R_alloc(mmax, 1);
    double *strip = (double *) R_alloc(tmax * mmax + 1, sizeof(double));  /* ntest x m */
    for (ptrdiff_t i = 0; i < (ptrdiff_t) n * npairs * job->ncost; i++) decision[i] = NA_REAL;

    for (int r = 0; r < job->nrun; r++) {
        const kc_points *x = &job->x[job->nx > 1 ? r : 0];
        if (r == 0 && shared) kc_gram(job->k, x, x, 1, K, job->nthreads);
        int f = job->run[r], ntest = 0;
        for (int t = 0; t < n; t++) if (job->fold[t] == f) test[ntest++] = t;
        const void *fold_vmax = vmaxget();  /* the fold's points, freed after it */
        /* the held-out points, whose kernel is computed where blocks are */
        kc_points xt = shared ? *x : kc_points_subset(x, test, ntest);
        const double *cw = job->cw + (size_t) r * L;
        int pair = 0;
        for (int a = 0; a < L; a++) for (int b = a + 1; b < L; b++, pair++) {
            int mprev = -1;
            const void *pair_vmax = vmaxget();  /* the pair's points, freed after it */
            for (int c = 0; c < job->ncost; c++) {
                size_t out = (size_t) r + (size_t) job->nrun * (pair + (size_t) npairs * c);
                double cost = job->cost[c];
                /* the bounds as kernel_svm makes them: class weight times
                 * (cost times weight); 0 and NaN (0 x Inf) leave the row out */
                int m = 0, npos = 0;
                for (int t = 0; t < n; t++) {
                    if (job->fold[t] == f || (job->y[t] != a && job->y[t] != b)) continue;
                    double bound = cw[job->y[t]] * (cost * job->w[t]);
                    if (!(bound > 0)) continue;
                    rows[m] = t;
                    C[m] = bound;
                    yb[m] = job->y[t] == a ? 1 : -1;
                    npos += yb[m] == 1;
                    m++;
                }
                iterations[out] = 0;
                rho[out] = NA_REAL;
                if (npos == 0 || npos == m) { status[out] = KC_PATH_EMPTY; mprev = -1; continue; }
                int same = m == mprev && !memcmp(rows, prev_rows, (size_t) m * sizeof(int));
                if (!same) {
                    vmaxset(pair_vmax);
                    xb = kc_points_subset(x, rows, m);  /* for all the costs of the block */
                    if (shared) {
                        for (int i = 0; i < m; i++) {
                            const double *Ki = K + (size_t) rows[i] * n;
                            float *dst = block + (size_t) i * m;
                            for (int j = 0; j < m; j++) dst[j] = (float) Ki[rows[j]];
                        }
                        for (int i = 0; i < m; i++) {
                            const double *Ki = K + (size_t) rows[i] * n;
                            double *dst = strip + (size_t) i * ntest;
                            for (int u = 0; u < ntest; u++) dst[u] = Ki[test[u]];
                        }
                    } else {
                        kc_gram_float(job->k, &xb, block, job->nthreads);
                        if (ntest > 0) kc_gram(job->k, &xt, &xb, 0, strip, job->nthreads);
                    }
                    memset(filled, 1, (size_t) m);
                    memcpy(prev_rows, rows, (size_t) m * sizeof(int));
                } else {
                    warm_start(prev, Cprev, C, yb, m, a0);
                }
                R_CheckUserInterrupt();
                const void *vmax = vmaxget();
                kc_smo_result res;
                res.alpha = alpha;
                kc_smo(job->k, &xb, yb, C, -1.0, same ? a0 : NULL, 1, job->eps, job->max_iter,
                       1.0, job->shrinking, job->nthreads, block, filled, 0, &res);
                vmaxset(vmax);
                int finite = R_FINITE(res.rho) && R_FINITE(res.objective);
                for (int t = 0; t < m && finite; t++) finite = R_FINITE(alpha[t]);
                iterations[out] = (double) res.iterations;
                status[out] = finite ? res.status : KC_PATH_NOT_FINITE;
                memcpy(prev, alpha, (size_t) m * sizeof(double));
                memcpy(Cprev, C, (size_t) m * sizeof(double));
                mprev = m;
                if (status[out] != KC_SMO_CONVERGED && status[out] != KC_SMO_MAX_ITER) continue;
                rho[out] = res.rho;
                /* the held-out rows: sum over the support vectors (in their
                 * order) of alpha_i y_i k(x, x_i), less rho; a column of the
                 * held-out kernel at a time, all rows at once */
                double *dec = decision + (size_t) n * (pair + (size_t) npairs * c);
                memset(acc, 0, (size_t) ntest * sizeof(double));
                for (int i = 0; i < m; i++) {
                    if (!(alpha[i] > 0)) continue;
                    double coef = alpha[i] * yb[i];
                    const double *col = strip + (size_t) i * ntest;
                    for (int u = 0; u < ntest; u++) acc[u] += coef * col[u];
                }
                for (int u = 0; u < ntest; u++) dec[test[u]] = acc[u] - res.rho;
            }
            vmaxset(pair_vmax);
        }
        vmaxset(fold_vmax);
    }
}
