/* The SMO solver's kernel rows (smo.c): an LRU cache of float rows (as
 * LIBSVM), or a store of all n rows that the caller keeps across the solves
 * of a path of costs.  Rows come from the shared engine (kc_rows), a batch
 * at a time.  All memory is kc_alloc'd on the calling thread (see smo.c). */
#include <stdint.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "kernclass.h"
#include "kernel.h"
#include "threads.h"
#include "units.h"
#include "smo-internal.h"

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

int kc_store_whole(const unsigned char *filled, int n)
{
    if (!filled) return 0;
    for (int i = 0; i < n; i++) if (!filled[i]) return 0;
    return 1;
}

void kc_cache_init(row_cache *c, const kc_kernel *k, const kc_points *x,
                   double megabytes, int nthreads, float *store, unsigned char *filled)
{
    int n = (int) x->n;
    double fit = megabytes * 1048576.0 / ((double) n * sizeof(float));
    c->slots = store ? n : (fit < 2 ? 2 : (fit > n ? n : (int) fit));
    c->filled = store ? filled : NULL;
    c->dense = kc_store_whole(c->filled, n);
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
    c->src = NULL;
    kc_tuner_init(&c->tuner, nthreads);
}

/* All rows, KC_TILE at a time, on the threads the tuner chooses: a short fit
 * is mostly this fill, and beside a busy program its parallel regions cost
 * a time slice each (see threads.c). */
void kc_cache_fill_whole(row_cache *c)
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
            int nt = kc_tuner_start(&c->tuner, (double) nr * n * (c->x->p + 10));
            kc_rows(c->k, c->x, rows, nr, dst, nt, c->work);
            kc_tuner_stop(&c->tuner);
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
    if (c->src) {
        for (int r = 0; r < nr; r++) {
            const float *from = c->src + (ptrdiff_t) c->src_at[rows[r]] * c->src_ld;
            for (int j = 0; j < c->n; j++) dst[r][j] = from[c->src_at[j]];
        }
        c->computed += nr;
        return;
    }
    double work = (double) nr * c->n * (c->x->p + 10);
    int nt = work < ROWS_MIN_WORK ? 1 : kc_tuner_start(&c->tuner, work);
    kc_rows(c->k, c->x, rows, nr, dst, nt, c->work);
    kc_tuner_stop(&c->tuner);
    c->computed += nr;
}

const float *kc_cache_row(row_cache *c, int i, const chunk_result *hint)
{
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
