/* The class pairs of one multi-class C-SVC fit (kernel_svm's one-vs-one
 * problems, R/svm.R) in one call.
 *
 * A class's rows against its own class are in every pair that holds the
 * class (L - 1 of them), and each pair alone computes them again.  Here,
 * where the memory budget allows, the kernel of all n points is computed
 * once by the engine's tiles (kc_gram_float: the symmetric half, on all the
 * threads), as the floats the solver's row store holds (each the double
 * kernel value rounded to float, as kc_rows gives the rows the solver
 * computes alone), and each pair's block is copied out of it, in the
 * pair's row order.  Past the budget each pair computes its own block, as
 * it does alone (never more memory than the budget, one pair at least).
 *
 * Each pair is a unit of work (kc_units): the units run side by side, each
 * on one thread with its own block (the solver's passes at these sizes are
 * too short to share between threads), largest first; with fewer pairs
 * than threads they run in turn on all of them.  A pair's solve is the
 * solver's with every row kept, the same iterates whatever the threads.
 *
 * Memory: the shared kernel and the blocks are R_alloc'd on the calling
 * thread (freed on return or by an interrupt); a unit's own scratch is
 * kc_alloc'd (units.c). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <R_ext/Memory.h>
#include "kernclass.h"
#include "kernel.h"
#include "units.h"
#include "smo.h"
#include "svm-path.h"
#include "svm-pairs.h"

double kc_svm_pairs_bytes(double n, int p, double mmax, int nthreads, int shared)
{
    return (shared ? n * n * (double) sizeof(float) : 0) +
           (double) nthreads * (kc_svm_store_bytes(mmax) + mmax * p * (double) sizeof(double));
}

typedef struct {
    const kc_kernel *k;
    const kc_points *x;
    kc_svm_pair *pairs;
    const int *order;        /* the units' pairs, largest first */
    const float *K;          /* the kernel of all n points, or NULL */
    size_t n;
    const kc_smo_options *opt;
    int inner;               /* threads inside a unit */
    float **block;           /* per thread: mmax x mmax */
    unsigned char **filled;  /* per thread: mmax */
    double **xsub;           /* per thread: a pair's rows, mmax x p */
} pairs_ctx;

static void fit_pair(void *data, int u, int thread)
{
    const pairs_ctx *ctx = (const pairs_ctx *) data;
    kc_svm_pair *p = &ctx->pairs[ctx->order[u]];
    int m = p->m;
    float *block = ctx->block[thread];
    const void *mark = kc_mark();
    /* the pair's rows (as kc_points_subset copies them) into this thread's
     * buffer: a fresh one for each pair cost a page fault every 4 KiB */
    kc_points xb = *ctx->x;
    double *xs = ctx->xsub[thread];
    for (int c = 0; c < xb.p; c++) {
        const double *src = ctx->x->x + (ptrdiff_t) c * ctx->x->n;
        double *dst = xs + (size_t) c * m;
        for (int i = 0; i < m; i++) dst[i] = src[p->rows[i]];
    }
    xb.x = xs;
    xb.n = m;
    if (ctx->K) {
        for (int i = 0; i < m; i++) {
            const float *Ki = ctx->K + (size_t) p->rows[i] * ctx->n;
            float *dst = block + (size_t) i * m;
            for (int j = 0; j < m; j++) dst[j] = Ki[p->rows[j]];
        }
    }
    memset(ctx->filled[thread], ctx->K ? 1 : 0, (size_t) m);
    kc_smo_options opt = *ctx->opt;
    opt.alpha0 = NULL;
    opt.nsets = 1;
    opt.nthreads = ctx->inner;
    opt.store = block;
    opt.filled = ctx->filled[thread];
    opt.whole = 1;
    p->res.alpha = p->alpha;
    kc_smo(ctx->k, &xb, p->y, p->C, &opt, &p->res);
    kc_release(mark);
}

int kc_svm_pairs(const kc_kernel *k, const kc_points *x, kc_svm_pair *pairs, int npairs,
                 const kc_smo_options *opt, double budget, int nthreads)
{
    if (npairs < 1) return 0;
    if (x->src != KC_SRC_DENSE || x->sqnorm || x->packed) kc_internal("kc_svm_pairs takes plain dense points");
    size_t n = (size_t) x->n, mmax = 0;
    int *order = (int *) R_alloc((size_t) npairs, sizeof(int));
    for (int u = 0; u < npairs; u++) {
        if ((size_t) pairs[u].m > mmax) mmax = (size_t) pairs[u].m;
        /* largest first (insertion; ties in pair order) */
        int t = u;
        while (t > 0 && pairs[order[t - 1]].m < pairs[u].m) { order[t] = order[t - 1]; t--; }
        order[t] = u;
    }
    int outer = nthreads < npairs ? nthreads : npairs;
    int shared = npairs > 1 && (double) n * n < (double) PTRDIFF_MAX / sizeof(float) &&
                 kc_svm_pairs_bytes((double) n, x->p, (double) mmax, outer, 1) <= budget;
    if (!shared) {
        /* as many pair blocks at once as the budget holds, one at least */
        while (outer > 1 && kc_svm_pairs_bytes((double) n, x->p, (double) mmax, outer, 0) > budget)
            outer--;
    }
    pairs_ctx ctx = {k, x, pairs, order, NULL, n, opt, outer > 1 ? 1 : nthreads, NULL, NULL, NULL};
    ctx.block = (float **) R_alloc((size_t) outer, sizeof(float *));
    ctx.filled = (unsigned char **) R_alloc((size_t) outer, sizeof(unsigned char *));
    ctx.xsub = (double **) R_alloc((size_t) outer, sizeof(double *));
    for (int t = 0; t < outer; t++) {
        ctx.block[t] = (float *) R_alloc(mmax * mmax + 1, sizeof(float));
        kc_advise_huge_pages(ctx.block[t], mmax * mmax * sizeof(float));
        ctx.filled[t] = (unsigned char *) R_alloc(mmax + 1, 1);
        ctx.xsub[t] = (double *) R_alloc(mmax * (size_t) x->p + 1, sizeof(double));
    }
    if (shared) {
        float *K = (float *) R_alloc(n * n, sizeof(float));
        kc_advise_huge_pages(K, n * n * sizeof(float));
        kc_gram_float(k, x, K, nthreads);
        ctx.K = K;
    }
    kc_units_status why = kc_units(npairs, outer, fit_pair, &ctx);
    if (why != KC_UNITS_DONE) kc_units_raise(why);
    return shared;
}
