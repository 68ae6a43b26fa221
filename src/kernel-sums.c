/* The workers of the kernel engine, built on its tiles (kernel.c): the
 * Gram matrix, kernel expansions, the SMO's kernel rows, within-group and
 * leave-one-out group sums.
 *
 * Determinism: every output value is a sum taken in an order fixed by the
 * data alone (never by the thread that computed it), so results are
 * identical for any number of threads.
 *
 * Memory: all buffers come from kc_alloc (R_alloc) on the calling thread,
 * before any parallel region, so an error or a user interrupt frees them;
 * inside a unit of kc_units from the unit's own scratch (units.c).
 */
#include <stdint.h>
#include <string.h>
#include "kernclass.h"
#include "kernel.h"
#include "kernel-tile.h"
#include "callback.h"
#include "threads.h"
#include "units.h"
#include "isa.h"

/* Per-thread scratch space, allocated once on the calling thread. */
typedef struct {
    double *base;
    size_t per_thread;
} scratch;

static scratch scratch_alloc(int nthreads, size_t doubles_per_thread)
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

static double *scratch_for(const scratch *s, int thread)
{
    return s->base + (size_t) thread * s->per_thread;
}

static int nblocks(ptrdiff_t n) { return (int) ((n + KC_TILE - 1) / KC_TILE); }
static int block_len(ptrdiff_t n, int blk)
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
/* Tiles of one row block a within-group task runs (kc_within_group_sums). */
#define RUN_TILES 16

static int tiles_per_chunk(double cost)
{
    double tile_flops = (double) KC_TILE * KC_TILE * cost;  /* cost: kc_pair_cost() */
    double tiles = CHUNK_FLOPS / tile_flops;
    return tiles < 1 ? 1 : (tiles > 4096 ? 4096 : (int) tiles);
}

/* The Gram matrix into out (doubles) or outf (the same values rounded to
 * floats, as the solver's row store holds them), column-major.  A task is a
 * run of up to RUN_TILES tiles of one row block (symmetric: those on and
 * above the diagonal), its rows packed once for the run, and b packed once
 * for all tiles: packing a tile's rows from the column-major points read
 * one cache line a feature from memory, and took as long as the tile's
 * products (perf, 10,000 x 784, rbf). */
static void gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
                 int symmetric, double *out, float *outf, int nthreads)
{
    kc_points pa = kc_prepare_points(k, a, symmetric && a->n > KC_TILE);  /* b: every row block */
    kc_points pb = symmetric ? pa : kc_prepare_points(k, b, a->n > KC_TILE);
    a = &pa;
    b = &pb;
    double cost = kc_pair_cost(a);
    nthreads = kc_threads_for_source(a, b, kc_threads_for((double) a->n * b->n * cost / (symmetric ? 2 : 1), nthreads));
    int bi_n = nblocks(a->n), bj_n = nblocks(b->n);
    size_t work_n = kc_tile_work_size(a);
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES);
    kc_zero_scatter(a, s.base, s.per_thread, nthreads);
    ptrdiff_t lda = a->n;
    int dense = a->src == KC_SRC_DENSE;
    /* the runs: row block I, tiles J0 .. J1 - 1; first[u]: tiles before run u */
    size_t ntasks = 0;
    for (int I = 0; I < bi_n; I++) ntasks += (size_t) (bj_n - (symmetric ? I : 0) + RUN_TILES - 1) / RUN_TILES;
    int *task = (int *) kc_alloc(2 * ntasks + 1, sizeof(int));
    size_t *first = (size_t *) kc_alloc(ntasks + 1, sizeof(size_t));
    size_t u = 0, tiles = 0;
    for (int I = 0; I < bi_n; I++)
        for (int J0 = symmetric ? I : 0; J0 < bj_n; J0 += RUN_TILES) {
            task[2 * u] = I;
            task[2 * u + 1] = J0;
            first[u++] = tiles;
            tiles += (size_t) (J0 + RUN_TILES < bj_n ? RUN_TILES : bj_n - J0);
        }
    size_t chunk_tiles = (size_t) nthreads * tiles_per_chunk(cost);

    for (size_t u0 = 0; u0 < ntasks;) {
        size_t u1 = u0 + 1;  /* runs u0 .. u1 - 1: about chunk_tiles tiles */
        while (u1 < ntasks && first[u1] - first[u0] < chunk_tiles) u1++;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
        for (size_t t = u0; t < u1; t++) {
            int I = task[2 * t], J0 = task[2 * t + 1];
            int J1 = J0 + RUN_TILES < bj_n ? J0 + RUN_TILES : bj_n;
            double *work = scratch_for(&s, thread_id());
            double *tile = work + work_n;
            ptrdiff_t a0 = (ptrdiff_t) I * KC_TILE;
            int na = block_len(a->n, I);
            if (dense) kc_pack_rows(a, NULL, a0, na, MR, work);  /* kc_kernel_tile's a panels */
            for (int J = J0; J < J1; J++) {
                ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
                int nb = block_len(b->n, J);
                kc_kernel_tile(k, 1, a, NULL, a0, na, b, NULL, b0, nb, dense ? work : NULL, work, tile);
                /* out[a0 + i, b0 + j] down the columns; symmetric, its mirror
                 * out[b0 + j, a0 + i] along them (a diagonal tile: its upper
                 * triangle both ways) */
                /* eight columns of eight rows at a time: a column of the
                 * tile read whole is a line a row 1 KiB apart, which fall
                 * in 4 sets of the L1 cache and evict each other (this
                 * copy took longer than the tile's products, perf) */
                for (int j0 = 0; j0 < nb; j0 += 8)
                    for (int r0 = 0; r0 < na; r0 += 8) {
                        /* a whole block (of a diagonal tile: above it) at once */
                        if (kc_isa.transpose8 && j0 + 8 <= nb && r0 + 8 <= na &&
                            !(symmetric && I == J && r0 + 8 > j0)) {
                            ptrdiff_t at = a0 + r0 + (b0 + j0) * lda;
                            kc_isa.transpose8(tile + (size_t) r0 * nb + j0, nb,
                                              outf ? NULL : out + at, outf ? outf + at : NULL, lda);
                            continue;
                        }
                        for (int j = j0; j < j0 + 8 && j < nb; j++) {
                            int i1 = symmetric && I == J ? j + 1 : na;
                            if (i1 > r0 + 8) i1 = r0 + 8;
                            if (outf) {
                                float *col = outf + a0 + (b0 + j) * lda;
                                for (int i = r0; i < i1; i++) col[i] = (float) tile[(size_t) i * nb + j];
                            } else {
                                double *col = out + a0 + (b0 + j) * lda;
                                for (int i = r0; i < i1; i++) col[i] = tile[(size_t) i * nb + j];
                            }
                        }
                    }
                if (symmetric)
                    for (int i = 0; i < na; i++) {
                        int j0 = I == J ? i : 0;
                        const double *row = tile + (size_t) i * nb;
                        if (outf) {
                            kc_isa.to_float(row + j0, outf + b0 + (a0 + i) * lda + j0, nb - j0);
                        } else {
                            double *col = out + b0 + (a0 + i) * lda;
                            for (int j = j0; j < nb; j++) col[j] = row[j];
                        }
                    }
            }
        }
        kc_callback_raise();
        kc_check_interrupt();
        u0 = u1;
    }
}

void kc_gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
             int symmetric, double *out, int nthreads)
{
    gram(k, a, b, symmetric, out, NULL, nthreads);
}

void kc_gram_float(const kc_kernel *k, const kc_points *a, const kc_points *b,
                   int symmetric, float *out, int nthreads)
{
    gram(k, a, b, symmetric, NULL, out, nthreads);
}

void kc_expansion(const kc_kernel *k, int nk, const kc_points *a, const kc_points *b,
                  const double *w, int ncols, double *out, int nthreads)
{
    kc_points pa = kc_prepare_points(k, a, 0);
    kc_points pb = kc_prepare_points(k, b, a->n > KC_TILE);  /* b serves every row block */
    a = &pa;
    b = &pb;
    double cost = kc_set_cost(a, nk);
    nthreads = kc_threads_for_source(a, b, kc_threads_for((double) a->n * b->n * cost, nthreads));
    int bi_n = nblocks(a->n), bj_n = nblocks(b->n);
    size_t work_n = kc_tile_work_size(a);
    /* A task is one row block of a run over a segment of the blocks of b in
     * their stored order (so every sum has a fixed order); a chunk is up to
     * TASKS_PER_THREAD row blocks per thread over one segment, with an
     * interrupt check after it.  A row block's packed rows and sums (per
     * kernel of the set) live in its slot across segments. */
    int nslots_max = nthreads == 1 ? 1 : TASKS_PER_THREAD * nthreads;
    if (nslots_max > bi_n) nslots_max = bi_n;
    size_t pack_n = a->src == KC_SRC_DENSE ? (size_t) round_up(KC_TILE, MR) * a->p : 0;
    size_t acc_n = (size_t) nk * ncols * KC_TILE;
    size_t slot_n = round_aligned(pack_n + acc_n);
    double *slots = kc_alloc_aligned((size_t) nslots_max * slot_n);
    size_t values_n = nk > 1 ? (size_t) KC_TILE * KC_TILE : 0;  /* one kernel's tile */
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES + values_n);
    kc_zero_scatter(a, s.base, s.per_thread, nthreads);
    ptrdiff_t out_n = a->n * (ptrdiff_t) ncols;  /* one kernel's result */

    for (int t0 = 0; t0 < bi_n; t0 += nslots_max) {
        int nslots = bi_n - t0 < nslots_max ? bi_n - t0 : nslots_max;
        int segment = (int) ((double) tiles_per_chunk(cost) * nthreads / nslots);
        if (segment < 1) segment = 1;
        for (int J0 = 0; J0 < bj_n; J0 += segment) {
            int J1 = J0 + segment < bj_n ? J0 + segment : bj_n;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
            for (int sl = 0; sl < nslots; sl++) {
                double *work = scratch_for(&s, thread_id());
                double *tile = work + work_n;
                double *vals = nk > 1 ? tile + TILE_DOUBLES : tile;
                double *apack = slots + (size_t) sl * slot_n;
                double *acc = apack + pack_n;  /* [kernel][column][row] */
                ptrdiff_t a0 = (ptrdiff_t) (t0 + sl) * KC_TILE;
                int na = block_len(a->n, t0 + sl);
                if (J0 == 0) {
                    memset(acc, 0, sizeof(double) * acc_n);
                    if (pack_n) kc_pack_rows(a, NULL, a0, na, MR, apack);
                }
                for (int J = J0; J < J1; J++) {
                    ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
                    int nb = block_len(b->n, J);
                    kc_kernel_tile(k, nk == 1, a, NULL, a0, na, b, NULL, b0, nb,
                                   pack_n ? apack : NULL, work, tile);
                    for (int kk = 0; kk < nk; kk++) {
                        if (nk > 1) kc_values_from_base(k + kk, tile, vals, na, nb);
                        for (int c = 0; c < ncols; c++)
                            kc_isa.tile_times_weights(vals, na, nb, w + (ptrdiff_t) c * b->n + b0,
                                                      acc + ((size_t) kk * ncols + c) * KC_TILE);
                    }
                }
                if (J1 == bj_n)
                    for (int kk = 0; kk < nk; kk++)
                        for (int c = 0; c < ncols; c++)
                            for (int i = 0; i < na; i++)
                                out[kk * out_n + (a0 + i) + (ptrdiff_t) c * a->n] =
                                    acc[((size_t) kk * ncols + c) * KC_TILE + i];
            }
            kc_callback_raise();
            kc_check_interrupt();
        }
    }
}

/* A thread's share of kc_rows's work, whole cache lines. */
static size_t rows_per_thread(const kc_points *b)
{
    return round_aligned(kc_tile_work_size(b) + TILE_DOUBLES);
}

/* Kernel rows as floats (the SMO's cache): out[r][t] = k(b[rows[r]], b[t])
 * for all t, r < nr (nr <= KC_TILE), as tiles of nr rows by KC_TILE
 * columns, each converted by the thread that computed it.  The caller
 * chooses the threads (its tuner knows whether they pay).  work holds
 * kc_rows_work_size(b, nthreads) doubles: a solver asking for thousands
 * of rows allocates it once. */
size_t kc_rows_work_size(const kc_points *b, int nthreads)
{
    return ALIGN_DOUBLES + (size_t) nthreads * rows_per_thread(b) +
           (b->src == KC_SRC_DENSE ? (size_t) round_up(KC_TILE, MR) * b->p : 0);
}

void kc_rows(const kc_kernel *k, const kc_points *b, const int *rows, int nr,
             float *const *out, int nthreads, double *work)
{
    if (nr < 1 || nr > KC_TILE)
        kc_internal("1 to %d kernel rows at a time", KC_TILE);
    nthreads = kc_threads_for_source(b, b, nthreads);
    size_t per_thread = rows_per_thread(b);
    work = align_up(work);
    int nbj = nblocks(b->n);
    double *rows_packed = NULL;
    if (b->src == KC_SRC_DENSE) {
        rows_packed = work + (size_t) nthreads * per_thread;
        kc_pack_rows(b, rows, 0, nr, MR, rows_packed);
    }
    kc_zero_scatter(b, work, per_thread, nthreads);
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
    for (int J = 0; J < nbj; J++) {
        double *mine = work + (size_t) thread_id() * per_thread;
        double *tile = mine + kc_tile_work_size(b);
        ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
        int nb = block_len(b->n, J);
        kc_kernel_tile(k, 1, b, rows, 0, nr, b, NULL, b0, nb, rows_packed, mine, tile);
        for (int r = 0; r < nr; r++) {
            float *dst = out[r] + b0;
            const double *src = tile + (size_t) r * nb;
#pragma omp simd
            for (int t = 0; t < nb; t++) dst[t] = (float) src[t];
        }
    }
    kc_callback_raise();
}

/* The sum of a tile's values in eight interleaved partial sums (one chain of
 * dependent additions would wait on each: 4 cycles a value), combined in a
 * fixed order. */
static double tile_sum(const double *v, size_t len)
{
    double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= len; i += 8)
        for (int r = 0; r < 8; r++) part[r] += v[i + r];
    for (; i < len; i++) part[0] += v[i];
    return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

/* A stable counting sort of the points by group (group[i] in 0..ngroups-1;
 * < 0: left out): order[start[g] .. start[g + 1]) are group g's points in
 * their order.  kc_alloc'd. */
static void group_order(ptrdiff_t n, const int *group, int ngroups, ptrdiff_t **start_out,
                        int **order_out)
{
    ptrdiff_t *start = (ptrdiff_t *) kc_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
    for (int g = 0; g <= ngroups; g++) start[g] = 0;
    for (ptrdiff_t i = 0; i < n; i++) if (group[i] >= 0) start[group[i] + 1]++;
    for (int g = 0; g < ngroups; g++) start[g + 1] += start[g];
    int *order = (int *) kc_alloc((size_t) start[ngroups] + 1, sizeof(int));
    ptrdiff_t *fill = (ptrdiff_t *) kc_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
    for (int g = 0; g < ngroups; g++) fill[g] = start[g];
    for (ptrdiff_t i = 0; i < n; i++) if (group[i] >= 0) order[fill[group[i]]++] = (int) i;
    *start_out = start;
    *order_out = order;
}

/* Dense points b (prepared: with norms where the kernel needs them) copied
 * in group order (group_order's start and order), as a dense set of their
 * own: group g at gstart[g] (kc_alloc'd, ngroups + 1).  A group of more
 * than one tile starts on a panel boundary (fewer than NR zero rows before
 * it), and the copy is then packed once: such a group's row blocks serve
 * many tiles, and contiguous ranges are read instead of rows gathered one
 * by one (a gather touches one cache line per value: measured 24 ns a
 * kernel value at n = 30,000, d = 100, against 8 for ranges).  A group of
 * one tile is packed by its only tile; it gets no padding, so that memory
 * follows the data (padding every group to a whole tile made 300 groups of
 * 2 rows take 64 times the data, twice). */
static kc_points sorted_copy(const kc_points *b, const ptrdiff_t *start, const int *order,
                             int ngroups, ptrdiff_t **gstart_out)
{
    int p = b->p;
    ptrdiff_t n = b->n;
    ptrdiff_t *gstart = (ptrdiff_t *) kc_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
    gstart[0] = 0;
    int any_big = 0;
    for (int g = 0; g < ngroups; g++) {
        ptrdiff_t ng = start[g + 1] - start[g], at = gstart[g];
        if (ng > KC_TILE) {
            any_big = 1;
            at = (at + NR - 1) / NR * NR;
            gstart[g] = at;
        }
        gstart[g + 1] = at + ng;
    }
    ptrdiff_t total = gstart[ngroups];
    if ((double) total * p * sizeof(double) > (double) PTRDIFF_MAX / 2 || total > KC_MAX_ROWS)
        kc_error(KC_ERROR_SIZE, "kernclass: the data are too large (%.0f rows)", (double) total);
    double *xs = (double *) kc_alloc((size_t) total * p + 1, sizeof(double));
    double *ns = (double *) kc_alloc((size_t) total + 1, sizeof(double));
    for (ptrdiff_t r = 0; r < total; r++) ns[r] = 0.0;
    for (int c = 0; c < p; c++) {
        double *dst = xs + (ptrdiff_t) c * total;
        const double *src = b->x + (ptrdiff_t) c * n;
        for (ptrdiff_t r = 0; r < total; r++) dst[r] = 0.0;
        for (int g = 0; g < ngroups; g++)
            for (ptrdiff_t r = start[g]; r < start[g + 1]; r++)
                dst[gstart[g] + r - start[g]] = src[order[r]];
    }
    if (b->sqnorm)
        for (int g = 0; g < ngroups; g++)
            for (ptrdiff_t r = start[g]; r < start[g + 1]; r++)
                ns[gstart[g] + r - start[g]] = b->sqnorm[order[r]];
    kc_points sorted;
    memset(&sorted, 0, sizeof sorted);  /* a dense source */
    sorted.x = xs;
    sorted.n = total;
    sorted.p = p;
    sorted.sqnorm = b->sqnorm ? ns : NULL;
    if (any_big) kc_pack_points(&sorted);
    *gstart_out = gstart;
    return sorted;
}

kc_grouped kc_group_points(const kc_kernel *k, const kc_points *b, const int *group, int ngroups)
{
    if (b->src != KC_SRC_DENSE || b->n > KC_MAX_ROWS) kc_internal("grouped points: dense rows only");
    kc_points pb = kc_prepare_points(k, b, 0);
    ptrdiff_t *start, *at;
    int *order;
    group_order(pb.n, group, ngroups, &start, &order);
    kc_grouped gp;
    gp.x = sorted_copy(&pb, start, order, ngroups, &at);
    gp.ngroups = ngroups;
    gp.at = at;
    ptrdiff_t *size = (ptrdiff_t *) kc_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
    for (int g = 0; g < ngroups; g++) size[g] = start[g + 1] - start[g];
    gp.size = size;
    int *rank = (int *) kc_alloc((size_t) pb.n + 1, sizeof(int));
    for (ptrdiff_t i = 0; i < pb.n; i++) rank[i] = -1;
    for (int g = 0; g < ngroups; g++)
        for (ptrdiff_t r = start[g]; r < start[g + 1]; r++) rank[order[r]] = (int) (r - start[g]);
    gp.rank = rank;
    return gp;
}

static size_t group_per_thread(const kc_grouped *gp)
{
    return round_aligned(kc_tile_work_size(&gp->x) + TILE_DOUBLES);
}

size_t kc_group_work_size(const kc_grouped *gp, int nthreads)
{
    return ALIGN_DOUBLES + (size_t) nthreads * group_per_thread(gp);
}

/* A task is one row block of one block of groups, against all the column
 * blocks (on and right of the diagonal for a group with itself), its rows
 * packed once; the tiles of a group with itself are mirrored (a diagonal
 * tile's upper triangle), as kc_gram's, and those of two groups into the
 * transpose where one is asked for, from the tile while it is in cache (a
 * transposed read of the block afterwards took half of a 60,000-row fit). */
void kc_group_blocks_float(const kc_kernel *k, const kc_grouped *gp, int nblk, const int *g,
                           const int *h, float *const *out, float *const *outt, int nthreads,
                           double *work)
{
    const kc_points *x = &gp->x;
    size_t work_n = kc_tile_work_size(x), per = group_per_thread(gp);
    work = align_up(work);
    size_t ntasks = 0;
    for (int q = 0; q < nblk; q++) ntasks += (size_t) nblocks(gp->size[g[q]]);
    int *task = (int *) kc_alloc(2 * ntasks + 1, sizeof(int));  /* block, I */
    size_t t = 0;
    for (int q = 0; q < nblk; q++)
        for (int I = 0; I < nblocks(gp->size[g[q]]); I++) {
            task[2 * t] = q;
            task[2 * t + 1] = I;
            t++;
        }
    size_t chunk = (size_t) nthreads * TASKS_PER_THREAD;
    for (size_t t0 = 0; t0 < ntasks; t0 += chunk) {
        size_t t1 = t0 + chunk < ntasks ? t0 + chunk : ntasks;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
        for (size_t u = t0; u < t1; u++) {
            int q = task[2 * u], I = task[2 * u + 1], sym = g[q] == h[q];
            ptrdiff_t ld = gp->size[h[q]];
            double *w = work + (size_t) thread_id() * per;
            double *tile = w + work_n;
            ptrdiff_t a0 = gp->at[g[q]] + (ptrdiff_t) I * KC_TILE;
            int na = block_len(gp->size[g[q]], I);
            kc_pack_rows(x, NULL, a0, na, MR, w);  /* kc_kernel_tile's a panels */
            for (int J = sym ? I : 0; J < nblocks(ld); J++) {
                int nb = block_len(ld, J);
                kc_kernel_tile(k, 1, x, NULL, a0, na, x, NULL, gp->at[h[q]] + (ptrdiff_t) J * KC_TILE,
                               nb, w, w, tile);
                float *o = out[q] + (ptrdiff_t) I * KC_TILE * ld + (ptrdiff_t) J * KC_TILE;
                for (int i = 0; i < na; i++) {
                    const double *row = tile + (size_t) i * nb;
                    float *dst = o + i * ld;
                    for (int j = sym && I == J ? i : 0; j < nb; j++) dst[j] = (float) row[j];
                }
                if (!sym && !outt) continue;
                /* the mirror: into out itself, or its transpose outt */
                ptrdiff_t ldt = sym ? ld : gp->size[g[q]];
                float *m = (sym ? out[q] : outt[q]) + (ptrdiff_t) J * KC_TILE * ldt + (ptrdiff_t) I * KC_TILE;
                for (int j = 0; j < nb; j++) {
                    float *dst = m + j * ldt;
                    int i1 = sym && I == J ? j : na;
                    for (int i = 0; i < i1; i++) dst[i] = (float) tile[(size_t) i * nb + j];
                }
            }
        }
        kc_check_interrupt();
    }
}

/* Sum of k(x_i, x_j) over all pairs i, j of the same group, for each of
 * the nk kernels of a set: out[g + kk ngroups].  Only the tiles on and
 * above each group's diagonal are computed (the sum is symmetric). */
void kc_within_group_sums(const kc_kernel *k, int nk, const kc_points *b,
                          const int *group, int ngroups, double *out,
                          int nthreads)
{
    if (b->n > KC_MAX_ROWS) kc_internal("too many training rows");
    kc_points pb = kc_prepare_points(k, b, 0);
    b = &pb;
    ptrdiff_t n = b->n;
    ptrdiff_t *start;
    int *order;
    group_order(n, group, ngroups, &start, &order);
    int dense = b->src == KC_SRC_DENSE;
    ptrdiff_t *gstart = NULL;
    kc_points sorted = dense ? sorted_copy(b, start, order, ngroups, &gstart) : *b;

    /* The tiles: (group, I, J) with I <= J, each summed into its own
     * partial (a fixed order of sums), in stored order.  A task is a run of
     * up to RUN_TILES tiles of one row block (one group and I, consecutive
     * J), so that the row block's rows are packed once for the run (dense
     * points), not once per tile. */
    double ntiles_d = 0;
    for (int g = 0; g < ngroups; g++) {
        double m = nblocks(start[g + 1] - start[g]);
        ntiles_d += m * (m + 1) / 2;
    }
    if (ntiles_d * (4 * sizeof(int) + nk * sizeof(double)) > (double) PTRDIFF_MAX)
        kc_error(KC_ERROR_SIZE, "kernclass: too many tiles (%.0f)", ntiles_d);
    size_t ntiles = (size_t) ntiles_d;
    double cost = kc_set_cost(b, nk);
    nthreads = kc_threads_for_source(b, b, kc_threads_for(ntiles_d * KC_TILE * KC_TILE * cost, nthreads));
    int *task = (int *) kc_alloc(ntiles * 4 + 1, sizeof(int));  /* g, I, J0, J1 */
    size_t *first = (size_t *) kc_alloc(ntiles + 1, sizeof(size_t));  /* its first tile */
    double *partial = (double *) kc_alloc(ntiles * nk + 1, sizeof(double));  /* [tile][kernel] */
    int *group_of = (int *) kc_alloc(ntiles + 1, sizeof(int));
    size_t ntasks = 0, t = 0;
    for (int g = 0; g < ngroups; g++) {
        int m = nblocks(start[g + 1] - start[g]);
        for (int I = 0; I < m; I++)
            for (int J0 = I; J0 < m; J0 += RUN_TILES) {
                int J1 = J0 + RUN_TILES < m ? J0 + RUN_TILES : m;
                task[4 * ntasks] = g; task[4 * ntasks + 1] = I;
                task[4 * ntasks + 2] = J0; task[4 * ntasks + 3] = J1;
                first[ntasks++] = t;
                for (int J = J0; J < J1; J++) group_of[t++] = g;
            }
    }

    size_t work_n = kc_tile_work_size(b);
    size_t values_n = nk > 1 ? (size_t) KC_TILE * KC_TILE : 0;  /* one kernel's tile */
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES + values_n);
    kc_zero_scatter(b, s.base, s.per_thread, nthreads);
    size_t chunk_tiles = (size_t) nthreads * tiles_per_chunk(cost);
    for (size_t u0 = 0; u0 < ntasks;) {
        size_t u1 = u0 + 1;  /* tasks u0 .. u1 - 1: about chunk_tiles tiles */
        while (u1 < ntasks && first[u1] - first[u0] < chunk_tiles) u1++;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
        for (size_t u = u0; u < u1; u++) {
            int g = task[4 * u], I = task[4 * u + 1], J0 = task[4 * u + 2], J1 = task[4 * u + 3];
            double *work = scratch_for(&s, thread_id());
            double *tile = work + work_n;
            double *vals = nk > 1 ? tile + TILE_DOUBLES : tile;
            ptrdiff_t ng = start[g + 1] - start[g];
            int na = block_len(ng, I);
            ptrdiff_t a0 = gstart ? gstart[g] + (ptrdiff_t) I * KC_TILE : 0;
            if (dense) kc_pack_rows(&sorted, NULL, a0, na, MR, work);  /* kc_kernel_tile's a panels */
            for (int J = J0; J < J1; J++) {
                int nb = block_len(ng, J);
                if (dense)
                    kc_kernel_tile(k, nk == 1, &sorted, NULL, a0, na,
                                   &sorted, NULL, gstart[g] + (ptrdiff_t) J * KC_TILE, nb, work, work, tile);
                else
                    kc_kernel_tile(k, nk == 1, b, order + start[g] + (ptrdiff_t) I * KC_TILE, 0, na,
                                   b, order + start[g] + (ptrdiff_t) J * KC_TILE, 0, nb, NULL, work, tile);
                for (int kk = 0; kk < nk; kk++) {
                    if (nk > 1) kc_values_from_base(k + kk, tile, vals, na, nb);
                    double sum = tile_sum(vals, (size_t) na * nb);
                    partial[(first[u] + (J - J0)) * nk + kk] = I == J ? sum : 2.0 * sum;
                }
            }
        }
        kc_callback_raise();
        kc_check_interrupt();
        u0 = u1;
    }
    for (int kk = 0; kk < nk; kk++) {
        double *o = out + (ptrdiff_t) kk * ngroups;
        for (int g = 0; g < ngroups; g++) o[g] = 0.0;
        for (size_t u = 0; u < ntiles; u++) o[group_of[u]] += partial[u * nk + kk];
    }
}

/* Leave-one-out group sums: out[i + g n] = sum of k(x_i, x_j) over the rows
 * j != i of group g (n x ngroups, column-major).  The point's own value is
 * never added, so nothing is subtracted: taking k(x_i, x_i) away from a sum
 * it dominates (a narrow kernel) would leave only rounding.  Row blocks are
 * the parallel tasks (each owns its rows of out), the blocks of b summed in
 * stored order, so the sums do not depend on the threads. */
void kc_loo_group_sums(const kc_kernel *k, const kc_points *b, const int *group,
                       int ngroups, double *out, int nthreads)
{
    if (b->n > KC_MAX_ROWS) kc_internal("too many training rows");
    kc_points pb = kc_prepare_points(k, b, 1);
    b = &pb;
    ptrdiff_t n = b->n;
    nthreads = kc_threads_for_source(b, b, kc_threads_for((double) n * n * kc_pair_cost(b), nthreads));
    int nb_n = nblocks(n);
    size_t work_n = kc_tile_work_size(b);
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES + (size_t) ngroups * KC_TILE);
    kc_zero_scatter(b, s.base, s.per_thread, nthreads);
    for (ptrdiff_t i = 0; i < n * ngroups; i++) out[i] = 0.0;
    int chunk = nthreads * TASKS_PER_THREAD;
    for (int I0 = 0; I0 < nb_n; I0 += chunk) {
        int I1 = I0 + chunk < nb_n ? I0 + chunk : nb_n;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
        for (int I = I0; I < I1; I++) {
            double *work = scratch_for(&s, thread_id());
            double *tile = work + work_n;
            double *acc = tile + TILE_DOUBLES;  /* na x ngroups */
            ptrdiff_t a0 = (ptrdiff_t) I * KC_TILE;
            int na = block_len(n, I);
            for (size_t u = 0; u < (size_t) na * ngroups; u++) acc[u] = 0.0;
            for (int J = 0; J < nb_n; J++) {
                ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
                int nb = block_len(n, J);
                kc_kernel_tile(k, 1, b, NULL, a0, na, b, NULL, b0, nb, NULL, work, tile);
                for (int i = 0; i < na; i++) {
                    const double *v = tile + (size_t) i * nb;
                    double *ai = acc + (size_t) i * ngroups;
                    for (int j = 0; j < nb; j++)
                        if (a0 + i != b0 + j) ai[group[b0 + j]] += v[j];
                }
            }
            for (int i = 0; i < na; i++)
                for (int g = 0; g < ngroups; g++)
                    out[(a0 + i) + (ptrdiff_t) g * n] = acc[(size_t) i * ngroups + g];
        }
        kc_callback_raise();
        kc_check_interrupt();
    }
}
