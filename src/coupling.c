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
#include "coupling.h"
#include "threads.h"

#define MIN_PROB 1e-7               /* as LIBSVM: keeps r_ij inside (0, 1) */
#define BATCH_FLOPS 16777216.0      /* work between interrupt checks */

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

/* r: n x k(k-1)/2 pair probabilities in [0, 1], column-major; p: n x k,
 * column-major.  Rows are independent, so the result does not depend on the
 * number of threads; small problems run on one. */
void kc_pairwise_coupling(const double *r, ptrdiff_t n, int k, double *p, int nthreads)
{
    double row_flops = (double) (k + 1) * (k + 1) * (k + 1);
    nthreads = kc_threads_for(n * row_flops, nthreads);
    size_t per_thread = row_work_size(k);
    if ((double) per_thread * nthreads > (double) (SIZE_MAX / sizeof(double)))
        kc_error(KC_ERROR_SIZE, "kernclass: too many classes (%d) for pairwise coupling", k);
    double *work = (double *) R_alloc(per_thread * (size_t) nthreads, sizeof(double));
    double batch = BATCH_FLOPS / row_flops;
    ptrdiff_t rows = batch < 4.0 * nthreads ? 4 * (ptrdiff_t) nthreads : (ptrdiff_t) batch;
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
