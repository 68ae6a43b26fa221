/* Pairwise coupling: class probabilities from the probabilities of the
 * one-vs-one pairs, by method 2 of Wu, Lin and Weng (2004), the method of
 * LIBSVM.  LIBSVM iterates to a tolerance; this solves the system exactly.
 *
 * For one point, with r_ij = P(i | i or j) and r_ji = 1 - r_ij, p minimises
 * p'Qp subject to sum(p) = 1, where Q_ii = sum_{j != i} r_ji^2 and
 * Q_ij = -r_ji r_ij.  With its multiplier b it solves the bordered system
 * [Q 1; 1' 0] (p, b) = (0, 1).  Q itself may be singular (consistent r give
 * Qp = 0 for the true p), but with every r_ij inside (0, 1) the bordered
 * system is not, so it is solved by elimination with partial pivoting. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>  /* before R's headers, whose macros (match) break clang's omp.h */
#endif
#include <Rinternals.h>
#include "kernclass.h"

#define MIN_PROB 1e-7               /* as LIBSVM: keeps r_ij inside (0, 1) */
#define BATCH_FLOPS 16777216.0      /* work between interrupt checks */
#define PARALLEL_MIN_FLOPS 1048576.0 /* less is not worth starting threads */

static double clip_prob(double r)
{
    return r < MIN_PROB ? MIN_PROB : (r > 1 - MIN_PROB ? 1 - MIN_PROB : r);
}

/* Doubles of work space for one row: the system, row-major, and its
 * right-hand side. */
static size_t row_work_size(int k)
{
    return (size_t) (k + 1) * (size_t) (k + 2);
}

/* One point: r[m * ldr] for the pairs m in LIBSVM's order (1-2, 1-3, ...,
 * 1-k, 2-3, ...); writes p[c * ldp] for the k classes. */
static void couple_row(const double *r, ptrdiff_t ldr, int k, double *p, ptrdiff_t ldp,
                       double *work)
{
    if (k == 2) {  /* the system's solution is (r, 1 - r) itself */
        double r12 = clip_prob(r[0]);
        p[0] = r12;
        p[ldp] = 1 - r12;
        return;
    }
    size_t n = (size_t) k + 1;
    double *A = work, *x = work + n * n;
    memset(work, 0, row_work_size(k) * sizeof(double));
    ptrdiff_t m = 0;
    for (size_t i = 0; i < (size_t) k; i++)
        for (size_t j = i + 1; j < (size_t) k; j++, m++) {
            double rij = clip_prob(r[m * ldr]), rji = 1 - rij;
            A[i * n + i] += rji * rji;
            A[j * n + j] += rij * rij;
            A[i * n + j] = A[j * n + i] = -rij * rji;
        }
    for (size_t i = 0; i < (size_t) k; i++) A[i * n + k] = A[(size_t) k * n + i] = 1;
    x[k] = 1;

    for (size_t c = 0; c < n; c++) {
        size_t piv = c;
        for (size_t i = c + 1; i < n; i++)
            if (fabs(A[i * n + c]) > fabs(A[piv * n + c])) piv = i;
        if (piv != c) {
            for (size_t j = c; j < n; j++) {
                double t = A[c * n + j];
                A[c * n + j] = A[piv * n + j];
                A[piv * n + j] = t;
            }
            double t = x[c];
            x[c] = x[piv];
            x[piv] = t;
        }
        for (size_t i = c + 1; i < n; i++) {
            double f = A[i * n + c] / A[c * n + c];
            if (f == 0) continue;
            for (size_t j = c + 1; j < n; j++) A[i * n + j] -= f * A[c * n + j];
            x[i] -= f * x[c];
        }
    }
    for (size_t i = n; i-- > 0;) {
        double s = x[i];
        for (size_t j = i + 1; j < n; j++) s -= A[i * n + j] * x[j];
        x[i] = s / A[i * n + i];
    }
    /* the exact solution is non-negative; rounding may leave tiny negatives */
    double sum = 0;
    for (size_t i = 0; i < (size_t) k; i++) {
        if (!(x[i] > 0)) x[i] = 0;
        sum += x[i];
    }
    for (size_t i = 0; i < (size_t) k; i++) p[(ptrdiff_t) i * ldp] = x[i] / sum;
}

/* r: n x k(k-1)/2 pair probabilities, column-major; p: n x k, column-major.
 * work holds row_work_size(k) doubles per thread.  Rows are independent, so
 * the result does not depend on nthreads. */
static void pairwise_coupling(const double *r, ptrdiff_t n, int k, double *p, int nthreads,
                              double *work)
{
    double row_flops = (double) (k + 1) * (k + 1) * (k + 1);
    double batch = BATCH_FLOPS / row_flops;
    ptrdiff_t rows = batch < 4.0 * nthreads ? 4 * (ptrdiff_t) nthreads : (ptrdiff_t) batch;
    size_t per_thread = row_work_size(k);
    for (ptrdiff_t r0 = 0; r0 < n; r0 += rows) {
        ptrdiff_t r1 = n - r0 > rows ? r0 + rows : n;
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
        for (ptrdiff_t i = r0; i < r1; i++) {
#ifdef _OPENMP
            double *mine = work + (size_t) omp_get_thread_num() * per_thread;
#else
            double *mine = work;
#endif
            couple_row(r + i, n, k, p + i, n, mine);
        }
        R_CheckUserInterrupt();
    }
}

SEXP ffi_pairwise_coupling(SEXP r, SEXP nclass, SEXP threads)
{
    if (!isReal(r) || !isMatrix(r)) error("kernclass internal: r must be a double matrix");
    if (!isInteger(nclass) || XLENGTH(nclass) != 1 || INTEGER(nclass)[0] == NA_INTEGER ||
        INTEGER(nclass)[0] < 2)
        error("kernclass internal: nclass must be one integer >= 2");
    if (!isInteger(threads) || XLENGTH(threads) != 1 || INTEGER(threads)[0] == NA_INTEGER)
        error("kernclass internal: threads must be one integer");
    int k = INTEGER(nclass)[0];
    ptrdiff_t n = nrows(r);
    if ((double) k * (k - 1) / 2 != (double) ncols(r))
        error("kernclass internal: r must have k(k-1)/2 columns for k = %d classes", k);
    const double *rv = REAL(r);
    R_xlen_t len = XLENGTH(r);
    for (R_xlen_t i = 0; i < len; i++)
        if (!(rv[i] >= 0 && rv[i] <= 1))
            error("kernclass internal: r must hold probabilities in [0, 1]");

    double flops = (double) n * (k + 1) * (k + 1) * (k + 1);
    int nt = flops < PARALLEL_MIN_FLOPS ? 1 : kc_threads_cap(INTEGER(threads)[0]);
    double doubles = (double) row_work_size(k) * nt;
    if (doubles > (double) (SIZE_MAX / sizeof(double)))
        error("kernclass: too many classes (%d) for pairwise coupling", k);
    double *work = (double *) R_alloc((size_t) doubles, sizeof(double));
    SEXP p = PROTECT(allocMatrix(REALSXP, (int) n, k));
    pairwise_coupling(rv, n, k, REAL(p), nt, work);
    UNPROTECT(1);
    return p;
}
