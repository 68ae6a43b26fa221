/* The kernel engine's table and tiles: the kernels (kernel_def_of, the
 * one switch over kernels in C), the points as the tiles read them (norms,
 * packed panels, subsets) and the kernel values of square tiles
 * (kernel_tile, the one switch over data sources).  The workers built on
 * them are in kernel-sums.c (Gram matrix, kernel expansions, kernel rows)
 * and kernel-groups.c (group sums).
 *
 * A tile is a matrix product: both sets of rows are packed into panels
 * (MR rows of a, NR rows of b, interleaved feature by feature) so that the
 * innermost loop is an MR x NR outer product that stays in registers (the
 * instruction-set kernels, isa.c).  The kernel function is then applied to
 * the tile of inner products, as the kernel table (kernel_def_of) says.
 *
 * Memory: all buffers come from kc_alloc (R_alloc) on the calling thread,
 * before any parallel region, so an error or a user interrupt frees them;
 * inside a unit of kc_units from the unit's own scratch (units.c).
 */
#include <math.h>
#include <string.h>
#include "kernclass.h"
#include "kernel.h"
#include "kernel-tile.h"
#include "callback.h"
#include "units.h"
#include "isa.h"

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

double *kc_alloc_aligned(size_t n)
{
    return align_up((double *) kc_alloc(n + ALIGN_DOUBLES, sizeof(double)));
}

size_t kc_tile_work_size(const kc_points *a)
{
    switch (a->src) {
    case KC_SRC_DENSE:  /* a's panels, then b's from an aligned start, then the float
                         * tiles' where the points are prepared for them (a centre:
                         * kc_prepare_single; a tile takes them only when both sets,
                         * one of them a, have one) */
        return round_aligned((size_t) round_up(KC_TILE, MR) * a->p) +
               round_aligned((size_t) round_up(KC_TILE, NR) * a->p) +
               (a->centre ? kc_float_work_size(a->p) : 0);
    case KC_SRC_SPARSE: return (size_t) a->p;
    case KC_SRC_PRECOMPUTED: return 0;
    case KC_SRC_CALLBACK: return KC_TILE;  /* 2 KC_TILE ints */
    }
    return 0;
}

double kc_pair_cost(const kc_points *a)
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

double kc_set_cost(const kc_points *a, int nk)
{
    return kc_pair_cost(a) + 20.0 * (nk - 1);
}

int kc_threads_for_source(const kc_points *a, const kc_points *b, int nthreads)
{
    return a->src == KC_SRC_CALLBACK || b->src == KC_SRC_CALLBACK ? 1 : nthreads;
}

void kc_zero_scatter(const kc_points *a, double *base, size_t per_thread, int nthreads)
{
    if (a->src != KC_SRC_SPARSE) return;
    for (int t = 0; t < nthreads; t++) memset(base + (size_t) t * per_thread, 0, sizeof(double) * a->p);
}

/* The widest panel (MR or NR rows). */
#define PANEL_MAX (MR > NR ? MR : NR)

void kc_pack_rows(const kc_points *a, const int *idx, ptrdiff_t start,
                  int cnt, int w, double *buf)
{
    int p = a->p;
    if (a->packed && !idx && w <= PANEL_MAX) {
        /* a range of points already packed (kc_pack_points): from its panels
         * of NR rows, a panel of w rows reads one or two of them front to
         * back (from the column-major points a panel read one cache line
         * and one page a feature: as slow as the products of a tile, for
         * rows packed once per 8 tiles; perf, 10,000 x 784) */
        for (int r0 = 0; r0 < cnt; r0 += w) {
            double *panel = buf + (size_t) r0 * p;
            int rows = cnt - r0 < w ? cnt - r0 : w;
            const double *src[PANEL_MAX];
            for (int r = 0; r < rows; r++) {
                ptrdiff_t R = start + r0 + r;
                src[r] = a->packed + (R - R % NR) * p + R % NR;
            }
            for (int k = 0; k < p; k++) {
                double *dst = panel + (size_t) k * w;
                for (int r = 0; r < rows; r++) dst[r] = src[r][(size_t) k * NR];
                for (int r = rows; r < w; r++) dst[r] = 0.0;
            }
        }
        return;
    }
    /* a feature at a time across all the panels: the feature's rows are
     * read together (one page of the column-major points for the range,
     * not one for each panel) */
    for (int k = 0; k < p; k++) {
        const double *col = a->x + (ptrdiff_t) k * a->n;
        for (int r0 = 0; r0 < cnt; r0 += w) {
            double *dst = buf + (size_t) r0 * p + (size_t) k * w;
            int rows = cnt - r0 < w ? cnt - r0 : w;
            for (int r = 0; r < rows; r++) dst[r] = col[row_of(idx, start, r0 + r)];
            for (int r = rows; r < w; r++) dst[r] = 0.0;
        }
    }
}

void kc_pack_points(kc_points *a)
{
    double *buf = kc_alloc_aligned((size_t) round_up((int) a->n, NR) * a->p + 1);
    for (ptrdiff_t r0 = 0; r0 < a->n; r0 += KC_TILE) {
        int cnt = a->n - r0 < KC_TILE ? (int) (a->n - r0) : KC_TILE;
        kc_pack_rows(a, NULL, r0, cnt, NR, buf + (size_t) r0 * a->p);
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
    const char *name;  /* as in R's kernel table (R/table-kernels.R) */
    int distance;      /* computed from squared distances, not inner products */
    int plain;         /* k(x, y) = x'y itself: given kernel values pass through it */
    int bounded;       /* |k(x, y)| <= 1 for any points */
    void (*values)(const kc_kernel *k, double *v, size_t n);
} kernel_def;

/* The kernel table: one case a kernel, in the order of the enum.  No
 * default, so that -Wswitch names a kernel left out; a code without a case
 * gets no name, and kernel_of() (ffi.c) refuses it. */
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

/* The table's plain kernel: its first that is the inner product itself,
 * with parameters that leave it so. */
kc_kernel kc_plain_kernel(void)
{
    for (int t = 0; t < KC_KERNEL_COUNT; t++)
        if (kernel_def_of((kc_kernel_type) t).plain)
            return (kc_kernel) {(kc_kernel_type) t, 1.0, 0.0, 1, 0};
    kc_internal("the kernel table has no plain kernel");
}

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
 * every kernel of the type starts from (kc_values_from_base). */
static void apply_kernel(const kc_kernel *k, int values,
                         const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                         const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                         const double *asq_f, const double *bsq_f, double *tile)
{
    kernel_def d = kernel_def_of(k->type);
    if (!d.distance) {
        if (values) d.values(k, tile, (size_t) na * nb);
        return;
    }
    /* the norms of the points, or those of the float tiles' points */
    const double *bsq = bsq_f;
    if (!bsq) {
        double *copy = tile + (size_t) KC_TILE * KC_TILE;  /* see TILE_DOUBLES */
        for (int j = 0; j < nb; j++) copy[j] = b->sqnorm[row_of(bi, b0, j)];
        bsq = copy;
    }
    for (int i = 0; i < na; i++) {
        ptrdiff_t ra = row_of(ai, a0, i);
        double asq = asq_f ? asq_f[i] : a->sqnorm[ra];
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
void kc_values_from_base(const kc_kernel *k, const double *base, double *out,
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
 * norms a distance kernel needs and, when pack is set, packed (kc_pack_points;
 * unless too many rows for the panels' int arithmetic).  kc_alloc'd. */
kc_points kc_prepare_points(const kc_kernel *k, const kc_points *a, int pack)
{
    kc_points out = *a;
    if (kernel_def_of(k->type).distance && !out.sqnorm) {
        double *norms = (double *) kc_alloc((size_t) a->n + 1, sizeof(double));
        kc_row_sqnorms(a, norms);
        out.sqnorm = norms;
    }
    if (pack && !out.packed && a->src == KC_SRC_DENSE && a->n <= KC_MAX_ROWS) kc_pack_points(&out);
    kc_prepare_single(k, &out, pack);
    return out;
}

kc_points kc_points_subset(const kc_points *a, const int *map, int m)
{
    kc_points out = *a;
    out.n = m;
    out.packed = NULL;
    out.packed_f = NULL;  /* the centre stays: the subset's floats are the set's */
    out.sqnorm_f = NULL;
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

/* The inner products of a tile from its double panels (tile-products.h). */
#define KC_WALK_NAME double_products
#define KC_WALK_T double
#define KC_WALK_W NR
#define KC_WALK_ROW kc_isa.row
#define KC_WALK_ROWS4 kc_isa.rows4
#define KC_WALK_WIDE kc_isa.wide
#define KC_WALK_MICRO kc_isa.micro
#include "tile-products.h"

/* Kernel values between rows ai[0..na) of a and rows bi[0..nb) of b (index
 * arrays, or NULL for the ranges a0.. and b0..) into tile (TILE_DOUBLES),
 * na x nb row-major: tile[i * nb + j].  work holds kc_tile_work_size(a).  apack: these rows
 * of a already packed (a caller running one block of a against many blocks
 * of b packs it once), or NULL. */
void kc_kernel_tile(const kc_kernel *k, int values,
                    const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                    const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                    const double *apack, double *work, double *tile)
{
    /* single-precision products: asked for, and both sets prepared for them
     * with one centre (kc_prepare_single) */
    int single = (values & KC_TILE_FLOAT) && k->single && k->type == KC_RBF &&
                 a->src == KC_SRC_DENSE && b->src == KC_SRC_DENSE && a->centre && b->centre &&
                 b->sqnorm_f && a->p >= 1;
    switch (a->src) {
    case KC_SRC_DENSE: break;
    case KC_SRC_SPARSE: sparse_tile(a, ai, a0, na, b, bi, b0, nb, work, tile); break;
    case KC_SRC_PRECOMPUTED: precomputed_tile(a, ai, a0, na, b, bi, b0, nb, tile); break;
    case KC_SRC_CALLBACK: callback_tile(a, ai, a0, na, b, bi, b0, nb, (int *) work, tile); break;
    }
    values &= ~KC_TILE_FLOAT;
    if (a->src != KC_SRC_DENSE) {
        apply_kernel(k, values, a, ai, a0, na, b, bi, b0, nb, NULL, NULL, tile);
        return;
    }
    int p = a->p;
    double *bpack = work + round_aligned((size_t) round_up(KC_TILE, MR) * p);
    if (!apack) {
        kc_pack_rows(a, ai, a0, na, MR, work);
        apack = work;
    }
    /* float products (kernel-float.c): b's float panels where it has them
     * for this range, else from its double panels */
    int use_f = single && b->packed_f && b->packed && !bi && b0 % NF == 0;
    if (!use_f) {
        if (b->packed && !bi && b0 % NR == 0) bpack = (double *) b->packed + (size_t) b0 * p;
        else kc_pack_rows(b, bi, b0, nb, NR, bpack);
    }
    if (single) {
        double *fw = work + round_aligned((size_t) round_up(KC_TILE, MR) * p) +
                     round_aligned((size_t) round_up(KC_TILE, NR) * p);
        const double *asq, *bsq;
        kc_float_products(a, ai, a0, na, b, bi, b0, nb, use_f, apack, bpack, fw, &asq, &bsq, tile);
        apply_kernel(k, values, a, ai, a0, na, b, bi, b0, nb, asq, bsq, tile);
        return;
    }

    double_products(apack, bpack, p, na, nb, tile);
    apply_kernel(k, values, a, ai, a0, na, b, bi, b0, nb, NULL, NULL, tile);
}
