/* The SMO solver's working-set selection (smo.c): the passes over the
 * active set, which choose the pair (second-order rule) and update the
 * gradient, on contiguous chunks of it, in parallel when it is large; each
 * chunk's candidate is combined in chunk order with the same tie rules, so
 * the iterates are the same for any number of threads. */
#include <math.h>
#include "threads.h"
#include "smo-internal.h"
#include "isa.h"

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

/* Row K (a kernel row of the store) at the packed positions: one of the two
 * last gathered, else gathered now into the one that is not `keep`. */
static const float *packed_row(smo *s, const float *K, const float *keep)
{
    struct smo_pack *pk = s->pack;
    for (int q = 0; q < 2; q++) if (pk->src[q] == K) return pk->rows[q];
    int q = pk->rows[pk->next] == keep ? 1 - pk->next : pk->next;
    pk->next = 1 - q;
    float *dst = pk->rows[q];
    const int *act = s->active;
    for (int u = 0; u < s->nactive; u++) dst[u] = K[act[u]];
    pk->src[q] = K;
    return dst;
}

/* The passes on the packed set (struct smo_pack): its positions' results
 * named by their variables again. */
static void packed_names(const smo *s, chunk_result *r, int nc)
{
    for (int c = 0; c < nc; c++) {
        if (r[c].j >= 0) r[c].j = s->active[r[c].j];
        for (int q = 0; q < 2; q++) if (r[c].i[q] >= 0) r[c].i[q] = s->active[r[c].i[q]];
    }
}

double kc_smo_select_pair(smo *s, chunk_result *pending, int valid, int *wi, int *wj)
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
    if (s->pack && s->pack->valid && i[0] >= 0) {
        smo *v = &s->pack->view;
        const float *Kp[2] = {packed_row(s, K[0], NULL), NULL};
        int ip[2] = {s->pack->pos[i[0]], -1};
        for (int c = 0; c < nc; c++) r[c].i[0] = r[c].i[1] = -1;
        FOR_CHUNKS(v, nc, u0, u1, scan_j(v, u0, u1, ip, Kp, Gmax, &r[c_]));
        packed_names(s, r, nc);
    } else {
        FOR_CHUNKS(s, nc, u0, u1, scan_j(s, u0, u1, i, K, Gmax, &r[c_]));
    }
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

void kc_smo_update_gradient(smo *s, double ci, const float *Ki, double cj, const float *Kj,
                            chunk_result *next)
{
    chunk_result r[MAX_CHUNKS];
    int nc = start_pass(s, UPDATE_PASS);
    if (s->pack && s->pack->valid) {
        smo *v = &s->pack->view;
        const float *Kpi = packed_row(s, Ki, NULL);
        const float *Kpj = packed_row(s, Kj, Kpi);
        FOR_CHUNKS(v, nc, u0, u1, update_scan_i(v, u0, u1, ci, Kpi, cj, Kpj, &r[c_]));
        for (int c = 0; c < nc; c++) r[c].j = -1;
        packed_names(s, r, nc);
        const int *act = s->active;
        for (int u = 0; u < s->nactive; u++) s->G[act[u]] = v->G[u];
    } else {
        FOR_CHUNKS(s, nc, u0, u1, update_scan_i(s, u0, u1, ci, Ki, cj, Kj, &r[c_]));
    }
    kc_tuner_stop(&s->pass_tuner[UPDATE_PASS]);
    combine_i(r, nc, s->cache.batch, next);
}
