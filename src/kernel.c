/* The kernel engine: kernel values in square tiles, and the three workers
 * built on them (Gram matrix, kernel expansions, within-group sums).
 *
 * A tile is a matrix product: both sets of rows are packed into panels
 * (MR rows of a, NR rows of b, interleaved feature by feature) so that the
 * innermost loop is an MR x NR outer product that stays in registers (the
 * instruction-set kernels, isa.c).  The kernel function is then applied to
 * the tile of inner products, as the kernel table (kernel_def_of) says.
 *
 * Determinism: every output value is a sum taken in an order fixed by the
 * data alone (never by the thread that computed it), so results are
 * identical for any number of threads.
 *
 * Memory: all buffers come from kc_alloc (R_alloc) on the calling thread,
 * before any parallel region, so an error or a user interrupt frees them;
 * inside a unit of kc_units from the unit's own scratch (units.c).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <R_ext/Arith.h>
#include <R_ext/Error.h>
#include <R_ext/Memory.h>
#include <R_ext/Utils.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "kernclass.h"
#include "isa.h"

/* A tile buffer: the tile, then room for the squared norms of its rows. */
#define TILE_DOUBLES ((size_t) KC_TILE * (KC_TILE + 1))

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static ptrdiff_t row_of(const int *idx, ptrdiff_t start, int i)
{
    return idx ? (ptrdiff_t) idx[i] : start + i;
}

/* Point i's row in its source (sparse, precomputed, callback). */
static ptrdiff_t src_row(const kc_points *a, ptrdiff_t i)
{
    return a->rowmap ? (ptrdiff_t) a->rowmap[i] : i;
}

static void callback_tile(const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                          const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                          int *idx, double *tile);

void kc_row_sqnorms(const kc_points *a, double *out)
{
    switch (a->src) {
    case KC_SRC_DENSE:
        for (ptrdiff_t i = 0; i < a->n; i++) out[i] = 0.0;
        for (int k = 0; k < a->p; k++) {
            const double *col = a->x + (ptrdiff_t) k * a->n;
            for (ptrdiff_t i = 0; i < a->n; i++) out[i] += col[i] * col[i];
        }
        break;
    case KC_SRC_SPARSE:
        for (ptrdiff_t i = 0; i < a->n; i++) {
            ptrdiff_t r = src_row(a, i);
            double s = 0.0;
            for (int t = a->rowptr[r]; t < a->rowptr[r + 1]; t++) s += a->val[t] * a->val[t];
            out[i] = s;
        }
        break;
    case KC_SRC_PRECOMPUTED:  /* the diagonal k(x_i, x_i) */
        if (!a->colmap)
            kc_internal("the diagonal of new points' kernel values");
        for (ptrdiff_t i = 0; i < a->n; i++)
            out[i] = a->x[a->colmap[i] + src_row(a, i) * a->ld];
        break;
    case KC_SRC_CALLBACK: {  /* the diagonals of the diagonal tiles */
        double *tile = (double *) kc_alloc((size_t) KC_TILE * KC_TILE, sizeof(double));
        int *idx = (int *) kc_alloc(2 * KC_TILE, sizeof(int));
        for (ptrdiff_t i0 = 0; i0 < a->n; i0 += KC_TILE) {
            int cnt = a->n - i0 < KC_TILE ? (int) (a->n - i0) : KC_TILE;
            callback_tile(a, NULL, i0, cnt, a, NULL, i0, cnt, idx, tile);
            kc_callback_raise();
            for (int i = 0; i < cnt; i++) out[i0 + i] = tile[(size_t) i * cnt + i];
        }
        break;
    }
    }
}

static int round_up(int n, int w) { return (n + w - 1) / w * w; }

/* Packed panels start on 64-byte boundaries: a panel's eight values of a
 * feature are then one cache line, which the instruction-set kernels load
 * whole (a load across two lines costs two; measured 2-4% of a kernel
 * expansion when an allocation happened to leave them unaligned). */
#define ALIGN_DOUBLES 8
static size_t round_aligned(size_t n) { return (n + ALIGN_DOUBLES - 1) / ALIGN_DOUBLES * ALIGN_DOUBLES; }

static double *align_up(double *p)
{
    return (double *) ((char *) p + (64 - (uintptr_t) p % 64) % 64);
}

/* n doubles, kc_alloc'd, from a 64-byte boundary. */
static double *alloc_aligned(size_t n)
{
    return align_up((double *) kc_alloc(n + ALIGN_DOUBLES, sizeof(double)));
}

/* Per-thread scratch a tile of a's rows needs: dense, the packed panels;
 * sparse, a dense vector of p (scatter one row, gather the others: zero
 * between uses); callback, two index arrays. */
static size_t kc_tile_work_size(const kc_points *a)
{
    switch (a->src) {
    case KC_SRC_DENSE:  /* a's panels, then b's from an aligned start */
        return round_aligned((size_t) round_up(KC_TILE, MR) * a->p) + (size_t) round_up(KC_TILE, NR) * a->p;
    case KC_SRC_SPARSE: return (size_t) a->p;
    case KC_SRC_PRECOMPUTED: return 0;
    case KC_SRC_CALLBACK: return KC_TILE;  /* 2 KC_TILE ints */
    }
    return 0;
}

/* The work of one kernel value, in flops, for the thread and chunk
 * decisions: dense, p multiply-adds and the kernel; sparse, the non-zeros
 * of a row, on average. */
static double pair_cost(const kc_points *a)
{
    switch (a->src) {
    case KC_SRC_DENSE: return 2.0 * a->p + 20;
    case KC_SRC_SPARSE: {
        double nnz = 0;
        for (ptrdiff_t i = 0; i < a->n; i++) {
            ptrdiff_t r = src_row(a, i);
            nnz += a->rowptr[r + 1] - a->rowptr[r];
        }
        return 2.0 * (a->n ? nnz / a->n : 0) + 20;
    }
    case KC_SRC_PRECOMPUTED: return 20;
    case KC_SRC_CALLBACK: return 1e4;
    }
    return 20;
}

/* The work of one pair for a set of nk kernels sharing its inner products
 * or distances: each further kernel adds its values and their sums. */
static double set_cost(const kc_points *a, int nk)
{
    return pair_cost(a) + 20.0 * (nk - 1);
}

/* R is called on the main thread only: callback points get one thread. */
static int threads_for_source(const kc_points *a, const kc_points *b, int nthreads)
{
    return a->src == KC_SRC_CALLBACK || b->src == KC_SRC_CALLBACK ? 1 : nthreads;
}

/* Zero the sparse scatter vectors of every thread's scratch. */
static void zero_scatter(const kc_points *a, double *base, size_t per_thread, int nthreads)
{
    if (a->src != KC_SRC_SPARSE) return;
    for (int t = 0; t < nthreads; t++) memset(base + (size_t) t * per_thread, 0, sizeof(double) * a->p);
}

/* Rows idx[0..cnt) of a into panels of w rows: buf[panel][k][r]; the rows
 * past cnt in the last panel are zero. */
static void pack_rows(const kc_points *a, const int *idx, ptrdiff_t start,
                      int cnt, int w, double *buf)
{
    int p = a->p;
    for (int r0 = 0; r0 < cnt; r0 += w) {
        double *panel = buf + (size_t) r0 * p;
        int rows = cnt - r0 < w ? cnt - r0 : w;
        for (int k = 0; k < p; k++) {
            const double *col = a->x + (ptrdiff_t) k * a->n;
            double *dst = panel + (size_t) k * w;
            for (int r = 0; r < rows; r++) dst[r] = col[row_of(idx, start, r0 + r)];
            for (int r = rows; r < w; r++) dst[r] = 0.0;
        }
    }
}

/* The rows of a packed into tile panels once, for points that serve as the
 * columns of many tiles (instead of once per tile). */
static void pack_points(kc_points *a)
{
    double *buf = alloc_aligned((size_t) round_up((int) a->n, NR) * a->p + 1);
    for (ptrdiff_t r0 = 0; r0 < a->n; r0 += KC_TILE) {
        int cnt = a->n - r0 < KC_TILE ? (int) (a->n - r0) : KC_TILE;
        pack_rows(a, NULL, r0, cnt, NR, buf + (size_t) r0 * a->p);
    }
    a->packed = buf;
}

static double direct_sqdist(const kc_points *a, ptrdiff_t ra,
                            const kc_points *b, ptrdiff_t rb)
{
    double s = 0.0;
    if (a->src == KC_SRC_SPARSE) {  /* merge the two rows' columns */
        ra = src_row(a, ra);
        rb = src_row(b, rb);
        int t = a->rowptr[ra], te = a->rowptr[ra + 1];
        int u = b->rowptr[rb], ue = b->rowptr[rb + 1];
        while (t < te || u < ue) {
            double d;
            if (u >= ue || (t < te && a->col[t] < b->col[u])) d = a->val[t++];
            else if (t >= te || b->col[u] < a->col[t]) d = b->val[u++];
            else d = a->val[t++] - b->val[u++];
            s += d * d;
        }
        return s;
    }
    for (int k = 0; k < a->p; k++) {
        double d = a->x[ra + (ptrdiff_t) k * a->n] - b->x[rb + (ptrdiff_t) k * b->n];
        s += d * d;
    }
    return s;
}

static double int_power(double x, int n)
{
    double r = 1.0;
    for (; n > 0; n >>= 1, x *= x)
        if (n & 1) r *= x;
    return r;
}

/* Kernel values from what the tile holds: inner products or, for the
 * distance kernels, squared distances; in place. */
static void linear_values(const kc_kernel *k, double *v, size_t n)
{
    (void) k; (void) v; (void) n;  /* x'y as it is */
}

static void polynomial_values(const kc_kernel *k, double *v, size_t n)
{
    for (size_t t = 0; t < n; t++) v[t] = int_power(k->gamma * v[t] + k->coef0, k->degree);
}

static void sigmoid_values(const kc_kernel *k, double *v, size_t n)
{
    for (size_t t = 0; t < n; t++) v[t] = tanh(k->gamma * v[t] + k->coef0);
}

static void rbf_values(const kc_kernel *k, double *v, size_t n)
{
    kc_isa.exp_bulk(v, n, k->gamma, 0);
}

static void laplace_values(const kc_kernel *k, double *v, size_t n)
{
    kc_isa.exp_bulk(v, n, k->gamma, 1);  /* exp(-gamma sqrt(d2)) */
}

typedef struct {
    const char *name;  /* as in R's kernel table (R/kernel-table.R) */
    int distance;      /* computed from squared distances, not inner products */
    int plain;         /* k(x, y) = x'y itself: given kernel values pass through it */
    int bounded;       /* |k(x, y)| <= 1 for any points */
    void (*values)(const kc_kernel *k, double *v, size_t n);
} kernel_def;

/* The kernel table: one case a kernel, in the order of the enum.  No
 * default, so that -Wswitch names a kernel left out; a code without a case
 * gets no name, and kernel_from() (ffi.c) refuses it. */
static kernel_def kernel_def_of(kc_kernel_type type)
{
    kernel_def d = {NULL, 0, 0, 0, linear_values};
    switch (type) {
    /*                                name     distance plain bounded */
    case KC_LINEAR:     d = (kernel_def) {"linear", 0, 1, 0, linear_values}; break;
    case KC_POLYNOMIAL: d = (kernel_def) {"polynomial", 0, 0, 0, polynomial_values}; break;
    case KC_RBF:        d = (kernel_def) {"rbf", 1, 0, 1, rbf_values}; break;
    case KC_LAPLACE:    d = (kernel_def) {"laplace", 1, 0, 1, laplace_values}; break;
    case KC_SIGMOID:    d = (kernel_def) {"sigmoid", 0, 0, 1, sigmoid_values}; break;
    case KC_KERNEL_COUNT: break;
    }
    return d;
}

const char *kc_kernel_name(kc_kernel_type type) { return kernel_def_of(type).name; }

int kc_kernel_uses_distance(kc_kernel_type type) { return kernel_def_of(type).distance; }

int kc_kernel_is_plain(kc_kernel_type type) { return kernel_def_of(type).plain; }

int kc_kernel_is_bounded(kc_kernel_type type) { return kernel_def_of(type).bounded; }

/* k(z, z) from q = ||z||^2 alone: the kernel of q, or of the distance 0. */
double kc_self_kernel(const kc_kernel *k, double sqnorm)
{
    kernel_def d = kernel_def_of(k->type);
    double v = d.distance ? 0.0 : sqnorm;
    d.values(k, &v, 1);
    return v;
}

/* Turn the tile of inner products (na x nb, row-major) into kernel values
 * in place.  The distance kernels go a row at a time: inner products to
 * squared distances from the norms (the rare ones that lost digits
 * recomputed directly), then the kernel, while the row is in the nearest
 * cache (a pass over the whole tile for each step read it from farther
 * away).  values = 0 stops before the kernel: the tile then holds what
 * every kernel of the type starts from (values_from_base). */
static void apply_kernel(const kc_kernel *k, int values,
                         const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                         const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                         double *tile)
{
    kernel_def d = kernel_def_of(k->type);
    if (!d.distance) {
        if (values) d.values(k, tile, (size_t) na * nb);
        return;
    }
    double *bsq = tile + (size_t) KC_TILE * KC_TILE;  /* see TILE_DOUBLES */
    for (int j = 0; j < nb; j++) bsq[j] = b->sqnorm[row_of(bi, b0, j)];
    for (int i = 0; i < na; i++) {
        ptrdiff_t ra = row_of(ai, a0, i);
        double asq = a->sqnorm[ra];
        double *row = tile + (size_t) i * nb;
        if (kc_isa.sqdist_row(row, asq, bsq, nb))
            for (int j = 0; j < nb; j++)
                if (KC_NEEDS_REFINE(row[j], asq + bsq[j]))
                    row[j] = direct_sqdist(a, ra, b, row_of(bi, b0, j));
        if (values) d.values(k, row, (size_t) nb);
    }
}

/* The values of kernel k from a tile apply_kernel left before the kernel
 * (values = 0), into out: applied as apply_kernel applies them (a row at a
 * time for the distance kernels), so they equal a tile of k alone bit for
 * bit.  Kernels of one type differing in their parameters (a grid of gammas)
 * thus share one tile of inner products or distances. */
static void values_from_base(const kc_kernel *k, const double *base, double *out,
                             int na, int nb)
{
    kernel_def d = kernel_def_of(k->type);
    memcpy(out, base, sizeof(double) * (size_t) na * nb);
    if (!d.distance) {
        d.values(k, out, (size_t) na * nb);
        return;
    }
    for (int i = 0; i < na; i++) d.values(k, out + (size_t) i * nb, (size_t) nb);
}

/* The points as the tiles read them: a copy of *a with the squared row
 * norms a distance kernel needs and, when pack is set, packed (pack_points;
 * unless too many rows for the panels' int arithmetic).  kc_alloc'd. */
kc_points kc_prepare_points(const kc_kernel *k, const kc_points *a, int pack)
{
    kc_points out = *a;
    if (kernel_def_of(k->type).distance && !out.sqnorm) {
        double *norms = (double *) kc_alloc((size_t) a->n + 1, sizeof(double));
        kc_row_sqnorms(a, norms);
        out.sqnorm = norms;
    }
    if (pack && !out.packed && a->src == KC_SRC_DENSE && a->n <= KC_MAX_ROWS) pack_points(&out);
    return out;
}

kc_points kc_points_subset(const kc_points *a, const int *map, int m)
{
    kc_points out = *a;
    out.n = m;
    out.packed = NULL;
    if (a->sqnorm) {
        double *sq = (double *) kc_alloc((size_t) m + 1, sizeof(double));
        for (int i = 0; i < m; i++) sq[i] = a->sqnorm[map[i]];
        out.sqnorm = sq;
    }
    if (a->src == KC_SRC_DENSE) {
        double *x = (double *) kc_alloc((size_t) m * a->p + 1, sizeof(double));
        for (int c = 0; c < a->p; c++)
            for (int i = 0; i < m; i++)
                x[i + (size_t) c * m] = a->x[map[i] + (ptrdiff_t) c * a->n];
        out.x = x;
        return out;
    }
    int *rows = (int *) kc_alloc((size_t) m + 1, sizeof(int));
    for (int i = 0; i < m; i++) rows[i] = (int) src_row(a, map[i]);
    out.rowmap = rows;
    if (a->colmap) {
        int *cols = (int *) kc_alloc((size_t) m + 1, sizeof(int));
        for (int i = 0; i < m; i++) cols[i] = a->colmap[map[i]];
        out.colmap = cols;
    }
    return out;
}

/* Inner products of sparse rows: each row of a scattered into the dense
 * vector dense (zero on entry and on return), then gathered by each row of
 * b's non-zeros.  Measured against merging the two rows' sorted columns (a
 * standalone C loop over 128 x 128 tiles of random rows with 100 non-zeros
 * in 50,000 columns, on a shared 2-core machine): 0.27 us a value against
 * 4.4 us, the merge mispredicting a branch at every step. */
static void sparse_tile(const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                        const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                        double *dense, double *tile)
{
    const int *ap = a->rowptr, *bp = b->rowptr;
    for (int i = 0; i < na; i++) {
        ptrdiff_t ra = src_row(a, row_of(ai, a0, i));
        for (int t = ap[ra]; t < ap[ra + 1]; t++) dense[a->col[t]] = a->val[t];
        double *row = tile + (size_t) i * nb;
        for (int j = 0; j < nb; j++) {
            ptrdiff_t rb = src_row(b, row_of(bi, b0, j));
            double s = 0.0;
            for (int u = bp[rb]; u < bp[rb + 1]; u++) s += b->val[u] * dense[b->col[u]];
            row[j] = s;
        }
        for (int t = ap[ra]; t < ap[ra + 1]; t++) dense[a->col[t]] = 0.0;
    }
}

/* Given kernel values: the columns of a's points, at b's training points. */
static void precomputed_tile(const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                             const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                             double *tile)
{
    for (int i = 0; i < na; i++) {
        const double *src = a->x + src_row(a, row_of(ai, a0, i)) * a->ld;
        double *row = tile + (size_t) i * nb;
        for (int j = 0; j < nb; j++) row[j] = src[b->colmap[row_of(bi, b0, j)]];
    }
}

/* Kernel values computed by R (callback.c), on the main thread; idx holds
 * 2 KC_TILE ints. */
static void callback_tile(const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                          const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                          int *idx, double *tile)
{
    int *ra = idx, *rb = idx + KC_TILE;
    for (int i = 0; i < na; i++) ra[i] = (int) src_row(a, row_of(ai, a0, i));
    for (int j = 0; j < nb; j++) rb[j] = (int) src_row(b, row_of(bi, b0, j));
    if (a->tile_fn(a->ctx, ra, na, b->ctx, rb, nb, tile))
        memset(tile, 0, sizeof(double) * (size_t) na * nb);  /* raised after the region */
}

/* Kernel values between rows ai[0..na) of a and rows bi[0..nb) of b (index
 * arrays, or NULL for the ranges a0.. and b0..) into tile (TILE_DOUBLES),
 * na x nb row-major: tile[i * nb + j].  work holds kc_tile_work_size(a).  apack: these rows
 * of a already packed (a caller running one block of a against many blocks
 * of b packs it once), or NULL. */
static void kernel_tile(const kc_kernel *k, int values,
                        const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                        const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                        const double *apack, double *work, double *tile)
{
    switch (a->src) {
    case KC_SRC_DENSE: break;
    case KC_SRC_SPARSE: sparse_tile(a, ai, a0, na, b, bi, b0, nb, work, tile); break;
    case KC_SRC_PRECOMPUTED: precomputed_tile(a, ai, a0, na, b, bi, b0, nb, tile); break;
    case KC_SRC_CALLBACK: callback_tile(a, ai, a0, na, b, bi, b0, nb, (int *) work, tile); break;
    }
    if (a->src != KC_SRC_DENSE) {
        apply_kernel(k, values, a, ai, a0, na, b, bi, b0, nb, tile);
        return;
    }
    int p = a->p;
    double *bpack = work + round_aligned((size_t) round_up(KC_TILE, MR) * p);
    if (!apack) {
        pack_rows(a, ai, a0, na, MR, work);
        apack = work;
    }
    if (b->packed && !bi && b0 % NR == 0) bpack = (double *) b->packed + (size_t) b0 * p;
    else pack_rows(b, bi, b0, nb, NR, bpack);

    double edge[MR * 4 * NR];
    int j0 = 0;
    if (na == 1 && kc_isa.row)
        for (; j0 + 4 * NR <= nb; j0 += 4 * NR) kc_isa.row(apack, bpack + (size_t) j0 * p, p, tile + j0);
    if (na > 1 && na <= 4 && kc_isa.rows4)
        for (; j0 + 4 * NR <= nb; j0 += 4 * NR) {
            double *out = na == 4 ? tile + j0 : edge;
            int ld = na == 4 ? nb : 4 * NR;
            kc_isa.rows4(apack, bpack + (size_t) j0 * p, p, out, ld);
            if (na < 4)
                for (int r = 0; r < na; r++)
                    memcpy(tile + (size_t) r * nb + j0, edge + r * 4 * NR, sizeof(double) * 4 * NR);
        }
    while (j0 < nb) {
        /* two panels at once where the wide kernel exists and both exist */
        int wide = kc_isa.wide && nb - j0 > NR, width = wide ? 2 * NR : NR;
        int nj = nb - j0 < width ? nb - j0 : width;
        for (int i0 = 0; i0 < na; i0 += MR) {
            int ni = na - i0 < MR ? na - i0 : MR;
            const double *ap = apack + (size_t) i0 * p, *bp = bpack + (size_t) j0 * p;
            /* whole blocks go straight into the tile, edge blocks via edge[] */
            int whole = ni == MR && nj == width;
            double *out = whole ? tile + (size_t) i0 * nb + j0 : edge;
            int ld = whole ? nb : width;
            if (wide) kc_isa.wide(ap, bp, p, out, ld);
            else kc_isa.micro(ap, bp, p, out, ld);
            if (!whole)
                for (int r = 0; r < ni; r++)
                    memcpy(tile + (size_t) (i0 + r) * nb + j0, edge + r * width, sizeof(double) * nj);
        }
        j0 += width;
    }

    apply_kernel(k, values, a, ai, a0, na, b, bi, b0, nb, tile);
}


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
        kc_error("size", "kernclass: scratch space of %.0f doubles is too large", total);
    s.base = alloc_aligned((size_t) nthreads * doubles_per_thread);
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
    double tile_flops = (double) KC_TILE * KC_TILE * cost;  /* cost: pair_cost() */
    double tiles = CHUNK_FLOPS / tile_flops;
    return tiles < 1 ? 1 : (tiles > 4096 ? 4096 : (int) tiles);
}

/* The Gram matrix into out (doubles) or outf (the same values rounded to
 * floats, as the solver's row store holds them), column-major. */
static void gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
                 int symmetric, double *out, float *outf, int nthreads)
{
    kc_points pa = kc_prepare_points(k, a, 0);
    kc_points pb = symmetric ? pa : kc_prepare_points(k, b, 0);
    a = &pa;
    b = &pb;
    double cost = pair_cost(a);
    nthreads = threads_for_source(a, b, kc_threads_for((double) a->n * b->n * cost / (symmetric ? 2 : 1), nthreads));
    int bi_n = nblocks(a->n), bj_n = nblocks(b->n);
    size_t work_n = kc_tile_work_size(a);
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES);
    zero_scatter(a, s.base, s.per_thread, nthreads);
    ptrdiff_t lda = a->n;
    size_t ntasks = (size_t) bi_n * bj_n;
    size_t chunk = (size_t) nthreads * tiles_per_chunk(cost);

    for (size_t t0 = 0; t0 < ntasks; t0 += chunk) {
        size_t t1 = t0 + chunk < ntasks ? t0 + chunk : ntasks;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
        for (size_t t = t0; t < t1; t++) {
            int I = (int) (t / bj_n), J = (int) (t % bj_n);
            if (symmetric && J < I) continue;
            double *work = scratch_for(&s, thread_id());
            double *tile = work + work_n;
            ptrdiff_t a0 = (ptrdiff_t) I * KC_TILE, b0 = (ptrdiff_t) J * KC_TILE;
            int na = block_len(a->n, I), nb = block_len(b->n, J);
            kernel_tile(k, 1, a, NULL, a0, na, b, NULL, b0, nb, NULL, work, tile);
            for (int i = 0; i < na; i++)
                for (int j = 0; j < nb; j++) {
                    /* on a diagonal tile keep the upper triangle, mirror it */
                    if (symmetric && I == J && i > j) continue;
                    double v = tile[(size_t) i * nb + j];
                    if (outf) {
                        outf[(a0 + i) + (b0 + j) * lda] = (float) v;
                        if (symmetric) outf[(b0 + j) + (a0 + i) * lda] = (float) v;
                    } else {
                        out[(a0 + i) + (b0 + j) * lda] = v;
                        if (symmetric) out[(b0 + j) + (a0 + i) * lda] = v;
                    }
                }
        }
        kc_callback_raise();
        kc_check_interrupt();
    }
}

void kc_gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
             int symmetric, double *out, int nthreads)
{
    gram(k, a, b, symmetric, out, NULL, nthreads);
}

void kc_gram_float(const kc_kernel *k, const kc_points *a, float *out, int nthreads)
{
    gram(k, a, a, 1, NULL, out, nthreads);
}

void kc_expansion(const kc_kernel *k, int nk, const kc_points *a, const kc_points *b,
                  const double *w, int ncols, double *out, int nthreads)
{
    kc_points pa = kc_prepare_points(k, a, 0);
    kc_points pb = kc_prepare_points(k, b, a->n > KC_TILE);  /* b serves every row block */
    a = &pa;
    b = &pb;
    double cost = set_cost(a, nk);
    nthreads = threads_for_source(a, b, kc_threads_for((double) a->n * b->n * cost, nthreads));
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
    double *slots = alloc_aligned((size_t) nslots_max * slot_n);
    size_t values_n = nk > 1 ? (size_t) KC_TILE * KC_TILE : 0;  /* one kernel's tile */
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES + values_n);
    zero_scatter(a, s.base, s.per_thread, nthreads);
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
                    if (pack_n) pack_rows(a, NULL, a0, na, MR, apack);
                }
                for (int J = J0; J < J1; J++) {
                    ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
                    int nb = block_len(b->n, J);
                    kernel_tile(k, nk == 1, a, NULL, a0, na, b, NULL, b0, nb,
                                pack_n ? apack : NULL, work, tile);
                    for (int kk = 0; kk < nk; kk++) {
                        if (nk > 1) values_from_base(k + kk, tile, vals, na, nb);
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
    nthreads = threads_for_source(b, b, nthreads);
    size_t per_thread = rows_per_thread(b);
    work = align_up(work);
    int nbj = nblocks(b->n);
    double *rows_packed = NULL;
    if (b->src == KC_SRC_DENSE) {
        rows_packed = work + (size_t) nthreads * per_thread;
        pack_rows(b, rows, 0, nr, MR, rows_packed);
    }
    zero_scatter(b, work, per_thread, nthreads);
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
    for (int J = 0; J < nbj; J++) {
        double *mine = work + (size_t) thread_id() * per_thread;
        double *tile = mine + kc_tile_work_size(b);
        ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
        int nb = block_len(b->n, J);
        kernel_tile(k, 1, b, rows, 0, nr, b, NULL, b0, nb, rows_packed, mine, tile);
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
    /* stable counting sort of the rows by group */
    ptrdiff_t *start = (ptrdiff_t *) kc_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
    for (int g = 0; g <= ngroups; g++) start[g] = 0;
    for (ptrdiff_t i = 0; i < n; i++) start[group[i] + 1]++;
    for (int g = 0; g < ngroups; g++) start[g + 1] += start[g];
    int *order = (int *) kc_alloc((size_t) n, sizeof(int));
    ptrdiff_t *fill = (ptrdiff_t *) kc_alloc((size_t) ngroups, sizeof(ptrdiff_t));
    for (int g = 0; g < ngroups; g++) fill[g] = start[g];
    for (ptrdiff_t i = 0; i < n; i++) order[fill[group[i]]++] = (int) i;

    /* Dense rows are copied in group order.  A group of more than one tile
     * starts on a panel boundary (fewer than NR zero rows before it) and is
     * read from the copy packed once: its row blocks serve many tiles, and
     * contiguous ranges are read instead of rows gathered one by one (a
     * gather touches one cache line per value: measured 24 ns a kernel
     * value at n = 30,000, d = 100, against 8 for ranges).  A group of one
     * tile is packed by its only tile; it gets no padding, so that memory
     * follows the data (padding every group to a whole tile made 300 groups
     * of 2 rows take 64 times the data, twice).  Other sources are read
     * through order[]. */
    int p = b->p, dense = b->src == KC_SRC_DENSE;
    kc_points sorted = *b;
    ptrdiff_t *gstart = NULL;
    if (dense) {
        gstart = (ptrdiff_t *) kc_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
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
            kc_error("size", "kernclass: the data are too large (%.0f rows)", (double) total);
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
        memset(&sorted, 0, sizeof sorted);  /* a dense source */
        sorted.x = xs;
        sorted.n = total;
        sorted.p = p;
        sorted.sqnorm = b->sqnorm ? ns : NULL;
        if (any_big) pack_points(&sorted);
    }

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
        kc_error("size", "kernclass: too many tiles (%.0f)", ntiles_d);
    size_t ntiles = (size_t) ntiles_d;
    double cost = set_cost(b, nk);
    nthreads = threads_for_source(b, b, kc_threads_for(ntiles_d * KC_TILE * KC_TILE * cost, nthreads));
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
    zero_scatter(b, s.base, s.per_thread, nthreads);
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
            if (dense) pack_rows(&sorted, NULL, a0, na, MR, work);  /* kernel_tile's a panels */
            for (int J = J0; J < J1; J++) {
                int nb = block_len(ng, J);
                if (dense)
                    kernel_tile(k, nk == 1, &sorted, NULL, a0, na,
                                &sorted, NULL, gstart[g] + (ptrdiff_t) J * KC_TILE, nb, work, work, tile);
                else
                    kernel_tile(k, nk == 1, b, order + start[g] + (ptrdiff_t) I * KC_TILE, 0, na,
                                b, order + start[g] + (ptrdiff_t) J * KC_TILE, 0, nb, NULL, work, tile);
                for (int kk = 0; kk < nk; kk++) {
                    if (nk > 1) values_from_base(k + kk, tile, vals, na, nb);
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
    nthreads = threads_for_source(b, b, kc_threads_for((double) n * n * pair_cost(b), nthreads));
    int nb_n = nblocks(n);
    size_t work_n = kc_tile_work_size(b);
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES + (size_t) ngroups * KC_TILE);
    zero_scatter(b, s.base, s.per_thread, nthreads);
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
                kernel_tile(k, 1, b, NULL, a0, na, b, NULL, b0, nb, NULL, work, tile);
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
