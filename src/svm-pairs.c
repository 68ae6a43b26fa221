/* The class pairs of one multi-class C-SVC fit (kernel_svm's one-vs-one
 * problems, R/fit-svm.R) in one call.
 *
 * A class's rows against its own class are in every pair that holds the
 * class (L - 1 of them), and each pair alone computes them again.  Here,
 * where the memory budget allows, each class's kernel with itself is
 * computed once by the engine's tiles (kc_group_blocks_float: the
 * symmetric half, on all the threads), as the floats the solver's row
 * store holds (each the double kernel value rounded to float, as kc_rows
 * gives the rows the solver computes alone); a pair's block is copied from
 * its two classes' blocks, in the pair's row order, and its rows of one
 * class against the other (which no other pair needs) computed for it
 * alone.  So every kernel value is computed once, and the store holds the
 * sum of the squared class sizes (a tenth of the n^2 of all rows with 10
 * even classes).  A class here is a side of a pair: a row's class is its
 * side in the first pair that holds it, and a pair shares only when each
 * side is exactly one class (as one-vs-one pairs are).  Past the budget
 * each pair computes its own block, as it does alone (never more memory
 * than the budget, one pair at least).
 *
 * Each pair is a unit of work (kc_units): the units run side by side, each
 * on one thread with its own block (the solver's passes at these sizes are
 * too short to share between threads), largest first; with fewer pairs
 * than threads they run in turn on all of them.  A pair's solve is the
 * solver's with every row kept, the same iterates whatever the threads.
 *
 * Memory: the shared blocks and each thread's buffers are R_alloc'd on the
 * calling thread (freed on return or by an interrupt), once: buffers
 * allocated per pair cost a page fault every 4 KiB of them. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <R_ext/Arith.h>
#include <R_ext/Memory.h>
#include "kernclass.h"
#include "kernel.h"
#include "units.h"
#include "smo.h"
#include "svm-path.h"
#include "svm-pairs.h"

/* The classes (svm-pairs.c's top): group[r] for each of the n rows (-1:
 * in no pair), and for each pair its + and - class in side[2 u], side[2 u
 * + 1]; 0 where some pair's side is not one whole class. */
static int pair_classes(const kc_svm_pair *pairs, int npairs, size_t n, int *group, int *side,
                        int *nclass)
{
    if (npairs > INT_MAX / 2) return 0;
    int *id = (int *) R_alloc(2 * (size_t) npairs, sizeof(int));
    for (int q = 0; q < 2 * npairs; q++) id[q] = -1;
    for (size_t r = 0; r < n; r++) group[r] = -1;
    for (int u = 0; u < npairs; u++)
        for (int i = 0; i < pairs[u].m; i++) {
            int r = pairs[u].rows[i];
            if (group[r] < 0) group[r] = 2 * u + (pairs[u].y[i] > 0 ? 0 : 1);
        }
    int ng = 0;
    for (size_t r = 0; r < n; r++) {
        if (group[r] < 0) continue;
        if (id[group[r]] < 0) id[group[r]] = ng++;
        group[r] = id[group[r]];
    }
    int *count = (int *) R_alloc((size_t) ng + 1, sizeof(int));
    for (int g = 0; g < ng; g++) count[g] = 0;
    for (size_t r = 0; r < n; r++) if (group[r] >= 0) count[group[r]]++;
    for (int u = 0; u < npairs; u++) {
        int cnt[2] = {0, 0};
        side[2 * u] = side[2 * u + 1] = -1;
        for (int i = 0; i < pairs[u].m; i++) {
            int s = pairs[u].y[i] > 0 ? 0 : 1, g = group[pairs[u].rows[i]];
            if (side[2 * u + s] < 0) side[2 * u + s] = g;
            if (side[2 * u + s] != g) return 0;
            cnt[s]++;
        }
        if (side[2 * u] < 0 || side[2 * u + 1] < 0 || side[2 * u] == side[2 * u + 1] ||
            cnt[0] != count[side[2 * u]] || cnt[1] != count[side[2 * u + 1]])
            return 0;
    }
    *nclass = ng;
    return 1;
}

typedef struct {
    const kc_kernel *k;
    const kc_points *x;
    kc_svm_pair *pairs;
    const int *order;        /* the units' pairs, largest first */
    const kc_grouped *gp;    /* the rows by class, or NULL: each pair computes its block */
    float *const *diag;      /* per class: its kernel with itself */
    const int *side;         /* per pair: its + and - class */
    const kc_smo_options *opt;
    int inner;               /* threads inside a unit */
    float **block;           /* per thread: mmax x mmax */
    unsigned char **filled;  /* per thread: mmax */
    double **xsub;           /* per thread: a pair's rows, mmax x p */
    float **cross, **crosst; /* per thread: a pair's + class x - class, its transpose */
    int **idx;               /* per thread: mmax ints of scratch */
    double **work;           /* per thread: kc_group_work_size(gp, inner) */
    /* Platt's folds (NULL without): per thread a fold's block (mmax x
     * mmax), its rows (mmax x p), alpha and C, y and the rows it keeps */
    float **fblock;
    double **fx, **falpha, **fC;
    int **fy, **ftrain;
    unsigned char *ffilled;  /* mmax ones, read by every thread */
} pairs_ctx;

/* The pair's block from its classes' blocks and its cross block.  Each
 * side of the pair is a whole class, its rows in increasing order as in
 * the class's block: a row's values against the + rows are the next ones
 * of one row of a block (its class's, or the cross block), against the -
 * rows the next ones of another, merged in the pair's order. */
static void shared_block(const pairs_ctx *ctx, const kc_svm_pair *p, int u, int thread, float *block)
{
    const kc_grouped *gp = ctx->gp;
    int pos = ctx->side[2 * u], neg = ctx->side[2 * u + 1], m = p->m;
    float *cx = ctx->cross[thread], *cxt = ctx->crosst[thread];
    kc_group_blocks_float(ctx->k, gp, 1, &pos, &neg, &cx, &cxt, ctx->inner, ctx->work[thread]);
    ptrdiff_t npos = gp->size[pos], nneg = gp->size[neg], ip = 0, in = 0;
    for (int i = 0; i < m; i++) {
        float *dst = block + (size_t) i * m;
        const float *vp, *vn;  /* against the + rows, the - rows */
        if (p->y[i] > 0) {
            vp = ctx->diag[pos] + ip * npos;
            vn = cx + ip++ * nneg;
        } else {
            vp = cxt + in * npos;
            vn = ctx->diag[neg] + in++ * nneg;
        }
        for (int j = 0, a = 0, b = 0; j < m; j++) {
            int s = p->y[j] > 0;
            dst[j] = s ? vp[a] : vn[b];
            a += s;
            b += !s;
        }
    }
}

/* Platt's cross-validation of pair p (kc_svm_pair's fold), after its
 * solve: each fold's SVM solved as the solver solves it alone with every
 * row kept, on the sub-block of the pair's block (in the pair's row order,
 * as kc_svm_binary keeps the rows) and the pair's rows xs (m x p), and the
 * held-out rows' decision values summed in double from the block. */
static void pair_folds(const pairs_ctx *ctx, kc_svm_pair *p, int thread, const float *block,
                       const double *xs)
{
    int m = p->m, np = ctx->x->p;
    int *tr = ctx->ftrain[thread], *yf = ctx->fy[thread];
    float *fb = ctx->fblock[thread];
    double *xf = ctx->fx[thread], *af = ctx->falpha[thread], *Cf = ctx->fC[thread];
    p->fold_bad = 0;
    for (int f = 1; f <= p->nfolds; f++) {
        int mt = 0, npos = 0;
        for (int i = 0; i < m; i++)
            if (p->fold[i] != f) {
                tr[mt++] = i;
                npos += p->y[i] > 0;
            }
        if (mt == m) continue;  /* no rows held out */
        if (npos == mt || npos == 0) {
            /* the other rows of one class only */
            for (int i = 0; i < m; i++) if (p->fold[i] == f) p->dec[i] = npos == mt ? 1.0 : -1.0;
            continue;
        }
        for (int a = 0; a < mt; a++) {
            const float *src = block + (size_t) tr[a] * m;
            float *dst = fb + (size_t) a * mt;
            for (int b = 0; b < mt; b++) dst[b] = src[tr[b]];
            yf[a] = p->y[tr[a]];
            Cf[a] = p->C[tr[a]];
        }
        for (int c = 0; c < np; c++) {
            const double *src = xs + (size_t) c * m;
            double *dst = xf + (size_t) c * mt;
            for (int a = 0; a < mt; a++) dst[a] = src[tr[a]];
        }
        kc_points xb = *ctx->x;
        xb.x = xf;
        xb.n = mt;
        kc_smo_options opt = *ctx->opt;
        opt.alpha0 = NULL;
        opt.nsets = 1;
        opt.nthreads = ctx->inner;
        opt.store = fb;
        opt.filled = ctx->ffilled;
        opt.whole = 1;
        kc_smo_result res = {.alpha = af};
        kc_smo(ctx->k, &xb, yf, Cf, &opt, &res);
        int ok = res.status != KC_SMO_UNBOUNDED && R_FINITE(res.rho);
        /* the support vectors' coefficients, compacted (over tr, in place) */
        int nsv = 0;
        for (int a = 0; a < mt; a++) {
            if (!R_FINITE(af[a])) ok = 0;
            if (af[a] > 0) {
                af[nsv] = af[a] * yf[a];
                tr[nsv++] = tr[a];
            }
        }
        if (!ok) {
            p->fold_bad = 1;
            return;
        }
        for (int i = 0; i < m; i++) {
            if (p->fold[i] != f) continue;
            const float *Ki = block + (size_t) i * m;
            double s = 0;
            for (int a = 0; a < nsv; a++) s += af[a] * Ki[tr[a]];
            p->dec[i] = s - res.rho;
        }
    }
}

static void fit_pair(void *data, int u, int thread)
{
    const pairs_ctx *ctx = (const pairs_ctx *) data;
    kc_svm_pair *p = &ctx->pairs[ctx->order[u]];
    int m = p->m;
    float *block = ctx->block[thread];
    const void *mark = kc_mark();
    /* the pair's rows (as kc_points_subset copies them) into this thread's
     * buffer */
    kc_points xb = *ctx->x;
    double *xs = ctx->xsub[thread];
    if (ctx->gp) {
        /* from the rows by class: the pair's two classes, each contiguous
         * there (a fifth as many cache lines as from all the rows) */
        const kc_grouped *gp = ctx->gp;
        int *at = ctx->idx[thread];  /* the pair's rows in gp->x */
        const int *side = ctx->side + 2 * ctx->order[u];
        for (int i = 0; i < m; i++)
            at[i] = (int) gp->at[side[p->y[i] > 0 ? 0 : 1]] + gp->rank[p->rows[i]];
        for (int c = 0; c < xb.p; c++) {
            const double *src = gp->x.x + (ptrdiff_t) c * gp->x.n;
            double *dst = xs + (size_t) c * m;
            for (int i = 0; i < m; i++) dst[i] = src[at[i]];
        }
    } else {
        for (int c = 0; c < xb.p; c++) {
            const double *src = ctx->x->x + (ptrdiff_t) c * ctx->x->n;
            double *dst = xs + (size_t) c * m;
            for (int i = 0; i < m; i++) dst[i] = src[p->rows[i]];
        }
    }
    xb.x = xs;
    xb.n = m;
    if (ctx->gp) shared_block(ctx, p, ctx->order[u], thread, block);
    memset(ctx->filled[thread], ctx->gp ? 1 : 0, (size_t) m);
    kc_smo_options opt = *ctx->opt;
    opt.alpha0 = NULL;
    opt.nsets = 1;
    opt.nthreads = ctx->inner;
    opt.store = block;
    opt.filled = ctx->filled[thread];
    opt.whole = 1;
    p->res.alpha = p->alpha;
    kc_smo(ctx->k, &xb, p->y, p->C, &opt, &p->res);
    if (p->fold) pair_folds(ctx, p, thread, block, xs);
    kc_release(mark);
}

int kc_svm_pairs(const kc_kernel *k, const kc_points *x, kc_svm_pair *pairs, int npairs,
                 const kc_smo_options *opt, double budget, int nthreads)
{
    if (npairs < 1) return 0;
    if (x->src != KC_SRC_DENSE || x->sqnorm || x->packed)
        kc_internal("kc_svm_pairs takes plain dense points");
    size_t n = (size_t) x->n, mmax = 0;
    int p = x->p;
    int *order = (int *) R_alloc((size_t) npairs, sizeof(int));
    for (int u = 0; u < npairs; u++) {
        if ((size_t) pairs[u].m > mmax) mmax = (size_t) pairs[u].m;
        /* largest first (insertion; ties in pair order) */
        int t = u;
        while (t > 0 && pairs[order[t - 1]].m < pairs[u].m) { order[t] = order[t - 1]; t--; }
        order[t] = u;
    }
    int outer = nthreads < npairs ? nthreads : npairs;
    int inner = outer > 1 ? 1 : nthreads;
    /* the bytes: per thread its block, flags and rows; shared, the classes'
     * blocks, their rows sorted and packed, and per thread a cross block,
     * its transpose and the tiles' scratch */
    int folds = 0;
    for (int u = 0; u < npairs; u++) if (pairs[u].fold) folds = 1;
    double per_thread = (1.0 + folds) * (kc_svm_store_bytes((double) mmax) +
                                         (double) mmax * p * sizeof(double)) +
                        folds * 24.0 * (double) mmax;
    int *group = (int *) R_alloc(n + 1, sizeof(int));
    int *side = (int *) R_alloc(2 * (size_t) npairs, sizeof(int));
    int nclass = 0;
    int shared = npairs > 1 && pair_classes(pairs, npairs, n, group, side, &nclass);
    double cross_max = 0, diag_bytes = 0;
    if (shared) {
        double *size = (double *) R_alloc((size_t) nclass, sizeof(double));
        for (int g = 0; g < nclass; g++) size[g] = 0;
        for (size_t r = 0; r < n; r++) if (group[r] >= 0) size[group[r]]++;
        for (int g = 0; g < nclass; g++) diag_bytes += size[g] * size[g] * sizeof(float);
        for (int u = 0; u < npairs; u++) {
            double c = size[side[2 * u]] * size[side[2 * u + 1]];
            if (c > cross_max) cross_max = c;
        }
        double once = diag_bytes + 2.0 * ((double) n + (double) nclass * KC_TILE) * p * sizeof(double);
        double thread = per_thread + 2 * cross_max * sizeof(float) + (double) mmax * sizeof(int) +
                        ((double) KC_TILE * (KC_TILE + 1) + 4.0 * KC_TILE * p) * sizeof(double);
        shared = once + outer * thread <= budget && once < (double) PTRDIFF_MAX / 2;
    }
    if (!shared) {
        /* as many pair blocks at once as the budget holds, one at least */
        while (outer > 1 && outer * per_thread > budget) outer--;
        inner = outer > 1 ? 1 : nthreads;
    }
    pairs_ctx ctx = {k, x, pairs, order, NULL, NULL, side, opt, inner,
                     NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                     NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (folds) {
        ctx.fblock = (float **) R_alloc((size_t) outer, sizeof(float *));
        ctx.fx = (double **) R_alloc((size_t) outer, sizeof(double *));
        ctx.falpha = (double **) R_alloc((size_t) outer, sizeof(double *));
        ctx.fC = (double **) R_alloc((size_t) outer, sizeof(double *));
        ctx.fy = (int **) R_alloc((size_t) outer, sizeof(int *));
        ctx.ftrain = (int **) R_alloc((size_t) outer, sizeof(int *));
        for (int t = 0; t < outer; t++) {
            ctx.fblock[t] = (float *) R_alloc(mmax * mmax + 1, sizeof(float));
            kc_advise_huge_pages(ctx.fblock[t], mmax * mmax * sizeof(float));
            ctx.fx[t] = (double *) R_alloc(mmax * (size_t) p + 1, sizeof(double));
            ctx.falpha[t] = (double *) R_alloc(mmax + 1, sizeof(double));
            ctx.fC[t] = (double *) R_alloc(mmax + 1, sizeof(double));
            ctx.fy[t] = (int *) R_alloc(mmax + 1, sizeof(int));
            ctx.ftrain[t] = (int *) R_alloc(mmax + 1, sizeof(int));
        }
        ctx.ffilled = (unsigned char *) R_alloc(mmax + 1, 1);
        memset(ctx.ffilled, 1, mmax);
    }
    ctx.block = (float **) R_alloc((size_t) outer, sizeof(float *));
    ctx.filled = (unsigned char **) R_alloc((size_t) outer, sizeof(unsigned char *));
    ctx.xsub = (double **) R_alloc((size_t) outer, sizeof(double *));
    for (int t = 0; t < outer; t++) {
        ctx.block[t] = (float *) R_alloc(mmax * mmax + 1, sizeof(float));
        kc_advise_huge_pages(ctx.block[t], mmax * mmax * sizeof(float));
        ctx.filled[t] = (unsigned char *) R_alloc(mmax + 1, 1);
        ctx.xsub[t] = (double *) R_alloc(mmax * (size_t) p + 1, sizeof(double));
    }
    kc_grouped gp;
    if (shared) {
        gp = kc_group_points(k, x, group, nclass);
        float **diag = (float **) R_alloc((size_t) nclass, sizeof(float *));
        int *cls = (int *) R_alloc((size_t) nclass, sizeof(int));
        for (int g = 0; g < nclass; g++) {
            size_t sz = (size_t) gp.size[g];
            diag[g] = (float *) R_alloc(sz * sz + 1, sizeof(float));
            kc_advise_huge_pages(diag[g], sz * sz * sizeof(float));
            cls[g] = g;
        }
        double *work = (double *) R_alloc(kc_group_work_size(&gp, nthreads), sizeof(double));
        kc_group_blocks_float(k, &gp, nclass, cls, cls, diag, NULL, nthreads, work);
        ctx.gp = &gp;
        ctx.diag = diag;
        ctx.cross = (float **) R_alloc((size_t) outer, sizeof(float *));
        ctx.crosst = (float **) R_alloc((size_t) outer, sizeof(float *));
        ctx.idx = (int **) R_alloc((size_t) outer, sizeof(int *));
        ctx.work = (double **) R_alloc((size_t) outer, sizeof(double *));
        for (int t = 0; t < outer; t++) {
            ctx.cross[t] = (float *) R_alloc((size_t) cross_max + 1, sizeof(float));
            ctx.crosst[t] = (float *) R_alloc((size_t) cross_max + 1, sizeof(float));
            ctx.idx[t] = (int *) R_alloc(mmax + 1, sizeof(int));
            ctx.work[t] = (double *) R_alloc(kc_group_work_size(&gp, inner), sizeof(double));
        }
    }
    kc_units_status why = kc_units(npairs, outer, fit_pair, &ctx);
    if (why != KC_UNITS_DONE) kc_units_raise(why);
    return shared;
}
