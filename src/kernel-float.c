/* Single-precision tiles for the kernel values the SVM stores as floats
 * (its row cache and whole-kernel stores): the inner products of a tile in
 * float, 16 to a zmm register, twice the double engine's rate; the squared
 * distances, the kernel and the rounding to float as the double tiles
 * (kernel.c) do them.
 *
 * Accuracy.  The points are moved by a common centre (the column points':
 * single_centre, in double) before they are rounded to floats, so that
 * the products do not carry a large common part (the rbf kernel does not
 * change: k(x - m, y - m) = k(x, y)), and the squared norms are those of
 * the rounded points, in double.  A squared distance d2 = |a|^2 + |b|^2 -
 * 2 a'b then errs by a few units of 2^-24 in |a|^2 + |b|^2, and the kernel
 * value exp(-gamma d2) by about gamma (|a|^2 + |b|^2) 2^-22 at most; where
 * gamma times the largest centred squared norm exceeds KC_SINGLE_MAX that
 * bound passes 1e-5 and the double tiles are used.  Distances that cancel
 * (d2 below KC_REFINE of the norms, as in the double tiles) are recomputed
 * directly in double, so equal points have distance 0 exactly.  Only the
 * rbf kernel takes this path (the laplace kernel's square root, and the
 * inner-product kernels, which cannot be centred, stay in double).
 *
 * Panels: a's rows MR to a panel (as the double engine), b's NF = 16 to a
 * panel, floats interleaved feature by feature.  Every kernel below sums the
 * p products of a value in feature order with fused multiply-adds, so a
 * value is the same whichever kernel (block, rows, row) computed it. */
#include <math.h>
#include <string.h>
/* kernel-tile.h (omp.h) before R's headers: Rinternals.h's `match` macro
 * breaks clang's omp.h */
#include "kernel-tile.h"
#include <Rinternals.h>
#include "kernclass.h"
#include "kernel.h"
#include "units.h"
#include "isa.h"

/* The portable block: MR x NF products, stored as doubles. */
static void fmicro_c(const float *ap, const float *bp, int p, double *out, int ld)
{
    float c[MR][NF];
    memset(c, 0, sizeof c);
    for (int k = 0; k < p; k++) {
        const float *av = ap + (size_t) k * MR, *bv = bp + (size_t) k * NF;
        for (int r = 0; r < MR; r++)
            for (int s = 0; s < NF; s++) c[r][s] += av[r] * bv[s];
    }
    for (int r = 0; r < MR; r++)
        for (int s = 0; s < NF; s++) out[(size_t) r * ld + s] = c[r][s];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KC_HAVE_FLOAT_AVX 1

/* 8 floats as 8 doubles at out. */
__attribute__((target("avx2,fma")))
static inline void store8(double *out, __m256 v)
{
    _mm256_storeu_pd(out, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    _mm256_storeu_pd(out + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
}

/* AVX2: the MR x 16 block in 12 ymm registers (8 floats each). */
#define KC_BLOCK_T float
#define KC_BLOCK_V __m256
#define KC_BLOCK_OP(op) _mm256_##op##_ps
#define KC_BLOCK_STORE store8
#define KC_BLOCK_LANES 8
#define KC_BLOCK_W NF
#define KC_BLOCK_TARGET "avx2,fma"
#define KC_BLOCK_MICRO fmicro_avx2
#include "isa-blocks.h"

/* 16 floats as 16 doubles at out. */
__attribute__((target("avx512f")))
static inline void store16(double *out, __m512 v)
{
    _mm512_storeu_pd(out, _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    _mm512_storeu_pd(out + 8, _mm512_cvtps_pd(hi));
}

/* AVX-512: MR x 16 (one panel of b) in 6 zmm registers. */
__attribute__((target("avx512f")))
static void fmicro_avx512(const float *ap, const float *bp, int p, double *out, int ld)
{
    __m512 c[MR];
#define ZERO_ROW(r) c[r] = _mm512_setzero_ps();
    KC_FOR_ROWS(ZERO_ROW)
#undef ZERO_ROW
    for (int k = 0; k < p; k++) {
        const float *a = ap + (size_t) k * MR;
        __m512 b0 = _mm512_loadu_ps(bp + (size_t) k * NF);
#define FMA_ROW(r) c[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[r]), b0, c[r]);
        KC_FOR_ROWS(FMA_ROW)
#undef FMA_ROW
    }
#define STORE_ROW(r) store16(out + (size_t) r * ld, c[r]);
    KC_FOR_ROWS(STORE_ROW)
#undef STORE_ROW
}

/* MR x 32 (two adjacent panels of b) in 12 zmm registers, as the double
 * engine's wide kernel on twice the values; one row and four rows against
 * four panels (64 columns), for the solver's single rows and its batches
 * of up to 4 rows. */
#define KC_BLOCK_T float
#define KC_BLOCK_V __m512
#define KC_BLOCK_OP(op) _mm512_##op##_ps
#define KC_BLOCK_STORE store16
#define KC_BLOCK_LANES 16
#define KC_BLOCK_W NF
#define KC_BLOCK_TARGET "avx512f"
#define KC_BLOCK_MICRO fwide_avx512
#define KC_BLOCK_ROW frow_avx512
#define KC_BLOCK_ROWS4 frows4_avx512
#include "isa-blocks.h"
#endif

/* The option kernclass.svm.precision, on the main thread (R checks it,
 * kc_kernel_code()): single precision where it is "float"; unset, its
 * default in R's table of options (R/table-options.R; a test holds the two
 * together). */
int kc_single_precision_option(void)
{
    SEXP v = Rf_GetOption1(Rf_install("kernclass.svm.precision"));
    return isString(v) && XLENGTH(v) == 1 && !strcmp(CHAR(STRING_ELT(v, 0)), "float");
}

/* Double panels (w rows each, npanel of them, p features) as float
 * panels of the same shape, moved by centre.  Portable, and AVX-512 (w = MR
 * or NR: one masked load, a subtraction, a conversion and a masked store a
 * feature), chosen with the float kernels. */
static void panels_c(const double *src, int w, int npanel, int p, const double *centre, float *dst)
{
    for (int q = 0; q < npanel; q++)
        for (int k = 0; k < p; k++) {
            size_t at = ((size_t) q * p + k) * w;
            for (int r = 0; r < w; r++) dst[at + r] = (float) (src[at + r] - centre[k]);
        }
}

#ifdef KC_HAVE_FLOAT_AVX
__attribute__((target("avx512f")))
static void panels_avx512(const double *src, int w, int npanel, int p, const double *centre, float *dst)
{
    __mmask8 m = (__mmask8) ((1u << w) - 1);
    for (int q = 0; q < npanel; q++)
        for (int k = 0; k < p; k++) {
            size_t at = ((size_t) q * p + k) * w;
            __m512d v = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, src + at), _mm512_set1_pd(centre[k]));
            _mm512_mask_storeu_ps(dst + at, (__mmask16) m, _mm512_castps256_ps512(_mm512_cvtpd_ps(v)));
        }
}
#endif

static void (*to_float_panels)(const double *, int, int, int, const double *, float *) = panels_c;

/* The squared norms of the floats of points rows[0..cnt) (or start..) of
 * a, in double: the formula kc_prepare_single's are taken with. */
static void float_sqnorms(const kc_points *a, const int *idx, ptrdiff_t start, int cnt,
                          const double *centre, double *sq)
{
    for (int i = 0; i < cnt; i++) {
        ptrdiff_t r = idx ? idx[i] : start + i;
        double s = 0.0;
        for (int j = 0; j < a->p; j++) {
            double f = (float) (a->x[r + (ptrdiff_t) j * a->n] - centre[j]);
            s += f * f;
        }
        sq[i] = s;
    }
}

/* Double panels of NR rows (cnt rows) as float panels of NF rows: two
 * double panels to one float panel; rows past cnt zero. */
static void nr_to_nf(const double *src, int cnt, int p, const double *centre, float *dst, float *tmp)
{
    int npanel = (cnt + NR - 1) / NR;
    to_float_panels(src, NR, npanel, p, centre, tmp);
    for (int r0 = 0; r0 < cnt; r0 += NF) {
        float *d = dst + (size_t) r0 * p;
        const float *s0 = tmp + (size_t) r0 * p, *s1 = s0 + (size_t) NR * p;
        int two = r0 + NR < cnt;
        for (int k = 0; k < p; k++) {
            memcpy(d + (size_t) k * NF, s0 + (size_t) k * NR, NR * sizeof(float));
            if (two) memcpy(d + (size_t) k * NF + NR, s1 + (size_t) k * NR, NR * sizeof(float));
            else memset(d + (size_t) k * NF + NR, 0, NR * sizeof(float));
        }
    }
}

/* The centre of a set's floats: the origin, unless the points lie far from
 * it (the mean's squared norm above KC_FAR times their mean squared distance
 * from the mean), then their mean.  The origin, where it does, gives a point
 * the same floats in every subset of the data it is fitted in (a multi-class
 * fit's pairs, their folds: the same values as the pairs' shared kernel); a
 * mean would differ from subset to subset.  Near the origin the norms are at
 * most KC_FAR + 1 times the centred ones, and so is the bound on the error. */
#define KC_FAR 16.0
static const double *single_centre(const kc_points *a)
{
    int p = a->p;
    ptrdiff_t n = a->n;
    double *m = (double *) kc_alloc((size_t) p + 1, sizeof(double));
    double msq = 0.0, spread = 0.0;
    for (int j = 0; j < p; j++) {
        const double *col = a->x + (ptrdiff_t) j * n;
        double s = 0.0, v = 0.0;
        for (ptrdiff_t i = 0; i < n; i++) s += col[i];
        m[j] = s / (double) n;
        for (ptrdiff_t i = 0; i < n; i++) v += (col[i] - m[j]) * (col[i] - m[j]);
        msq += m[j] * m[j];
        spread += v / (double) n;
    }
    if (msq <= KC_FAR * spread)
        for (int j = 0; j < p; j++) m[j] = 0.0;
    return m;
}

/* Whether two sets' floats share one centre (the same values). */
static int same_centre(const double *c1, const double *c2, int p)
{
    return c1 == c2 || (c1 && c2 && !memcmp(c1, c2, sizeof(double) * (size_t) p));
}

/* Where a dense set's kernel values may come from float tiles: the
 * single-precision rbf kernel, and gamma max ||x - m||^2 within
 * KC_SINGLE_MAX (see the top of this file).  The centre: the column means,
 * or the one a has (a subset keeps its set's, so that the floats of its
 * points are the set's); the norms are recomputed (a copy of another set's
 * fields must not keep them). */
void kc_prepare_single(const kc_kernel *k, kc_points *a, int pack)
{
    if (!a->packed) a->packed_f = NULL;
    if (!k->single || k->type != KC_RBF || a->src != KC_SRC_DENSE || a->n < 1 ||
        a->n > KC_MAX_ROWS) {
        a->centre = NULL;
        return;
    }
    int p = a->p;
    ptrdiff_t n = a->n;
    const double *c = a->centre;
    if (!c) c = single_centre(a);
    double *sq = (double *) kc_alloc((size_t) n + 1, sizeof(double));
    for (ptrdiff_t i = 0; i < n; i++) sq[i] = 0.0;
    for (int j = 0; j < p; j++) {  /* float_sqnorms' sums, a column at a time */
        const double *col = a->x + (ptrdiff_t) j * n;
        for (ptrdiff_t i = 0; i < n; i++) {
            double f = (float) (col[i] - c[j]);
            sq[i] += f * f;
        }
    }
    double big = 0.0;
    for (ptrdiff_t i = 0; i < n; i++) if (!(sq[i] <= big)) big = sq[i];  /* NaN too */
    if (!(k->gamma * big <= KC_SINGLE_MAX)) {  /* double tiles */
        a->centre = NULL;
        a->packed_f = NULL;
        return;
    }
    a->centre = c;
    a->sqnorm_f = sq;
    if (pack && a->packed && !a->packed_f) {
        float *buf = (float *) kc_alloc_aligned(((size_t) round_up((int) n, NF) * p + 1) / 2 + 1);
        float *tmp = (float *) kc_alloc((size_t) NF * p + 1, sizeof(float));
        for (ptrdiff_t r0 = 0; r0 < n; r0 += NF) {
            int cnt = n - r0 < NF ? (int) (n - r0) : NF;
            /* a's double panels hold the rows exactly: the same floats as any tile's */
            nr_to_nf(a->packed + (size_t) r0 * p, cnt, p, c, buf + (size_t) r0 * p, tmp);
        }
        a->packed_f = buf;
    }
}

/* The squared norms of the floats of a tile's points: the set's where it
 * has them for this centre, else computed. */
static const double *tile_sqnorms(const kc_points *a, const int *idx, ptrdiff_t start, int cnt,
                                  const double *centre, double *buf)
{
    if (a->sqnorm_f && same_centre(a->centre, centre, a->p)) {
        if (!idx) return a->sqnorm_f + start;
        for (int i = 0; i < cnt; i++) buf[i] = a->sqnorm_f[idx[i]];
        return buf;
    }
    float_sqnorms(a, idx, start, cnt, centre, buf);
    return buf;
}

/* The inner products of a tile from its float panels (tile-products.h). */
#define KC_WALK_NAME float_products
#define KC_WALK_T float
#define KC_WALK_W NF
#define KC_WALK_ROW kc_isa.frow
#define KC_WALK_ROWS4 kc_isa.frows4
#define KC_WALK_WIDE kc_isa.fwide
#define KC_WALK_MICRO kc_isa.fmicro
#include "tile-products.h"

/* The floats of a tile, in b's centre: a's MR panels (from its double
 * panels apack, na rows) and b's NF panels (b's float panels where
 * use_packed, else from its double panels bpack); the products into tile as
 * doubles, *asq and *bsq pointed at the squared norms of the floats.
 * fwork holds kc_float_work_size(p) doubles, 64-byte aligned. */
void kc_float_products(const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                       const kc_points *b, const int *bi, ptrdiff_t b0, int nb, int use_packed,
                       const double *apack, const double *bpack, double *fwork,
                       const double **asq, const double **bsq, double *tile)
{
    int p = a->p;
    size_t fa_n = round_aligned(((size_t) round_up(KC_TILE, MR) * p + 1) / 2);
    size_t fb_n = round_aligned(((size_t) round_up(KC_TILE, NF) * p + 1) / 2);
    float *fa = (float *) fwork, *fb = (float *) (fwork + fa_n), *tmp = (float *) (fwork + fa_n + fb_n);
    double *norms = fwork + kc_float_work_size(p) - 2 * (size_t) KC_TILE;
    to_float_panels(apack, MR, (na + MR - 1) / MR, p, b->centre, fa);
    *asq = tile_sqnorms(a, ai, a0, na, b->centre, norms);
    *bsq = tile_sqnorms(b, bi, b0, nb, b->centre, norms + KC_TILE);
    const float *bp;
    if (use_packed) {
        bp = b->packed_f + (size_t) b0 * p;
    } else {
        nr_to_nf(bpack, nb, p, b->centre, fb, tmp);
        bp = fb;
    }
    float_products(fa, bp, p, na, nb, tile);
}

/* The float kernels this CPU runs, for the instruction sets
 * kc_choose_kernels allows (isa.c). */
void kc_choose_float_kernels(int avx2, int avx512)
{
    kc_isa.fmicro = fmicro_c;
    kc_isa.fwide = NULL;
    kc_isa.frow = NULL;
    kc_isa.frows4 = NULL;
    to_float_panels = panels_c;
#ifdef KC_HAVE_FLOAT_AVX
    if (avx2) kc_isa.fmicro = fmicro_avx2;
    if (avx512) {
        kc_isa.fmicro = fmicro_avx512;
        kc_isa.fwide = fwide_avx512;
        kc_isa.frow = frow_avx512;
        kc_isa.frows4 = frows4_avx512;
        to_float_panels = panels_avx512;
    }
#else
    (void) avx2; (void) avx512;
#endif
}
