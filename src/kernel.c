/* The kernel engine: kernel values in square tiles, and the three workers
 * built on them (Gram matrix, kernel expansions, within-group sums).
 *
 * A tile is a matrix product: both sets of rows are packed into panels
 * (MR rows of a, NR rows of b, interleaved feature by feature) so that the
 * innermost loop is an MR x NR outer product that the compiler keeps in
 * registers and vectorises.  The kernel function is then applied to the
 * tile of inner products.
 *
 * Determinism: every output value is a sum taken in an order fixed by the
 * data alone (never by the thread that computed it), so results are
 * identical for any number of threads.
 *
 * Memory: all buffers come from R_alloc on the calling thread, before any
 * parallel region, so an error or a user interrupt frees them.
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

#define MR 6
#define NR 8
/* Squared distances below this fraction of ||x||^2 + ||y||^2 have lost
 * digits to cancellation in ||x||^2 + ||y||^2 - 2 x'y: recompute directly. */
#define KC_REFINE 1e-5
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

int kc_kernel_uses_distance(const kc_kernel *k)
{
    return k->type == KC_RBF || k->type == KC_LAPLACE;
}

static ptrdiff_t row_of(const int *idx, ptrdiff_t start, int i)
{
    return idx ? (ptrdiff_t) idx[i] : start + i;
}

void kc_row_sqnorms(const kc_points *a, double *out)
{
    for (ptrdiff_t i = 0; i < a->n; i++) out[i] = 0.0;
    for (int k = 0; k < a->p; k++) {
        const double *col = a->x + (ptrdiff_t) k * a->n;
        for (ptrdiff_t i = 0; i < a->n; i++) out[i] += col[i] * col[i];
    }
}

static int round_up(int n, int w) { return (n + w - 1) / w * w; }

static size_t kc_tile_work_size(int p)
{
    return (size_t) (round_up(KC_TILE, MR) + round_up(KC_TILE, NR)) * (size_t) p;
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

void kc_pack_points(kc_points *a)
{
    double *buf = (double *) R_alloc((size_t) round_up((int) a->n, NR) * a->p + 1, sizeof(double));
    for (ptrdiff_t r0 = 0; r0 < a->n; r0 += KC_TILE) {
        int cnt = a->n - r0 < KC_TILE ? (int) (a->n - r0) : KC_TILE;
        pack_rows(a, NULL, r0, cnt, NR, buf + (size_t) r0 * a->p);
    }
    a->packed = buf;
}

/* A-panel' B-panel over p features: an MR x NR block of inner products,
 * stored in out row by row (out[r * ld + s]).  Portable C; the compiler
 * vectorises it for the baseline ISA. */
static void micro_kernel_c(const double *ap, const double *bp, int p, double *out, int ld)
{
    double c[MR][NR];
    memset(c, 0, sizeof c);
    for (int k = 0; k < p; k++) {
        const double *av = ap + (size_t) k * MR, *bv = bp + (size_t) k * NR;
        for (int r = 0; r < MR; r++)
            for (int s = 0; s < NR; s++) c[r][s] += av[r] * bv[s];
    }
    for (int r = 0; r < MR; r++) memcpy(out + (size_t) r * ld, c[r], sizeof c[r]);
}

typedef void (*micro_kernel_fn)(const double *, const double *, int, double *, int);

/* The rbf and laplace kernels from squared distances:
 * v[i] = exp(-g v[i]), or exp(-g sqrt(v[i])) when root. */
static void exp_bulk_c(double *v, size_t n, double g, int root)
{
    for (size_t i = 0; i < n; i++) v[i] = exp(-g * (root ? sqrt(v[i]) : v[i]));
}

typedef void (*exp_bulk_fn)(double *, size_t, double, int);

/* Squared distances ||a||^2 + ||b_j||^2 - 2 a'b_j in place of the inner
 * products row[j]; returns whether any lost digits to cancellation.  One
 * body, compiled for each instruction set (omp simd: vectorised at -O2). */
#define SQDIST_ROW_BODY                                                     \
    int cancelled = 0;                                                      \
    _Pragma("omp simd reduction(|:cancelled)")                              \
    for (int j = 0; j < nb; j++) {                                          \
        double scale = asq + bsq[j], d2 = scale - 2.0 * row[j];             \
        cancelled |= d2 < KC_REFINE * scale;                                \
        row[j] = d2;                                                        \
    }                                                                       \
    return cancelled;

static int sqdist_row_c(double *row, double asq, const double *bsq, int nb)
{
    SQDIST_ROW_BODY
}

typedef int (*sqdist_row_fn)(double *, double, const double *, int);

/* acc[i] += sum_j tile[i, j] w[j]: a tile's share of a kernel expansion. */
#define TILE_TIMES_WEIGHTS_BODY                                             \
    for (int i = 0; i < na; i++) {                                          \
        const double *row = tile + (size_t) i * nb;                         \
        double sum = 0.0;                                                   \
        _Pragma("omp simd reduction(+:sum)")                                \
        for (int j = 0; j < nb; j++) sum += row[j] * w[j];                  \
        acc[i] += sum;                                                      \
    }

static void tile_times_weights_c(const double *tile, int na, int nb, const double *w, double *acc)
{
    TILE_TIMES_WEIGHTS_BODY
}

typedef void (*tile_times_weights_fn)(const double *, int, int, const double *, double *);

/* The same with AVX2 and FMA: the 6 x 8 block lives in 12 ymm registers, each
 * feature costs 2 loads, 6 broadcasts and 12 fused multiply-adds (measured on
 * one core: 56 GFLOP/s, against 19 for the C version compiled for AVX2).  R
 * builds packages without -march, so it is compiled for its target alone and
 * chosen at run time when the CPU has both. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KC_HAVE_AVX2_KERNEL 1

__attribute__((target("avx2,fma")))
static void micro_kernel_avx2(const double *ap, const double *bp, int p, double *out, int ld)
{
    __m256d c[MR][2];
    for (int r = 0; r < MR; r++) c[r][0] = c[r][1] = _mm256_setzero_pd();
    for (int k = 0; k < p; k++) {
        const double *a = ap + (size_t) k * MR;
        __m256d b0 = _mm256_loadu_pd(bp + (size_t) k * NR);
        __m256d b1 = _mm256_loadu_pd(bp + (size_t) k * NR + 4);
        for (int r = 0; r < MR; r++) {  /* unrolled by the compiler: MR is 6 */
            __m256d ar = _mm256_broadcast_sd(a + r);
            c[r][0] = _mm256_fmadd_pd(ar, b0, c[r][0]);
            c[r][1] = _mm256_fmadd_pd(ar, b1, c[r][1]);
        }
    }
    for (int r = 0; r < MR; r++) {
        _mm256_storeu_pd(out + (size_t) r * ld, c[r][0]);
        _mm256_storeu_pd(out + (size_t) r * ld + 4, c[r][1]);
    }
}

__attribute__((target("avx2,fma")))
static int sqdist_row_avx2(double *row, double asq, const double *bsq, int nb)
{
    SQDIST_ROW_BODY
}

__attribute__((target("avx2,fma")))
static void tile_times_weights_avx2(const double *tile, int na, int nb, const double *w, double *acc)
{
    TILE_TIMES_WEIGHTS_BODY
}

/* The Taylor coefficients of exp, highest degree (12) first. */
static const double exp_taylor[13] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                                      1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
                                      1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};

/* exp(-g v) (or exp(-g sqrt(v))), four at a time: x = k ln2 + r with |r| <= ln2/2
 * (ln2 split in two for an exact reduction), exp(r) by its Taylor series to
 * degree 12 (truncation below 1e-17), 2^k added to the exponent bits.
 * Measured against libm on 10^6 arguments in [-708, 0]: relative error at
 * most 3.2e-16, 2.2 ns a value against 5.6.  Arguments below -708 give 0
 * (an absolute error below 2.3e-308). */
__attribute__((target("avx2,fma")))
static void exp_bulk_avx2(double *v, size_t n, double g, int root)
{
    const __m256d minus_g = _mm256_set1_pd(-g);
    const __m256d log2e = _mm256_set1_pd(1.4426950408889634074);
    const __m256d ln2_hi = _mm256_set1_pd(6.93147180369123816490e-01);
    const __m256d ln2_lo = _mm256_set1_pd(1.90821492927058770002e-10);
    const __m256d round = _mm256_set1_pd(6755399441055744.0);  /* 1.5 * 2^52 */
    const __m256d lowest = _mm256_set1_pd(-708.0);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d x = _mm256_loadu_pd(v + i);
        x = _mm256_mul_pd(minus_g, root ? _mm256_sqrt_pd(x) : x);
        __m256d under = _mm256_cmp_pd(x, lowest, _CMP_LT_OQ);
        x = _mm256_max_pd(x, lowest);
        __m256d t = _mm256_fmadd_pd(x, log2e, round);  /* k in the low bits of t */
        __m256d k = _mm256_sub_pd(t, round);
        __m256d r = _mm256_fnmadd_pd(k, ln2_hi, x);
        r = _mm256_fnmadd_pd(k, ln2_lo, r);
        __m256d p = _mm256_set1_pd(exp_taylor[0]);
        for (int d = 1; d < 13; d++) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(exp_taylor[d]));
        __m256i scale = _mm256_slli_epi64(_mm256_castpd_si256(t), 52);
        __m256d y = _mm256_castsi256_pd(_mm256_add_epi64(_mm256_castpd_si256(p), scale));
        _mm256_storeu_pd(v + i, _mm256_andnot_pd(under, y));
    }
    exp_bulk_c(v + i, n - i, g, root);
}

/* AVX-512: a 6 x 16 block (two adjacent panels of b) in 12 zmm registers,
 * the same sums in the same order as above, twice the width. */
__attribute__((target("avx512f")))
static void micro_kernel_avx512(const double *ap, const double *bp, int p, double *out, int ld)
{
    const double *bp2 = bp + (size_t) NR * p;
    __m512d c[MR][2];
    for (int r = 0; r < MR; r++) c[r][0] = c[r][1] = _mm512_setzero_pd();
    for (int k = 0; k < p; k++) {
        const double *a = ap + (size_t) k * MR;
        __m512d b0 = _mm512_loadu_pd(bp + (size_t) k * NR);
        __m512d b1 = _mm512_loadu_pd(bp2 + (size_t) k * NR);
        for (int r = 0; r < MR; r++) {
            __m512d ar = _mm512_set1_pd(a[r]);
            c[r][0] = _mm512_fmadd_pd(ar, b0, c[r][0]);
            c[r][1] = _mm512_fmadd_pd(ar, b1, c[r][1]);
        }
    }
    for (int r = 0; r < MR; r++) {
        _mm512_storeu_pd(out + (size_t) r * ld, c[r][0]);
        _mm512_storeu_pd(out + (size_t) r * ld + NR, c[r][1]);
    }
}

/* One row of a against four panels of b (32 columns): out[0..32).  A single
 * kernel row (the SMO with a small cache) would waste five of the six rows
 * of the block kernel.  Four independent chains of fused multiply-adds, the
 * same sums in the same order as above. */
__attribute__((target("avx512f")))
static void row_kernel_avx512(const double *ap, const double *bp, int p, double *out)
{
    const size_t panel = (size_t) NR * p;
    __m512d c0 = _mm512_setzero_pd(), c1 = c0, c2 = c0, c3 = c0;
    for (int k = 0; k < p; k++) {
        __m512d a = _mm512_set1_pd(ap[(size_t) k * MR]);
        const double *b = bp + (size_t) k * NR;
        c0 = _mm512_fmadd_pd(a, _mm512_loadu_pd(b), c0);
        c1 = _mm512_fmadd_pd(a, _mm512_loadu_pd(b + panel), c1);
        c2 = _mm512_fmadd_pd(a, _mm512_loadu_pd(b + 2 * panel), c2);
        c3 = _mm512_fmadd_pd(a, _mm512_loadu_pd(b + 3 * panel), c3);
    }
    _mm512_storeu_pd(out, c0);
    _mm512_storeu_pd(out + NR, c1);
    _mm512_storeu_pd(out + 2 * NR, c2);
    _mm512_storeu_pd(out + 3 * NR, c3);
}

/* Four rows of a against four panels of b: 4 x 32 values in 16 zmm
 * registers, for the SMO's batches of 4 kernel rows (the 6-row block kernel
 * would compute two rows of zeros). */
__attribute__((target("avx512f")))
static void rows4_kernel_avx512(const double *ap, const double *bp, int p, double *out, int ld)
{
    const size_t panel = (size_t) NR * p;
    __m512d c[4][4];
    for (int r = 0; r < 4; r++) c[r][0] = c[r][1] = c[r][2] = c[r][3] = _mm512_setzero_pd();
    for (int k = 0; k < p; k++) {
        const double *b = bp + (size_t) k * NR, *a = ap + (size_t) k * MR;
        __m512d b0 = _mm512_loadu_pd(b), b1 = _mm512_loadu_pd(b + panel);
        __m512d b2 = _mm512_loadu_pd(b + 2 * panel), b3 = _mm512_loadu_pd(b + 3 * panel);
        for (int r = 0; r < 4; r++) {
            __m512d ar = _mm512_set1_pd(a[r]);
            c[r][0] = _mm512_fmadd_pd(ar, b0, c[r][0]);
            c[r][1] = _mm512_fmadd_pd(ar, b1, c[r][1]);
            c[r][2] = _mm512_fmadd_pd(ar, b2, c[r][2]);
            c[r][3] = _mm512_fmadd_pd(ar, b3, c[r][3]);
        }
    }
    for (int r = 0; r < 4; r++)
        for (int q = 0; q < 4; q++) _mm512_storeu_pd(out + (size_t) r * ld + q * NR, c[r][q]);
}

/* exp_bulk_avx2's algorithm, eight at a time. */
__attribute__((target("avx512f")))
static int sqdist_row_avx512(double *row, double asq, const double *bsq, int nb)
{
    SQDIST_ROW_BODY
}

__attribute__((target("avx512f")))
static void tile_times_weights_avx512(const double *tile, int na, int nb, const double *w, double *acc)
{
    TILE_TIMES_WEIGHTS_BODY
}

__attribute__((target("avx512f")))
static void exp_bulk_avx512(double *v, size_t n, double g, int root)
{
    const __m512d minus_g = _mm512_set1_pd(-g);
    const __m512d log2e = _mm512_set1_pd(1.4426950408889634074);
    const __m512d ln2_hi = _mm512_set1_pd(6.93147180369123816490e-01);
    const __m512d ln2_lo = _mm512_set1_pd(1.90821492927058770002e-10);
    const __m512d round = _mm512_set1_pd(6755399441055744.0);
    const __m512d lowest = _mm512_set1_pd(-708.0);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512d x = _mm512_loadu_pd(v + i);
        x = _mm512_mul_pd(minus_g, root ? _mm512_sqrt_pd(x) : x);
        __mmask8 keep = _mm512_cmp_pd_mask(x, lowest, _CMP_GE_OQ);
        x = _mm512_max_pd(x, lowest);
        __m512d t = _mm512_fmadd_pd(x, log2e, round);
        __m512d k = _mm512_sub_pd(t, round);
        __m512d r = _mm512_fnmadd_pd(k, ln2_hi, x);
        r = _mm512_fnmadd_pd(k, ln2_lo, r);
        __m512d p = _mm512_set1_pd(exp_taylor[0]);
        for (int d = 1; d < 13; d++) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(exp_taylor[d]));
        __m512i scale = _mm512_slli_epi64(_mm512_castpd_si512(t), 52);
        __m512d y = _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(p), scale));
        _mm512_storeu_pd(v + i, _mm512_maskz_mov_pd(keep, y));
    }
    exp_bulk_avx2(v + i, n - i, g, root);
}
#endif

/* The fastest versions this CPU runs, chosen once.  The wide kernel, where
 * there is one, computes two adjacent panels of b at once. */
typedef void (*wide_kernel_fn)(const double *, const double *, int, double *, int);
static micro_kernel_fn micro_kernel = micro_kernel_c;
static wide_kernel_fn wide_kernel = NULL;
typedef void (*row_kernel_fn)(const double *, const double *, int, double *);
static row_kernel_fn row_kernel = NULL;
static micro_kernel_fn rows4_kernel = NULL;  /* 4 x 32 */
static exp_bulk_fn exp_bulk = exp_bulk_c;
static sqdist_row_fn sqdist_row = sqdist_row_c;
static tile_times_weights_fn tile_times_weights = tile_times_weights_c;
static const char *engine_name = "c";

const char *kc_engine_name(void) { return engine_name; }

/* The environment variable KERNCLASS_ISA = "c" or "avx2" caps the choice
 * (for tests of every path, and for comparisons). */
void kc_choose_kernels(void)
{
#ifdef KC_HAVE_AVX2_KERNEL
    const char *cap = getenv("KERNCLASS_ISA");
    int allow_avx2 = !cap || strcmp(cap, "c") != 0;
    int allow_avx512 = allow_avx2 && (!cap || strcmp(cap, "avx2") != 0);
    __builtin_cpu_init();
    if (allow_avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        micro_kernel = micro_kernel_avx2;
        exp_bulk = exp_bulk_avx2;
        sqdist_row = sqdist_row_avx2;
        tile_times_weights = tile_times_weights_avx2;
        engine_name = "avx2";
        if (allow_avx512 && __builtin_cpu_supports("avx512f")) {
            wide_kernel = micro_kernel_avx512;
            row_kernel = row_kernel_avx512;
            rows4_kernel = rows4_kernel_avx512;
            exp_bulk = exp_bulk_avx512;
            sqdist_row = sqdist_row_avx512;
            tile_times_weights = tile_times_weights_avx512;
            engine_name = "avx512";
        }
    }
#endif
}

static double direct_sqdist(const kc_points *a, ptrdiff_t ra,
                            const kc_points *b, ptrdiff_t rb)
{
    double s = 0.0;
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

double kc_self_kernel(const kc_kernel *k, double sqnorm)
{
    switch (k->type) {
    case KC_LINEAR: return sqnorm;
    case KC_POLYNOMIAL: return int_power(k->gamma * sqnorm + k->coef0, k->degree);
    case KC_SIGMOID: return tanh(k->gamma * sqnorm + k->coef0);
    default: return 1.0;  /* rbf, laplace */
    }
}

/* Turn the tile of inner products (na x nb, row-major) into kernel values
 * in place. */
static void apply_kernel(const kc_kernel *k,
                         const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                         const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                         double *tile)
{
    double g = k->gamma, c0 = k->coef0;
    size_t len = (size_t) na * nb;
    switch (k->type) {
    case KC_LINEAR:
        break;
    case KC_POLYNOMIAL:
        for (size_t t = 0; t < len; t++) tile[t] = int_power(g * tile[t] + c0, k->degree);
        break;
    case KC_SIGMOID:
        for (size_t t = 0; t < len; t++) tile[t] = tanh(g * tile[t] + c0);
        break;
    case KC_RBF:
    case KC_LAPLACE: {
        /* squared distances from the norms (the rare cancelled ones
         * recomputed directly), then the kernel over the whole tile */
        double *bsq = tile + (size_t) KC_TILE * KC_TILE;  /* see TILE_DOUBLES */
        for (int j = 0; j < nb; j++) bsq[j] = b->sqnorm[row_of(bi, b0, j)];
        for (int i = 0; i < na; i++) {
            ptrdiff_t ra = row_of(ai, a0, i);
            double asq = a->sqnorm[ra];
            double *row = tile + (size_t) i * nb;
            if (sqdist_row(row, asq, bsq, nb))
                for (int j = 0; j < nb; j++)
                    if (row[j] < KC_REFINE * (asq + bsq[j]))
                        row[j] = direct_sqdist(a, ra, b, row_of(bi, b0, j));
        }
        exp_bulk(tile, len, g, k->type == KC_LAPLACE);
        break;
    }
    }
}

/* Kernel values between rows ai[0..na) of a and rows bi[0..nb) of b (index
 * arrays, or NULL for the ranges a0.. and b0..) into tile (TILE_DOUBLES),
 * na x nb row-major: tile[i * nb + j].  work holds kc_tile_work_size(p).  apack: these rows
 * of a already packed (a caller running one block of a against many blocks
 * of b packs it once), or NULL. */
static void kernel_tile(const kc_kernel *k,
                        const kc_points *a, const int *ai, ptrdiff_t a0, int na,
                        const kc_points *b, const int *bi, ptrdiff_t b0, int nb,
                        const double *apack, double *work, double *tile)
{
    int p = a->p;
    double *bpack = work + (size_t) round_up(KC_TILE, MR) * p;
    if (!apack) {
        pack_rows(a, ai, a0, na, MR, work);
        apack = work;
    }
    if (b->packed && !bi && b0 % NR == 0) bpack = (double *) b->packed + (size_t) b0 * p;
    else pack_rows(b, bi, b0, nb, NR, bpack);

    double edge[MR * 4 * NR];
    int j0 = 0;
    if (na == 1 && row_kernel)
        for (; j0 + 4 * NR <= nb; j0 += 4 * NR) row_kernel(apack, bpack + (size_t) j0 * p, p, tile + j0);
    if (na > 1 && na <= 4 && rows4_kernel)
        for (; j0 + 4 * NR <= nb; j0 += 4 * NR) {
            double *out = na == 4 ? tile + j0 : edge;
            int ld = na == 4 ? nb : 4 * NR;
            rows4_kernel(apack, bpack + (size_t) j0 * p, p, out, ld);
            if (na < 4)
                for (int r = 0; r < na; r++)
                    memcpy(tile + (size_t) r * nb + j0, edge + r * 4 * NR, sizeof(double) * 4 * NR);
        }
    while (j0 < nb) {
        /* two panels at once where the wide kernel exists and both exist */
        int wide = wide_kernel && nb - j0 > NR, width = wide ? 2 * NR : NR;
        int nj = nb - j0 < width ? nb - j0 : width;
        for (int i0 = 0; i0 < na; i0 += MR) {
            int ni = na - i0 < MR ? na - i0 : MR;
            const double *ap = apack + (size_t) i0 * p, *bp = bpack + (size_t) j0 * p;
            /* whole blocks go straight into the tile, edge blocks via edge[] */
            int whole = ni == MR && nj == width;
            double *out = whole ? tile + (size_t) i0 * nb + j0 : edge;
            int ld = whole ? nb : width;
            if (wide) wide_kernel(ap, bp, p, out, ld);
            else micro_kernel(ap, bp, p, out, ld);
            if (!whole)
                for (int r = 0; r < ni; r++)
                    memcpy(tile + (size_t) (i0 + r) * nb + j0, edge + r * width, sizeof(double) * nj);
        }
        j0 += width;
    }

    apply_kernel(k, a, ai, a0, na, b, bi, b0, nb, tile);
}


/* Per-thread scratch space, allocated once on the calling thread. */
typedef struct {
    double *base;
    size_t per_thread;
} scratch;

static scratch scratch_alloc(int nthreads, size_t doubles_per_thread)
{
    scratch s;
    s.per_thread = doubles_per_thread;
    double total = (double) nthreads * (double) doubles_per_thread;
    if (total * sizeof(double) > (double) PTRDIFF_MAX)
        error("kernclass: scratch space of %.0f doubles is too large", total);
    s.base = (double *) R_alloc((size_t) nthreads * doubles_per_thread, sizeof(double));
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

/* Below this much work a second thread costs more than it saves (starting
 * it, and on a busy machine waiting for it). */
#define PARALLEL_MIN_FLOPS 4e6

static int threads_for(double flops, int nthreads)
{
    return flops < PARALLEL_MIN_FLOPS ? 1 : nthreads;
}

static int tiles_per_chunk(int p)
{
    double tile_flops = 2.0 * KC_TILE * KC_TILE * (p + 10);  /* + the kernel itself */
    double tiles = CHUNK_FLOPS / tile_flops;
    return tiles < 1 ? 1 : (tiles > 4096 ? 4096 : (int) tiles);
}

void kc_gram(const kc_kernel *k, const kc_points *a, const kc_points *b,
             int symmetric, double *out, int nthreads)
{
    nthreads = threads_for(2.0 * a->n * b->n * (a->p + 10) / (symmetric ? 2 : 1), nthreads);
    int bi_n = nblocks(a->n), bj_n = nblocks(b->n);
    size_t work_n = kc_tile_work_size(a->p);
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES);
    ptrdiff_t lda = a->n;
    size_t ntasks = (size_t) bi_n * bj_n;
    size_t chunk = (size_t) nthreads * tiles_per_chunk(a->p);

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
            kernel_tile(k, a, NULL, a0, na, b, NULL, b0, nb, NULL, work, tile);
            for (int i = 0; i < na; i++)
                for (int j = 0; j < nb; j++) {
                    /* on a diagonal tile keep the upper triangle, mirror it */
                    if (symmetric && I == J && i > j) continue;
                    double v = tile[(size_t) i * nb + j];
                    out[(a0 + i) + (b0 + j) * lda] = v;
                    if (symmetric) out[(b0 + j) + (a0 + i) * lda] = v;
                }
        }
        R_CheckUserInterrupt();
    }
}

void kc_expansion(const kc_kernel *k, const kc_points *a, const kc_points *b,
                  const double *w, int ncols, double *out, int nthreads)
{
    nthreads = threads_for(2.0 * a->n * b->n * (a->p + 10), nthreads);
    int bi_n = nblocks(a->n), bj_n = nblocks(b->n);
    size_t work_n = kc_tile_work_size(a->p);
    /* A task is one row block of a run over a segment of the blocks of b in
     * their stored order (so every sum has a fixed order); a chunk is up to
     * TASKS_PER_THREAD row blocks per thread over one segment, with an
     * interrupt check after it.  A row block's packed rows and sums live in
     * its slot across segments. */
    int nslots_max = nthreads == 1 ? 1 : TASKS_PER_THREAD * nthreads;
    if (nslots_max > bi_n) nslots_max = bi_n;
    size_t slot_n = (size_t) round_up(KC_TILE, MR) * a->p + (size_t) ncols * KC_TILE;
    double *slots = (double *) R_alloc((size_t) nslots_max * slot_n, sizeof(double));
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES);

    for (int t0 = 0; t0 < bi_n; t0 += nslots_max) {
        int nslots = bi_n - t0 < nslots_max ? bi_n - t0 : nslots_max;
        int segment = (int) ((double) tiles_per_chunk(a->p) * nthreads / nslots);
        if (segment < 1) segment = 1;
        for (int J0 = 0; J0 < bj_n; J0 += segment) {
            int J1 = J0 + segment < bj_n ? J0 + segment : bj_n;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
            for (int sl = 0; sl < nslots; sl++) {
                double *work = scratch_for(&s, thread_id());
                double *tile = work + work_n;
                double *apack = slots + (size_t) sl * slot_n;
                double *acc = apack + (size_t) round_up(KC_TILE, MR) * a->p;
                ptrdiff_t a0 = (ptrdiff_t) (t0 + sl) * KC_TILE;
                int na = block_len(a->n, t0 + sl);
                if (J0 == 0) {
                    memset(acc, 0, sizeof(double) * (size_t) ncols * na);
                    pack_rows(a, NULL, a0, na, MR, apack);
                }
                for (int J = J0; J < J1; J++) {
                    ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
                    int nb = block_len(b->n, J);
                    kernel_tile(k, a, NULL, a0, na, b, NULL, b0, nb, apack, work, tile);
                    for (int c = 0; c < ncols; c++)
                        tile_times_weights(tile, na, nb, w + (ptrdiff_t) c * b->n + b0,
                                           acc + (size_t) c * na);
                }
                if (J1 == bj_n)
                    for (int c = 0; c < ncols; c++)
                        for (int i = 0; i < na; i++)
                            out[(a0 + i) + (ptrdiff_t) c * a->n] = acc[(size_t) c * na + i];
            }
            R_CheckUserInterrupt();
        }
    }
}

/* Kernel rows as floats (the SMO's cache): out[r][t] = k(b[rows[r]], b[t])
 * for all t, r < nr (nr <= KC_TILE), as tiles of nr rows by KC_TILE
 * columns, each converted by the thread that computed it.  The caller
 * chooses the threads (its tuner knows whether they pay).  work holds
 * kc_rows_work_size(b->p, nthreads) doubles: a solver asking for thousands
 * of rows allocates it once. */
size_t kc_rows_work_size(int p, int nthreads)
{
    return (size_t) nthreads * (kc_tile_work_size(p) + TILE_DOUBLES) +
           (size_t) round_up(KC_TILE, MR) * p;
}

void kc_rows(const kc_kernel *k, const kc_points *b, const int *rows, int nr,
             float *const *out, int nthreads, double *work)
{
    if (nr < 1 || nr > KC_TILE) error("kernclass internal: 1 to %d kernel rows at a time", KC_TILE);
    size_t per_thread = kc_tile_work_size(b->p) + TILE_DOUBLES;
    int nbj = nblocks(b->n);
    double *rows_packed = work + (size_t) nthreads * per_thread;
    pack_rows(b, rows, 0, nr, MR, rows_packed);
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
    for (int J = 0; J < nbj; J++) {
        double *mine = work + (size_t) thread_id() * per_thread;
        double *tile = mine + kc_tile_work_size(b->p);
        ptrdiff_t b0 = (ptrdiff_t) J * KC_TILE;
        int nb = block_len(b->n, J);
        kernel_tile(k, b, rows, 0, nr, b, NULL, b0, nb, rows_packed, mine, tile);
        for (int r = 0; r < nr; r++) {
            float *dst = out[r] + b0;
            const double *src = tile + (size_t) r * nb;
#pragma omp simd
            for (int t = 0; t < nb; t++) dst[t] = (float) src[t];
        }
    }
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

/* Sum of k(x_i, x_j) over all pairs i, j of the same group.  Only the tiles
 * on and above each group's diagonal are computed (the sum is symmetric). */
void kc_within_group_sums(const kc_kernel *k, const kc_points *b,
                          const int *group, int ngroups, double *out,
                          int nthreads)
{
    ptrdiff_t n = b->n;
    /* stable counting sort of the rows by group */
    ptrdiff_t *start = (ptrdiff_t *) R_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
    for (int g = 0; g <= ngroups; g++) start[g] = 0;
    for (ptrdiff_t i = 0; i < n; i++) start[group[i] + 1]++;
    for (int g = 0; g < ngroups; g++) start[g + 1] += start[g];
    int *order = (int *) R_alloc((size_t) n, sizeof(int));
    ptrdiff_t *fill = (ptrdiff_t *) R_alloc((size_t) ngroups, sizeof(ptrdiff_t));
    for (int g = 0; g < ngroups; g++) fill[g] = start[g];
    for (ptrdiff_t i = 0; i < n; i++) order[fill[group[i]]++] = (int) i;

    /* The rows copied in group order, each group starting on a tile
     * boundary (zero rows between groups), then packed once: tiles are read
     * as contiguous ranges instead of gathered row by row (a gather touches
     * one cache line per value: measured 24 ns a kernel value at n = 30,000,
     * d = 100, against 8 for ranges). */
    int p = b->p;
    ptrdiff_t *gstart = (ptrdiff_t *) R_alloc((size_t) ngroups + 1, sizeof(ptrdiff_t));
    gstart[0] = 0;
    for (int g = 0; g < ngroups; g++)
        gstart[g + 1] = gstart[g] + (ptrdiff_t) nblocks(start[g + 1] - start[g]) * KC_TILE;
    ptrdiff_t total = gstart[ngroups];
    if ((double) total * p * sizeof(double) > (double) PTRDIFF_MAX / 2 || total > INT_MAX - KC_TILE)
        error("kernclass: the data are too large (%.0f rows)", (double) total);
    double *xs = (double *) R_alloc((size_t) total * p + 1, sizeof(double));
    double *ns = (double *) R_alloc((size_t) total + 1, sizeof(double));
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
    kc_points sorted = {xs, total, p, b->sqnorm ? ns : NULL, NULL};
    kc_pack_points(&sorted);

    /* the task list: (group, I, J) with I <= J */
    double ntasks_d = 0;
    for (int g = 0; g < ngroups; g++) {
        double m = nblocks(start[g + 1] - start[g]);
        ntasks_d += m * (m + 1) / 2;
    }
    if (ntasks_d * 3 * sizeof(int) > (double) PTRDIFF_MAX)
        error("kernclass: too many tiles (%.0f)", ntasks_d);
    size_t ntasks = (size_t) ntasks_d;
    nthreads = threads_for(ntasks_d * 2.0 * KC_TILE * KC_TILE * (p + 10), nthreads);
    int *task = (int *) R_alloc(ntasks * 3 + 1, sizeof(int));
    double *partial = (double *) R_alloc(ntasks + 1, sizeof(double));
    size_t t = 0;
    for (int g = 0; g < ngroups; g++) {
        int m = nblocks(start[g + 1] - start[g]);
        for (int I = 0; I < m; I++)
            for (int J = I; J < m; J++) {
                task[3 * t] = g; task[3 * t + 1] = I; task[3 * t + 2] = J;
                t++;
            }
    }

    size_t work_n = kc_tile_work_size(p);
    scratch s = scratch_alloc(nthreads, work_n + TILE_DOUBLES);
    size_t chunk = (size_t) nthreads * tiles_per_chunk(p);
    for (size_t t0 = 0; t0 < ntasks; t0 += chunk) {
        size_t t1 = t0 + chunk < ntasks ? t0 + chunk : ntasks;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic) if (nthreads > 1)
        for (size_t u = t0; u < t1; u++) {
            int g = task[3 * u], I = task[3 * u + 1], J = task[3 * u + 2];
            double *work = scratch_for(&s, thread_id());
            double *tile = work + work_n;
            ptrdiff_t ng = start[g + 1] - start[g];
            int na = block_len(ng, I), nb = block_len(ng, J);
            kernel_tile(k, &sorted, NULL, gstart[g] + (ptrdiff_t) I * KC_TILE, na,
                        &sorted, NULL, gstart[g] + (ptrdiff_t) J * KC_TILE, nb, NULL, work, tile);
            double sum = tile_sum(tile, (size_t) na * nb);
            partial[u] = I == J ? sum : 2.0 * sum;
        }
        R_CheckUserInterrupt();
    }
    for (int g = 0; g < ngroups; g++) out[g] = 0.0;
    for (size_t u = 0; u < ntasks; u++) out[task[3 * u]] += partial[u];
}
