/* Low-rank kernel features, computed in row blocks so that memory follows
 * the block, not the data.
 *
 * Nystrom: z(x) = P' k_m(x), k_m(x) the kernel values of x against the m
 * landmarks (from the engine's kc_gram, so every kernel and source the
 * engine knows works), P chosen in R (R/repr-approx-map.R: R^-1 of the pivoted
 * Cholesky factor of the kept landmarks' K_mm, upper triangular, so that
 * z(x)'z(y) = k_m(x)' K_mm^-1 k_m(y)); any m x r P works.
 * Random Fourier features: z(x) = sqrt(2 / r) cos(W'x + phase), the
 * frequencies W (p x r) and phases drawn in R: E z(x)'z(y) = k(x, y) for a
 * shift-invariant kernel whose spectral density W was drawn from.
 *
 * Every product of matrices here is a Gram matrix of the linear kernel
 * (A B: the inner products of the rows of A with the columns of B), computed by the
 * engine's tiles: several times faster than R's reference BLAS (measured
 * 0.5 s against 2.5 s for 20,000 x 200 x 200 on the 2-core machine). */
#include <math.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "kernel.h"
#include "feature-map.h"

/* Rows per block: large enough that each block's parallel regions carry
 * work well beyond a scheduler time slice (10^5 rows, m = 200: 7.5 s in
 * blocks of 512, 2.8 s in blocks of 2048, one run on the shared 2-core
 * machine), small enough for its buffers (2048 x (m + r) doubles: 32 MB at
 * m = 1000). */
#define KC_FEATURE_BLOCK 2048

size_t kc_feature_work_size(const kc_feature_map *f)
{
    size_t nb = KC_FEATURE_BLOCK;
    size_t inner = 0;  /* the columns of a block's product: one switch case per type */
    switch (f->type) {
    case KC_FEATURES_NYSTROM: inner = (size_t) f->m; break;  /* k(rows, landmarks) */
    case KC_FEATURES_FOURIER: inner = (size_t) f->p; break;  /* the rows themselves */
    }
    return nb * inner + nb * (size_t) f->r;
}

/* Dense points: the rows of an n x p column-major matrix. */
static kc_points dense_points(const double *x, ptrdiff_t n, int p)
{
    kc_points a;
    memset(&a, 0, sizeof a);
    a.src = KC_SRC_DENSE;
    a.x = x;
    a.n = n;
    a.p = p;
    return a;
}

/* t (nb x ncol, column-major) = a (nb x inner) %*% b, given bt = t(b)
 * (ncol x inner, column-major). */
static void matmul(const double *a, int nb, int inner, const double *bt, int ncol, double *t,
                   int nthreads)
{
    kc_points pa = dense_points(a, nb, inner), pb = dense_points(bt, ncol, inner);
    kc_kernel plain = kc_plain_kernel();
    kc_gram(&plain, &pa, &pb, 0, t, nthreads);
}

/* t(x) of an n x p column-major matrix (R_alloc'd). */
static double *transposed(const double *x, int n, int p)
{
    double *t = (double *) R_alloc((size_t) n * p + 1, sizeof(double));
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++) t[j + (size_t) i * p] = x[i + (size_t) j * n];
    return t;
}

/* A triangular proj (the Cholesky map of R/repr-approx-map.R) is multiplied in
 * column blocks of this many: block J needs only the first end(J) rows of
 * proj, so the zeros below the diagonal cost nothing (half the flops of a
 * dense m x m projection) and each block is still one engine product. */
#define KC_TRI_BLOCK 256

/* X = R^-1 of an upper triangular r x r R (column-major, nonzero diagonal),
 * by column blocks J of KC_TRI_BLOCK: X[J, J] by back substitution, then
 * X[<J, J] = -(X[<J, <J] R[<J, J]) X[J, J], two engine products (R's
 * reference BLAS took 2.6 s at r = 2,000 in backsolve(); these products
 * a few tenths). */
void kc_triangular_inverse(const double *R, int r, double *X, int nthreads)
{
    memset(X, 0, (size_t) r * r * sizeof(double));
    int b = KC_TRI_BLOCK;
    double *a = (double *) R_alloc((size_t) r * r + 1, sizeof(double));
    double *bt = (double *) R_alloc((size_t) r * b + 1, sizeof(double));
    double *t = (double *) R_alloc((size_t) r * b + 1, sizeof(double));
    for (int j0 = 0; j0 < r; j0 += b) {
        int j1 = j0 + b < r ? j0 + b : r, nc = j1 - j0;
        /* the diagonal block: column j of its inverse, bottom up */
        for (int j = j0; j < j1; j++) {
            X[j + (size_t) j * r] = 1 / R[j + (size_t) j * r];
            for (int i = j - 1; i >= j0; i--) {
                double s = 0;
                for (int k = i + 1; k <= j; k++) s += R[i + (size_t) k * r] * X[k + (size_t) j * r];
                X[i + (size_t) j * r] = -s / R[i + (size_t) i * r];
            }
        }
        if (j0 == 0) continue;
        /* t (j0 x nc) = X[<J, <J] R[<J, J] */
        for (int k = 0; k < j0; k++)
            memcpy(a + (size_t) k * j0, X + (size_t) k * r, (size_t) j0 * sizeof(double));
        for (int k = 0; k < j0; k++)
            for (int c = 0; c < nc; c++) bt[c + (size_t) k * nc] = R[k + (size_t) (j0 + c) * r];
        matmul(a, j0, j0, bt, nc, t, nthreads);
        /* X[<J, J] = -t X[J, J] */
        for (int k = 0; k < nc; k++)
            for (int c = 0; c < nc; c++) bt[c + (size_t) k * nc] = X[j0 + k + (size_t) (j0 + c) * r];
        matmul(t, j0, nc, bt, nc, a, nthreads);
        for (int c = 0; c < nc; c++)
            for (int i = 0; i < j0; i++) X[i + (size_t) (j0 + c) * r] = -a[i + (size_t) c * j0];
    }
}

/* Whether proj (m x r) is square and upper triangular. */
static int upper_triangular(const double *proj, int m, int r)
{
    if (m != r) return 0;
    for (int j = 0; j < r; j++)
        for (int i = j + 1; i < m; i++)
            if (proj[i + (size_t) j * m] != 0) return 0;
    return 1;
}

/* The column blocks of an upper triangular r x r proj, one after another,
 * each transposed: block [j0, j1) as (j1 - j0) x j1 column-major, its rows
 * 0 .. j1 (R_alloc'd). */
static double *triangular_blocks(const double *proj, int r)
{
    size_t size = 0;
    for (int j0 = 0; j0 < r; j0 += KC_TRI_BLOCK) {
        int j1 = j0 + KC_TRI_BLOCK < r ? j0 + KC_TRI_BLOCK : r;
        size += (size_t) (j1 - j0) * j1;
    }
    double *t = (double *) R_alloc(size + 1, sizeof(double)), *bt = t;
    for (int j0 = 0; j0 < r; j0 += KC_TRI_BLOCK) {
        int j1 = j0 + KC_TRI_BLOCK < r ? j0 + KC_TRI_BLOCK : r, nc = j1 - j0;
        for (int i = 0; i < j1; i++)
            for (int c = 0; c < nc; c++) bt[c + (size_t) i * nc] = proj[i + (size_t) (j0 + c) * r];
        bt += (size_t) nc * j1;
    }
    return t;
}

/* Nystrom features of the rows [i0, i0 + nb) of a: k(rows, landmarks) proj. */
static void nystrom_block(const kc_feature_map *f, const kc_points *a, ptrdiff_t i0, int nb,
                          double *out, double *work, int nthreads)
{
    int *map = (int *) R_alloc((size_t) nb, sizeof(int));
    for (int i = 0; i < nb; i++) map[i] = (int) (i0 + i);
    kc_points blk = kc_points_subset(a, map, nb);
    kc_gram(&f->kernel, &blk, &f->landmarks, 0, work, nthreads);  /* nb x m */
    if (!f->triangular) {
        matmul(work, nb, f->m, f->projt, f->r, out, nthreads);
        return;
    }
    const double *bt = f->projt;
    for (int j0 = 0; j0 < f->r; j0 += KC_TRI_BLOCK) {
        int j1 = j0 + KC_TRI_BLOCK < f->r ? j0 + KC_TRI_BLOCK : f->r, nc = j1 - j0;
        /* the first j1 columns of work (column-major) are its nb x j1 prefix */
        matmul(work, nb, j1, bt, nc, out + (size_t) j0 * nb, nthreads);
        bt += (size_t) nc * j1;
    }
}

/* Random Fourier features of the rows [i0, i0 + nb) of a (dense). */
static void fourier_block(const kc_feature_map *f, const kc_points *a, ptrdiff_t i0, int nb,
                          double *out, double *work, int nthreads)
{
    for (int c = 0; c < f->p; c++)
        for (int i = 0; i < nb; i++)
            work[i + (size_t) c * nb] = a->x[i0 + i + (ptrdiff_t) c * a->n];
    matmul(work, nb, f->p, f->freqt, f->r, out, nthreads);
    double s = sqrt(2.0 / f->r);
    for (int j = 0; j < f->r; j++)
        for (int i = 0; i < nb; i++) {
            double *v = out + i + (size_t) j * nb;
            *v = s * cos(*v + f->phase[j]);
        }
}

/* Features of the rows [i0, i0 + nb) of a (nb <= KC_FEATURE_BLOCK) into out,
 * nb x r column-major; work holds kc_feature_work_size(f) doubles. A switch
 * without a default: the compiler names a type left out (-Wswitch). */
static void feature_block(const kc_feature_map *f, const kc_points *a, ptrdiff_t i0, int nb,
                          double *out, double *work, int nthreads)
{
    switch (f->type) {
    case KC_FEATURES_NYSTROM: nystrom_block(f, a, i0, nb, out, work, nthreads); break;
    case KC_FEATURES_FOURIER: fourier_block(f, a, i0, nb, out, work, nthreads); break;
    }
}

/* Runs fn on each block's features, freeing the block's scratch after it. */
typedef void (*block_fn)(void *ctx, ptrdiff_t i0, int nb, const double *z);

static void for_blocks(const kc_feature_map *f0, const kc_points *a, block_fn fn, void *ctx,
                       int nthreads)
{
    kc_feature_map map = *f0, *f = &map;
    switch (f->type) {  /* the transposes the blocks multiply by */
    case KC_FEATURES_NYSTROM:
        f->triangular = upper_triangular(f->proj, f->m, f->r);
        f->projt = f->triangular ? triangular_blocks(f->proj, f->r)
                                 : transposed(f->proj, f->m, f->r);
        break;
    case KC_FEATURES_FOURIER: f->freqt = transposed(f->freq, f->p, f->r); break;
    }
    double *z = (double *) R_alloc((size_t) KC_FEATURE_BLOCK * f->r, sizeof(double));
    double *work = (double *) R_alloc(kc_feature_work_size(f), sizeof(double));
    for (ptrdiff_t i0 = 0; i0 < a->n; i0 += KC_FEATURE_BLOCK) {
        int nb = (int) (a->n - i0 < KC_FEATURE_BLOCK ? a->n - i0 : KC_FEATURE_BLOCK);
        const void *vmax = vmaxget();
        feature_block(f, a, i0, nb, z, work, nthreads);
        fn(ctx, i0, nb, z);
        vmaxset(vmax);
        R_CheckUserInterrupt();
    }
}

typedef struct { const int *group; int G, r; double *sums; } sums_ctx;

static void add_sums(void *ctx, ptrdiff_t i0, int nb, const double *z)
{
    sums_ctx *c = (sums_ctx *) ctx;
    for (int j = 0; j < c->r; j++)
        for (int i = 0; i < nb; i++)
            c->sums[c->group[i0 + i] + (size_t) j * c->G] += z[i + (size_t) j * nb];
}

void kc_feature_sums(const kc_feature_map *f, const kc_points *a, const int *group, int G,
                     double *sums, int nthreads)
{
    memset(sums, 0, (size_t) G * f->r * sizeof(double));
    sums_ctx c = {group, G, f->r, sums};
    for_blocks(f, a, add_sums, &c, nthreads);
}

typedef struct {
    const double *wt;
    int q, r;
    ptrdiff_t n;
    double *out, *t;
    int nthreads;
} product_ctx;

static void add_product(void *ctx, ptrdiff_t i0, int nb, const double *z)
{
    product_ctx *c = (product_ctx *) ctx;
    matmul(z, nb, c->r, c->wt, c->q, c->t, c->nthreads);
    for (int j = 0; j < c->q; j++)
        memcpy(c->out + i0 + (ptrdiff_t) j * c->n, c->t + (size_t) j * nb,
               (size_t) nb * sizeof(double));
}

void kc_feature_product(const kc_feature_map *f, const kc_points *a, const double *w, int q,
                        double *out, int nthreads)
{
    double *t = (double *) R_alloc((size_t) KC_FEATURE_BLOCK * q, sizeof(double));
    product_ctx c = {transposed(w, f->r, q), q, f->r, a->n, out, t, nthreads};
    for_blocks(f, a, add_product, &c, nthreads);
}

typedef struct { int r; ptrdiff_t n; double *out; } matrix_ctx;

static void put_columns(void *ctx, ptrdiff_t i0, int nb, const double *z)
{
    matrix_ctx *c = (matrix_ctx *) ctx;
    for (int j = 0; j < c->r; j++)
        memcpy(c->out + i0 + (ptrdiff_t) j * c->n, z + (size_t) j * nb,
               (size_t) nb * sizeof(double));
}

void kc_feature_matrix(const kc_feature_map *f, const kc_points *a, double *out, int nthreads)
{
    matrix_ctx c = {f->r, a->n, out};
    for_blocks(f, a, put_columns, &c, nthreads);
}

typedef struct { int r; float *out; } store_ctx;

static void put_rows(void *ctx, ptrdiff_t i0, int nb, const double *z)
{
    store_ctx *c = (store_ctx *) ctx;
    for (int i = 0; i < nb; i++) {
        float *row = c->out + (size_t) (i0 + i) * c->r;
        for (int j = 0; j < c->r; j++) row[j] = (float) z[i + (size_t) j * nb];
    }
}

void kc_feature_store(const kc_feature_map *f, const kc_points *a, float *out, int nthreads)
{
    store_ctx c = {f->r, out};
    for_blocks(f, a, put_rows, &c, nthreads);
}

/* out (n x q) = Z[rows, ] w for the rows of a float store (row-major, r wide). */
void kc_store_product(const float *z, int r, const int *rows, ptrdiff_t n, const double *w,
                      int q, double *out)
{
    for (ptrdiff_t i = 0; i < n; i++) {
        const float *zi = z + (size_t) rows[i] * r;
        for (int j = 0; j < q; j++) {
            const double *wj = w + (size_t) j * r;
            double s = 0;
            for (int t = 0; t < r; t++) s += zi[t] * wj[t];
            out[i + j * n] = s;
        }
    }
}

/* k-means++ seeding in the kernel's feature space (Arthur and Vassilvitskii
 * 2007): m distinct rows of a, the first uniform, each next one drawn with
 * probability proportional to d2, its squared feature-space distance
 * k(x,x) + k(c,c) - 2 k(x,c) to the nearest row chosen so far.  Drawn by
 * rejection from batches, so that the kernel columns come as blocks
 * (kc_gram of all rows against a batch) rather than one at a time: a batch
 * of candidates is drawn independently in proportion to the d2 of the
 * batch's start; each candidate in turn is accepted with probability
 * d2 now / d2 then (d2 only falls), which makes each accepted row a draw
 * from k-means++'s distribution exactly; an accepted row's column lowers
 * d2.  When every d2 is 0 (the rows left duplicate chosen ones), the next
 * row is uniform over the rows not chosen.  R's RNG (the caller holds
 * GetRNGstate).  chosen: m 0-based indices; returns the kernel columns
 * computed (accepted and rejected). */
#define KC_SEED_BLOCK_DOUBLES ((size_t) 1 << 22)  /* a batch's columns: 32 MB */

long kc_kmeanspp(const kc_kernel *k, const kc_points *a0, int m, int *chosen, int nthreads)
{
    kc_points pa = kc_prepare_points(k, a0, 1);  /* norms and panels once, for every batch */
    const kc_points *a = &pa;
    int n = (int) a->n;
    double *kii = (double *) R_alloc((size_t) n, sizeof(double));
    double *d2 = (double *) R_alloc((size_t) n, sizeof(double));
    double *cum = (double *) R_alloc((size_t) n, sizeof(double));
    char *taken = (char *) R_alloc((size_t) n, 1);
    kc_row_sqnorms(a, kii);
    for (int i = 0; i < n; i++) {
        kii[i] = kc_self_kernel(k, kii[i]);
        d2[i] = R_PosInf;
        taken[i] = 0;
    }
    int bmax = (int) (KC_SEED_BLOCK_DOUBLES / (size_t) n);
    if (bmax < 1) bmax = 1;
    if (bmax > 256) bmax = 256;
    int *cand = (int *) R_alloc((size_t) bmax, sizeof(int));
    double *then = (double *) R_alloc((size_t) bmax, sizeof(double));
    double *col = (double *) R_alloc((size_t) n * bmax, sizeof(double));
    long columns = 0;
    int c = 0;
    while (c < m) {
        /* the batch: one uniform draw at the start or among duplicates, else
         * up to half as many as chosen so far (few rejections), at least 8 */
        double total = 0;
        for (int i = 0; i < n; i++) {
            total += taken[i] ? 0 : d2[i];
            cum[i] = total;
        }
        int B;
        if (c == 0 || !(total > 0)) {
            int left = n - c, pick = (int) (unif_rand() * left);
            if (pick >= left) pick = left - 1;
            int i = 0;
            for (;; i++) if (!taken[i] && pick-- == 0) break;
            cand[0] = i;
            then[0] = R_PosInf;  /* accepted whatever d2 is */
            B = 1;
        } else {
            B = (m - c) < c / 2 ? (m - c) : c / 2;
            if (B < 8) B = 8;
            if (B > bmax) B = bmax;
            for (int j = 0; j < B; j++) {
                double u = unif_rand() * total;
                int lo = 0, hi = n - 1;  /* the first i with cum[i] > u */
                while (lo < hi) {
                    int mid = lo + (hi - lo) / 2;
                    if (cum[mid] > u) hi = mid; else lo = mid + 1;
                }
                while (lo > 0 && (taken[lo] || !(d2[lo] > 0))) lo--;  /* u at a step's edge */
                cand[j] = lo;
                then[j] = d2[lo];
            }
        }
        kc_points cb = kc_points_subset(a, cand, B);
        kc_gram(k, a, &cb, 0, col, nthreads);
        columns += B;
        for (int j = 0; j < B && c < m; j++) {
            int i = cand[j];
            if (taken[i]) continue;
            if (R_FINITE(then[j])) {
                if (!(d2[i] > 0) || unif_rand() * then[j] >= d2[i]) continue;
            }
            chosen[c++] = i;
            taken[i] = 1;
            const double *kc = col + (size_t) j * n;
            for (int t = 0; t < n; t++) {
                double v = kii[t] + kii[i] - 2 * kc[t];
                if (v < 0) v = 0;  /* rounding */
                if (v < d2[t]) d2[t] = v;
            }
            d2[i] = 0;
        }
        R_CheckUserInterrupt();
    }
    return columns;
}
