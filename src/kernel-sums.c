/* The workers of the kernel engine, built on its tiles (kernel.c): the
 * Gram matrix, kernel expansions and the SMO's kernel rows (the group
 * sums are in kernel-groups.c).
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

    for (size_t u0 = 0; u0 < ntasks;) {
        size_t u1 = chunk_end(first, ntasks, u0, nthreads, cost);
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
                kc_kernel_tile(k, outf ? 1 | KC_TILE_FLOAT : 1, a, NULL, a0, na, b, NULL, b0, nb,
                               dense ? work : NULL, work, tile);
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
    /* blocks handed out as threads come free: with a static split, a thread
     * the scheduler set aside (a busy machine) kept its half of the blocks
     * and the region's end waited for it to run them all */
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
    for (int J = 0; J < nbj; J++) {
        double *mine = work + (size_t) thread_id() * per_thread;
        double *tile = mine + kc_tile_work_size(b);
        ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
        int nb = block_len(b->n, J);
        kc_kernel_tile(k, 1 | KC_TILE_FLOAT, b, rows, 0, nr, b, NULL, b0, nb, rows_packed, mine, tile);
        for (int r = 0; r < nr; r++) {
            float *dst = out[r] + b0;
            const double *src = tile + (size_t) r * nb;
#pragma omp simd
            for (int t = 0; t < nb; t++) dst[t] = (float) src[t];
        }
    }
    kc_callback_raise();
}
