/* The class pairs of one multi-class C-SVC fit (kernel_svm's one-vs-one
 * problems, R/fit-svm-solve.R) in one call.
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
 * the classes' blocks go through a cache of what the budget holds
 * (cached_pairs: batches of pairs in their order, least recently used
 * blocks evicted), as long as it holds the largest pair's two classes and
 * leaves as many pairs side by side as they would run alone; else each
 * pair computes its own block, as it does alone (never more memory than
 * the budget, one pair at least).  A class block costs half its kernel
 * values (symmetric) and a pair's cross block is computed for it alone, so
 * even a batch per pair with both blocks computed afresh computes fewer
 * kernel values than the pair's own block.
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
     * mmax), alpha and C, y and the rows it keeps */
    float **fblock;
    double **falpha, **fC;
    int **fy, **ftrain;
    unsigned char *ffilled;  /* mmax ones, read by every thread */
    double **sq, **fsq;      /* per thread: a pair's and a fold's squared norms */
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
 * as kc_svm_binary keeps the rows) and the rows' squared norms sq (m), and
 * the held-out rows' decision values summed in double from the block. */
static void pair_folds(const pairs_ctx *ctx, kc_svm_pair *p, int thread, const float *block,
                       const double *sq)
{
    int m = p->m;
    int *tr = ctx->ftrain[thread], *yf = ctx->fy[thread];
    float *fb = ctx->fblock[thread];
    double *fsq = ctx->fsq[thread], *af = ctx->falpha[thread], *Cf = ctx->fC[thread];
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
            fsq[a] = sq[tr[a]];
        }
        /* every kernel row stored: the solver reads the points' squared
         * norms only (smo.c), not their rows */
        kc_points xb = *ctx->x;
        xb.n = mt;
        xb.sqnorm = fsq;
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
    double *xs = ctx->xsub[thread], *sq = ctx->sq[thread];
    xb.n = m;
    if (ctx->gp && ctx->gp->x.sqnorm) {
        /* every kernel row stored (shared_block): the solver reads the
         * points' squared norms only (smo.c), not their rows */
        const kc_grouped *gp = ctx->gp;
        const int *side = ctx->side + 2 * ctx->order[u];
        for (int i = 0; i < m; i++)
            sq[i] = gp->x.sqnorm[gp->at[side[p->y[i] > 0 ? 0 : 1]] + gp->rank[p->rows[i]]];
        xb.sqnorm = sq;
    } else if (ctx->gp) {
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
    if (!xb.sqnorm) xb.x = xs;
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
    if (p->fold) {
        if (!xb.sqnorm) kc_row_sqnorms(&xb, sq);  /* as the solver's */
        pair_folds(ctx, p, thread, block, sq);
    }
    kc_release(mark);
}

/* The count pairs from[0 .. count - 1], largest first (insertion; ties
 * in their order), into out. */
static void largest_first(const kc_svm_pair *pairs, const int *from, int count, int *out)
{
    for (int v = 0; v < count; v++) {
        int u = from[v], t = v;
        while (t > 0 && pairs[out[t - 1]].m < pairs[u].m) { out[t] = out[t - 1]; t--; }
        out[t] = u;
    }
}

/* The classes' blocks through a cache of cap floats (kc_svm_pairs): the
 * pairs in their given order (lexicographic for one-vs-one, so a class's
 * pairs with the classes after it come together) in batches, each as many
 * pairs as the cache holds the classes of; before each batch the blocks it
 * lacks are computed (on all the threads), after evicting those it does not
 * need, least recently used first (the blocks kept moved together to
 * make room), and the batch's pairs then run side by side.  So no class
 * block is computed twice within a batch, and with a cache that holds them
 * all there is one batch.  Returns the number of batches. */
static int cached_pairs(pairs_ctx *ctx, int npairs, int nclass, size_t cap, int outer,
                        int nthreads, double *work)
{
    const kc_grouped *gp = ctx->gp;
    const int *side = ctx->side;
    float *arena = (float *) R_alloc(cap + 1, sizeof(float));
    kc_advise_huge_pages(arena, cap * sizeof(float));
    float **diag = (float **) ctx->diag;
    size_t *off = (size_t *) R_alloc((size_t) nclass, sizeof(size_t));
    int *last = (int *) R_alloc((size_t) nclass, sizeof(int));
    int *need = (int *) R_alloc((size_t) nclass, sizeof(int));
    int *list = (int *) R_alloc((size_t) nclass, sizeof(int));
    int *all = (int *) R_alloc((size_t) npairs, sizeof(int));
    int *border = (int *) R_alloc((size_t) npairs, sizeof(int));
    float **dst = (float **) R_alloc((size_t) nclass, sizeof(float *));
    const size_t NONE = (size_t) -1;
    for (int g = 0; g < nclass; g++) { off[g] = NONE; last[g] = -1; need[g] = -1; }
    for (int u = 0; u < npairs; u++) all[u] = u;
#define SQ(g) ((size_t) gp->size[g] * (size_t) gp->size[g])
    int nb = 0;
    for (int u0 = 0; u0 < npairs; nb++) {
        /* the batch: the next pairs while the blocks of their classes fit */
        size_t used = 0;
        int u1 = u0;
        while (u1 < npairs) {
            int a = side[2 * u1], b = side[2 * u1 + 1];
            size_t add = (need[a] == nb ? 0 : SQ(a)) + (need[b] == nb ? 0 : SQ(b));
            if (u1 > u0 && used + add > cap) break;
            need[a] = need[b] = nb;
            used += add;
            u1++;
        }
        /* evict the blocks not needed, least recently used first, until the
         * needed ones fit */
        size_t held = used;
        for (int g = 0; g < nclass; g++) if (off[g] != NONE && need[g] != nb) held += SQ(g);
        while (held > cap) {
            int v = -1;
            for (int g = 0; g < nclass; g++)
                if (off[g] != NONE && need[g] != nb && (v < 0 || last[g] < last[v])) v = g;
            off[v] = NONE;
            diag[v] = NULL;
            held -= SQ(v);
        }
        /* the blocks kept moved to the front, in their order there */
        int nk = 0;
        for (int g = 0; g < nclass; g++) {
            if (off[g] == NONE) continue;
            int t = nk++;
            while (t > 0 && off[list[t - 1]] > off[g]) { list[t] = list[t - 1]; t--; }
            list[t] = g;
        }
        size_t pos = 0;
        for (int q = 0; q < nk; q++) {
            int g = list[q];
            if (off[g] != pos) memmove(arena + pos, arena + off[g], SQ(g) * sizeof(float));
            off[g] = pos;
            diag[g] = arena + pos;
            pos += SQ(g);
        }
        /* the blocks missing, computed */
        int nm = 0;
        for (int g = 0; g < nclass; g++) {
            if (need[g] != nb) continue;
            last[g] = nb;
            if (off[g] != NONE) continue;
            off[g] = pos;
            diag[g] = dst[nm] = arena + pos;
            list[nm++] = g;
            pos += SQ(g);
        }
        if (nm) kc_group_blocks_float(ctx->k, gp, nm, list, list, dst, NULL, nthreads, work);
        /* the batch's pairs side by side */
        int count = u1 - u0, bo = outer < count ? outer : count;
        largest_first(ctx->pairs, all + u0, count, border);
        ctx->order = border;
        ctx->inner = bo > 1 ? 1 : nthreads;
        kc_units_status why = kc_units(count, bo, fit_pair, ctx);
        if (why != KC_UNITS_DONE) kc_units_raise(why);
        u0 = u1;
    }
#undef SQ
    return nb;
}

int kc_svm_pairs(const kc_kernel *k, const kc_points *x, kc_svm_pair *pairs, int npairs,
                 const kc_smo_options *opt, double budget, int nthreads)
{
    if (npairs < 1) return 0;
    if (x->src != KC_SRC_DENSE || x->sqnorm || x->packed)
        kc_internal("kc_svm_pairs takes plain dense points");
    size_t n = (size_t) x->n, mmax = 0;
    int p = x->p;
    int *all = (int *) R_alloc((size_t) npairs, sizeof(int));
    int *order = (int *) R_alloc((size_t) npairs, sizeof(int));
    for (int u = 0; u < npairs; u++) {
        if ((size_t) pairs[u].m > mmax) mmax = (size_t) pairs[u].m;
        all[u] = u;
    }
    largest_first(pairs, all, npairs, order);
    int most = nthreads < npairs ? nthreads : npairs;
    /* the bytes: per thread its block, flags and rows (and with Platt's
     * folds a fold's); shared, the classes' blocks (or a cache of some),
     * their rows sorted and packed, and per thread a cross block, its
     * transpose and the tiles' scratch */
    int folds = 0;
    for (int u = 0; u < npairs; u++) if (pairs[u].fold) folds = 1;
    double per_thread = (1.0 + folds) * kc_svm_store_bytes((double) mmax) +
                        (double) mmax * p * sizeof(double) + (8.0 + 32.0 * folds) * (double) mmax;
    /* each pair alone: as many pair blocks at once as the budget holds, one
     * at least */
    int outer = most;
    while (outer > 1 && outer * per_thread > budget) outer--;
    int *group = (int *) R_alloc(n + 1, sizeof(int));
    int *side = (int *) R_alloc(2 * (size_t) npairs, sizeof(int));
    int nclass = 0;
    int shared = npairs > 1 && pair_classes(pairs, npairs, n, group, side, &nclass);
    double cross_max = 0, diag_bytes = 0, cap = 0;
    if (shared) {
        double *size = (double *) R_alloc((size_t) nclass, sizeof(double));
        for (int g = 0; g < nclass; g++) size[g] = 0;
        for (size_t r = 0; r < n; r++) if (group[r] >= 0) size[group[r]]++;
        for (int g = 0; g < nclass; g++) diag_bytes += size[g] * size[g] * sizeof(float);
        double two = 0;  /* the largest pair's two classes' blocks */
        for (int u = 0; u < npairs; u++) {
            double a = size[side[2 * u]], b = size[side[2 * u + 1]];
            if (a * b > cross_max) cross_max = a * b;
            if ((a * a + b * b) * sizeof(float) > two) two = (a * a + b * b) * sizeof(float);
        }
        double once = 2.0 * ((double) n + (double) nclass * KC_TILE) * p * sizeof(double);
        double thread = per_thread + 2 * cross_max * sizeof(float) + (double) mmax * sizeof(int) +
                        ((double) KC_TILE * (KC_TILE + 1) + 4.0 * KC_TILE * p) * sizeof(double);
        /* the most pairs side by side that leave the cache the largest
         * pair's classes; never fewer than each pair alone would run */
        int so = most;
        while (so > 1 && once + so * thread + two > budget) so--;
        cap = budget - once - so * thread;
        if (cap > diag_bytes) cap = diag_bytes;
        shared = cap >= two && so >= outer && once + diag_bytes < (double) PTRDIFF_MAX / 2;
        if (shared) outer = so;
    }
    pairs_ctx ctx = {k, x, pairs, order, NULL, NULL, side, opt, outer > 1 ? 1 : nthreads,
                     NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    if (folds) {
        ctx.fblock = (float **) R_alloc((size_t) outer, sizeof(float *));
        ctx.fsq = (double **) R_alloc((size_t) outer, sizeof(double *));
        ctx.falpha = (double **) R_alloc((size_t) outer, sizeof(double *));
        ctx.fC = (double **) R_alloc((size_t) outer, sizeof(double *));
        ctx.fy = (int **) R_alloc((size_t) outer, sizeof(int *));
        ctx.ftrain = (int **) R_alloc((size_t) outer, sizeof(int *));
        for (int t = 0; t < outer; t++) {
            ctx.fblock[t] = (float *) R_alloc(mmax * mmax + 1, sizeof(float));
            kc_advise_huge_pages(ctx.fblock[t], mmax * mmax * sizeof(float));
            ctx.fsq[t] = (double *) R_alloc(mmax + 1, sizeof(double));
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
    ctx.sq = (double **) R_alloc((size_t) outer, sizeof(double *));
    for (int t = 0; t < outer; t++) {
        ctx.sq[t] = (double *) R_alloc(mmax + 1, sizeof(double));
        ctx.block[t] = (float *) R_alloc(mmax * mmax + 1, sizeof(float));
        kc_advise_huge_pages(ctx.block[t], mmax * mmax * sizeof(float));
        ctx.filled[t] = (unsigned char *) R_alloc(mmax + 1, 1);
    }
    /* the pair's rows, for a solver that computes its kernel rows (or
     * points without their squared norms) */
    size_t xsub_n = mmax * (size_t) p + 1;
    if (!shared) {
        for (int t = 0; t < outer; t++) ctx.xsub[t] = (double *) R_alloc(xsub_n, sizeof(double));
        kc_units_status why = kc_units(npairs, outer, fit_pair, &ctx);
        if (why != KC_UNITS_DONE) kc_units_raise(why);
        return 0;
    }
    kc_grouped gp = kc_group_points(k, x, group, nclass);
    ctx.gp = &gp;
    if (!gp.x.sqnorm)
        for (int t = 0; t < outer; t++) ctx.xsub[t] = (double *) R_alloc(xsub_n, sizeof(double));
    float **diag = (float **) R_alloc((size_t) nclass, sizeof(float *));
    for (int g = 0; g < nclass; g++) diag[g] = NULL;
    ctx.diag = diag;
    ctx.cross = (float **) R_alloc((size_t) outer, sizeof(float *));
    ctx.crosst = (float **) R_alloc((size_t) outer, sizeof(float *));
    ctx.idx = (int **) R_alloc((size_t) outer, sizeof(int *));
    ctx.work = (double **) R_alloc((size_t) outer, sizeof(double *));
    for (int t = 0; t < outer; t++) {
        ctx.cross[t] = (float *) R_alloc((size_t) cross_max + 1, sizeof(float));
        ctx.crosst[t] = (float *) R_alloc((size_t) cross_max + 1, sizeof(float));
        ctx.idx[t] = (int *) R_alloc(mmax + 1, sizeof(int));
        /* a batch of one pair runs it on all the threads, on thread 0 */
        ctx.work[t] = (double *) R_alloc(kc_group_work_size(&gp, t ? 1 : nthreads), sizeof(double));
    }
    double *work = (double *) R_alloc(kc_group_work_size(&gp, nthreads), sizeof(double));
    return cached_pairs(&ctx, npairs, nclass, (size_t) (cap / sizeof(float)), outer, nthreads, work);
}
