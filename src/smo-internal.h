/* The SMO solver's parts (smo.c, smo-select.c, smo-cache.c): its state,
 * its kernel row cache and the passes of its working-set selection.
 * Internal to the solver; other modules use smo.h. */
#ifndef KERNCLASS_SMO_INTERNAL_H
#define KERNCLASS_SMO_INTERNAL_H

#include "kernel.h"
#include "threads.h"
#include "smo.h"
#include "isa.h"

#define TAU KC_TAU

/* ---- kernel row cache: LRU list of float rows of length n (smo-cache.c) -- */

/* Rows missing from the cache are computed in batches of up to BATCH rows
 * (the one asked for and the likeliest next ones not cached, see
 * kc_cache_row), as one tile per column block: a pass over the data serves
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
    const float *src;     /* a kept store's rows copied from src (kc_smo_options) */
    const int *src_at;
    ptrdiff_t src_ld;
} row_cache;

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

/* Whether a kept store holds every row. */
int kc_store_whole(const unsigned char *filled, int n);
/* store: NULL for an LRU cache of megabytes; else room for all n rows
 * (n x n floats, row i at row i) and filled (n flags) that outlive this
 * solve, so that solves on the same points and kernel (a path of costs)
 * share the rows computed by any of them. */
void kc_cache_init(row_cache *c, const kc_kernel *k, const kc_points *x,
                   double megabytes, int nthreads, float *store, unsigned char *filled);
/* Every row missing from a kept store, KC_TILE at a time, on the threads
 * that the cache's tuner chooses. */
void kc_cache_fill_whole(row_cache *c);
/* Row i of the kernel matrix.  On a miss, the batch is filled with rows the
 * next iterations are likely to ask for and that are not cached: hint, the
 * runners-up of the selection that chose i (tracked in its pass, so no
 * extra pass is needed).  A row stays valid through the next call too: a
 * batch evicts at most half the slots, never the most recent. */
const float *kc_cache_row(row_cache *c, int i, const chunk_result *hint);

/* ---- the solver's state (smo.c) ----------------------------------------- */

struct smo_pack;

typedef struct smo {
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
    struct smo_pack *pack;   /* the shrunk set packed, or NULL (below) */
} smo;

/* A shrunk active set packed at positions u = 0..nactive-1 (variable
 * active[u]), so that the passes run the full-set code (AVX-512 where the
 * machine has it) on it instead of reading through the index list, the
 * same operations in the same order: `view` is the solver on the packed
 * variables (its G, ysign, QD, y, moves; every variable active), kept in
 * step with the solver (set_alpha: moves; the update pass: G, copied back).
 * Used with one set, rows that stay put once computed (a kept store) and
 * the vectorised passes only; `valid` while the set is shrunk. Kernel rows
 * are read packed too: the two last rows gathered (`rows`, from `src`). */
struct smo_pack {
    smo view;
    int *pos;             /* the position of each active variable */
    float *rows[2];
    const float *src[2];
    int next, valid;
};

static inline int at_upper(const smo *s, int t) { return s->alpha[t] >= s->C[t]; }
static inline int at_lower(const smo *s, int t) { return s->alpha[t] <= 0.0; }

/* Which ways y_t alpha_t may move (the index sets I_up and I_low of Keerthi
 * et al.), one byte per variable so that the scans read neither alpha nor C;
 * the byte also holds the variable's set (SET_OF: 0, or 1 for the negative
 * class of a nu-SVC). */
enum { MOVES_UP = KC_MOVES_UP, MOVES_DOWN = KC_MOVES_DOWN, SECOND_SET = 4 };
#define SET_OF(m) ((m) >> 2)

/* Row i of the kernel matrix, from the solver's cache. */
static inline const float *kernel_row(smo *s, int i, const chunk_result *hint)
{
    return kc_cache_row(&s->cache, i, hint);
}

/* ---- the working-set selection (smo-select.c) --------------------------- */

/* The threads of the two passes (pass_tuner[kind]). */
enum { SELECT_PASS, UPDATE_PASS };
/* Second-order working-set selection.  Returns the maximal KKT violation
 * m(a) - M(a) over the active set (the larger of the two sets'); i, j = -1
 * when none.  *pending holds the first pass's result when the last gradient
 * update computed it (valid = 1). */
double kc_smo_select_pair(smo *s, chunk_result *pending, int valid, int *wi, int *wj);
/* The gradient update after a step, G_t += y_t (ci K_it + cj K_jt) over the
 * active set, with the next selection's first pass fused in (into next). */
void kc_smo_update_gradient(smo *s, double ci, const float *Ki, double cj, const float *Kj,
                            chunk_result *next);

#endif
