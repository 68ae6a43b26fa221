/* The tiles of the kernel engine as its workers use them: kernel.c's side
 * for its workers, kernel-sums.c and kernel-groups.c (engine-internal; not
 * for other modules). */
#ifndef KERNCLASS_KERNEL_TILE_H
#define KERNCLASS_KERNEL_TILE_H

#include <stddef.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "kernclass.h"
#include "kernel.h"
#include "isa.h"

/* A tile buffer: the tile, then room for the squared norms of its rows. */
#define TILE_DOUBLES ((size_t) KC_TILE * (KC_TILE + 1))

static inline int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static inline int round_up(int n, int w) { return (n + w - 1) / w * w; }

/* Packed panels start on 64-byte boundaries: a panel's eight values of a
 * feature are then one cache line, which the instruction-set kernels load
 * whole (a load across two lines costs two; measured 2-4% of a kernel
 * expansion when an allocation happened to leave them unaligned). */
#define ALIGN_DOUBLES 8
static inline size_t round_aligned(size_t n)
{
    return (n + ALIGN_DOUBLES - 1) / ALIGN_DOUBLES * ALIGN_DOUBLES;
}

static inline double *align_up(double *p)
{
    return (double *) ((char *) p + (64 - (uintptr_t) p % 64) % 64);
}

/* n doubles, kc_alloc'd, from a 64-byte boundary. */
double *kc_alloc_aligned(size_t n);

/* Per-thread scratch a tile of a's rows needs: dense, the packed panels;
 * sparse, a dense vector of p (scatter one row, gather the others: zero
 * between uses); callback, two index arrays. */
size_t kc_tile_work_size(const kc_points *a);
/* Zero the sparse scatter vectors of every thread's scratch. */
void kc_zero_scatter(const kc_points *a, double *base, size_t per_thread, int nthreads);

/* The work of one kernel value, in flops, for the thread and chunk
 * decisions: dense, p multiply-adds and the kernel; sparse, the non-zeros
 * of a row, on average. */
double kc_pair_cost(const kc_points *a);
/* The work of one pair for a set of nk kernels sharing its inner products
 * or distances: each further kernel adds its values and their sums. */
double kc_set_cost(const kc_points *a, int nk);
/* R is called on the main thread only: callback points get one thread. */
int kc_threads_for_source(const kc_points *a, const kc_points *b, int nthreads);

/* Rows idx[0..cnt) of a (or start.. where idx is NULL) into panels of w
 * rows: buf[panel][k][r]; the rows past cnt in the last panel are zero. */
void kc_pack_rows(const kc_points *a, const int *idx, ptrdiff_t start,
                  int cnt, int w, double *buf);
/* The rows of a packed into tile panels once, for points that serve as the
 * columns of many tiles (instead of once per tile). */
void kc_pack_points(kc_points *a);

/* The single-precision tiles (kernel-float.c).  KC_TILE_FLOAT, or'ed into
 * kc_kernel_tile's values: the values will be stored as floats, and may
 * come from float products where the points allow it (kc_prepare_single
 * set b's centre).  KC_SINGLE_MAX: the largest gamma max ||x - m||^2 they
 * take (the bound on a value's error, 2^-22 gamma (|a|^2 + |b|^2), then
 * below 1e-5). */
#define KC_TILE_FLOAT 2
#define KC_SINGLE_MAX 20.0
void kc_prepare_single(const kc_kernel *k, kc_points *a, int pack);
/* a's float panels, b's, b's as NR panels on the way, and the norms */
static inline size_t kc_float_work_size(int p)
{
    return round_aligned(((size_t) round_up(KC_TILE, MR) * p + 1) / 2) +
           2 * round_aligned(((size_t) round_up(KC_TILE, NF) * p + 1) / 2) + 2 * (size_t) KC_TILE;
}
void kc_float_products(const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                       const kc_points *b, const int *bi, ptrdiff_t b0, int nb, int use_packed,
                       const double *apack, const double *bpack, double *fwork,
                       const double **asq, const double **bsq, double *tile);

/* A tile of kernel values (kernel.c says how); values = 0 stops before the
 * kernel function, and kc_values_from_base then gives each kernel of a set
 * its values from that tile. */
void kc_kernel_tile(const kc_kernel *k, int values,
                    const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                    const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                    const double *apack, double *work, double *tile);
void kc_values_from_base(const kc_kernel *k, const double *base, double *out,
                         int na, int nb);

/* Per-thread scratch space, allocated once on the calling thread. */
typedef struct {
    double *base;
    size_t per_thread;
} scratch;

static inline scratch scratch_alloc(int nthreads, size_t doubles_per_thread)
{
    scratch s;
    doubles_per_thread = round_aligned(doubles_per_thread);
    s.per_thread = doubles_per_thread;
    double total = (double) nthreads * (double) doubles_per_thread;
    if (total * sizeof(double) > (double) PTRDIFF_MAX)
        kc_error(KC_ERROR_SIZE, "kernclass: scratch space of %.0f doubles is too large", total);
    s.base = kc_alloc_aligned((size_t) nthreads * doubles_per_thread);
    return s;
}

static inline double *scratch_for(const scratch *s, int thread)
{
    return s->base + (size_t) thread * s->per_thread;
}

static inline int nblocks(ptrdiff_t n) { return (int) ((n + KC_TILE - 1) / KC_TILE); }
static inline int block_len(ptrdiff_t n, int blk)
{
    ptrdiff_t rest = n - (ptrdiff_t) blk * KC_TILE;
    return rest < KC_TILE ? (int) rest : KC_TILE;
}

/* Tasks run in chunks so that the calling thread can check for a user
 * interrupt between them (never from inside a parallel region).  A chunk
 * gives each thread about CHUNK_FLOPS of work (10 to 30 ms), in many tasks
 * handed out as threads come free: on a machine shared with other programs
 * a thread the scheduler sets aside delays the chunk's end by one task, and
 * the chunk by a time slice at most, a small share of its work. */
#define CHUNK_FLOPS 5e8
#define TASKS_PER_THREAD 8
/* Tiles of one row block a within-group task runs (kc_gram, kc_within_group_sums). */
#define RUN_TILES 16

static inline int tiles_per_chunk(double cost)
{
    double tile_flops = (double) KC_TILE * KC_TILE * cost;  /* cost: kc_pair_cost() */
    double tiles = CHUNK_FLOPS / tile_flops;
    return tiles < 1 ? 1 : (tiles > 4096 ? 4096 : (int) tiles);
}

/* The end of the chunk of tasks from u0 (tasks u0 .. end - 1): about
 * nthreads tiles_per_chunk(cost) tiles, first[u] the tiles before task u
 * of the ntasks; at least one task. */
static inline size_t chunk_end(const size_t *first, size_t ntasks, size_t u0, int nthreads,
                               double cost)
{
    size_t chunk_tiles = (size_t) nthreads * tiles_per_chunk(cost), u1 = u0 + 1;
    while (u1 < ntasks && first[u1] - first[u0] < chunk_tiles) u1++;
    return u1;
}

#endif
