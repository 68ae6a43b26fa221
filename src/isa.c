/* The instruction-set kernels: the innermost loops of the kernel engine
 * (kernel.c), in portable C and, where the CPU has them, in AVX2 and AVX-512
 * versions, chosen once at load time (kc_choose_kernels) into kc_isa. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "isa.h"

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

/* The rbf and laplace kernels from squared distances:
 * v[i] = exp(-g v[i]), or exp(-g sqrt(v[i])) when root. */
static void exp_bulk_c(double *v, size_t n, double g, int root)
{
    for (size_t i = 0; i < n; i++) v[i] = exp(-g * (root ? sqrt(v[i]) : v[i]));
}

/* Squared distances ||a||^2 + ||b_j||^2 - 2 a'b_j in place of the inner
 * products row[j]; returns whether any lost digits to cancellation.  One
 * body, compiled for each instruction set (omp simd: vectorised at -O2). */
#define SQDIST_ROW_BODY                                                     \
    int cancelled = 0;                                                      \
    _Pragma("omp simd reduction(|:cancelled)")                              \
    for (int j = 0; j < nb; j++) {                                          \
        double scale = asq + bsq[j], d2 = scale - 2.0 * row[j];             \
        cancelled |= KC_NEEDS_REFINE(d2, scale);                            \
        row[j] = d2;                                                        \
    }                                                                       \
    return cancelled;

static int sqdist_row_c(double *row, double asq, const double *bsq, int nb)
{
    SQDIST_ROW_BODY
}

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

/* g[t] += a ys[t] k[t]: the solver's gradient from one float kernel row
 * (its initial gradient and the part due to bounded variables: a row per
 * variable, which the baseline's two doubles at a time made a tenth of a
 * tuning path's time).  The AVX versions may fuse the multiply and add, as
 * the engine's kernels do: the last bit can differ from the portable one's,
 * never between two fits on one machine. */
#define ROW_UPDATE_BODY                                                     \
    _Pragma("omp simd")                                                     \
    for (int t = 0; t < n; t++) g[t] += a * ys[t] * k[t];

static void to_float_c(const double *src, float *dst, int n)
{
    for (int i = 0; i < n; i++) dst[i] = (float) src[i];
}

static void row_update_c(double *g, const double *ys, const float *k, double a, int n)
{
    ROW_UPDATE_BODY
}

/* The same with AVX2 and FMA: the 6 x 8 block lives in 12 ymm registers, each
 * feature costs 2 loads, 6 broadcasts and 12 fused multiply-adds (measured on
 * one core: 56 GFLOP/s, against 19 for the C version compiled for AVX2).  R
 * builds packages without -march, so it is compiled for its target alone and
 * chosen at run time when the CPU has both. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KC_HAVE_AVX2_KERNEL 1

#define KC_BLOCK_T double
#define KC_BLOCK_V __m256d
#define KC_BLOCK_OP(op) _mm256_##op##_pd
#define KC_BLOCK_STORE _mm256_storeu_pd
#define KC_BLOCK_LANES 4
#define KC_BLOCK_W NR
#define KC_BLOCK_TARGET "avx2,fma"
#define KC_BLOCK_MICRO micro_kernel_avx2
#include "isa-blocks.h"

/* SQDIST_ROW_BODY in intrinsics: its branches (the unordered tests of
 * KC_NEEDS_REFINE) keep the compiler from vectorising it.  The same
 * operations: one fused d2 = scale - 2 row[j], the tests as masks. */
__attribute__((target("avx2,fma")))
static int sqdist_row_avx2(double *row, double asq, const double *bsq, int nb)
{
    const __m256d a = _mm256_set1_pd(asq), two = _mm256_set1_pd(2.0);
    const __m256d refine = _mm256_set1_pd(KC_REFINE), big = _mm256_set1_pd(DBL_MAX);
    __m256d cancelled = _mm256_setzero_pd();
    int j = 0;
    for (; j + 4 <= nb; j += 4) {
        __m256d scale = _mm256_add_pd(a, _mm256_loadu_pd(bsq + j));
        __m256d d2 = _mm256_fnmadd_pd(two, _mm256_loadu_pd(row + j), scale);
        __m256d bad = _mm256_or_pd(_mm256_cmp_pd(d2, _mm256_mul_pd(refine, scale), _CMP_NGE_UQ),
                                   _mm256_cmp_pd(scale, big, _CMP_NLE_UQ));
        cancelled = _mm256_or_pd(cancelled, bad);
        _mm256_storeu_pd(row + j, d2);
    }
    int any = _mm256_movemask_pd(cancelled) != 0;
    for (; j < nb; j++) {
        double scale = asq + bsq[j], d2 = scale - 2.0 * row[j];
        any |= KC_NEEDS_REFINE(d2, scale);
        row[j] = d2;
    }
    return any;
}

__attribute__((target("avx2,fma")))
static void tile_times_weights_avx2(const double *tile, int na, int nb, const double *w, double *acc)
{
    TILE_TIMES_WEIGHTS_BODY
}

__attribute__((target("avx2,fma")))
static void row_update_avx2(double *g, const double *ys, const float *k, double a, int n)
{
    ROW_UPDATE_BODY
}

/* kc_gram's copies out of a tile (isa.h): in the AVX-512 engine too (the
 * copies are bound by memory, as fast in 256 bits).  Written one value at
 * a time, scalar conversions and stores, they took a third of the kernel
 * matrices' time in a race on the README's grid (perf: 9% of the search,
 * against 6% for these). */
__attribute__((target("avx2,fma")))
static inline void transpose4_avx2(const double *src, int lds, double *out, ptrdiff_t ldo)
{
    __m256d a = _mm256_loadu_pd(src), b = _mm256_loadu_pd(src + lds),
            c = _mm256_loadu_pd(src + 2 * lds), d = _mm256_loadu_pd(src + 3 * lds);
    __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b),
            t2 = _mm256_unpacklo_pd(c, d), t3 = _mm256_unpackhi_pd(c, d);
    _mm256_storeu_pd(out, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(out + ldo, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(out + 2 * ldo, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(out + 3 * ldo, _mm256_permute2f128_pd(t1, t3, 0x31));
}

__attribute__((target("avx2,fma")))
static void transpose8_avx2(const double *src, int lds, double *out, float *outf, ptrdiff_t ldo)
{
    if (!outf) {
        transpose4_avx2(src, lds, out, ldo);
        transpose4_avx2(src + 4, lds, out + 4 * ldo, ldo);
        transpose4_avx2(src + 4 * (ptrdiff_t) lds, lds, out + 4, ldo);
        transpose4_avx2(src + 4 * (ptrdiff_t) lds + 4, lds, out + 4 * ldo + 4, ldo);
        return;
    }
#define KC_ROW_FLOATS(i)                                                                \
    __m256 r##i = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(src + (i) * (ptrdiff_t) lds + 4)), \
                                  _mm256_cvtpd_ps(_mm256_loadu_pd(src + (i) * (ptrdiff_t) lds)));
    KC_ROW_FLOATS(0) KC_ROW_FLOATS(1) KC_ROW_FLOATS(2) KC_ROW_FLOATS(3)
    KC_ROW_FLOATS(4) KC_ROW_FLOATS(5) KC_ROW_FLOATS(6) KC_ROW_FLOATS(7)
#undef KC_ROW_FLOATS
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
           t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3),
           t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
           t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    /* s0: column 0 of rows 0-3 and column 4; s1: 1 and 5; s2: 2 and 6; s3: 3 and 7 */
    __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)),
           s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)),
           s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)),
           s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)),
           s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)),
           s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2)),
           s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)),
           s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
    _mm256_storeu_ps(outf, _mm256_permute2f128_ps(s0, s4, 0x20));
    _mm256_storeu_ps(outf + ldo, _mm256_permute2f128_ps(s1, s5, 0x20));
    _mm256_storeu_ps(outf + 2 * ldo, _mm256_permute2f128_ps(s2, s6, 0x20));
    _mm256_storeu_ps(outf + 3 * ldo, _mm256_permute2f128_ps(s3, s7, 0x20));
    _mm256_storeu_ps(outf + 4 * ldo, _mm256_permute2f128_ps(s0, s4, 0x31));
    _mm256_storeu_ps(outf + 5 * ldo, _mm256_permute2f128_ps(s1, s5, 0x31));
    _mm256_storeu_ps(outf + 6 * ldo, _mm256_permute2f128_ps(s2, s6, 0x31));
    _mm256_storeu_ps(outf + 7 * ldo, _mm256_permute2f128_ps(s3, s7, 0x31));
}

__attribute__((target("avx2,fma")))
static void to_float_avx2(const double *src, float *dst, int n)
{
    int i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(dst + i, _mm256_cvtpd_ps(_mm256_loadu_pd(src + i)));
    for (; i < n; i++) dst[i] = (float) src[i];
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
 * (an absolute error below exp(-708) = 3.3e-308).  The last n % 4 values go through
 * masked loads and stores, so that every value, wherever it lies in a row,
 * comes from the same formula. */
__attribute__((target("avx2,fma")))
static void exp_bulk_avx2(double *v, size_t n, double g, int root)
{
    const __m256d minus_g = _mm256_set1_pd(-g);
    const __m256d log2e = _mm256_set1_pd(1.4426950408889634074);
    const __m256d ln2_hi = _mm256_set1_pd(6.93147180369123816490e-01);
    const __m256d ln2_lo = _mm256_set1_pd(1.90821492927058770002e-10);
    const __m256d round = _mm256_set1_pd(6755399441055744.0);  /* 1.5 * 2^52 */
    const __m256d lowest = _mm256_set1_pd(-708.0);
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    for (size_t i = 0; i < n; i += 4) {
        __m256i in = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long) (n - i)), lane);
        __m256d x = _mm256_maskload_pd(v + i, in);  /* 0 past the end */
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
        _mm256_maskstore_pd(v + i, in, _mm256_andnot_pd(under, y));
    }
}

/* AVX-512: a 6 x 16 block (two adjacent panels of b) in 12 zmm registers,
 * the same sums in the same order as above, twice the width; one row and
 * four rows against four panels (32 columns). */
#define KC_BLOCK_T double
#define KC_BLOCK_V __m512d
#define KC_BLOCK_OP(op) _mm512_##op##_pd
#define KC_BLOCK_STORE _mm512_storeu_pd
#define KC_BLOCK_LANES 8
#define KC_BLOCK_W NR
#define KC_BLOCK_TARGET "avx512f"
#define KC_BLOCK_MICRO micro_kernel_avx512
#define KC_BLOCK_ROW row_kernel_avx512
#define KC_BLOCK_ROWS4 rows4_kernel_avx512
#include "isa-blocks.h"

__attribute__((target("avx512f")))
static int sqdist_row_avx512(double *row, double asq, const double *bsq, int nb)
{
    const __m512d a = _mm512_set1_pd(asq), two = _mm512_set1_pd(2.0);
    const __m512d refine = _mm512_set1_pd(KC_REFINE), big = _mm512_set1_pd(DBL_MAX);
    __mmask8 cancelled = 0;
    int j = 0;
    for (; j + 8 <= nb; j += 8) {
        __m512d scale = _mm512_add_pd(a, _mm512_loadu_pd(bsq + j));
        __m512d d2 = _mm512_fnmadd_pd(two, _mm512_loadu_pd(row + j), scale);
        cancelled |= _mm512_cmp_pd_mask(d2, _mm512_mul_pd(refine, scale), _CMP_NGE_UQ) |
                     _mm512_cmp_pd_mask(scale, big, _CMP_NLE_UQ);
        _mm512_storeu_pd(row + j, d2);
    }
    return sqdist_row_avx2(row + j, asq, bsq + j, nb - j) || cancelled;
}

__attribute__((target("avx512f")))
static void tile_times_weights_avx512(const double *tile, int na, int nb, const double *w, double *acc)
{
    TILE_TIMES_WEIGHTS_BODY
}

__attribute__((target("avx512f")))
static void row_update_avx512(double *g, const double *ys, const float *k, double a, int n)
{
    ROW_UPDATE_BODY
}

/* exp_bulk_avx2's algorithm, eight at a time. */
__attribute__((target("avx512f")))
static void exp_bulk_avx512(double *v, size_t n, double g, int root)
{
    const __m512d minus_g = _mm512_set1_pd(-g);
    const __m512d log2e = _mm512_set1_pd(1.4426950408889634074);
    const __m512d ln2_hi = _mm512_set1_pd(6.93147180369123816490e-01);
    const __m512d ln2_lo = _mm512_set1_pd(1.90821492927058770002e-10);
    const __m512d round = _mm512_set1_pd(6755399441055744.0);
    const __m512d lowest = _mm512_set1_pd(-708.0);
    for (size_t i = 0; i < n; i += 8) {
        __mmask8 in = n - i >= 8 ? 0xFF : (__mmask8) ((1u << (n - i)) - 1);
        __m512d x = _mm512_maskz_loadu_pd(in, v + i);  /* 0 past the end */
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
        _mm512_mask_storeu_pd(v + i, in, _mm512_maskz_mov_pd(keep, y));
    }
}
#endif

#ifdef KC_HAVE_AVX2_KERNEL
/* The SMO solver's passes, eight variables at a time (kc_isa_kernels).
 * Every product and sum is its own rounded operation (the _round forms,
 * which the compiler never fuses), as in smo-select.c's loop compiled for the
 * baseline, so the iterates are the same on every instruction set.  Each
 * lane keeps its best value and the last position that reached it; the
 * lanes then give the overall best and, among lanes holding it, the last
 * position: the variable the loop in order would keep.  They take whole
 * eights of variables; smo-select.c's loop, compiled for the baseline, goes on
 * from their result with the rest.
 * Over every variable only (no active list): on a shrunk set, gathering
 * the scattered variables cost more than the loop's early skips (measured:
 * the default grid at n = 5,000 screened, one thread: 20.0 s scalar,
 * 21.9 s with gathers, 19.1 s vectorised on full sets only).  The upper
 * halves of the registers are cleared before the baseline code runs: left
 * dirty (the compiler did not clear them here), they slowed the solver's
 * scalar SSE code after each pass by 10-25%. */
#define KC_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* The flags, doubles and floats (as doubles) of variables t..t+7. */
__attribute__((target("avx512f")))
static inline __m512i smo_flags(const unsigned char *moves, int t)
{
    return _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *) (moves + t)));
}

__attribute__((target("avx512f")))
static inline __m512d smo_floats(const float *v, int t)
{
    return _mm512_cvtps_pd(_mm256_loadu_ps(v + t));
}

/* The position of the lane holding the best value (in *best), the last
 * among equals; -1 where no lane has one. */
__attribute__((target("avx512f")))
static inline int smo_last_best(__m512d v, __m512i pos, double best)
{
    __mmask8 at = _mm512_cmp_pd_mask(v, _mm512_set1_pd(best), _CMP_EQ_OQ) &
                  _mm512_cmp_epi64_mask(pos, _mm512_setzero_si512(), _MM_CMPINT_NLT);
    return at ? (int) _mm512_mask_reduce_max_epi64(at, pos) : -1;
}

__attribute__((target("avx512f")))
static void smo_scan_j_avx512(const double *G, const double *ys, const double *QD,
                              const unsigned char *moves, int t0, int t1, double gm, double QDi,
                              const float *Ki, double *best_out, int *j_out, double *gmax2_out)
{
    const __m512d vgm = _mm512_set1_pd(gm), vqdi = _mm512_set1_pd(QDi), zero = _mm512_setzero_pd();
    const __m512d two = _mm512_set1_pd(2.0), tau = _mm512_set1_pd(KC_TAU);
    const __m512i down_flag = _mm512_set1_epi64(KC_MOVES_DOWN), lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    __m512d vbest = _mm512_set1_pd(INFINITY), vg2 = _mm512_set1_pd(-INFINITY);
    __m512i vpos = _mm512_set1_epi64(-1);
    for (int t = t0; t < t1; t += 8) {
        __mmask8 down = _mm512_test_epi64_mask(smo_flags(moves, t), down_flag);
        if (!down) continue;
        __m512d yG = _mm512_mul_round_pd(_mm512_loadu_pd(ys + t), _mm512_loadu_pd(G + t), KC_RN);
        vg2 = _mm512_mask_mov_pd(vg2, down & _mm512_cmp_pd_mask(yG, vg2, _CMP_GT_OQ), yG);
        __m512d gd = _mm512_add_round_pd(vgm, yG, KC_RN);
        __mmask8 pos = down & _mm512_cmp_pd_mask(gd, zero, _CMP_GT_OQ);
        if (!pos) continue;
        __m512d quad = _mm512_sub_round_pd(
            _mm512_add_round_pd(vqdi, _mm512_loadu_pd(QD + t), KC_RN),
            _mm512_mul_round_pd(two, smo_floats(Ki, t), KC_RN), KC_RN);
        quad = _mm512_mask_mov_pd(tau, _mm512_cmp_pd_mask(quad, zero, _CMP_GT_OQ), quad);
        __m512d obj = _mm512_div_round_pd(
            _mm512_mul_round_pd(_mm512_sub_pd(zero, gd), gd, KC_RN), quad, KC_RN);
        __mmask8 le = pos & _mm512_cmp_pd_mask(obj, vbest, _CMP_LE_OQ);
        vbest = _mm512_mask_mov_pd(vbest, le, obj);
        vpos = _mm512_mask_mov_epi64(vpos, le, _mm512_add_epi64(_mm512_set1_epi64(t), lane));
    }
    *best_out = _mm512_reduce_min_pd(vbest);
    *j_out = smo_last_best(vbest, vpos, *best_out);
    *gmax2_out = _mm512_reduce_max_pd(vg2);
    _mm256_zeroupper();
}

__attribute__((target("avx512f")))
static void smo_update_scan_i_avx512(double *G, const double *ys, const unsigned char *moves,
                                     int t0, int t1, double ci, const float *Ki, double cj,
                                     const float *Kj, double *gmax_out, int *i_out)
{
    const __m512d vci = _mm512_set1_pd(ci), vcj = _mm512_set1_pd(cj), zero = _mm512_setzero_pd();
    const __m512i up_flag = _mm512_set1_epi64(KC_MOVES_UP), lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    __m512d vmax = _mm512_set1_pd(-INFINITY);
    __m512i vpos = _mm512_set1_epi64(-1);
    for (int t = t0; t < t1; t += 8) {
        __m512d y = _mm512_loadu_pd(ys + t);
        __m512d step = _mm512_add_round_pd(_mm512_mul_round_pd(vci, smo_floats(Ki, t), KC_RN),
                                           _mm512_mul_round_pd(vcj, smo_floats(Kj, t), KC_RN),
                                           KC_RN);
        __m512d g = _mm512_add_round_pd(_mm512_loadu_pd(G + t), _mm512_mul_round_pd(y, step, KC_RN),
                                        KC_RN);
        _mm512_storeu_pd(G + t, g);
        __mmask8 up = _mm512_test_epi64_mask(smo_flags(moves, t), up_flag);
        __m512d v = _mm512_mul_round_pd(_mm512_sub_pd(zero, y), g, KC_RN);
        __mmask8 ge = up & _mm512_cmp_pd_mask(v, vmax, _CMP_GE_OQ);
        vmax = _mm512_mask_mov_pd(vmax, ge, v);
        vpos = _mm512_mask_mov_epi64(vpos, ge, _mm512_add_epi64(_mm512_set1_epi64(t), lane));
    }
    *gmax_out = _mm512_reduce_max_pd(vmax);
    *i_out = smo_last_best(vmax, vpos, *gmax_out);
    _mm256_zeroupper();
}
#endif

/* The portable versions until kc_choose_kernels() finds better ones. */
kc_isa_kernels kc_isa = {micro_kernel_c, NULL, NULL, NULL, exp_bulk_c, sqdist_row_c,
                         tile_times_weights_c, row_update_c, NULL, NULL, NULL, to_float_c,
                         NULL, NULL, NULL, NULL, "c"};

const char *kc_engine_name(void) { return kc_isa.name; }

/* The fastest versions this CPU runs.  The environment variable
 * KERNCLASS_ISA = "c" or "avx2" caps the choice (for tests of every path,
 * and for comparisons). */
void kc_choose_kernels(void)
{
    kc_choose_float_kernels(0, 0);
#ifdef KC_HAVE_AVX2_KERNEL
    const char *cap = getenv("KERNCLASS_ISA");
    int allow_avx2 = !cap || strcmp(cap, "c") != 0;
    int allow_avx512 = allow_avx2 && (!cap || strcmp(cap, "avx2") != 0);
    __builtin_cpu_init();
    if (allow_avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        kc_isa.micro = micro_kernel_avx2;
        kc_isa.exp_bulk = exp_bulk_avx2;
        kc_isa.sqdist_row = sqdist_row_avx2;
        kc_isa.tile_times_weights = tile_times_weights_avx2;
        kc_isa.row_update = row_update_avx2;
        kc_isa.transpose8 = transpose8_avx2;
        kc_isa.to_float = to_float_avx2;
        kc_isa.name = "avx2";
        kc_choose_float_kernels(1, 0);
        if (allow_avx512 && __builtin_cpu_supports("avx512f")) {
            kc_isa.wide = micro_kernel_avx512;
            kc_isa.row = row_kernel_avx512;
            kc_isa.rows4 = rows4_kernel_avx512;
            kc_isa.exp_bulk = exp_bulk_avx512;
            kc_isa.sqdist_row = sqdist_row_avx512;
            kc_isa.tile_times_weights = tile_times_weights_avx512;
            kc_isa.row_update = row_update_avx512;
            kc_isa.smo_scan_j = smo_scan_j_avx512;
            kc_isa.smo_update_scan_i = smo_update_scan_i_avx512;
            kc_isa.name = "avx512";
            kc_choose_float_kernels(1, 1);
        }
    }
#endif
}
