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
 * kernel rows stored as float (as LIBSVM).  C_i may be +Inf (hard margin),
 * a_0 any feasible start (LIBSVM's, for the nu problems; along a path of
 * costs, the last solution moved into the new box).  Kernel rows come from
 * the shared engine (kc_rows), into the cache or into a store of all n rows
 * that the caller keeps across the solves of a path; the gradient of the
 * inactive variables is rebuilt with one tiled kernel expansion
 * (kc_expansion), or from the stored rows.
 *
 * The passes over the active set (selection and gradient update) run on
 * contiguous chunks of it, in parallel when it is large; each chunk's
 * candidate is combined in chunk order with the same tie rules, so the
 * iterates are the same for any number of threads.
 *
 * All memory is kc_alloc'd on the calling thread (R_alloc, or a unit's
 * scratch inside kc_units): an interrupt, checked every few milliseconds of
 * work, frees it.
 */
#include <math.h>
#include <float.h>
#include <string.h>
#include <stdint.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <R_ext/Arith.h>
#include <R_ext/Error.h>
#include <R_ext/Memory.h>
#include <R_ext/Utils.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "kernclass.h"
#include "isa.h"

#define TAU KC_TAU
/* Interrupt checks by work done, about every 10^7 element operations (a few
 * milliseconds), not by iterations, whose cost grows with n. */
#define INTERRUPT_WORK 1e7
/* Hard margin (C = Inf): for any feasible a, (sum a)^2 / a'Qa is a lower
 * bound on 1 / margin^2 (minimise f(t a) over t >= 0 and compare with the
 * optimum).  When it shows a margin below this fraction of the data's radius
 * in feature space, the data are declared not separable: the dual is then
 * unbounded and the bound grows quadratically with the iterations. */
#define HARD_MARGIN_MIN_RELATIVE 1e-4

/* ---- kernel row cache: LRU list of float rows of length n ---------------- */

/* Rows missing from the cache are computed in batches of up to BATCH rows
 * (the one asked for and the likeliest next ones not cached, see
 * kernel_row), as one tile per column block: a pass over the data serves
 * several rows.  Larger batches compute more rows that are never used
 * (measured, RBF, n = 20,000, d = 20, with the most violating variables as
 * the guesses: batch 16 computed 20,624 rows, batch 4 12,072, one at a time
 * 9,425; training 3.6 s, 3.4 s, 6.0 s; with the selection's runners-up as
 * the guesses, batch 4 computes 10,708 rows). */
#define BATCH 4

typedef struct {
    const kc_kernel *k;
    const kc_points *x;
    int n, slots, used, batch;
    float *rows;          /* slots x n */
    int *slot_of;         /* row -> slot, or -1 */
    int *row_in;          /* slot -> row */
    int *prev, *next;     /* LRU list of slots: head = most recent */
    int head, tail;
    double *work;         /* the engine's scratch space, allocated once */
    kc_tuner tuner;       /* one thread or all for a batch of rows */
    long computed;        /* rows computed */
    unsigned char *filled; /* a kept store (row i in slot i, never evicted): row i
                            * computed; NULL for the LRU cache */
    int dense;            /* a kept store holding every row: nothing to compute */
} row_cache;

/* The cache is written row by row as it fills: with 4 KiB pages every 4 KiB
 * costs a page fault (measured: 40% of the training time at n = 20,000). */
void kc_advise_huge_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    size_t page = (size_t) 2 << 20;
    uintptr_t a = ((uintptr_t) p + page - 1) & ~(uintptr_t) (page - 1);
    uintptr_t e = ((uintptr_t) p + bytes) & ~(uintptr_t) (page - 1);
    if (e > a) madvise((void *) a, e - a, MADV_HUGEPAGE);
#else
    (void) p; (void) bytes;
#endif
}

/* Whether a kept store holds every row. */
static int store_whole(const unsigned char *filled, int n)
{
    if (!filled) return 0;
    for (int i = 0; i < n; i++) if (!filled[i]) return 0;
    return 1;
}

/* store: NULL for an LRU cache of megabytes; else room for all n rows
 * (n x n floats, row i at row i) and filled (n flags) that outlive this
 * solve, so that solves on the same points and kernel (a path of costs)
 * share the rows computed by any of them. */
static void cache_init(row_cache *c, const kc_kernel *k, const kc_points *x,
                       double megabytes, int nthreads, float *store, unsigned char *filled)
{
    int n = (int) x->n;
    double fit = megabytes * 1048576.0 / ((double) n * sizeof(float));
    c->slots = store ? n : (fit < 2 ? 2 : (fit > n ? n : (int) fit));
    c->filled = store ? filled : NULL;
    c->dense = store_whole(c->filled, n);
    /* Batches pay only when the cache holds most rows; in a small cache the
     * extra rows evict ones still needed (measured: n = 20,000, 200 MB, 8x
     * more rows computed).  A batch never evicts the row fetched before it.
     * With every row kept there is nothing to fetch. */
    c->batch = 2 * (double) c->slots < n ? 1 : (c->slots / 2 < BATCH ? c->slots / 2 : BATCH);
    if (c->batch < 1 || c->dense) c->batch = 1;
    c->k = k; c->x = x; c->n = n; c->used = 0;
    if (store) {
        c->rows = store;
    } else {
        c->rows = (float *) kc_alloc((size_t) c->slots * n, sizeof(float));
        kc_advise_huge_pages(c->rows, (size_t) c->slots * n * sizeof(float));
    }
    c->slot_of = (int *) kc_alloc(n, sizeof(int));
    c->row_in = (int *) kc_alloc(c->slots, sizeof(int));
    c->prev = (int *) kc_alloc(c->slots, sizeof(int));
    c->next = (int *) kc_alloc(c->slots, sizeof(int));
    c->work = c->dense ? NULL : (double *) kc_alloc(kc_rows_work_size(x, nthreads), sizeof(double));
    for (int i = 0; i < n; i++) c->slot_of[i] = store && filled[i] ? i : -1;
    c->head = c->tail = -1;
    c->computed = 0;
    kc_tuner_init(&c->tuner, nthreads);
}

/* Every row missing from a kept store, KC_TILE at a time, on all threads. */
static void cache_fill_whole(row_cache *c, int nthreads)
{
    int n = c->n, rows[KC_TILE];
    float *dst[KC_TILE];
    int nr = 0;
    for (int i = 0; i <= n; i++) {
        if (i < n && c->filled[i]) continue;
        if (i < n) {
            rows[nr] = i;
            dst[nr++] = c->rows + (size_t) i * n;
        }
        if (nr == KC_TILE || (i == n && nr > 0)) {
            kc_rows(c->k, c->x, rows, nr, dst, nthreads, c->work);
            for (int r = 0; r < nr; r++) {
                c->filled[rows[r]] = 1;
                c->slot_of[rows[r]] = rows[r];
            }
            c->computed += nr;
            nr = 0;
            kc_check_interrupt();
        }
    }
    c->dense = 1;
    c->batch = 1;
}

static void lru_unlink(row_cache *c, int s)
{
    if (c->prev[s] >= 0) c->next[c->prev[s]] = c->next[s]; else c->head = c->next[s];
    if (c->next[s] >= 0) c->prev[c->next[s]] = c->prev[s]; else c->tail = c->prev[s];
}

static void lru_push_front(row_cache *c, int s)
{
    c->prev[s] = -1;
    c->next[s] = c->head;
    if (c->head >= 0) c->prev[c->head] = s;
    c->head = s;
    if (c->tail < 0) c->tail = s;
}

/* Below this much work a batch of rows runs on one thread without asking
 * the tuner (a parallel region costs microseconds). */
#define ROWS_MIN_WORK 1e5

/* Compute rows[0..nr) (none cached) into the cache, rows[0] last so that it
 * is the most recent; the engine writes them straight into their slots. */
static void cache_fill(row_cache *c, const int *rows, int nr)
{
    float *dst[BATCH];
    for (int r = nr - 1; r >= 0; r--) {
        int s;
        if (c->filled) {  /* a kept store: row i in slot i, no eviction */
            s = rows[r];
            dst[r] = c->rows + (size_t) s * c->n;
            c->slot_of[s] = s;
            c->filled[s] = 1;
            continue;
        }
        if (c->used < c->slots) {
            s = c->used++;
        } else {
            s = c->tail;
            lru_unlink(c, s);
            c->slot_of[c->row_in[s]] = -1;
        }
        dst[r] = c->rows + (size_t) s * c->n;
        c->slot_of[rows[r]] = s;
        c->row_in[s] = rows[r];
        lru_push_front(c, s);
    }
    double work = (double) nr * c->n * (c->x->p + 10);
    int nt = work < ROWS_MIN_WORK ? 1 : kc_tuner_start(&c->tuner, work);
    kc_rows(c->k, c->x, rows, nr, dst, nt, c->work);
    kc_tuner_stop(&c->tuner);
    c->computed += nr;
}

/* ---- the solver ---------------------------------------------------------- */

/* What a pass over (a chunk of) the active set finds; [c] is per set of
 * variables (one set, or the two classes of a nu problem). */
typedef struct {
    double gmax[2];  /* pass i: max of -yG over the variables that may move up (y-wise) */
    int i[2];
    double best;     /* pass j: the smallest objective decrease, and its j */
    int j;
    double gmax2[2];
    /* pass j: the best candidates whose rows are not cached, best first
     * (smaller objective; on ties the later position, as for j) */
    int near[BATCH], near_pos[BATCH], nnear;
    double near_obj[BATCH];
} chunk_result;


typedef struct {
    int n;
    const int *y;         /* +1 / -1 */
    const double *C;      /* upper bounds, may be +Inf */
    double p;             /* the linear term: -1 (C-SVC) or 0 (nu problems) */
    int nsets;            /* 1, or 2 for nu-SVC: pairs within a class */
    double *alpha, *G, *Gbar, *QD;
    double *ysign;        /* y as +1.0 / -1.0 */
    unsigned char *moves; /* MOVES_UP | MOVES_DOWN | the set << 2, kept in step with alpha */
    int *active;          /* the active set, as a list of indices */
    int nactive;
    char *is_active;
    row_cache cache;
    chunk_result runners_j;  /* the last selection's runners-up for j, uncached */
    const kc_kernel *k;
    const kc_points *x;
    int nthreads;
    kc_tuner pass_tuner[2];  /* one thread or all: the selection's pass, the update's */
} smo;

static int at_upper(const smo *s, int t) { return s->alpha[t] >= s->C[t]; }
static int at_lower(const smo *s, int t) { return s->alpha[t] <= 0.0; }

/* Which ways y_t alpha_t may move (the index sets I_up and I_low of Keerthi
 * et al.), one byte per variable so that the scans read neither alpha nor C;
 * the byte also holds the variable's set (SET_OF: 0, or 1 for the negative
 * class of a nu-SVC). */
enum { MOVES_UP = KC_MOVES_UP, MOVES_DOWN = KC_MOVES_DOWN, SECOND_SET = 4 };
#define SET_OF(m) ((m) >> 2)

static void set_alpha(smo *s, int t, double value)
{
    s->alpha[t] = value;
    int up = s->y[t] == 1 ? !at_upper(s, t) : !at_lower(s, t);
    int down = s->y[t] == 1 ? !at_lower(s, t) : !at_upper(s, t);
    int second = s->nsets == 2 && s->y[t] == -1;
    s->moves[t] = (unsigned char) ((up ? MOVES_UP : 0) | (down ? MOVES_DOWN : 0) |
                                   (second ? SECOND_SET : 0));
}

/* Row i of the kernel matrix.  On a miss, the batch is filled with rows the
 * next iterations are likely to ask for and that are not cached: hint, the
 * runners-up of the selection that chose i (tracked in its pass, so no
 * extra pass is needed).  A row stays valid through the next call too: a
 * batch evicts at most half the slots, never the most recent. */
static const float *kernel_row(smo *s, int i, const chunk_result *hint)
{
    row_cache *c = &s->cache;
    int slot = c->slot_of[i];
    if (slot >= 0) {
        if (!c->filled) {
            lru_unlink(c, slot);
            lru_push_front(c, slot);
        }
        return c->rows + (size_t) slot * c->n;
    }
    int batch[BATCH], nb = 1;
    batch[0] = i;
    for (int h = 0; hint && h < hint->nnear && nb < c->batch; h++) {
        int t = hint->near[h];
        if (t != i && c->slot_of[t] < 0) batch[nb++] = t;
    }
    cache_fill(c, batch, nb);
    return c->rows + (size_t) c->slot_of[i] * c->n;
}

/* ---- passes over the active set, in chunks ------------------------------ */

/* Active sets smaller than this are scanned by one thread (a parallel
 * region costs about a microsecond on an idle machine); larger ones on as
 * many as the tuner finds faster. */
#define PARALLEL_MIN_ACTIVE 1024
#define MAX_CHUNKS 64


/* Inserts candidate t (position u, objective obj) into r's runner-up list
 * of at most k, if it belongs there. */
static void add_near(chunk_result *r, int k, int t, int u, double obj)
{
    int pos;
    if (r->nnear < k) {
        pos = r->nnear++;
    } else {
        pos = k - 1;
        if (obj > r->near_obj[pos] || (obj == r->near_obj[pos] && u < r->near_pos[pos])) return;
    }
    while (pos > 0 && (obj < r->near_obj[pos - 1] ||
                       (obj == r->near_obj[pos - 1] && u > r->near_pos[pos - 1]))) {
        r->near[pos] = r->near[pos - 1];
        r->near_obj[pos] = r->near_obj[pos - 1];
        r->near_pos[pos] = r->near_pos[pos - 1];
        pos--;
    }
    r->near[pos] = t;
    r->near_obj[pos] = obj;
    r->near_pos[pos] = u;
}

/* Offers candidate t to r's runner-up list if its row is not cached; the
 * cheap comparison first, the cache lookup only for the few that pass. */
static inline void offer_near(const smo *s, chunk_result *r, int t, int u, double obj)
{
    int k = s->cache.batch;
    if (k > 1 && (r->nnear < k || obj <= r->near_obj[k - 1]) && s->cache.slot_of[t] < 0)
        add_near(r, k, t, u, obj);
}

/* The runner-up lists of the chunks merged into out's, by the same order. */
static void combine_near(const chunk_result *r, int nc, int k, chunk_result *out)
{
    out->nnear = 0;
    for (int c = 0; c < nc && k > 1; c++)
        for (int h = 0; h < r[c].nnear; h++)
            add_near(out, k, r[c].near[h], r[c].near_pos[h], r[c].near_obj[h]);
}

enum { SELECT_PASS, UPDATE_PASS };

/* The chunks of a pass, one per thread; kc_tuner_stop(&s->pass_tuner[kind])
 * after the pass. */
static int start_pass(smo *s, int kind)
{
    if (s->nactive < PARALLEL_MIN_ACTIVE) return 1;
    int c = kc_tuner_start(&s->pass_tuner[kind], s->nactive);
    return c > MAX_CHUNKS ? MAX_CHUNKS : c;
}

static void chunk_bounds(const smo *s, int c, int nc, int *u0, int *u1)
{
    *u0 = (int) ((long long) s->nactive * c / nc);
    *u1 = (int) ((long long) s->nactive * (c + 1) / nc);
}

/* The scans below take the number of sets as a constant (1 or 2, from the
 * SETS dispatch), so that with one set they compile to the plain C-SVC loop
 * (measured: 9% more instructions when the set was read per variable). */
#if defined(__GNUC__)
#define SPECIALISED static inline __attribute__((always_inline))
#else
#define SPECIALISED static inline
#endif
#define SET_IN(m, nsets) ((nsets) == 2 ? SET_OF(m) : 0)
#define SETS(s, call_with_nsets)                                             \
    do {                                                                     \
        if ((s)->nsets == 2) { const int nsets_ = 2; call_with_nsets; }      \
        else { const int nsets_ = 1; call_with_nsets; }                      \
    } while (0)
/* And whether the active set is every variable (then active[u] = u: the
 * passes run over the arrays directly, without the index list; the same
 * variables in the same order). */
#define SETS_FULL(s, call_with_nsets_full)                                   \
    do {                                                                     \
        if ((s)->nactive == (s)->n) {                                        \
            const int full_ = 1; SETS(s, call_with_nsets_full);              \
        } else {                                                             \
            const int full_ = 0; SETS(s, call_with_nsets_full);              \
        }                                                                    \
    } while (0)

/* The first index of the pair, one per set: the maximal violation from
 * below (">=": of equal candidates the last wins, as in LIBSVM).  One
 * variable of that pass: t (at position u) competes for its set's i and for
 * r's runners-up (by -v: larger violations first, the later on ties). */
SPECIALISED void consider_i(const smo *s, chunk_result *r, int t, int u, int nsets)
{
    unsigned char m = s->moves[t];
    if (!(m & MOVES_UP)) return;
    int c = SET_IN(m, nsets);
    double v = -s->ysign[t] * s->G[t];
    if (v >= r->gmax[c]) { r->gmax[c] = v; r->i[c] = t; }
    offer_near(s, r, t, u, -v);
}

/* The same for the fused pass below, on the pass's local copies (held in
 * registers: stores through r could alias the fields of s, which the
 * compiler would then reload for every variable). */
#define CONSIDER_I(t, u)                                                     \
    do {                                                                     \
        unsigned char m_ = mv[t];                                            \
        if (m_ & MOVES_UP) {                                                 \
            int c_ = SET_IN(m_, nsets);                                      \
            double v_ = -ys[t] * G[t];                                       \
            if (v_ >= gmax[c_]) { gmax[c_] = v_; best_i[c_] = t; }           \
            if (near) offer_near(s, r, t, u, -v_);                           \
        }                                                                    \
    } while (0)

static void start_i(chunk_result *r)
{
    r->gmax[0] = r->gmax[1] = -INFINITY;
    r->i[0] = r->i[1] = -1;
    r->nnear = 0;
}

SPECIALISED void scan_i_sets(const smo *s, int u0, int u1, chunk_result *r, int nsets)
{
    start_i(r);
    for (int u = u0; u < u1; u++) consider_i(s, r, s->active[u], u, nsets);
}

static void scan_i(const smo *s, int u0, int u1, chunk_result *r)
{
    SETS(s, scan_i_sets(s, u0, u1, r, nsets_));
}

/* Chunks in order; a later chunk wins ties, as the later index would. */
static void combine_i(const chunk_result *r, int nc, int k, chunk_result *out)
{
    start_i(out);
    for (int c = 0; c < nc; c++)
        for (int q = 0; q < 2; q++)
            if (r[c].i[q] >= 0 && r[c].gmax[q] >= out->gmax[q]) {
                out->gmax[q] = r[c].gmax[q];
                out->i[q] = r[c].i[q];
            }
    combine_near(r, nc, k, out);
}

/* The second index given the first of each set (i[c], its kernel row K[c],
 * its violation Gmax[c]): the largest decrease of the objective under the
 * second-order model (Fan, Chen and Lin 2005), each t paired with the i of
 * its own set.  A set without an i has Gmax = -Inf, so its t never pair. */
SPECIALISED void scan_j_sets(const smo *s, int u0, int u1, const int *i,
                             const float *const *K, const double *Gmax, chunk_result *r,
                             int nsets, int full)
{
    /* local copies, which the compiler keeps in registers (no aliasing) */
    const double gm[2] = {Gmax[0], Gmax[1]};
    const int ic[2] = {i[0], i[1]};
    const float *Kc[2] = {K[0], K[1]};
    double Gmax2[2] = {-INFINITY, -INFINITY}, best = INFINITY;
    int j = -1;
    const double *G = s->G, *ys = s->ysign, *QD = s->QD;
    const double QDi[2] = {ic[0] >= 0 ? QD[ic[0]] : 0, ic[1] >= 0 ? QD[ic[1]] : 0};
    const int *act = s->active, near = s->cache.batch > 1;
    const unsigned char *mv = s->moves;
    r->nnear = 0;
    int u = u0;
    if (nsets == 1 && full && !near && kc_isa.smo_scan_j) {
        /* whole eights at a time; the rest below */
        u = u0 + (u1 - u0) / 8 * 8;
        kc_isa.smo_scan_j(G, ys, QD, mv, u0, u, gm[0], QDi[0], Kc[0], &best, &j, &Gmax2[0]);
    }
    for (; u < u1; u++) {
        int t = full ? u : act[u];
        unsigned char m = mv[t];
        if (!(m & MOVES_DOWN)) continue;
        int c = SET_IN(m, nsets);
        double yG = ys[t] * G[t];
        Gmax2[c] = yG > Gmax2[c] ? yG : Gmax2[c];
        double grad_diff = gm[c] + yG;
        if (grad_diff > 0) {
            /* curvature along the pair: ||phi(x_i) - phi(x_t)||^2 */
            double quad = QDi[c] + QD[t] - 2.0 * Kc[c][t];
            double obj = -grad_diff * grad_diff / (quad > 0 ? quad : TAU);
            if (obj <= best) { best = obj; j = t; }
            if (near) offer_near(s, r, t, u, obj);
        }
    }
    r->best = best;
    r->j = j;
    r->gmax2[0] = Gmax2[0];
    r->gmax2[1] = Gmax2[1];
}

static void scan_j(const smo *s, int u0, int u1, const int *i, const float *const *K,
                   const double *Gmax, chunk_result *r)
{
    SETS_FULL(s, scan_j_sets(s, u0, u1, i, K, Gmax, r, nsets_, full_));
}

/* G_t += y_t (ci K_it + cj K_jt) on a chunk, each t then considered for i
 * (the next iteration's first pass, fused into this one). */
SPECIALISED void update_scan_i_sets(smo *s, int u0, int u1, double ci, const float *Ki,
                                    double cj, const float *Kj, chunk_result *r, int nsets,
                                    int full)
{
    start_i(r);
    double *G = s->G, gmax[2] = {-INFINITY, -INFINITY};
    const double *ys = s->ysign;
    const int *y = s->y, *act = s->active, near = s->cache.batch > 1;
    const unsigned char *mv = s->moves;
    int best_i[2] = {-1, -1};
    int u = u0;
    if (nsets == 1 && full && !near && kc_isa.smo_update_scan_i) {
        /* whole eights at a time; the rest below */
        u = u0 + (u1 - u0) / 8 * 8;
        kc_isa.smo_update_scan_i(G, ys, mv, u0, u, ci, Ki, cj, Kj, &gmax[0], &best_i[0]);
    }
    for (; u < u1; u++) {
        int t = full ? u : act[u];
        G[t] += y[t] * (ci * Ki[t] + cj * Kj[t]);
        CONSIDER_I(t, u);
    }
    for (int q = 0; q < 2; q++) { r->gmax[q] = gmax[q]; r->i[q] = best_i[q]; }
}

static void update_scan_i(smo *s, int u0, int u1, double ci, const float *Ki,
                          double cj, const float *Kj, chunk_result *r)
{
    SETS_FULL(s, update_scan_i_sets(s, u0, u1, ci, Ki, cj, Kj, r, nsets_, full_));
}

/* Runs body(c) for the chunks c = 0..nc-1, in parallel when nc > 1; one
 * chunk runs directly: a parallel region on one thread still goes through
 * the OpenMP runtime, twice per iteration (measured, one thread, n = 5,000:
 * 15% of a fit's CPU time at cost 100, half of it at cost 1). */
#define FOR_CHUNKS(s, nc, u0, u1, body)                                      \
    do {                                                                     \
        if ((nc) == 1) {                                                     \
            const int c_ = 0, u0 = 0, u1 = (s)->nactive;                     \
            body;                                                            \
            break;                                                           \
        }                                                                    \
        _Pragma("omp parallel for num_threads(nc) schedule(static)")        \
        for (int c_ = 0; c_ < (nc); c_++) {                                  \
            int u0, u1;                                                      \
            chunk_bounds((s), c_, (nc), &u0, &u1);                           \
            body;                                                            \
        }                                                                    \
    } while (0)

/* Second-order working-set selection.  Returns the maximal KKT violation
 * m(a) - M(a) over the active set (the larger of the two sets'); i, j = -1
 * when none.  *pending holds the first pass's result when the last gradient
 * update computed it (valid = 1). */
static double select_pair(smo *s, chunk_result *pending, int valid, int *wi, int *wj)
{
    chunk_result r[MAX_CHUNKS], first;
    int nc, k = s->cache.batch;
    if (!valid) {
        nc = start_pass(s, SELECT_PASS);
        FOR_CHUNKS(s, nc, u0, u1, scan_i(s, u0, u1, &r[c_]));
        kc_tuner_stop(&s->pass_tuner[SELECT_PASS]);
        combine_i(r, nc, k, &first);
        pending = &first;
    }
    double Gmax[2] = {pending->gmax[0], pending->gmax[1]};
    int i[2] = {pending->i[0], pending->i[1]};
    if (i[0] < 0 && i[1] < 0) { *wi = *wj = -1; return 0.0; }
    /* a row stays valid through the next kernel_row call: both can be used */
    const float *K[2] = {NULL, NULL};
    for (int q = 0; q < s->nsets; q++) if (i[q] >= 0) K[q] = kernel_row(s, i[q], pending);
    nc = start_pass(s, SELECT_PASS);
    FOR_CHUNKS(s, nc, u0, u1, scan_j(s, u0, u1, i, K, Gmax, &r[c_]));
    kc_tuner_stop(&s->pass_tuner[SELECT_PASS]);
    combine_near(r, nc, k, &s->runners_j);
    double best = INFINITY, Gmax2[2] = {-INFINITY, -INFINITY};
    int j = -1;
    for (int c = 0; c < nc; c++) {
        for (int q = 0; q < 2; q++) if (r[c].gmax2[q] > Gmax2[q]) Gmax2[q] = r[c].gmax2[q];
        if (r[c].j >= 0 && r[c].best <= best) { best = r[c].best; j = r[c].j; }
    }
    *wi = j >= 0 ? i[SET_OF(s->moves[j])] : -1;
    *wj = j;
    double gap = Gmax[0] + Gmax2[0];
    if (s->nsets == 2 && Gmax[1] + Gmax2[1] > gap) gap = Gmax[1] + Gmax2[1];
    return gap;
}

/* The gradient update after a step, with the next first pass fused in. */
static void update_gradient(smo *s, double ci, const float *Ki, double cj, const float *Kj,
                            chunk_result *next)
{
    chunk_result r[MAX_CHUNKS];
    int nc = start_pass(s, UPDATE_PASS);
    FOR_CHUNKS(s, nc, u0, u1, update_scan_i(s, u0, u1, ci, Ki, cj, Kj, &r[c_]));
    kc_tuner_stop(&s->pass_tuner[UPDATE_PASS]);
    combine_i(r, nc, s->cache.batch, next);
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

/* G = Gbar + p + sum over free j of alpha_j Q_tj, for the inactive t. */
static void reconstruct_gradient(smo *s)
{
    int n = s->n, ninact = 0, nfree = 0;
    for (int t = 0; t < n; t++) {
        if (!s->is_active[t]) ninact++;
        if (!at_lower(s, t) && !at_upper(s, t)) nfree++;
    }
    if (ninact == 0) return;
    if (s->cache.filled) {
        /* a kept store (a path of costs): the free variables' rows, most
         * kept already, instead of a kernel expansion */
        for (int t = 0; t < n; t++) if (!s->is_active[t]) s->G[t] = s->Gbar[t] + s->p;
        for (int j = 0; j < n; j++) {
            if (at_lower(s, j) || at_upper(s, j)) continue;
            const float *Kj = kernel_row(s, j, NULL);
            double aj = s->alpha[j] * s->y[j];
            for (int t = 0; t < n; t++)
                if (!s->is_active[t]) s->G[t] += s->y[t] * aj * Kj[t];
        }
        return;
    }
    const void *vmax = kc_mark();  /* the scratch below is freed on return */
    if (nfree == 0) {
        for (int t = 0; t < n; t++) if (!s->is_active[t]) s->G[t] = s->Gbar[t] + s->p;
        kc_release(vmax);
        return;
    }
    /* inactive points against free points, as one tiled expansion */
    int *freei = (int *) kc_alloc(nfree, sizeof(int));
    double *w = (double *) kc_alloc(nfree, sizeof(double));
    double *out = (double *) kc_alloc(ninact, sizeof(double));
    int *inact = (int *) kc_alloc(ninact, sizeof(int));
    int a = 0, f = 0;
    for (int t = 0; t < n; t++) {
        if (!s->is_active[t]) inact[a++] = t;
        if (!at_lower(s, t) && !at_upper(s, t)) {
            freei[f] = t;
            w[f++] = s->alpha[t] * s->y[t];
        }
    }
    kc_points pi = kc_points_subset(s->x, inact, ninact), pf = kc_points_subset(s->x, freei, nfree);
    kc_expansion(s->k, 1, &pi, &pf, w, 1, out, s->nthreads);
    for (int u = 0; u < ninact; u++) {
        int t = inact[u];
        s->G[t] = s->Gbar[t] + s->p + s->y[t] * out[u];
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

static void activate_all(smo *s)
{
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
    int kept = 0;
    for (int u = 0; u < s->nactive; u++) {
        int t = s->active[u];
        if (can_shrink(s, t, Gmax1, Gmax2)) s->is_active[t] = 0;
        else s->active[kept++] = t;
    }
    s->nactive = kept;
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
            double linear, const double *alpha0, int nsets,
            double eps, long max_iter, double cache_mb, int shrinking, int nthreads,
            float *store, unsigned char *filled, int whole, kc_smo_result *res)
{
    if (x_in->n < 2 || x_in->n > KC_MAX_ROWS)
        kc_internal("the SMO takes 2 to %d rows", KC_MAX_ROWS);
    /* every kernel row is computed against all the points: packed once
     * (unless a store holds them all already) */
    kc_points xp = kc_prepare_points(k, x_in, !store_whole(store ? filled : NULL, (int) x_in->n));
    const kc_points *x = &xp;
    int n = (int) x->n;
    smo s;
    if (nsets != 1 && nsets != 2) kc_internal("the SMO takes 1 or 2 sets");
    s.n = n; s.y = y; s.C = C; s.k = k; s.x = x; s.nthreads = nthreads;
    s.p = linear; s.nsets = nsets;
    s.alpha = res->alpha;
    s.G = (double *) kc_alloc(n, sizeof(double));
    s.Gbar = (double *) kc_alloc(n, sizeof(double));
    s.QD = (double *) kc_alloc(n, sizeof(double));
    s.ysign = (double *) kc_alloc(n, sizeof(double));
    s.moves = (unsigned char *) kc_alloc(n, 1);
    s.active = (int *) kc_alloc(n, sizeof(int));
    s.is_active = (char *) kc_alloc(n, sizeof(char));
    cache_init(&s.cache, k, x, cache_mb, nthreads, store, filled);
    if (store && whole && !s.cache.dense) cache_fill_whole(&s.cache, nthreads);
    kc_tuner_init(&s.pass_tuner[SELECT_PASS], nthreads);
    kc_tuner_init(&s.pass_tuner[UPDATE_PASS], nthreads);

    kc_row_sqnorms(x, s.QD);
    for (int t = 0; t < n; t++) s.QD[t] = kc_self_kernel(k, s.QD[t]);
    for (int t = 0; t < n; t++) {
        s.ysign[t] = y[t];
        set_alpha(&s, t, alpha0 ? alpha0[t] : 0.0);
        s.G[t] = linear;
        s.Gbar[t] = 0.0;
    }
    activate_all(&s);
    if (alpha0) init_gradient(&s);

    long iter = 0;
    int unshrunk = 0, status = KC_SMO_CONVERGED;
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
        if (shrinking && --counter == 0) {
            counter = shrink_every;
            shrink(&s, &unshrunk, eps);
            pending_valid = 0;
        }
        int i, j;
        gap = select_pair(&s, &pending, pending_valid, &i, &j);
        if (j < 0 || gap < eps) {
            if (s.nactive == n) break;
            /* optimal on the active set: check everything */
            reconstruct_gradient(&s);
            activate_all(&s);
            counter = 1;
            gap = select_pair(&s, &pending, 0, &i, &j);
            if (j < 0 || gap < eps) break;
        }
        if (iter >= max_iter) { status = KC_SMO_MAX_ITER; break; }
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
        update_gradient(&s, y[i] * dai, Ki, y[j] * daj, Kj, &pending);
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
    res->gap = select_pair(&s, &pending, 0, &wi, &wj);
    res->rows_computed = s.cache.computed;
}
