/* SMO solver for the SVM dual:
 *
 *   minimise  f(a) = 1/2 a'Qa + p sum(a),  Q_ij = y_i y_j k(x_i, x_j),
 *   subject to 0 <= a_i <= C_i and y'a = 0,
 *
 * with p = -1 for C-SVC.  The nu problems have p = 0 and start from a
 * feasible a that fixes their other constraint: the one-class SVM (all
 * y = +1, sum(a) = nu l, Schölkopf et al. 2001) as it is, nu-SVC (sum(a)
 * over each class = nu l / 2, Chang and Lin 2001) with two sets: each pair
 * is chosen within one class, so both sums stay put, and the bias comes from
 * each class separately (LIBSVM's Solver_NU).
 *
 * The working set is chosen by the second-order rule of Fan, Chen and Lin
 * (2005), with shrinking and gradient reconstruction and an LRU cache of
 * kernel rows stored as float (as LIBSVM; smo-cache.c).  C_i may be +Inf (hard margin),
 * a_0 any feasible start (LIBSVM's, for the nu problems; along a path of
 * costs, the last solution moved into the new box).  Kernel rows come from
 * the shared engine (kc_rows), into the cache or into a store of all n rows
 * that the caller keeps across the solves of a path; the gradient of the
 * inactive variables is rebuilt from the free variables' float kernel
 * values, the same numbers whichever holds them (reconstruct_gradient).
 *
 * The passes over the active set (selection and gradient update,
 * smo-select.c) run on contiguous chunks of it, in parallel when it is
 * large; each chunk's candidate is combined in chunk order with the same
 * tie rules, so the iterates are the same for any number of threads.
 *
 * All memory is kc_alloc'd on the calling thread (R_alloc, or a unit's
 * scratch inside kc_units): an interrupt, checked every few milliseconds of
 * work, frees it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <R_ext/Arith.h>
#include "kernclass.h"
#include "kernel.h"
#include "threads.h"
#include "units.h"
#include "smo.h"
#include "smo-internal.h"
#include "isa.h"

/* Interrupt checks by work done, about every 10^7 element operations (a few
 * milliseconds), not by iterations, whose cost grows with n. */
#define INTERRUPT_WORK 1e7
/* Hard margin (C = Inf): for any feasible a, (sum a)^2 / a'Qa is a lower
 * bound on 1 / margin^2 (minimise f(t a) over t >= 0 and compare with the
 * optimum).  When it shows a margin below this fraction of the data's radius
 * in feature space, the data are declared not separable: the dual is then
 * unbounded and the bound grows quadratically with the iterations. */
#define HARD_MARGIN_MIN_RELATIVE 1e-4


static void set_alpha(smo *s, int t, double value)
{
    s->alpha[t] = value;
    int up = s->y[t] == 1 ? !at_upper(s, t) : !at_lower(s, t);
    int down = s->y[t] == 1 ? !at_lower(s, t) : !at_upper(s, t);
    int second = s->nsets == 2 && s->y[t] == -1;
    s->moves[t] = (unsigned char) ((up ? MOVES_UP : 0) | (down ? MOVES_DOWN : 0) |
                                   (second ? SECOND_SET : 0));
    if (s->pack && s->pack->valid) s->pack->view.moves[s->pack->pos[t]] = s->moves[t];
}


/* Would variable t stay at its bound?  Then it leaves the active set.
 * Gmax1, Gmax2 per set. */
static int can_shrink(const smo *s, int t, const double *Gmax1, const double *Gmax2)
{
    int c = SET_OF(s->moves[t]);
    if (at_upper(s, t)) return s->y[t] == 1 ? -s->G[t] > Gmax1[c] : -s->G[t] > Gmax2[c];
    if (at_lower(s, t)) return s->y[t] == 1 ? s->G[t] > Gmax2[c] : s->G[t] > Gmax1[c];
    return 0;
}

/* The inactive t's gradient rebuilt, G_t = Gbar_t + p + sum over the free
 * j of y_t (a_j y_j) K_jt: the term of each free j added in index order, in
 * double, from the float value K_jt that the solver's rows hold (LIBSVM's
 * way: its reconstruction reads its float rows too).  The same numbers
 * whichever store holds the rows: a kept store (a path's, the class pairs'
 * blocks, a whole kernel) reads its rows; the LRU cache computes the free
 * points against the inactive ones as the same floats (kc_gram_float; a
 * kernel value is the same both ways round, K_jt = K_tj, for the points
 * a store holds), a block at a time, rather than evict the rows it keeps.
 * (Rebuilt from double kernel values, by an expansion, the gradient differed
 * from the store's in the last bits, and so did the iterates: a model that
 * depended on cachesize, hence on the memory available.)  One function adds
 * a free row's terms for both, so that they compile alike. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void add_free_row(double *G, const int *y, const int *inact, int ninact, double aj,
                         const float *K, int by_point)
{
    for (int u = 0; u < ninact; u++) {
        int t = inact[u];
        G[t] += y[t] * aj * K[by_point ? t : u];
    }
}

/* The LRU cache's blocks: up to REBUILD_INACTIVE inactive points (many row
 * blocks of tiles, for the threads) by as many free points as make
 * REBUILD_FLOATS floats (4 MB). */
#define REBUILD_INACTIVE 8192
#define REBUILD_FLOATS (1 << 20)

static void reconstruct_gradient(smo *s)
{
    int n = s->n, ninact = 0, nfree = 0;
    for (int t = 0; t < n; t++) {
        if (!s->is_active[t]) ninact++;
        if (!at_lower(s, t) && !at_upper(s, t)) nfree++;
    }
    if (ninact == 0) return;
    const void *vmax = kc_mark();  /* the scratch below is freed on return */
    int *inact = (int *) kc_alloc(ninact, sizeof(int));
    int *freei = (int *) kc_alloc(nfree + 1, sizeof(int));
    int a = 0, f = 0;
    for (int t = 0; t < n; t++) {
        if (!s->is_active[t]) {
            inact[a++] = t;
            s->G[t] = s->Gbar[t] + s->p;
        }
        if (!at_lower(s, t) && !at_upper(s, t)) freei[f++] = t;
    }
    if (s->cache.filled) {
        /* a kept store: the free variables' rows, most kept already */
        for (int q = 0; q < nfree; q++) {
            int j = freei[q];
            const float *Kj = kernel_row(s, j, NULL);
            add_free_row(s->G, s->y, inact, ninact, s->alpha[j] * s->y[j], Kj, 1);
        }
        kc_release(vmax);
        return;
    }
    /* the LRU cache: K(inactive, free) as floats, a block at a time
     * (column-major: a free point's values at the block's inactive points
     * together), the free points in order within each block of inactive ones */
    int ni_max = ninact < REBUILD_INACTIVE ? ninact : REBUILD_INACTIVE;
    int nf_max = REBUILD_FLOATS / ni_max;
    if (nf_max > nfree) nf_max = nfree;
    float *block = (float *) kc_alloc((size_t) ni_max * nf_max + 1, sizeof(float));
    for (int i0 = 0; i0 < ninact && nfree > 0; i0 += ni_max) {
        int ni = ninact - i0 < ni_max ? ninact - i0 : ni_max;
        const void *mark = kc_mark();
        kc_points pi = kc_points_subset(s->x, inact + i0, ni);
        for (int f0 = 0; f0 < nfree; f0 += nf_max) {
            int nf = nfree - f0 < nf_max ? nfree - f0 : nf_max;
            const void *mark_f = kc_mark();
            kc_points pf = kc_points_subset(s->x, freei + f0, nf);
            kc_gram_float(s->k, &pi, &pf, 0, block, s->nthreads);
            kc_release(mark_f);
            for (int q = 0; q < nf; q++) {
                int j = freei[f0 + q];
                add_free_row(s->G, s->y, inact + i0, ni, s->alpha[j] * s->y[j],
                             block + (size_t) q * ni, 0);
            }
        }
        kc_release(mark);
    }
    kc_release(vmax);
}

/* The dual objective 1/2 alpha'Q alpha + p sum alpha of the alpha returned.
 * With G = Q alpha + p it is 1/2 sum alpha_t (G_t + p), LIBSVM's way, where
 * each kernel value is at most 1 in size (rbf, laplacian, sigmoid): G's float
 * rows then round each term by at most 6e-8.  Other kernels (values of 1e6
 * made an objective from G 0.3% off) and kernel values from the user get it
 * in double from the support vectors, at O(nSV^2 p) (0.2 s of a 2 s fit at
 * n = 20,000 with rbf, which therefore takes the cheap way).  rho stays
 * LIBSVM's, from G, as the e1071 comparisons expect. */
static int kernel_values_bounded(const smo *s)
{
    return (s->x->src == KC_SRC_DENSE || s->x->src == KC_SRC_SPARSE) &&
           kc_kernel_is_bounded(s->k->type);
}

static double dual_objective(const smo *s)
{
    if (kernel_values_bounded(s)) {
        double obj = 0.0;
        for (int t = 0; t < s->n; t++) obj += s->alpha[t] * (s->G[t] + s->p);
        return obj / 2;
    }
    int n = s->n, nsv = 0;
    for (int t = 0; t < n; t++) if (s->alpha[t] > 0) nsv++;
    if (nsv == 0) return 0.0;
    const void *vmax = kc_mark();
    int *sv = (int *) kc_alloc(nsv, sizeof(int));
    double *w = (double *) kc_alloc(nsv, sizeof(double));
    double *out = (double *) kc_alloc(nsv, sizeof(double));
    int f = 0;
    for (int t = 0; t < n; t++) {
        if (!(s->alpha[t] > 0)) continue;
        sv[f] = t;
        w[f++] = s->alpha[t] * s->y[t];
    }
    kc_points ps = kc_points_subset(s->x, sv, nsv);
    ps.sqnorm = NULL;  /* recomputed from the subset's rows */
    kc_expansion(s->k, 1, &ps, &ps, w, 1, out, s->nthreads);
    double obj = 0.0;
    for (int u = 0; u < nsv; u++) obj += w[u] * out[u] / 2 + s->p * fabs(w[u]);
    kc_release(vmax);
    return obj;
}

/* The shrunk active set packed (struct smo_pack), after a shrink. */
static void pack_active(smo *s)
{
    struct smo_pack *pk = s->pack;
    if (!pk) return;
    smo *v = &pk->view;
    for (int u = 0; u < s->nactive; u++) {
        int t = s->active[u];
        v->G[u] = s->G[t];
        v->ysign[u] = s->ysign[t];
        v->QD[u] = s->QD[t];
        ((int *) v->y)[u] = s->y[t];
        v->moves[u] = s->moves[t];
        pk->pos[t] = u;
    }
    v->n = v->nactive = s->nactive;
    pk->src[0] = pk->src[1] = NULL;
    pk->valid = s->nactive < s->n;
}

/* The packing where it applies (see struct smo_pack), else NULL. */
static struct smo_pack *pack_init(const smo *s, const kc_smo_options *opt)
{
    /* KERNCLASS_SMO_PACK=0 turns it off (the tests compare the two) */
    const char *off = getenv("KERNCLASS_SMO_PACK");
    if (!opt->shrinking || s->nsets != 1 || s->cache.batch != 1 || !s->cache.filled ||
        !kc_isa.smo_scan_j || !kc_isa.smo_update_scan_i || (off && !strcmp(off, "0")))
        return NULL;
    int n = s->n;
    struct smo_pack *pk = (struct smo_pack *) kc_alloc(1, sizeof(struct smo_pack));
    memset(pk, 0, sizeof *pk);
    smo *v = &pk->view;
    v->nsets = 1;
    v->cache.batch = 1;
    v->G = (double *) kc_alloc(n, sizeof(double));
    v->ysign = (double *) kc_alloc(n, sizeof(double));
    v->QD = (double *) kc_alloc(n, sizeof(double));
    v->y = (int *) kc_alloc(n, sizeof(int));
    v->moves = (unsigned char *) kc_alloc(n, 1);
    pk->pos = (int *) kc_alloc(n, sizeof(int));
    pk->rows[0] = (float *) kc_alloc(n, sizeof(float));
    pk->rows[1] = (float *) kc_alloc(n, sizeof(float));
    return pk;
}

static void activate_all(smo *s)
{
    if (s->pack) s->pack->valid = 0;
    s->nactive = s->n;
    for (int t = 0; t < s->n; t++) { s->active[t] = t; s->is_active[t] = 1; }
}

static void shrink(smo *s, int *unshrunk, double eps)
{
    /* m(a) and -M(a) of each set */
    double Gmax1[2] = {-INFINITY, -INFINITY}, Gmax2[2] = {-INFINITY, -INFINITY};
    for (int u = 0; u < s->nactive; u++) {
        int t = s->active[u], c = SET_OF(s->moves[t]);
        if (s->y[t] == 1) {
            if (!at_upper(s, t) && -s->G[t] > Gmax1[c]) Gmax1[c] = -s->G[t];
            if (!at_lower(s, t) && s->G[t] > Gmax2[c]) Gmax2[c] = s->G[t];
        } else {
            if (!at_upper(s, t) && -s->G[t] > Gmax2[c]) Gmax2[c] = -s->G[t];
            if (!at_lower(s, t) && s->G[t] > Gmax1[c]) Gmax1[c] = s->G[t];
        }
    }
    double gap = Gmax1[0] + Gmax2[0];
    if (s->nsets == 2 && Gmax1[1] + Gmax2[1] > gap) gap = Gmax1[1] + Gmax2[1];
    if (!*unshrunk && gap <= eps * 10) {
        /* close to the end: bring everything back once, with exact gradients */
        *unshrunk = 1;
        reconstruct_gradient(s);
        activate_all(s);
    }
    /* from every variable, shrink only to at most half of them: a pass
     * over the list of more costs as much as one over all (which runs
     * vectorised, and reads no list; a shrunk set is packed for the same
     * passes, struct smo_pack, at the cost of copying the rows it reads
     * and its gradient back); the kernel rows are computed whole
     * either way (measured, AVX-512, one thread: a race of 5 x 5 cells at
     * n = 2,000 on a radial rule, the shared path's time 30% less at the
     * same iterations within 0.2%; the default grid screened at n = 3,000,
     * 11% less; the portable and AVX2 passes as fast as before).
     * The rule reads counts only: the iterates stay the same on every
     * instruction set. */
    if (s->nactive == s->n) {
        int stay = 0;
        for (int t = 0; t < s->n; t++) stay += !can_shrink(s, t, Gmax1, Gmax2);
        if (2 * (double) stay > s->n) return;
    }
    int kept = 0;
    for (int u = 0; u < s->nactive; u++) {
        int t = s->active[u];
        if (can_shrink(s, t, Gmax1, Gmax2)) s->is_active[t] = 0;
        else s->active[kept++] = t;
    }
    s->nactive = kept;
    pack_active(s);
}

/* Bias of one set: average of y_t G_t over its free variables, else the
 * middle of the feasible interval (as LIBSVM).  With one set this is rho,
 * the decision being sum - rho; see compute_rho for two. */
static double set_rho(const smo *s, int set)
{
    double ub = INFINITY, lb = -INFINITY, sum = 0.0;
    int nfree = 0;
    for (int t = 0; t < s->n; t++) {
        if (SET_OF(s->moves[t]) != set) continue;
        double yG = s->y[t] * s->G[t];
        if (at_upper(s, t)) {
            if (s->y[t] == -1) { if (yG < ub) ub = yG; } else if (yG > lb) lb = yG;
        } else if (at_lower(s, t)) {
            if (s->y[t] == 1) { if (yG < ub) ub = yG; } else if (yG > lb) lb = yG;
        } else {
            nfree++;
            sum += yG;
        }
    }
    if (nfree > 0) return sum / nfree;
    if (!R_FINITE(ub)) return R_FINITE(lb) ? lb : 0.0;
    if (!R_FINITE(lb)) return ub;
    return (ub + lb) / 2;
}

/* rho, and with two sets r: the classes' biases r1 (of +1) and r2 (of -1,
 * in LIBSVM's sign, -set_rho) give rho = (r1 - r2) / 2 and r = (r1 + r2) / 2,
 * the margin by which LIBSVM scales the nu-SVC solution. */
static double compute_rho(const smo *s, double *r)
{
    double r1 = set_rho(s, 0);
    if (s->nsets == 1) { *r = 1.0; return r1; }
    double minus_r2 = set_rho(s, 1);
    *r = (r1 - minus_r2) / 2;
    return (r1 + minus_r2) / 2;
}

/* The hard-margin certificate above; with C = Inf the shrunk variables are
 * all at a = 0, so the active set gives the sums exactly. */
static int margin_too_small(const smo *s, double radius2)
{
    double ea = 0.0, aqa = 0.0;
    for (int u = 0; u < s->nactive; u++) {
        int t = s->active[u];
        ea += s->alpha[t];
        aqa += s->alpha[t] * (s->G[t] + 1.0);
    }
    if (ea <= 0) return 0;
    double rel = HARD_MARGIN_MIN_RELATIVE;
    return aqa <= 0 || ea * ea / aqa * radius2 * rel * rel > 1.0;
}

/* The two-variable step on (i, j): the minimum of f along the line that
 * keeps y'a, clipped to the box [0, C_i] x [0, C_j] (as LIBSVM).  Kij =
 * k(x_i, x_j); the new values go to *ai, *aj. */
static void solve_pair(const smo *s, int i, int j, double Kij, double *ai, double *aj)
{
    double Ci = s->C[i], Cj = s->C[j], a_i = s->alpha[i], a_j = s->alpha[j];
    double quad = s->QD[i] + s->QD[j] - 2.0 * Kij;
    if (quad <= 0) quad = TAU;
    if (s->y[i] != s->y[j]) {
        double delta = (-s->G[i] - s->G[j]) / quad, diff = a_i - a_j;
        a_i += delta; a_j += delta;
        if (diff > 0) { if (a_j < 0) { a_j = 0; a_i = diff; } }
        else if (a_i < 0) { a_i = 0; a_j = -diff; }
        if (diff > Ci - Cj) { if (a_i > Ci) { a_i = Ci; a_j = Ci - diff; } }
        else if (a_j > Cj) { a_j = Cj; a_i = Cj + diff; }
    } else {
        double delta = (s->G[i] - s->G[j]) / quad, sum = a_i + a_j;
        a_i -= delta; a_j += delta;
        if (sum > Ci) { if (a_i > Ci) { a_i = Ci; a_j = sum - Ci; } }
        else if (a_j < 0) { a_j = 0; a_i = sum; }
        if (sum > Cj) { if (a_j > Cj) { a_j = Cj; a_i = sum - Cj; } }
        else if (a_i < 0) { a_i = 0; a_j = sum; }
    }
    *ai = a_i;
    *aj = a_j;
}

/* Rows computed at once by init_gradient. */
static void next_nonzero(const smo *s, int from, chunk_result *hint)
{
    hint->nnear = 0;
    for (int t = from; t < s->n && hint->nnear < BATCH; t++)
        if (!at_lower(s, t)) hint->near[hint->nnear++] = t;
}

/* G = p + Q a and Gbar for a starting a that is not 0 (the feasible start of
 * the nu problems, or a warm start along a path of costs), from the kernel
 * rows of its non-zero a_t in index order, as LIBSVM; rows come in batches,
 * with an interrupt check every few milliseconds of work. */
static void init_gradient(smo *s)
{
    int n = s->n;
    chunk_result hint;
    double since_check = 0;
    for (int i = 0; i < n; i++) {
        if (at_lower(s, i)) continue;
        long before = s->cache.computed;
        next_nonzero(s, i + 1, &hint);
        const float *Ki = kernel_row(s, i, &hint);
        /* (y as doubles: the same products) */
        kc_isa.row_update(s->G, s->ysign, Ki, s->alpha[i] * s->y[i], n);
        if (at_upper(s, i)) kc_isa.row_update(s->Gbar, s->ysign, Ki, s->C[i] * s->y[i], n);
        since_check += 3.0 * n + (double) (s->cache.computed - before) * n * (s->x->p + 10);
        if (since_check >= INTERRUPT_WORK) {
            since_check = 0;
            kc_check_interrupt();
        }
    }
}

/* Gbar holds the part of G due to the variables at their upper bound: when
 * t reaches or leaves its bound, its column Q_t (from row Kt) is added or
 * taken away. */
static void update_gbar(smo *s, int t, int was_upper, const float *Kt)
{
    if (was_upper == at_upper(s, t)) return;
    kc_isa.row_update(s->Gbar, s->ysign, Kt, (was_upper ? -s->C[t] : s->C[t]) * s->y[t], s->n);
}

void kc_smo(const kc_kernel *k, const kc_points *x_in, const int *y, const double *C,
            const kc_smo_options *opt, kc_smo_result *res)
{
    if (x_in->n < 2 || x_in->n > KC_MAX_ROWS)
        kc_internal("the SMO takes 2 to %d rows", KC_MAX_ROWS);
    const double *alpha0 = opt->alpha0;
    float *store = opt->store;
    int nthreads = opt->nthreads;
    double eps = opt->eps;
    /* every kernel row is computed against all the points: packed once
     * (unless a store holds them all already) */
    kc_points xp = kc_prepare_points(k, x_in, !(store && opt->src) &&
                                     !kc_store_whole(store ? opt->filled : NULL, (int) x_in->n));
    const kc_points *x = &xp;
    int n = (int) x->n;
    smo s;
    if (opt->nsets != 1 && opt->nsets != 2) kc_internal("the SMO takes 1 or 2 sets");
    s.n = n; s.y = y; s.C = C; s.k = k; s.x = x; s.nthreads = nthreads;
    s.p = opt->linear; s.nsets = opt->nsets;
    s.alpha = res->alpha;
    s.G = (double *) kc_alloc(n, sizeof(double));
    s.Gbar = (double *) kc_alloc(n, sizeof(double));
    s.QD = (double *) kc_alloc(n, sizeof(double));
    s.ysign = (double *) kc_alloc(n, sizeof(double));
    s.moves = (unsigned char *) kc_alloc(n, 1);
    s.active = (int *) kc_alloc(n, sizeof(int));
    s.is_active = (char *) kc_alloc(n, sizeof(char));
    kc_cache_init(&s.cache, k, x, opt->cache_mb, nthreads, store, opt->filled);
    if (store && opt->src) {
        /* a row copied costs as little as a lookup: one at a time, no
         * runners-up (the selection's fast passes) */
        s.cache.src = opt->src;
        s.cache.src_at = opt->src_at;
        s.cache.src_ld = opt->src_ld;
        s.cache.batch = 1;
    }
    if (store && opt->whole && !s.cache.dense && !opt->src) kc_cache_fill_whole(&s.cache);
    kc_tuner_init(&s.pass_tuner[SELECT_PASS], nthreads);
    kc_tuner_init(&s.pass_tuner[UPDATE_PASS], nthreads);
    s.pack = NULL;

    /* the prepared points' squared norms where they have them (the same
     * sums): with every kernel row stored the points are read for nothing
     * else (svm-pairs.c gives them so, without their rows) */
    if (x->src == KC_SRC_DENSE && x->sqnorm)
        for (int t = 0; t < n; t++) s.QD[t] = x->sqnorm[t];
    else
        kc_row_sqnorms(x, s.QD);
    for (int t = 0; t < n; t++) s.QD[t] = kc_self_kernel(k, s.QD[t]);
    for (int t = 0; t < n; t++) {
        s.ysign[t] = y[t];
        set_alpha(&s, t, alpha0 ? alpha0[t] : 0.0);
        s.G[t] = opt->linear;
        s.Gbar[t] = 0.0;
    }
    activate_all(&s);
    if (alpha0) init_gradient(&s);
    s.pack = pack_init(&s, opt);

    long iter = 0;
    int unshrunk = 0;
    kc_smo_status status = KC_SMO_CONVERGED;
    s.runners_j.nnear = 0;
    chunk_result pending;  /* the first pass of the next selection */
    int pending_valid = 0;
    int shrink_every = n < 1000 ? n : 1000, counter = shrink_every;
    double gap = 0.0;
    int hard = 0;
    double radius2 = 0.0;
    for (int t = 0; t < n; t++) {
        if (!R_FINITE(C[t])) hard = 1;
        if (s.QD[t] > radius2) radius2 = s.QD[t];
    }
    double since_check = 0;  /* work since the last interrupt check */
    long computed_before = 0;
    for (;;) {
        since_check += 3.0 * s.nactive +
                       (double) (s.cache.computed - computed_before) * n * (x->p + 10);
        computed_before = s.cache.computed;
        if (since_check >= INTERRUPT_WORK) {
            since_check = 0;
            kc_check_interrupt();
        }
        if (hard && iter % 1000 == 0 && iter > 0 && margin_too_small(&s, radius2)) {
            status = KC_SMO_UNBOUNDED;
            break;
        }
        if (opt->shrinking && --counter == 0) {
            counter = shrink_every;
            shrink(&s, &unshrunk, eps);
            pending_valid = 0;
        }
        int i, j;
        gap = kc_smo_select_pair(&s, &pending, pending_valid, &i, &j);
        if (j < 0 || gap < eps) {
            if (s.nactive == n) break;
            /* optimal on the active set: check everything */
            reconstruct_gradient(&s);
            activate_all(&s);
            counter = 1;
            gap = kc_smo_select_pair(&s, &pending, 0, &i, &j);
            if (j < 0 || gap < eps) break;
        }
        if (iter >= opt->max_iter) { status = KC_SMO_MAX_ITER; break; }
        iter++;

        const float *Ki = kernel_row(&s, i, NULL);
        const float *Kj = kernel_row(&s, j, &s.runners_j);
        int upper_i = at_upper(&s, i), upper_j = at_upper(&s, j);
        double ai, aj;
        solve_pair(&s, i, j, Ki[j], &ai, &aj);
        double dai = ai - s.alpha[i], daj = aj - s.alpha[j];
        set_alpha(&s, i, ai);
        set_alpha(&s, j, aj);

        /* gradient of the active variables: G_t += Q_ti dai + Q_tj daj */
        kc_smo_update_gradient(&s, y[i] * dai, Ki, y[j] * daj, Kj, &pending);
        pending_valid = 1;
        update_gbar(&s, i, upper_i, Ki);
        update_gbar(&s, j, upper_j, Kj);
    }

    if (s.nactive < n) {
        reconstruct_gradient(&s);
        activate_all(&s);
    }
    res->objective = dual_objective(&s);
    res->rho = compute_rho(&s, &res->r);
    res->iterations = iter;
    res->status = status;
    int wi, wj;
    res->gap = kc_smo_select_pair(&s, &pending, 0, &wi, &wj);
    res->rows_computed = s.cache.computed;
}
