/* The group sums of the kernel engine, built on its tiles (kernel.c):
 * points sorted by group, the float blocks of the groups' kernels,
 * within-group and leave-one-out group sums.
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
 * than one tile starts on a float panel boundary (fewer than NF zero rows
 * before it), and the copy is then packed once: such a group's row blocks serve
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
            at = (at + NF - 1) / NF * NF;
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
    gp.x.centre = pb.centre;  /* the float tiles' (NULL: double tiles) */
    kc_prepare_single(k, &gp.x, 1);
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
                kc_kernel_tile(k, 1 | KC_TILE_FLOAT, x, NULL, a0, na, x, NULL, gp->at[h[q]] + (ptrdiff_t) J * KC_TILE,
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
    for (size_t u0 = 0; u0 < ntasks;) {
        size_t u1 = chunk_end(first, ntasks, u0, nthreads, cost);
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
