/* The costs of kernel settings over the folds of a cross-validation, in
 * one call (kernel_tune() and kernel_cv() for kernel_svm(), R/select-svm-path.R).
 *
 * Where several folds see the same inputs (scale = FALSE) the kernel of all
 * n points is computed once, in double (or, where the float tiles apply,
 * as their floats: the values every fit's own store holds), and every
 * fold's class pairs are sub-blocks of it.  Where each fold scales the inputs by its own training
 * rows (scale = TRUE, as each fold's kernel_svm() does), or one fold runs
 * (a race's step), a pair's training block and its held-out rows' kernel
 * are computed directly for that fold: less work and memory traffic than
 * the n x n kernel and the copies out of it (measured: a 5 x 5 grid at
 * n = 2,000, 12% of the search's time).  With more than two classes there
 * the fold run's training rows' kernel is computed once, by class, and each
 * pair's solver copies the rows it asks for out of it (each kernel value
 * computed once, not in each of a class's L - 1 pairs; a third of a pair's
 * rows copied at the screening tolerance, Satellite; the race's search
 * 1.3 to 1.5x faster, exhaustive 1.8x).  Either way the block is the floats
 * the solver's row store holds (the same values as the rows it would
 * compute: each is the double kernel value rounded to float), and the
 * costs are solved in increasing order, each
 * warm-started from the last solution moved into its box (kc_svm_warm_start,
 * the one home of that rule: the per-fold path of R/select-svm-path.R calls it
 * too).  The held-out rows' decision values come from the
 * double kernel of those rows and the block's rows, kept for all the costs.
 * The solver's passes run on the block's contiguous rows (indexing an
 * n x n kernel instead would add a gather to every pass).
 *
 * One call takes several kernel settings (a race's step, a grid's gammas).
 * Each class pair of each setting on each fold is a unit of work (its costs
 * one chain of warm starts), and the units run side by side on the threads
 * (kc_units), each on one thread with its own block: the solver's passes at
 * these sizes are too short to share (measured: a 5 x 5 grid at n = 2,000,
 * screened, 0.62 s on one thread, 0.37 s on two this way).  A unit computes
 * exactly what it computes alone, so the results do not depend on the
 * threads.
 *
 * Memory: the workspaces and the shared kernel are R_alloc'd on the calling
 * thread, freed on return or by an interrupt, but for the large buffers a
 * race keeps from one call to the next (kc_svm_path_kept); a unit's own
 * scratch is kc_alloc'd (units.c).  Interrupts are checked between the fits
 * and inside them (kc_smo, kc_gram). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <R_ext/Arith.h>
#include <R_ext/Memory.h>
#include <R_ext/Utils.h>
#include "kernclass.h"
#include "kernel.h"
#include "units.h"
#include "smo.h"
#include "svm-path.h"

/* The bytes of a kept row store of the solver for n points (n x n floats
 * and n flags): its one home; the planner (svm-plan.c) budgets it. */
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

/* Whether the shared kernel's stored values may come from the float tiles
 * (kc_kernel's single: the rbf kernel): then it is kept as those floats,
 * n x n (within the n x n doubles budgeted), so that each fold's block is
 * what its fit computes; where the points do not allow float tiles
 * kc_gram_float gives the double values rounded, as the double kernel. */
static int shared_float(const kc_kernel *k)
{
    return k->single && k->type == KC_RBF;
}

/* The bytes the shared path holds for n points, with nx input matrices
 * for nrun folds: the kernel of all n points where one serves every fold;
 * and per thread fitting, for a largest training block of a pair of m rows
 * and a largest fold of t: the block and its flags, and the held-out rows'
 * kernel (t x m doubles). */
double kc_svm_path_bytes_once(double n, int nx, int nrun)
{
    return one_kernel(nx, nrun) ? n * n * (double) sizeof(double) : 0;
}

double kc_svm_path_bytes_thread(double m, double t)
{
    return kc_svm_store_bytes(m) + t * m * (double) sizeof(double);
}

double kc_svm_path_bytes_results(double n, int nclass, double ncost, int nrun)
{
    double fits = (double) nclass * (nclass - 1) / 2 * ncost;
    return fits * (n * sizeof(double) + nrun * (2 * sizeof(double) + sizeof(int)));
}

/* The warm start of a path: the last solution a (in its box Cprev) moved
 * to the new box C (at its bound: to the new bound, where that is finite;
 * free: kept; into an unbounded box a feasible point stays where it is),
 * then clipped to the box and, where y'a != 0, the larger side's excess
 * taken off its free variables if they hold it (the bounded ones stay
 * bounded), else off the whole side in proportion.  Sums in double in
 * index order: the start is the same on every platform. */
void kc_svm_warm_start(const double *prev, const double *Cprev, const double *C,
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

void kc_svm_path_kept_free(kc_svm_path_kept *kept)
{
    for (int i = 0; i < kept->n; i++) free(kept->p[i]);
    free(kept->p);
    free(kept->bytes);
    kept->n = 0;
    kept->p = NULL;
    kept->bytes = NULL;
}

/* Room for count values of size bytes, on huge pages where the kernel has
 * them: slot's buffer of kept, grown to it if smaller (its contents are not
 * kept: every use writes what it reads), or without kept R_alloc'd. */
static void *path_buffer(kc_svm_path_kept *kept, int slot, size_t count, size_t size)
{
    if (count > SIZE_MAX / size) kc_error(KC_ERROR_SIZE, "kernclass: a path buffer is too large");
    size_t bytes = count * size;
    if (!kept) {
        void *p = R_alloc(count, size);
        kc_advise_huge_pages(p, bytes);
        return p;
    }
    if (slot >= kept->n) {
        void **p = (void **) realloc(kept->p, (size_t) (slot + 1) * sizeof(void *));
        if (p) kept->p = p;
        size_t *b = p ? (size_t *) realloc(kept->bytes, (size_t) (slot + 1) * sizeof(size_t)) : NULL;
        if (!b) kc_error(KC_ERROR_MEMORY, "kernclass: out of memory for the path's buffers");
        kept->bytes = b;
        for (int i = kept->n; i <= slot; i++) {
            kept->p[i] = NULL;
            kept->bytes[i] = 0;
        }
        kept->n = slot + 1;
    }
    if (kept->bytes[slot] < bytes || !kept->p[slot]) {
        free(kept->p[slot]);
        kept->bytes[slot] = 0;
        kept->p[slot] = malloc(bytes ? bytes : 1);
        if (!kept->p[slot])
            kc_error(KC_ERROR_MEMORY, "kernclass: out of memory for the path's buffers (%.0f MB)",
                     (double) bytes / 1048576.0);
        kept->bytes[slot] = bytes;
        kc_advise_huge_pages(kept->p[slot], bytes);
    }
    return kept->p[slot];
}

/* The slots of path_buffer: the held-out and training kernels of a fold
 * run, then each thread's block and held-out strip. */
enum { SLOT_KT, SLOT_F, SLOT_THREADS };
#define SLOT_BLOCK(t) (SLOT_THREADS + 2 * (t))
#define SLOT_STRIP(t) (SLOT_THREADS + 2 * (t) + 1)

/* The buffers of one fit at a time: one set per thread fitting. */
typedef struct {
    int *rows, *prev_rows, *yb, *test, *at, *pend;
    double *C, *Cprev, *alpha, *a0, *prev, *sq;
    double *coef, *rho, *acc;  /* the pending costs' alpha_i y_i (ncmax x mmax), rho
                                * (ncmax) and decision sums (ncmax x tmax) */
    float *block;            /* mmax x mmax */
    unsigned char *filled;   /* mmax */
    double *strip;           /* tmax x mmax: the held-out rows' kernel */
} workspace;

/* A unit of work: the costs of one class pair (a, b) of one job on one
 * fold run. */
typedef struct {
    int job, run, pair, a, b;
} unit;

typedef struct {
    const kc_svm_path_job *jobs;
    const int *fold, *run;
    int n, nrun;
    const unit *units;
    const double *K;         /* the kernel of all n points, where one serves the folds */
    const float *Kf;         /* or, from the float tiles (kc_kernel's single), its floats */
    const double *Kt;        /* else, for a fold_kernel job: its fold run's held-out rows'
                              * kernel with its training rows (ntest x ntrain) */
    const float *F;          /* and its training rows' kernel with themselves (ntrain x
                              * ntrain floats) */
    const int *pos;          /* each point's training row in Kt and F (held out: -1) */
    const double *sqnorm;    /* the points' squared norms */
    int ntrain;
    workspace *ws;
    int inner;               /* threads inside a unit: all, where units run one at a time */
    kc_units_progress *progress;  /* the finished units told to R (NULL: not) */
} path_ctx;

/* The held-out rows' decision values of the np costs pend[] solved on the
 * block of rows[0..m): for each, the sum over the support vectors (in their
 * order) of alpha_i y_i k(x, x_i), less rho; one pass over the held-out
 * kernel's columns for all of them (each column read once, not once per
 * cost: it is read from memory), all rows at once. */
static void decisions(const path_ctx *ctx, workspace *ws, const kc_svm_path_job *job, int pair,
                      const int *rows, int m, const int *test, int ntest, int np)
{
    int n = ctx->n, L = job->nclass, npairs = (int) ((double) L * (L - 1) / 2);
    memset(ws->acc, 0, (size_t) np * ntest * sizeof(double));
    for (int i = 0; i < m; i++) {
        const double *col = ctx->Kt ? ctx->Kt + (size_t) ctx->pos[rows[i]] * ntest
                                    : ws->strip + (size_t) i * ntest;
        for (int q = 0; q < np; q++) {
            double coef = ws->coef[(size_t) q * m + i];
            if (coef == 0) continue;
            double *acc = ws->acc + (size_t) q * ntest;
            /* each row's own sum, in the same order: vectors change nothing */
#pragma omp simd
            for (int v = 0; v < ntest; v++) acc[v] += coef * col[v];
        }
    }
    for (int q = 0; q < np; q++) {
        double *dec = job->decision + (size_t) n * (pair + (size_t) npairs * ws->pend[q]);
        const double *acc = ws->acc + (size_t) q * ntest;
        for (int v = 0; v < ntest; v++) dec[test[v]] = acc[v] - ws->rho[q];
    }
}

/* The costs of one unit, in increasing order, each warm-started from the
 * last; the held-out rows' decision values per cost. */
static void fit_unit(void *data, int u, int thread)
{
    const path_ctx *ctx = (const path_ctx *) data;
    const unit *un = &ctx->units[u];
    const kc_svm_path_job *job = &ctx->jobs[un->job];
    workspace *ws = &ctx->ws[thread];
    int n = ctx->n, r = un->run, f = ctx->run[r], a = un->a, b = un->b, pair = un->pair;
    int L = job->nclass, npairs = (int) ((double) L * (L - 1) / 2), nrun = ctx->nrun;
    const double *K = ctx->K, *Kt = ctx->Kt;
    const float *Kf = ctx->Kf;
    const kc_points *x = &job->x[job->nx > 1 ? r : 0];
    int *rows = ws->rows, *prev_rows = ws->prev_rows, *yb = ws->yb, *test = ws->test;
    double *C = ws->C, *alpha = ws->alpha, *strip = ws->strip;
    int ntest = 0;
    for (int t = 0; t < n; t++) if (ctx->fold[t] == f) test[ntest++] = t;
    const void *unit_mark = kc_mark();  /* the unit's points, freed after it */
    /* the held-out points, whose kernel is computed where blocks are */
    kc_points xt = K || Kt ? *x : kc_points_subset(x, test, ntest), xb = *x;
    const double *cw = job->cw + (size_t) r * L;
    int mprev = -1, np = 0;  /* np: costs solved on the block whose decisions are pending */
    const void *pair_mark = kc_mark();  /* the block's points */
    for (int c = 0; c < job->ncost; c++) {
        size_t out = (size_t) r + (size_t) nrun * (pair + (size_t) npairs * c);
        double cost = job->cost[c];
        /* the bounds as kernel_svm makes them: class weight times (cost
         * times weight); 0 and NaN (0 x Inf) leave the row out */
        int m = 0, npos = 0;
        for (int t = 0; t < n; t++) {
            if (ctx->fold[t] == f || (job->y[t] != a && job->y[t] != b)) continue;
            double bound = cw[job->y[t]] * (cost * job->w[t]);
            if (!(bound > 0)) continue;
            rows[m] = t;
            C[m] = bound;
            yb[m] = job->y[t] == a ? 1 : -1;
            npos += yb[m] == 1;
            m++;
        }
        job->iterations[out] = 0;
        job->rho[out] = NA_REAL;
        int same = m == mprev && !memcmp(rows, prev_rows, (size_t) m * sizeof(int));
        if (np > 0 && (!same || npos == 0 || npos == m)) {
            decisions(ctx, ws, job, pair, prev_rows, mprev, test, ntest, np);
            np = 0;
        }
        if (npos == 0 || npos == m) { job->status[out] = KC_PATH_EMPTY; mprev = -1; continue; }
        if (!same) {
            kc_release(pair_mark);
            if (ctx->F) {
                /* every row of the block stored: the solver reads the
                 * points' squared norms only (smo.c), not their rows */
                xb = *x;
                xb.n = m;
                xb.packed = NULL;
                for (int i = 0; i < m; i++) ws->sq[i] = ctx->sqnorm[rows[i]];
                xb.sqnorm = ws->sq;
            } else {
                xb = kc_points_subset(x, rows, m);  /* for all the costs of the block */
            }
            if (ctx->F) {
                /* the pair's rows of the fold's training kernel, copied
                 * into the block as the solver asks for them (at the
                 * screening tolerance a third of them: measured,
                 * Satellite): the values the block's own kernel would be
                 * (the same tiles' doubles rounded to float) */
                for (int i = 0; i < m; i++) ws->at[i] = ctx->pos[rows[i]];
            } else if (K) {
                for (int i = 0; i < m; i++) {
                    const double *Ki = K + (size_t) rows[i] * n;
                    float *dst = ws->block + (size_t) i * m;
                    for (int j = 0; j < m; j++) dst[j] = (float) Ki[rows[j]];
                }
                for (int i = 0; i < m; i++) {
                    const double *Ki = K + (size_t) rows[i] * n;
                    double *dst = strip + (size_t) i * ntest;
                    for (int v = 0; v < ntest; v++) dst[v] = Ki[test[v]];
                }
            } else if (Kf) {
                /* the float tiles' values of all the points: each the
                 * value the block's own tiles would give (kernel-float.c) */
                for (int i = 0; i < m; i++) {
                    const float *Ki = Kf + (size_t) rows[i] * n;
                    float *dst = ws->block + (size_t) i * m;
                    for (int j = 0; j < m; j++) dst[j] = Ki[rows[j]];
                }
                if (ntest > 0) kc_gram(job->k, &xt, &xb, 0, strip, ctx->inner);
            } else {
                kc_gram_float(job->k, &xb, &xb, 1, ws->block, ctx->inner);
                if (ntest > 0 && !Kt) kc_gram(job->k, &xt, &xb, 0, strip, ctx->inner);
            }
            memset(ws->filled, !ctx->F, (size_t) m);
            memcpy(prev_rows, rows, (size_t) m * sizeof(int));
        } else {
            kc_svm_warm_start(ws->prev, ws->Cprev, C, yb, m, ws->a0);
        }
        kc_check_interrupt();
        const void *mark = kc_mark();
        kc_smo_options opt = {.linear = -1.0, .alpha0 = same ? ws->a0 : NULL, .nsets = 1,
                              .eps = job->eps, .max_iter = job->max_iter,
                              .shrinking = job->shrinking, .nthreads = ctx->inner,
                              .cache_mb = 1.0, .store = ws->block, .filled = ws->filled,
                              .whole = 0, .src = ctx->F, .src_at = ws->at,
                              .src_ld = ctx->ntrain};
        kc_smo_result res;
        res.alpha = alpha;
        kc_smo(job->k, &xb, yb, C, &opt, &res);
        kc_release(mark);
        int finite = R_FINITE(res.rho) && R_FINITE(res.objective);
        for (int t = 0; t < m && finite; t++) finite = R_FINITE(alpha[t]);
        job->iterations[out] = (double) res.iterations;
        job->status[out] = finite ? res.status : KC_PATH_NOT_FINITE;
        memcpy(ws->prev, alpha, (size_t) m * sizeof(double));
        memcpy(ws->Cprev, C, (size_t) m * sizeof(double));
        mprev = m;
        if (job->status[out] != KC_SMO_CONVERGED && job->status[out] != KC_SMO_MAX_ITER) continue;
        job->rho[out] = res.rho;
        /* its decision values with the block's other costs' (decisions()) */
        double *coef = ws->coef + (size_t) np * m;
        for (int i = 0; i < m; i++) coef[i] = alpha[i] > 0 ? alpha[i] * yb[i] : 0;
        ws->rho[np] = res.rho;
        ws->pend[np++] = c;
    }
    if (np > 0) decisions(ctx, ws, job, pair, prev_rows, mprev, test, ntest, np);
    kc_release(unit_mark);
}

/* Runs units[0..nunits) on up to nthreads threads, then raises what
 * stopped them, if anything. */
static void run_units(path_ctx *ctx, const unit *units, int nunits, int nthreads)
{
    int outer = nthreads < nunits ? nthreads : nunits;
    ctx->units = units;
    ctx->inner = outer > 1 ? 1 : nthreads;
    kc_units_status why = kc_units_told(nunits, outer, fit_unit, ctx, ctx->progress);
    if (why != KC_UNITS_DONE) kc_units_raise(why);
}

/* The units of job j (its class pairs on the fold runs r0 to r1 - 1) into
 * out; their number. */
static int job_units(const kc_svm_path_job *jobs, int j, int r0, int r1, unit *out)
{
    int L = jobs[j].nclass, nu = 0;
    for (int r = r0; r < r1; r++) {
        int pair = 0;
        for (int a = 0; a < L; a++) for (int b = a + 1; b < L; b++, pair++)
            out[nu++] = (unit) {j, r, pair, a, b};
    }
    return nu;
}

/* See svm-path.h.  status per fit: the solver's (KC_SMO_*), or
 * KC_PATH_NOT_FINITE (a solution that is not finite numbers) or
 * KC_PATH_EMPTY (a class of the pair without a row of weight > 0); the
 * caller refits those the ordinary way, which reports them. */
void kc_svm_path(const kc_svm_path_job *jobs, int njobs, const int *fold, const int *run,
                 int nrun, int nthreads, kc_svm_path_kept *kept, kc_units_progress *progress)
{
    int n = (int) jobs[0].x[0].n;
    if (n < 2) kc_internal("the shared path needs at least 2 points");
    /* the largest training block of a pair (every row of its two classes
     * outside the fold) and the largest fold, over the jobs: one block, its
     * flags and one held-out kernel per thread serve every fit, the memory
     * kc_svm_path_bytes_thread() counts; and the number of units */
    size_t mmax = 0, tmax = 0, ncmax = 1;
    int nunits = 0;
    for (int j = 0; j < njobs; j++) {
        const kc_svm_path_job *job = &jobs[j];
        int L = job->nclass, npairs = (int) ((double) L * (L - 1) / 2);
        if (job->x[0].n != n) kc_internal("the jobs of a path must have the same points");
        int *count = (int *) R_alloc((size_t) L, sizeof(int));
        for (int r = 0; r < nrun; r++) {
            memset(count, 0, (size_t) L * sizeof(int));
            size_t held = 0;
            for (int t = 0; t < n; t++) {
                if (fold[t] != run[r]) count[job->y[t]]++;
                else held++;
            }
            if (held > tmax) tmax = held;
            for (int a = 0; a < L; a++) for (int b = a + 1; b < L; b++)
                if ((size_t) (count[a] + count[b]) > mmax) mmax = (size_t) (count[a] + count[b]);
        }
        if ((double) nunits + (double) nrun * npairs > INT_MAX)
            kc_error(KC_ERROR_SIZE, "kernclass: too many fits in one path (%d runs)", nrun);
        nunits += nrun * npairs;
        if ((size_t) job->ncost > ncmax) ncmax = (size_t) job->ncost;
        for (ptrdiff_t i = 0; i < (ptrdiff_t) n * npairs * job->ncost; i++) job->decision[i] = NA_REAL;
    }

    int nws = nthreads < nunits ? nthreads : nunits;
    workspace *ws = (workspace *) R_alloc((size_t) nws, sizeof(workspace));
    for (int t = 0; t < nws; t++) {
        workspace *w = &ws[t];
        w->rows = (int *) R_alloc(n, sizeof(int));
        w->prev_rows = (int *) R_alloc(n, sizeof(int));
        w->yb = (int *) R_alloc(n, sizeof(int));
        w->test = (int *) R_alloc(n, sizeof(int));
        w->at = (int *) R_alloc(n, sizeof(int));
        w->pend = (int *) R_alloc(ncmax, sizeof(int));
        w->rho = (double *) R_alloc(ncmax, sizeof(double));
        w->coef = (double *) R_alloc(ncmax * mmax + 1, sizeof(double));
        w->acc = (double *) R_alloc(ncmax * tmax + 1, sizeof(double));
        double **d[] = {&w->C, &w->Cprev, &w->alpha, &w->a0, &w->prev, &w->sq};
        for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) *d[i] = (double *) R_alloc(n, sizeof(double));
        w->block = (float *) path_buffer(kept, SLOT_BLOCK(t), mmax * mmax, sizeof(float));
        w->filled = (unsigned char *) R_alloc(mmax, 1);
        w->strip = (double *) path_buffer(kept, SLOT_STRIP(t), tmax * mmax + 1, sizeof(double));
    }
    path_ctx ctx = {jobs, fold, run, n, nrun, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, ws, 1,
                    progress};
    unit *units = (unit *) R_alloc((size_t) nunits + 1, sizeof(unit));

    /* the jobs whose folds share one kernel: each kernel computed on all
     * the threads, then its units; then the other jobs' units together */
    for (int j = 0; j < njobs; j++) {
        if (!one_kernel(jobs[j].nx, nrun)) continue;
        if ((double) n * n > (double) PTRDIFF_MAX / sizeof(double))
            kc_error(KC_ERROR_SIZE, "kernclass: the shared kernel of %d points is too large", n);
        const void *mark = vmaxget();
        if (shared_float(jobs[j].k)) {
            /* the stores' values from the float tiles, as every fit's own
             * (kernel_svm's cache, the fold runs' kernels): the floats of
             * all the points once, the held-out rows' doubles per unit */
            float *Kf = (float *) R_alloc((size_t) n * n, sizeof(float));
            kc_advise_huge_pages(Kf, (size_t) n * n * sizeof(float));
            kc_gram_float(jobs[j].k, jobs[j].x, jobs[j].x, 1, Kf, nthreads);
            ctx.Kf = Kf;
        } else {
            double *K = (double *) R_alloc((size_t) n * n, sizeof(double));
            kc_advise_huge_pages(K, (size_t) n * n * sizeof(double));
            kc_gram(jobs[j].k, jobs[j].x, jobs[j].x, 1, K, nthreads);
            ctx.K = K;
        }
        run_units(&ctx, units, job_units(jobs, j, 0, nrun, units), nthreads);
        ctx.K = NULL;
        ctx.Kf = NULL;
        vmaxset(mark);
    }
    /* the jobs with the fold runs' own kernels (more than two classes: each
     * pair's held-out rows' kernel, pair by pair, would be L - 1 times the
     * work of theirs with all the points, and each class's rows with
     * themselves would be computed in each of its L - 1 pairs): per fold
     * run, the held-out rows' kernel with the training rows and the
     * training rows' with themselves, on all the threads, then that run's
     * units, which read their columns and copy the rows their solver asks
     * for.  The two buffers are allocated once for all jobs (and kept for
     * a race's next call), on huge pages (fresh 4 KiB pages for each job, a
     * page fault each: measured, a sixth of a raced search's time on
     * Satellite). */
    int *test = (int *) R_alloc(n, sizeof(int)), *train = (int *) R_alloc(n, sizeof(int));
    int *pos = (int *) R_alloc(n, sizeof(int));
    double *Kt = NULL, *sqnorm = (double *) R_alloc(n, sizeof(double));
    int lmax = 1;
    for (int j = 0; j < njobs; j++) if (jobs[j].nclass > lmax) lmax = jobs[j].nclass;
    int *count = (int *) R_alloc((size_t) lmax, sizeof(int));
    float *F = NULL;
    for (int j = 0; j < njobs; j++) {
        if (one_kernel(jobs[j].nx, nrun) || !jobs[j].fold_kernel) continue;
        if (!Kt) {
            size_t trmax = 0;
            for (int r = 0; r < nrun; r++) {
                size_t c = 0;
                for (int t = 0; t < n; t++) c += fold[t] != run[r];
                if (c > trmax) trmax = c;
            }
            Kt = (double *) path_buffer(kept, SLOT_KT, tmax * trmax + 1, sizeof(double));
            int with_f = 0;
            for (int q = 0; q < njobs; q++) with_f |= jobs[q].fold_kernel == 2;
            if (with_f) F = (float *) path_buffer(kept, SLOT_F, trmax * trmax + 1, sizeof(float));
        }
        for (int r = 0; r < nrun; r++) {
            const void *mark = vmaxget();
            /* the training rows by class (in their order within a class):
             * a pair's columns are then two runs of a row of F, the cache
             * lines a copy reads its own (in the rows' order, a third of
             * each line read was the pair's, with six classes) */
            int ntest = 0, ntrain = 0, L = jobs[j].nclass;
            for (int t = 0; t < n; t++) if (fold[t] == run[r]) { test[ntest++] = t; pos[t] = -1; }
            for (int c = 0; c < L; c++)
                for (int t = 0; t < n; t++)
                    if (fold[t] != run[r] && jobs[j].y[t] == c) { pos[t] = ntrain; train[ntrain++] = t; }
            const kc_points *x = &jobs[j].x[jobs[j].nx > 1 ? r : 0];
            kc_points xt = kc_points_subset(x, test, ntest), xtr = kc_points_subset(x, train, ntrain);
            if (ntest > 0 && ntrain > 0) kc_gram(jobs[j].k, &xt, &xtr, 0, Kt, nthreads);
            int with_f = jobs[j].fold_kernel == 2;
            if (ntrain > 0 && with_f) kc_gram_float(jobs[j].k, &xtr, &xtr, 1, F, nthreads);
            kc_row_sqnorms(x, sqnorm);
            ctx.Kt = Kt;
            ctx.F = with_f ? F : NULL;
            ctx.sqnorm = sqnorm;
            ctx.pos = pos;
            ctx.ntrain = ntrain;
            /* the pairs largest first (by their training rows), so that
             * the threads finish together */
            int nu = job_units(jobs, j, r, r + 1, units);
            memset(count, 0, (size_t) L * sizeof(int));
            for (int i = 0; i < ntrain; i++) count[jobs[j].y[train[i]]]++;
            for (int i = 1; i < nu; i++) {
                unit v = units[i];
                int size = count[v.a] + count[v.b], h = i;
                for (; h > 0 && count[units[h - 1].a] + count[units[h - 1].b] < size; h--)
                    units[h] = units[h - 1];
                units[h] = v;
            }
            run_units(&ctx, units, nu, nthreads);
            ctx.Kt = NULL;
            ctx.F = NULL;
            vmaxset(mark);
        }
    }
    int nrest = 0;
    for (int j = 0; j < njobs; j++)
        if (!one_kernel(jobs[j].nx, nrun) && !jobs[j].fold_kernel)
            nrest += job_units(jobs, j, 0, nrun, units + nrest);
    run_units(&ctx, units, nrest, nthreads);
}
