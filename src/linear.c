/* A linear SVM by dual coordinate descent with shrinking (Hsieh, Chang,
 * Lin, Keerthi and Sundararajan 2008, the algorithm of LIBLINEAR's L1-loss
 * SVC): minimise (1/2) a'Qa - sum(a), 0 <= a_i <= C_i, Q_ij = y_i y_j x_i'x_j,
 * with x_i a row of features followed by the constant `bias`, so that the
 * offset is the weight of that constant (regularised with the others, as
 * LIBLINEAR's).  One coordinate at a time, in a random order each pass
 * (R's RNG, or a problem's own generator when problems run side by side),
 * keeping w = sum a_i y_i x_i.  Coordinates at a bound whose gradient
 * points outside by more than last pass's extremes leave the active set;
 * when the active ones meet the tolerance, all are checked once more before
 * stopping.
 *
 * Each coordinate reads its whole row, and at a useful rank the rows of a
 * problem do not fit the caches: the solver is bound by memory.  So it
 * reads the rows in half precision (IEEE binary16, 2 bytes a feature
 * instead of the store's 4), each row scaled by a power of 2 that brings
 * its largest value to [1/2, 1) (exact, and no overflow whatever the
 * kernel's scale): x_i = s_i h_i, h_i the row divided by s_i rounded to
 * nearest (ties to even), a relative error of at most 2^-11 per feature,
 * or s_i 2^-25 in absolute terms below 2^-14 (the features themselves are
 * the Nystrom map's, each only as good as its rank; the solution is
 * exactly the one on the rounded rows, which the tests transcribe).  The
 * next row is prefetched while this one computes.  45 class pairs of
 * 12,000 rows x 2,000 features at cost 10: 35.5 CPU seconds on floats,
 * 22.9 on halves (back to back on the shared 2-core machine, load 11-13). */
#include <math.h>
#include <string.h>
#include <stdint.h>
#include <R.h>
#include <Rinternals.h>
#include "kernclass.h"
#include "linear.h"
#include "isa.h"
#include "units.h"

/* binary16 from a float of absolute value below 2^16, rounded to nearest
 * with ties to even (the rounding of the F16C instructions), and back. */
static uint16_t half_from(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t) ((x >> 16) & 0x8000);
    x &= 0x7fffffff;
    if (x < 0x38800000) {  /* below 2^-14: a subnormal half, a multiple of 2^-24 */
        float v = nearbyintf(fabsf(f) * 16777216.0f);  /* the default rounding: to even */
        return (uint16_t) (sign | (uint16_t) v);  /* 1024 is the smallest normal, as it should */
    }
    uint32_t h = ((((x >> 23) - 127 + 15) << 10) | ((x & 0x7fffff) >> 13)),
             rest = x & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) h++;  /* a carry moves to the exponent */
    return (uint16_t) (sign | h);
}

static float half_to(uint16_t h)
{
    uint32_t sign = (uint32_t) (h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0) {
        float v = ldexpf((float) m, -24);
        return sign ? -v : v;
    }
    uint32_t x = sign | ((e + 127 - 15) << 23) | (m << 13);  /* e < 31: the rows are finite */
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

/* Row zi's largest absolute value, or a value that is not finite. */
static float row_top(const float *zi, int r)
{
    float top = 0;
    for (int t = 0; t < r; t++) {
        if (!isfinite(zi[t])) return zi[t];
        top = fabsf(zi[t]) > top ? fabsf(zi[t]) : top;
    }
    return top;
}

/* hi = the halves of zi times inv (a power of 2): their sum of squares. */
static double row_halves(const float *zi, float inv, int r, uint16_t *hi)
{
    double sq = 0;
    for (int t = 0; t < r; t++) {
        hi[t] = half_from(zi[t] * inv);
        double v = half_to(hi[t]);
        sq += v * v;
    }
    return sq;
}

/* h'w in four interleaved sums (so the additions need not wait on one
 * another), then added in a fixed order. */
static double dot(const uint16_t *h, const double *w, int r)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int t = 0;
    for (; t + 4 <= r; t += 4) {
        s0 += half_to(h[t]) * w[t];
        s1 += half_to(h[t + 1]) * w[t + 1];
        s2 += half_to(h[t + 2]) * w[t + 2];
        s3 += half_to(h[t + 3]) * w[t + 3];
    }
    for (; t < r; t++) s0 += half_to(h[t]) * w[t];
    return (s0 + s1) + (s2 + s3);
}

/* splitmix64 (Steele, Lea and Flood 2014): a uniform on [0, 1) from the
 * top 53 bits. */
static double rng_uniform(kc_linear_rng *g)
{
    unsigned long long x = (g->state += 0x9E3779B97F4A7C15ULL);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return (double) (x >> 11) * (1.0 / 9007199254740992.0);
}

/* w += d h (the update of a coordinate's move). */
static void axpy(double d, const uint16_t *h, double *w, int r)
{
    for (int t = 0; t < r; t++) w[t] += d * half_to(h[t]);
}

/* The same two with AVX2, FMA and F16C, eight halves widened to floats
 * and then to doubles at a time (R builds without -march: compiled for
 * their target alone, used where the engine chose AVX2 or AVX-512,
 * src/isa.c, all of which have F16C); the dot in four interleaved sums of
 * four lanes, added in a fixed order. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KC_LINEAR_AVX2 1

__attribute__((target("avx2,fma,f16c")))
static double dot_avx2(const uint16_t *h, const double *w, int r)
{
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    int t = 0;
    for (; t + 16 <= r; t += 16) {
        __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (h + t)));
        __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (h + t + 8)));
        s0 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), _mm256_loadu_pd(w + t), s0);
        s1 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), _mm256_loadu_pd(w + t + 4),
                             s1);
        s2 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(b)), _mm256_loadu_pd(w + t + 8),
                             s2);
        s3 = _mm256_fmadd_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(b, 1)),
                             _mm256_loadu_pd(w + t + 12), s3);
    }
    double lane[4];
    _mm256_storeu_pd(lane, _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3)));
    double s = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (; t < r; t++) s += half_to(h[t]) * w[t];
    return s;
}

/* row_halves by F16C's conversions (the same rounding); the sum of squares
 * in four lanes, added in a fixed order. */
__attribute__((target("avx2,fma,f16c")))
static double row_halves_avx2(const float *zi, float inv, int r, uint16_t *hi)
{
    __m256 f = _mm256_set1_ps(inv);
    __m256d s0 = _mm256_setzero_pd(), s1 = s0;
    int t = 0;
    for (; t + 8 <= r; t += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_mul_ps(_mm256_loadu_ps(zi + t), f),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *) (hi + t), h);
        __m256 v = _mm256_cvtph_ps(h);
        __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(v)),
                up = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
        s0 = _mm256_fmadd_pd(lo, lo, s0);
        s1 = _mm256_fmadd_pd(up, up, s1);
    }
    double lane[4];
    _mm256_storeu_pd(lane, _mm256_add_pd(s0, s1));
    double sq = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (; t < r; t++) {
        hi[t] = half_from(zi[t] * inv);
        double v = half_to(hi[t]);
        sq += v * v;
    }
    return sq;
}

__attribute__((target("avx2,fma,f16c")))
static void axpy_avx2(double d, const uint16_t *h, double *w, int r)
{
    __m256d dd = _mm256_set1_pd(d);
    int t = 0;
    for (; t + 8 <= r; t += 8) {
        __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (h + t)));
        _mm256_storeu_pd(w + t, _mm256_fmadd_pd(dd, _mm256_cvtps_pd(_mm256_castps256_ps128(a)),
                                                _mm256_loadu_pd(w + t)));
        _mm256_storeu_pd(w + t + 4, _mm256_fmadd_pd(dd, _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)),
                                                    _mm256_loadu_pd(w + t + 4)));
    }
    for (; t < r; t++) w[t] += d * half_to(h[t]);
}
#endif

static int use_avx2(void)
{
#ifdef KC_LINEAR_AVX2
    return strcmp(kc_engine_name(), "c") != 0;
#else
    return 0;
#endif
}

int kc_linear_halves(const float *z, int r, const int *rows, int n, uint16_t *h, double *scale,
                     double *sq)
{
    double (*halves)(const float *, float, int, uint16_t *) = row_halves;
#ifdef KC_LINEAR_AVX2
    if (use_avx2()) halves = row_halves_avx2;
#endif
    for (int i = 0; i < n; i++) {
        const float *zi = z + (size_t) rows[i] * r;
        float top = row_top(zi, r);
        if (!isfinite(top)) return 0;
        int e = 0;
        if (top > 0) frexpf(top, &e);  /* top = f 2^e, f in [1/2, 1) */
        scale[i] = ldexp(1.0, e);
        sq[i] = halves(zi, ldexpf(1.0f, -e), r, h + (size_t) i * r);
    }
    return 1;
}

void kc_linear_svm(const kc_linear_store *st, const int *rows, int n, const int *y,
                   const double *C, const kc_linear_options *opt, kc_linear_rng *rng,
                   double *w, double *alpha, kc_linear_result *res)
{
    const uint16_t *z = st->h;
    const double *sc = st->scale;
    int r = st->r;
    double *qd = (double *) kc_alloc((size_t) n + 1, sizeof(double));
    int *index = (int *) kc_alloc((size_t) n + 1, sizeof(int));
    double bias = opt->bias, eps = opt->eps;
    long max_pass = opt->max_pass;
    int shrinking = opt->shrinking;
    double (*dotf)(const uint16_t *, const double *, int) = dot;
    void (*axpyf)(double, const uint16_t *, double *, int) = axpy;
#ifdef KC_LINEAR_AVX2
    if (use_avx2()) {
        dotf = dot_avx2;
        axpyf = axpy_avx2;
    }
#endif
    for (int t = 0; t <= r; t++) w[t] = 0;
    for (int i = 0; i < n; i++) {
        qd[i] = sc[rows[i]] * sc[rows[i]] * st->sq[rows[i]] + bias * bias;
        alpha[i] = 0;
        index[i] = i;
    }
    int active = n;
    double pg_max_old = R_PosInf, pg_min_old = R_NegInf;
    long pass = 0;
    res->status = KC_LINEAR_MAX_PASS;
    while (pass < max_pass) {
        double pg_max = R_NegInf, pg_min = R_PosInf;
        for (int s = 0; s < active; s++) {
            double u = rng ? rng_uniform(rng) : unif_rand();
            int j = s + (int) (u * (active - s));
            if (j >= active) j = active - 1;
            int tmp = index[s]; index[s] = index[j]; index[j] = tmp;
        }
        for (int s = 0; s < active; s++) {
            int i = index[s];
            const uint16_t *zi = z + (size_t) rows[i] * r;
            double si = sc[rows[i]];
#if defined(__GNUC__) || defined(__clang__)
            if (s + 1 < active) {  /* the next row, from memory while this one computes */
                const char *next = (const char *) (z + (size_t) rows[index[s + 1]] * r);
                for (size_t b = 0; b < (size_t) r * sizeof(uint16_t); b += 64)
                    __builtin_prefetch(next + b);
            }
#endif
            double g = y[i] * (si * dotf(zi, w, r) + w[r] * bias) - 1;
            double pg = 0;
            if (alpha[i] == 0) {
                if (shrinking && g > pg_max_old) {
                    active--;
                    index[s] = index[active];
                    index[active] = i;
                    s--;
                    continue;
                }
                if (g < 0) pg = g;
            } else if (alpha[i] == C[i]) {
                if (shrinking && g < pg_min_old) {
                    active--;
                    index[s] = index[active];
                    index[active] = i;
                    s--;
                    continue;
                }
                if (g > 0) pg = g;
            } else {
                pg = g;
            }
            if (pg > pg_max) pg_max = pg;
            if (pg < pg_min) pg_min = pg;
            if (fabs(pg) > 1e-12) {
                double old = alpha[i], a = old - g / qd[i];
                a = a < 0 ? 0 : (a > C[i] ? C[i] : a);
                alpha[i] = a;
                double d = (a - old) * y[i];
                axpyf(d * si, zi, w, r);
                w[r] += d * bias;
            }
        }
        pass++;
        kc_check_interrupt();  /* between passes: w and alpha are the caller's */
        if (active == 0 || pg_max - pg_min <= eps) {
            if (active == n) { res->status = KC_LINEAR_CONVERGED; break; }
            active = n;  /* check every coordinate before stopping */
            pg_max_old = R_PosInf;
            pg_min_old = R_NegInf;
            continue;
        }
        pg_max_old = pg_max <= 0 ? R_PosInf : pg_max;
        pg_min_old = pg_min >= 0 ? R_NegInf : pg_min;
    }
    double obj = 0, sa = 0;
    for (int t = 0; t <= r; t++) obj += w[t] * w[t];
    for (int i = 0; i < n; i++) sa += alpha[i];
    res->objective = obj / 2 - sa;
    res->passes = pass;
}

typedef struct {
    const kc_linear_store *st;
    kc_linear_problem *p;
    const kc_linear_options *opt;
} many_ctx;

static void solve_one(void *ctx, int u, int thread)
{
    (void) thread;
    many_ctx *c = (many_ctx *) ctx;
    kc_linear_problem *p = c->p + u;
    kc_linear_svm(c->st, p->rows, p->n, p->y, p->C, c->opt, &p->rng, p->w, p->alpha, &p->res);
}

void kc_linear_many(const kc_linear_store *st, kc_linear_problem *p, int np,
                    const kc_linear_options *opt, int nthreads)
{
    many_ctx c = {st, p, opt};
    kc_units_status why = kc_units(np, nthreads, solve_one, &c);
    if (why != KC_UNITS_DONE) kc_units_raise(why);
}
